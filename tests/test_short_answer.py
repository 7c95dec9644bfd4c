"""The short answer's parts: values read from contract text, the question's answer form, claims
checked against their sources, and how the short answer is shown."""

from __future__ import annotations

import numpy as np
import pytest

from clausewise.core.report import Report, ReportMetadata, ShortAnswer, Source
from tests.helpers import ConstantNli, quoted_source
from tools.claim_check import contradictions, remove_claims
from tools.question_kind import question_kind
from tools.values import find_values, same_value

SURVIVAL = (
    "The obligations in Sections 2, 3 and 4 survive the expiry or termination of this Agreement for "
    "three (3) years; however, obligations relating to trade secrets continue for so long as the "
    "information remains a trade secret under applicable law."
)
TERM = "This Agreement starts on the Effective Date and continues for two (2) years."
LAW = "This Agreement is governed by the laws of the State of New York, without regard to conflicts."


def source(number: int, quote: str, start: int = 0) -> Source:
    """Source ``number``, clause ``number``.1, quoting ``quote`` at ``start``."""
    return quoted_source(number, quote, start, node_id=f"{number}.1")


@pytest.mark.parametrize(
    ("text", "normalized"),
    [
        ("survive for three (3) years; however", ["3 years"]),
        ("on thirty (30) days' written notice", ["30 days"]),
        ("a twenty-four month period", ["24 months"]),
        ("within 10 business days", ["10 business days"]),
        ("dated as of June 21, 1999", ["1999-06-21"]),
        ("made this 8th day of May, 2014", ["2014-05-08"]),
        ("signed 5/8/2014", ["2014-05-08"]),
        ("governed by the laws of the State of New York", ["new york"]),
        ("governed by Delaware law", ["delaware"]),
        ("governed by English law", ["england"]),
        ("the laws of the People's Republic of China. If any dispute arises", ["china"]),
        ("in accordance with the laws thereof", []),
        ("a fee of $1,500,000", ["USD 1500000"]),
        ("USD 2 million", ["USD 2000000"]),
    ],
)
def test_values_are_read_and_normalized(text: str, normalized: list[str]) -> None:
    assert [m.normalized for m in find_values(text)] == normalized
    for mention in find_values(text):
        assert text[mention.span[0] : mention.span[1]] == mention.text


def test_a_year_is_twelve_months_not_two() -> None:
    [year] = find_values("one (1) year")
    [months] = find_values("twelve (12) months")
    [two] = find_values("two years")
    assert same_value(year, months) and not same_value(year, two)


@pytest.mark.parametrize(
    ("question", "form", "value"),
    [
        (
            "How long must the Receiving Party keep it confidential, and what exceptions apply?",
            "value",
            "duration",
        ),
        ("Which law governs the agreement?", "value", "law"),
        ("When does the agreement expire?", "value", "expiry"),
        ("How much notice is needed to terminate the renewal?", "value", "notice period"),
        ("Who are the parties to the agreement?", "value", "party"),
        ("May the Receiving Party disclose information to its advisers?", "verdict", None),
        ("Is there a non-solicitation clause?", "verdict", None),
        ("What are the exceptions to confidentiality?", "list", None),
    ],
)
def test_the_answer_form_follows_the_question(question: str, form: str, value: str | None) -> None:
    kind = question_kind(question)
    assert (kind.form, kind.value, kind.hypothesis) == (form, value, "")


def test_a_does_the_agreement_provide_question_carries_its_hypothesis() -> None:
    kind = question_kind("Does the agreement provide that the Receiving Party may retain copies?")
    assert kind.form == "verdict"
    assert kind.hypothesis == "The Receiving Party may retain copies."


def test_a_claim_stating_another_duration_than_its_source_is_contradicted() -> None:
    sources = [source(1, TERM), source(2, SURVIVAL, 200)]
    found = contradictions(
        ["The obligations last for two years after termination [2]. The agreement runs two (2) years [1]."],
        sources,
        "How long do the obligations last?",
    )
    assert [(c.claim, c.source) for c in found] == [
        ("The obligations last for two years after termination [2].", 2)
    ]
    assert '"three (3) years"' in found[0].describe()
    assert (
        remove_claims("A b c [2]. The obligations last for two years after termination [2].", found)
        == "A b c [2]."
    )


def test_a_claim_without_references_is_checked_against_every_source() -> None:
    found = contradictions(
        ["The agreement is governed by the laws of France."], [source(1, LAW)], "Which law?"
    )
    assert len(found) == 1 and found[0].source == 1


