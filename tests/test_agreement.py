"""Rule "the writer answers as decided" (tools/decision/agreement.py), on sentences of the sample
NDA's and the services agreement's reports."""

from __future__ import annotations

import pytest

from tools.decision.agreement import disagreements, written_verdict


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
