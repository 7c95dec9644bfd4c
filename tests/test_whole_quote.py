"""Rule "no sentence is cut off": a verified quote is shown as whole words to its sentence's end,
on the example services agreement and NDA."""

from __future__ import annotations

import pytest

from tests.helpers import example_text
from tools.citations import SENTENCE_TAIL_CHARS, whole_quote


@pytest.mark.parametrize(
    ("contract", "quote", "shown_ends_with"),
    [
        # cut inside a word: widened to the word and on to the sentence's stop
        (
            "services-agreement",
            "may terminate this Agreement for convenience at any time by giving the Supp",
            "paying the termination fee set out in Schedule C.",
        ),
        # cut after a function word
        (
            "mutual-nda",
            "unless terminated earlier by either Party on",
            "thirty (30) days' written notice to the other.",
        ),
        # a whole sentence stays as it is
        (
            "mutual-nda",
            "Neither Party may assign or transfer this Agreement without the prior written consent of the "
            "other Party, except to an Affiliate that agrees in writing to be bound by it.",
            "bound by it.",
        ),
    ],
)
def test_a_quote_is_shown_to_its_sentences_end(contract: str, quote: str, shown_ends_with: str) -> None:
    text = example_text(contract)
    start = text.index(quote)
    a, b = whole_quote(text, (start, start + len(quote)))
    assert a == start and text[a:b].endswith(shown_ends_with)


@pytest.mark.parametrize(
    ("contract", "quote"),
    [
        ("mutual-nda", "governed by the laws of England and Wales"),
        ("services-agreement", "on at least ninety (90) days' written notice"),
    ],
)
def test_a_quote_trimmed_to_the_words_that_answer_stays(contract: str, quote: str) -> None:
    text = example_text(contract)
    start = text.index(quote)
    assert whole_quote(text, (start, start + len(quote))) == (start, start + len(quote))


def test_a_quote_starting_inside_a_word_starts_at_the_word() -> None:
    text = example_text("services-agreement")
    start = text.index("Supplier shall not subcontract") + 3  # "plier shall not ..."
    a, _ = whole_quote(text, (start, start + 30))
    assert text[a:].startswith("Supplier shall not subcontract")


def test_a_quote_far_from_its_sentences_end_is_only_made_whole_words() -> None:
    text = "The Supplier shall " + "use reasonable efforts and " * 30 + "deliver. Next sentence."
    a, b = whole_quote(text, (0, 22))  # "The Supplier shall use" cut at "us"
    assert text[a:b] == "The Supplier shall use" and len(text) > SENTENCE_TAIL_CHARS


def test_a_quote_is_not_carried_over_a_paragraph_break() -> None:
    text = "PAYMENT TERMS\n\nThe Buyer shall pay within thirty (30) days."
    assert whole_quote(text, (0, 13)) == (0, 13)