def test_values_the_question_names_and_questions_are_not_claims() -> None:
    sources = [source(1, SURVIVAL)]
    texts = ["The question is whether the obligations last five (5) years [1].", "Do they last two years?"]
    assert contradictions(texts, sources, "Do the obligations last five years?") == []


#: an NLI stand-in that finds every sentence contradicting the claim
CONTRADICTS_ALL = ConstantNli(0.0, 0.95)


class SupportsOne:
    def probabilities(self, hypothesis: str, pieces):
        rows = [[0.0, 0.95, 0.05]] * len(pieces)
        rows[-1] = [0.9, 0.05, 0.05]
        return np.array(rows)


def test_the_classifier_flags_a_claim_only_when_no_sentence_supports_it() -> None:
    claim = ["The Receiving Party may disclose the information to anyone [1]."]
    sources = [source(1, "The Receiving Party shall not disclose it. It may tell its advisers.")]
    assert len(contradictions(claim, sources, "q", scorer=CONTRADICTS_ALL, at=0.5)) == 1
    assert contradictions(claim, sources, "q", scorer=SupportsOne(), at=0.5) == []


def test_renderers_show_the_short_answer_first() -> None:
    short = ShortAnswer(
        form="value", value="New York", value_type="law", sources=[1], decided_by="value reader"
    )
    report = Report(
        question="Which law governs the agreement?",
        short_answer=short,
        title="Governing law",
        summary="s",
        preliminary_answer="p [1]",
        sources=[source(1, LAW)],
        metadata=ReportMetadata(contract_id="c"),
    )
    markdown = report.to_markdown()
    assert markdown.index("## Short answer") < markdown.index("## Summary")
    assert "**New York [1]**" in markdown
    assert report.to_html().index("Short answer") < report.to_html().index("Summary")
    assert list(report.model_dump())[:2] == ["question", "short_answer"]


@pytest.mark.parametrize(
    ("claim", "contradicted"),
    [
        ("Trade secrets continue for three (3) years [1].", True),
        ("The Receiving Party must protect trade secrets for 3 years after termination [1].", True),
        ("The obligations survive for three (3) years [1].", False),
        (
            "The obligations survive for three (3) years; trade secrets continue as long as they "
            "remain secret [1].",
            False,
        ),
        ("Obligations last three years, but trade secrets last while they stay secret [1].", False),
        ("Trade secrets stay protected for as long as they remain trade secrets [1].", False),
    ],
)
def test_a_value_moved_onto_what_its_source_excepts_is_contradicted(claim: str, contradicted: bool) -> None:
    found = contradictions([claim], [source(1, SURVIVAL)], "How long, and what exceptions apply?")
    assert bool(found) == contradicted
    if contradicted:
        assert "trade secrets continue for so long as" in found[0].describe()


EARLY_END = (
    "This Agreement continues for two (2) years, unless terminated earlier by either Party on thirty "
    "(30) days' written notice to the other."
)


@pytest.mark.parametrize(
    ("claim", "contradicted"),
    [
        # the demo's summary: 6.2's survival made to end on 6.1's notice of early termination
        (
            "The information must be kept confidential for three (3) years, unless terminated earlier "
            "by either Party on thirty (30) days' written notice to the other.",
            True,
        ),
        ("The obligations survive three (3) years [2], unless ended on thirty (30) days' notice [1].", True),
        # one source ties the two values together
        ("The agreement lasts two (2) years unless ended on thirty (30) days' notice [1].", False),
        # side by side, neither made to depend on the other
        ("The agreement may end on thirty (30) days' notice; the obligations survive three years.", False),
        ("The obligations survive three (3) years, except for trade secrets [2].", False),
    ],
)
def test_a_value_made_to_depend_on_another_provisions_value_is_contradicted(
    claim: str, contradicted: bool
) -> None:
    sources = [source(1, EARLY_END), source(2, SURVIVAL, 300)]
    found = contradictions([claim], sources, "How long must the information be kept confidential?")
    assert bool(found) == contradicted
    if contradicted:
        assert found[0].source == 2  # the source of the value made conditional
        assert found[0].reason == (
            "it makes three (3) years depend on thirty (30) days, which only source [1] states; "
            "no source ties them together"
        )


