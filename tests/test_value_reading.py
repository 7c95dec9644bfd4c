"""The value reader: which stated value answers a question, and how the report follows it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.interrogator import _with_grounds, decision_text
from clausewise.core.report import Source
from clausewise.core.results import Draft
from tools.bottom_line import short_answer
from tools.question_kind import question_kind
from tools.value_reading import value_readings

NDA = Path("examples/mutual-nda.txt").read_text(encoding="utf-8")
CONFIDENTIAL = "How long must the Receiving Party keep the other party's information confidential?"


@pytest.mark.parametrize(
    ("question", "kind", "value", "words"),
    [
        # the survival clause, not the agreement's term nor the return deadline of 4.1
        (CONFIDENTIAL, "duration", "three (3) years", "survive"),
        ("How long does the agreement last?", "duration", "two (2) years", "starts on"),
        ("When does the agreement expire?", "expiry", "two (2) years", "starts on"),
        # the duration followed by "notice", not the term stated in the same sentence
        (
            "How much notice must a party give to terminate the agreement?",
            "notice period",
            "thirty (30) days",
            "6.1",
        ),
        ("Which law governs the agreement?", "law", "England", "governed by"),
    ],
)
def test_the_best_reading_is_the_value_that_answers_the_question(question, kind, value, words) -> None:
    best = value_readings(question, kind, NDA)[0]
    assert best.mention.text == value and words in best.text
    assert NDA[best.span[0] : best.span[1]] == best.text  # the sentence is the contract's own text
    assert best.text[best.mention.span[0] : best.mention.span[1]] == value


def test_only_the_given_spans_are_read_and_a_question_without_a_value_type_reads_nothing() -> None:
    section_4 = (NDA.index("4.1 Within"), NDA.index("5. NO LICENCE"))
    readings = value_readings(CONFIDENTIAL, "duration", NDA, [section_4])
    assert [r.mention.text for r in readings] == ["thirty (30) days"]
    assert value_readings("Who are the parties?", "party", NDA) == []


def source(number: int, quote: str, node: str) -> Source:
    start = NDA.index(quote)
    return Source(
        number=number, contract_id="c", node_id=node, pages=[3], span=(start, start + len(quote)), quote=quote
    )


TERM = "This Agreement starts on the Effective Date and continues for two (2) years"
SURVIVAL = NDA[NDA.index("The obligations in Sections 2, 3 and 4") : NDA.index("applicable law.") + 15]


def test_the_short_answer_follows_the_sentence_that_answers_over_the_cited_one() -> None:
    sources = [source(1, TERM, "6.1"), source(2, SURVIVAL, "6.2")]
    draft = Draft(
        title="t", short_answer="two (2) years [1]", summary="s", preliminary_answer="Two years [1]."
    )
    answer = short_answer(question_kind(CONFIDENTIAL), draft, sources)
    assert (answer.value, answer.sources, answer.decided_by) == ("three (3) years", [2], "value reader")
    assert "'two (2) years'" in answer.disagreement
    # the writer is told before it drafts, with the sentence and its qualification
    told = decision_text(None, sources, CONFIDENTIAL)
    assert "[2]" in told and "three (3) years" in told and "trade secret" in told
    assert decision_text(None, sources, "What exceptions apply?") == "none"


def test_the_short_answers_sources_are_shown_in_the_findings() -> None:
    sources = [source(1, TERM, "6.1"), source(2, SURVIVAL, "6.2")]
    findings = ["The agreement lasts two years [1]."]
    grounded = _with_grounds(findings, [2], sources)
    assert grounded[0] == findings[0] and len(grounded) == 2
    assert grounded[1].startswith("6.2") and "trade secret" in grounded[1] and grounded[1].endswith("[2]")
    assert _with_grounds(grounded, [2], sources) == grounded  # already shown: nothing added


def test_the_short_answer_quotes_what_its_sentence_says_of_the_value() -> None:
    sources = [
        source(1, TERM + ", unless terminated earlier by either Party", "6.1"),
        source(2, SURVIVAL, "6.2"),
    ]
    draft = Draft(title="t", short_answer="three (3) years [2]", summary="s", preliminary_answer="p [2]")
    answer = short_answer(question_kind(CONFIDENTIAL), draft, sources)
    assert answer.qualification.startswith("however, obligations relating to trade secrets")
    assert answer.qualification.endswith("under applicable law")
    assert " ".join(answer.qualification.split()) in " ".join(SURVIVAL.split())  # verbatim
    assert answer.text() == f'three (3) years [2]; "{answer.qualification}" [2]'
    term = short_answer(question_kind("How long does the agreement last?"), draft, sources)
    assert (term.value, term.qualification) == ("two (2) years", "unless terminated earlier by either Party")
    assert (
        short_answer(
            question_kind("Which law governs?"), draft, [source(1, "governed by the laws of England", "9.1")]
        ).qualification
        == ""
    )


def test_a_part_the_preliminary_answer_leaves_out_gets_its_line_and_its_findings() -> None:
    from agents.interrogator import _with_part_answers
    from clausewise.core.results import Finding, VerifiedCitation

    exceptions = NDA[NDA.index("3.1 The obligations") : NDA.index("Confidential Information.\n\n4.") + 25]
    start = NDA.index(exceptions)
    citation = VerifiedCitation(
        contract_id="c",
        node_id="3.1",
        pages=[2],
        span=(start, start + len(exceptions)),
        quote=exceptions,
        evidence=1,
    )
    parts = ["How long must the information be kept confidential?", "What exceptions apply?"]
    session = [
        Finding(turn=2, question=parts[0], answer="Three years [1].", addressed=True),  # no citation
        Finding(
            turn=3,
            question=parts[1],
            answer="Public or independently developed information [1].",
            addressed=True,
            citations=[citation],
        ),
    ]
    sources = [
        source(1, SURVIVAL, "6.2"),
        Source(number=2, contract_id="c", node_id="3.1", pages=[2], span=citation.span, quote=exceptions),
    ]
    draft = Draft(title="t", summary="s", preliminary_answer="Three (3) years [1].")
    answered = _with_part_answers(draft, parts, session, sources)
    assert answered.preliminary_answer == (
        "Three (3) years [1]. As to what exceptions apply: Public or independently developed information [2]."
    )
    assert _with_part_answers(answered, parts, session, sources) == answered  # already there
    findings = _with_grounds([], [2], sources)
    assert "(d) is independently developed" in findings[0]  # the whole list, not cut at 300 characters
    # a lead-in answer says nothing by itself: the line quotes the clause with its list
    session[1] = session[1].model_copy(update={"answer": "The following exceptions apply: [1]"})
    led = _with_part_answers(draft, parts, session, sources).preliminary_answer
    assert led.startswith(
        'Three (3) years [1]. As to what exceptions apply: 3.1, p. 2 provides: "3.1 The obligations'
    )
    assert "(d) is independently developed" in led and led.endswith('" [2].')


def test_a_preliminary_answer_that_states_no_value_opens_with_the_value_read() -> None:
    from agents.interrogator import _with_value

    sources = [source(1, TERM, "6.1"), source(2, SURVIVAL, "6.2")]
    draft = Draft(title="t", short_answer="three years [2]", summary="s", preliminary_answer="p")
    answer = short_answer(question_kind(CONFIDENTIAL), draft, sources)
    opened = _with_value("As to what exceptions apply: see [3].", answer, CONFIDENTIAL)
    topic = "As to how long must the Receiving Party keep the other party's information confidential"
    assert opened.startswith(f"{topic}: three (3) years [2];")
    assert opened.endswith("As to what exceptions apply: see [3].")
    stated = "The obligations last 3 years after termination [2]."
    assert _with_value(stated, answer, CONFIDENTIAL) == stated  # any wording of the value


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


def test_a_party_question_is_answered_by_the_preamble_and_an_expiry_by_a_term_not_a_start() -> None:
    preamble = NDA[: NDA.index("RECITALS")].strip()
    sources = [source(1, preamble, "Preamble")]
    draft = Draft(title="t", short_answer="", summary="s", preliminary_answer="p")
    parties = short_answer(question_kind("Who are the parties to the agreement?"), draft, sources)
    assert parties.decided_by == "value reader" and parties.value.startswith("Northwind Analytics Ltd.")
    assert question_kind("When does the agreement expire?").value == "expiry"
    assert question_kind("What is the effective date of the agreement?").value == "date"
    effective = value_readings("What is the effective date of the agreement?", "date", NDA)
    assert effective[0].mention.type == "date"  # a duration never answers "what is the date"
    expiry = value_readings("When does the agreement expire?", "expiry", NDA)[0]
    assert expiry.mention.text == "two (2) years"  # not "3 March 2025", the date it starts
