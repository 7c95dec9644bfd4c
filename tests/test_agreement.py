"""Rule "the writer answers as decided" (tools/decision/agreement.py), on sentences of the sample
NDA's and the services agreement's reports."""

from __future__ import annotations

import pytest

from tools.decision.agreement import disagreements, written_verdict
from tools.decision.support import restated_answer


@pytest.mark.parametrize(
    ("sentence", "verdict"),
    [
        ("Yes.", "yes"),
        ("Yes", "yes"),
        ("No, the agreement does not restrict competition [2].", "no"),
        ("YES - the laws of England and Wales govern it [1].", "yes"),
        ("No party may assign this Agreement without consent [3].", None),  # a determiner
        ("Nothing in the agreement restricts competition.", None),
        ("Yesterday's draft is superseded.", None),
        ("The laws of the State of New York govern the agreement [1].", None),
    ],
)
def test_a_written_verdict_is_the_opening_yes_or_no(sentence: str, verdict: str | None) -> None:
    assert written_verdict(sentence) == verdict


def test_a_verdict_the_decision_does_not_give_is_a_disagreement() -> None:
    nda = ["Yes. The obligations survive for three (3) years [1].", "No, nothing is excepted [2]."]
    services = ["Yes, the laws of the State of New York govern the agreement [1]."]
    assert [d.claim for d in disagreements(nda, "unclear")] == ["Yes.", "No, nothing is excepted [2]."]
    assert [d.claim for d in disagreements(nda, "yes")] == ["No, nothing is excepted [2]."]
    assert [d.verdict for d in disagreements(services, "no")] == ["yes"]
    assert disagreements(services, "yes") == []
    assert disagreements(["No, it is not addressed."], "not addressed") == []  # a no to "does it provide"
    assert disagreements(services, None) == []  # a value question: no verdict decided
    assert (
        "short answer decided from the contract is unclear"
        in disagreements(["Yes."], "unclear")[0].describe()
    )


NDA_QUESTION = (
    "Does the agreement provide that the Receiving Party shall not use Confidential Information for "
    "any purpose other than the Purpose?"
)
NDA_ABSENT = (
    "The agreement does not explicitly state that the Receiving Party shall not use Confidential "
    "Information for any purpose other than the Purpose."
)
SERVICES_QUESTION = "May the Supplier subcontract any part of the Services without the Customer's consent?"
SERVICES_ABSENT = (
    "The contract does not specify whether the Supplier may subcontract the Services without consent."
)


def test_not_addressed_and_the_question_restated_as_absent_answer_no() -> None:
    """The writer's "no" without the word: the bare "not addressed", or the question restated as
    absent from the contract (seen hand-grading a report whose short answer was "Yes [1]" from the
    clause that says it, under a summary saying the agreement "does not explicitly state" it). An
    absence statement about something else than the question is no verdict."""
    assert written_verdict(NDA_ABSENT, NDA_QUESTION) == "not addressed"
    assert written_verdict(SERVICES_ABSENT, SERVICES_QUESTION) == "unclear"  # "does not specify whether"
    assert written_verdict("not addressed") == written_verdict("Not addressed.") == "not addressed"
    elsewhere = "The agreement does not state the notice period for terminating the Services."
    assert written_verdict(elsewhere, SERVICES_QUESTION) is None
    assert written_verdict(NDA_ABSENT) is None  # without the question, no absence is read
    nda = [NDA_ABSENT, "not addressed", "The obligations survive for three (3) years [1]."]
    assert [d.claim for d in disagreements(nda, "yes", NDA_QUESTION)] == [NDA_ABSENT, "not addressed"]
    assert disagreements([SERVICES_ABSENT, "Not addressed."], "no", SERVICES_QUESTION) == []
    assert disagreements([SERVICES_ABSENT], "unclear", SERVICES_QUESTION) == []  # left open: agrees
    assert disagreements([SERVICES_ABSENT], "yes", SERVICES_QUESTION)[0].verdict == "unclear"