def test_a_finding_that_only_quotes_its_source_is_never_contradicted() -> None:
    definition = (
        "“Confidential Information” is defined as any written information that is disclosed by a "
        "disclosing party. It is marked at the time of disclosure as being “Confidential”."
    )
    finding = f'1.1 Definitions, p. 1 provides: "{definition}" [1]'
    assert contradictions([finding], [source(1, definition)], "q", scorer=CONTRADICTS_ALL, at=0.5) == []
    numbered = f"1.1. {definition}"
    assert (
        contradictions(
            [f'1.1, p. 1 provides: "{numbered}" [1]'], [source(1, numbered)], "q", scorer=CONTRADICTS_ALL
        )
        == []
    )
    altered = finding.replace("written", "oral")
    assert len(contradictions([altered], [source(1, definition)], "q", scorer=CONTRADICTS_ALL, at=0.5)) == 1


def test_a_claim_restating_its_source_is_supported_and_a_negated_one_is_not() -> None:
    definition = (
        "“Confidential Information” shall mean scientific, research, technical or business information "
        "pertaining to the Field, including inventions, know-how and trade secrets."
    )
    restated = (
        "The scope of the Confidential Information is defined as scientific, research, technical or "
        "business information pertaining to the Field, including inventions, know-how and trade secrets [1]."
    )
    assert contradictions([restated], [source(1, definition)], "q", scorer=CONTRADICTS_ALL) == []
    negated = restated.replace("including", "not including")
    assert len(contradictions([negated], [source(1, definition)], "q", scorer=CONTRADICTS_ALL)) == 1


# A second contract for the exception and join rules: a CUAD licence (CoherusBiosciences 10-K
# exhibit 10.29, CUAD v1, CC BY 4.0) and the services agreement of examples/.
CONVENIENCE_PROVISO = (
    "Licensee may terminate this Agreement for convenience upon eighteen (18) months' advance written notice "
    "to Bioeq; provided, however, that any such termination for convenience shall not become effective prior "
    "to twelve (12) months after the First Commercial Sale of the first Licensed Product."
)
MSA_TERM = (
    "This Agreement starts on the Effective Date and continues for an initial term of three (3) years. It "
    "then renews automatically for successive periods of one (1) year, unless either Party gives the other "
    "written notice of non-renewal at least ninety (90) days before the end of the then-current term."
)
MSA_SURVIVAL = (
    "The obligations in Section 6.1 continue for five (5) years after the expiry or termination of this "
    "Agreement."
)


@pytest.mark.parametrize(
    ("claim", "contradicted"),
    [
        # the rule's eighteen months moved onto what its proviso excepts
        (
            "Termination for convenience becomes effective eighteen (18) months after the First "
            "Commercial Sale [1].",
            True,
        ),
        ("The Licensee may terminate for convenience on eighteen (18) months' notice [1].", False),
    ],
)
def test_the_exception_rule_holds_on_a_licence(claim: str, contradicted: bool) -> None:
    assert bool(contradictions([claim], [source(1, CONVENIENCE_PROVISO)], "q")) == contradicted


@pytest.mark.parametrize(
    ("claim", "contradicted"),
    [
        # 6.2's five years made to end on 4.1's ninety days, which no source ties to it
        (
            "The confidentiality obligations last five (5) years unless ended on ninety (90) days' notice.",
            True,
        ),
        # 4.1 itself ties its term to the notice of non-renewal
        ("The agreement lasts three (3) years unless a party gives ninety (90) days' notice [1].", False),
    ],
)
def test_the_join_rule_holds_on_the_services_agreement(claim: str, contradicted: bool) -> None:
    sources = [source(1, MSA_TERM), source(2, MSA_SURVIVAL, 500)]
    joined = [c for c in contradictions([claim], sources, "q") if "ties them together" in c.reason]
    assert bool(joined) == contradicted


def test_a_bare_value_is_a_claim_on_the_nda_and_the_services_agreement() -> None:
    """Rule "a bare value is a claim": a preliminary answer of two words ("45 days"), contradicted
    by its source, was too short to be read as a claim and was shown (seen on the tune half). A
    bare value its source states stands; a bare word that states no value is still no claim."""
    nda = [source(1, SURVIVAL)]
    assert [c.claim for c in contradictions(["two years"], nda, "How long do the obligations last?")] == [
        "two years"
    ]
    assert contradictions(["three (3) years"], nda, "How long do the obligations last?") == []
    services = [source(1, MSA_TERM), source(2, MSA_SURVIVAL, 500)]
    assert [c.source for c in contradictions(["45 days."], services, "How much notice?")] == [1]
    assert contradictions(["Not addressed."], services, "How much notice?") == []
