"""Rule "the payment terms" and rule "a remedy is no payment term": a question about the payment
terms is planned from the sentences that state what is paid, by whom, when and how, and from the
payment article, on the example services and supply agreements."""

from __future__ import annotations

import pytest

from tests.helpers import example_text, example_tree
from tools.payment_terms import (
    SENTENCES,
    asks_payment_terms,
    payment_articles,
    payment_terms,
    states_a_payment_term,
)
from tools.text_plans import ThePaymentTerms, plan_for


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What are the payment terms?", True),
        ("How much is paid, and when?", True),
        ("What does this contract say about fees and payment?", True),
        ("What is the fee?", False),  # one value: the value reader's
        ("Does the Buyer pay in advance?", False),  # yes or no
        ("What warranties are given?", False),
    ],
)
def test_a_question_about_the_payment_terms_is_recognised(question: str, asks: bool) -> None:
    assert asks_payment_terms(question) is asks
    assert isinstance(plan_for(question), ThePaymentTerms) is asks


@pytest.mark.parametrize(
    ("contract", "expected"),
    [
        (
            "services-agreement",
            [
                "the Customer shall pay the Fees in accordance with this Article III",
                "The Supplier shall invoice the Fees monthly in arrears",
                "within forty-five (45) days after receipt",
            ],
        ),
        (
            "supply-agreement",
            [
                "The prices for the Products are set out in Schedule B",
                "The Supplier shall invoice the Buyer on delivery",
                "within forty-five (45) days of receipt, in US dollars",
            ],
        ),
    ],
)
def test_the_payment_terms_are_gathered_in_the_contracts_order(contract: str, expected: list[str]) -> None:
    text = example_text(contract)
    spans = ThePaymentTerms().spans(text, example_tree(contract))
    quotes = [" ".join(text[a:b].split()) for a, b in spans]
    assert len(quotes) <= SENTENCES and spans == sorted(spans)
    assert all(words in quote for quote, words in zip(quotes, expected, strict=False))
    assert not any("indemnif" in q.lower() or "attorneys" in q.lower() for q in quotes)


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_a_remedy_is_no_payment_term(contract: str) -> None:
    """Rule "a remedy is no payment term": fees a dispute or a breach makes due, and a default."""
    remedies = (
        "The prevailing party shall be paid its reasonable attorneys' fees within thirty (30) days.",
        "The Supplier shall pay all damages awarded against the Buyer.",
        "The Buyer may terminate if the Supplier fails to pay its debts within thirty (30) days.",
    )
    assert not any(states_a_payment_term(sentence, in_a_payment_article=True) for sentence in remedies)
    text = example_text(contract)
    assert payment_terms(text + "\n\n" + "\n\n".join(remedies) + "\n") == payment_terms(text)


def test_a_payment_articles_amounts_are_terms_though_they_name_no_payment() -> None:
    """Under the title "Price per Unit", "1,000 to 5,000 Units - $4.50 per unit" is the price; the
    same row elsewhere is not taken, nor a shipping sentence of an article on shipping and payment."""
    row = "1,000 to 5,000 Units - $4.50 per unit; over 5,000 Units - $4.15 per unit"
    assert states_a_payment_term(row, in_a_payment_article=True)
    assert not states_a_payment_term(row, in_a_payment_article=False)
    shipping = "The Customer shall inspect all Products within seven (7) days of receipt."
    assert not states_a_payment_term(shipping, in_a_payment_article=True)


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_the_payment_article_is_found_by_its_title(contract: str) -> None:
    tree = example_tree(contract)
    articles = payment_articles(tree)
    titles = [node.title.lower() for node in tree.walk() if node.span in articles]
    assert titles and all(any(w in t for w in ("pay", "fee", "price", "invoic", "credit")) for t in titles)
    assert not any(
        node.span in articles for node in tree.walk() if node.title and "warrant" in node.title.lower()
    )
