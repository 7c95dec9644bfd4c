"""Rule "what follows the end" and rule "what follows an end is no date": a question about what
the end of the contract does is planned from every sentence on what happens upon or after its
termination or expiry, on the example services and supply agreements and the mutual NDA."""

from __future__ import annotations

import pytest

from tests.helpers import example_text, example_tree
from tools.after_the_end import SENTENCES, after_the_end, asks_after_the_end, follows_the_end
from tools.question_kind import question_kind
from tools.termination_rights import asks_termination_rights
from tools.text_plans import WhatFollowsTheEnd, plan_for


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What happens at the end of the agreement?", True),
        ("What are the consequences of termination or expiry?", True),
        ("What obligations survive the end of the agreement?", True),
        ("What are each party's obligations after termination?", True),  # before "each party's duties"
        ("How can this agreement be terminated?", False),
        ("When does the agreement expire?", False),
        ("Does the licence survive termination?", False),  # yes or no
        ("What are each party's main obligations?", False),
    ],
)
def test_a_question_about_what_follows_the_end_is_recognised(question: str, asks: bool) -> None:
    assert asks_after_the_end(question) is asks
    assert isinstance(plan_for(question), WhatFollowsTheEnd) is asks
    if asks:
        assert not asks_termination_rights(question)


@pytest.mark.parametrize(
    "question",
    ["What are the consequences of termination or expiry?", "What obligations survive expiry?"],
)
def test_what_follows_an_end_is_no_date(question: str) -> None:
    """Rule "what follows an end is no date": naming expiry does not make it a question for the
    expiry date."""
    assert question_kind(question).form != "value"
    assert question_kind("When does the agreement expire?").value == "expiry"


@pytest.mark.parametrize(
    ("contract", "expected"),
    [
        (
            "services-agreement",
            [
                "On expiry or termination of this Agreement for any reason:",
                "continue for five (5) years after",
            ],
        ),
        ("supply-agreement", ["On expiry or termination of this Agreement, the Buyer shall pay"]),
        (
            "mutual-nda",
            ["after the termination of this Agreement, the Receiving Party shall return", "survive"],
        ),
    ],
)
def test_every_sentence_on_what_follows_the_end_is_gathered(contract: str, expected: list[str]) -> None:
    text = example_text(contract)
    spans = WhatFollowsTheEnd().spans(text, example_tree(contract))
    quotes = [" ".join(text[a:b].split()) for a, b in spans]
    assert len(quotes) == len(expected) <= SENTENCES
    assert all(words in quote for quote, words in zip(quotes, expected, strict=True))
    assert spans == sorted(spans)


@pytest.mark.parametrize(
    ("sentence", "follows"),
    [
        ("Termination shall not relieve either party of obligations incurred prior thereto.", True),
        ("The termination of this agreement shall be without prejudice to accrued rights.", True),
        ("In the event of early termination under 4.1, any credit shall be returned to Client.", True),
        ("Sections 2, 6 and 9 shall survive termination of this Agreement.", True),
        ("Following the expiry of this period, the non-breaching party may execute its rights.", False),
        ("Either party may terminate this Agreement on ninety (90) days' notice.", False),
        ("The Buyer shall pay each invoice within forty-five (45) days.", False),
    ],
)
def test_what_follows_the_contracts_end_is_told_from_other_ends(sentence: str, follows: bool) -> None:
    """The end is the contract's: "the expiry of this (cure) period" is not it."""
    assert follows_the_end(sentence) is follows


def test_the_list_is_bounded() -> None:
    text = "\n\n".join(
        f"{n}. Upon termination, the Licensee shall return item {n} to the Licensor." for n in range(12)
    )
    assert len(after_the_end(text)) == SENTENCES
