"""The value reader: which stated value answers a question, and how the report follows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise.core.report import Source
from tests.helpers import quoted_source
from tools.value_reading import value_readings

NDA = Path("examples/mutual-nda.txt").read_text(encoding="utf-8")
MSA = Path("examples/services-agreement.txt").read_text(encoding="utf-8")
CONFIDENTIAL = "How long must the Receiving Party keep the other party's information confidential?"


@pytest.mark.parametrize(
    ("text", "question", "kind", "value", "words"),
    [
        # the survival clause, not the agreement's term nor the return deadline of 4.1
        pytest.param(NDA, CONFIDENTIAL, "duration", "three (3) years", "survive", id="nda-survival"),
        pytest.param(
            NDA, "How long does the agreement last?", "duration", "two (2) years", "starts on", id="nda-term"
        ),
        pytest.param(
            NDA, "When does the agreement expire?", "expiry", "two (2) years", "starts on", id="nda-expiry"
        ),
        # the duration followed by "notice", not the term stated in the same sentence
        pytest.param(
            NDA,
            "How much notice must a party give to terminate the agreement?",
            "notice period",
            "thirty (30) days",
            "6.1",
            id="nda-notice",
        ),
        pytest.param(NDA, "Which law governs the agreement?", "law", "England", "governed by", id="nda-law"),
        # the same rules on a second contract: survival, not the initial term
        pytest.param(
            MSA,
            "How long do the confidentiality obligations last?",
            "duration",
            "five (5) years",
            "continue for",
            id="msa-survival",
        ),
        pytest.param(
            MSA,
            "When does the agreement expire?",
            "expiry",
            "three (3) years",
            "initial term",
            id="msa-expiry",
        ),
        # the notice of non-renewal, not the renewal period stated beside it
        pytest.param(
            MSA,
            "How much notice must a party give to stop the agreement from renewing?",
            "notice period",
            "ninety (90) days",
            "non-renewal",
            id="msa-notice",
        ),
        pytest.param(
            MSA, "What is the renewal term?", "duration", "one (1) year", "renews", id="msa-renewal"
        ),
        pytest.param(MSA, "Which law governs the agreement?", "law", "New York", "governed by", id="msa-law"),
    ],
)
def test_the_best_reading_is_the_value_that_answers_the_question(text, question, kind, value, words) -> None:
    """The same rules on the NDA and the services agreement: the best reading states the value
    asked for, in a sentence that is the contract's own text."""
    best = value_readings(question, kind, text)[0]
    assert best.mention.text == value and words in best.text
    assert text[best.span[0] : best.span[1]] == best.text
    assert best.text[best.mention.span[0] : best.mention.span[1]] == value


def test_only_the_given_spans_are_read_and_a_question_without_a_value_type_reads_nothing() -> None:
    section_4 = (NDA.index("4.1 Within"), NDA.index("5. NO LICENCE"))
    readings = value_readings(CONFIDENTIAL, "duration", NDA, [section_4])
    assert [r.mention.text for r in readings] == ["thirty (30) days"]
    assert value_readings("Who are the parties?", "party", NDA) == []


def source(number: int, quote: str, node: str) -> Source:
    """Source ``number``: clause ``node`` of the NDA (on page 3) quoting ``quote``."""
    return quoted_source(number, quote, NDA.index(quote), node_id=node, pages=[3])


TERM = "This Agreement starts on the Effective Date and continues for two (2) years"
SURVIVAL = NDA[NDA.index("The obligations in Sections 2, 3 and 4") : NDA.index("applicable law.") + 15]


@pytest.mark.parametrize(
    ("text", "notice"),
    [
        (
            "renew for terms of twelve (12) months unless either party notifies the other in writing "
            "at least sixty (60) days prior to the end of the Initial Term",
            ["sixty (60) days"],
        ),
        ("terminate on thirty (30) days' written notice after two (2) years", ["thirty (30) days"]),
        ("continues for two (2) years after the Effective Date", []),
    ],
)
def test_a_notice_period_is_the_duration_that_says_how_long_before_notice_is_due(text, notice) -> None:
    from tools.value_reading import is_notice_period
    from tools.values import find_values

    assert [m.text for m in find_values(text, ("duration",)) if is_notice_period(text, m)] == notice


@pytest.mark.parametrize(
    ("preamble", "value"),
    [
        (
            "THIS AGREEMENT, made and entered into as of this 1st day of January, 2000, by and between "
            'MOSSIMO, INC., 2450 White Road, Irvine, California 92614 ("Company") and DAVID DUVAL '
            'ENTERPRISES, INC., c/o IMG, 1360 East 9th St., Cleveland, Ohio 44114 ("Licensor").',
            'MOSSIMO, INC. ("Company") and DAVID DUVAL ENTERPRISES, INC. ("Licensor")',
        ),
        (NDA[:1500], 'Northwind Analytics Ltd. ("Northwind") and Brightwater Health Inc. ("Brightwater")'),
        (
            "The entire agreement between the Parties with respect to the subject matter and supersedes all.",
            None,
        ),
    ],
)
def test_the_parties_are_read_from_the_preamble(preamble, value) -> None:
    from tools.value_reading import party_reading

    reading = party_reading(preamble)
    assert (reading.value() if reading else None) == value
    if reading:
        assert preamble[reading.span[0] : reading.span[1]] == reading.text


@pytest.mark.parametrize(
    ("text", "term", "obligation", "lasts"),
    [
        (NDA, "6.1 This Agreement starts", "8.1 During the term", "twelve (12) months"),
        (MSA, "Section 4.1 Term.", "Section 6.2", "five (5) years"),
    ],
)
def test_the_agreements_term_is_no_obligations_duration(
    text: str, term: str, obligation: str, lasts: str
) -> None:
    """Rule "the agreement's term is no obligation's duration": over the term's sentence alone, how
    long confidentiality lasts reads nothing; how long the agreement lasts reads the term; a
    sentence that names the obligation beside the term still answers for it."""
    start = text.index(term)
    term_span = [(start, text.index("\n", start))]
    assert value_readings("How long does confidentiality last?", "duration", text, term_span) == []
    assert value_readings("How long does the agreement last?", "duration", text, term_span)
    start = text.index(obligation)
    line = text[start : text.index("\n", start)]
    asked = (
        "How long does the non-solicitation last?"
        if "solicit" in line
        else "How long does confidentiality last?"
    )
    assert value_readings(asked, "duration", text, [(start, start + len(line))])[0].mention.text == lasts