def test_not_addressed_is_no_answer_under_unclear() -> None:
    """Under a short answer of "unclear" the decider declined to say the contract lacks the
    provision; a written "not addressed" says it (seen on a check-half report whose contract had
    the provision in other words). It goes; a sentence leaving the question open stays."""
    nda = [NDA_ABSENT, "not addressed"]
    assert [d.verdict for d in disagreements(nda, "unclear", NDA_QUESTION)] == ["not addressed"] * 2
    services = ["Not addressed.", SERVICES_ABSENT]
    assert [d.claim for d in disagreements(services, "unclear", SERVICES_QUESTION)] == ["Not addressed."]
    left_open = (
        "The agreement does not specify whether the Receiving Party may use Confidential Information "
        "for any purpose other than the Purpose."
    )
    assert written_verdict(left_open, NDA_QUESTION) == "unclear"
    assert disagreements([left_open], "unclear", NDA_QUESTION) == []
    assert [d.verdict for d in disagreements([left_open], "yes", NDA_QUESTION)] == ["unclear"]


RETURN_QUESTION = "Does the agreement require the Receiving Party to return the Confidential Information?"
CONVENIENCE_QUESTION = "Can the Customer terminate the agreement for convenience?"


@pytest.mark.parametrize(
    ("sentence", "question", "answer"),
    [
        (
            "The agreement does not require the Receiving Party to return the Confidential Information.",
            RETURN_QUESTION,
            "no",
        ),
        (
            "The agreement requires the Receiving Party to return the Confidential Information [2].",
            RETURN_QUESTION,
            "yes",
        ),
        ("The Customer cannot terminate the agreement for convenience.", CONVENIENCE_QUESTION, "no"),
        ("The Customer can terminate the agreement for convenience [1].", CONVENIENCE_QUESTION, "yes"),
        # the question's own denial kept: a yes; one more: a no
        (
            "The Receiving Party shall not use Confidential Information for any purpose other than "
            "the Purpose.",
            NDA_QUESTION,
            "yes",
        ),
        # no restatement: other words, an open "whether", too few of the question's words
        (
            "The Customer may terminate on ninety (90) days' written notice under Section 4.2 [1].",
            CONVENIENCE_QUESTION,
            None,
        ),
        (
            "The report examines whether the Customer can terminate for convenience.",
            CONVENIENCE_QUESTION,
            None,
        ),
        ("none", CONVENIENCE_QUESTION, None),
        ("partly", RETURN_QUESTION, None),
        (
            "The agreement does not require the Receiving Party to return the Confidential Information.",
            "Which law governs the agreement?",
            None,
        ),
    ],
)
def test_a_yes_no_question_restated_is_its_answer(sentence, question, answer) -> None:
    """Rule "a yes/no question restated is its answer", on the sample NDA's and the services
    agreement's questions: seen hand-grading a check-half report whose short answer was "unclear"
    (rightly: the contract had the provision in other words) under a summary "The agreement does
    not guarantee a party the best price or terms given to any third party.", a "no" the decider
    had not given, which the NLI classifier did not find unsupported."""
    assert restated_answer(sentence, question) == answer


def test_a_restated_answer_the_decision_does_not_give_is_a_disagreement() -> None:
    denied = "The agreement does not require the Receiving Party to return the Confidential Information."
    stated = "The Customer can terminate the agreement for convenience [1]."
    assert [d.verdict for d in disagreements([denied], "unclear", RETURN_QUESTION)] == ["no"]
    assert [d.verdict for d in disagreements([denied], "yes", RETURN_QUESTION)] == ["no"]
    assert disagreements([denied], "no", RETURN_QUESTION) == []
    assert [d.verdict for d in disagreements([stated], "unclear", CONVENIENCE_QUESTION)] == ["yes"]
    assert disagreements([stated], "yes", CONVENIENCE_QUESTION) == []
