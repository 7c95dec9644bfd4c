"""Passages cut to a budget keep the part that bears on the question."""

from __future__ import annotations

from tools.passages import ELLIPSIS, excerpt_span, focus_start, focused_excerpt, trim_passage

FILLER = "The Supplier shall deliver the goods in good order to the address stated in the order form. "
CLAUSE = (
    FILLER
    * 6
    + "Notwithstanding the foregoing, the obligations of confidentiality shall survive termination "
    "of this Agreement for a period of three years. " + FILLER * 4
)


def test_short_passages_are_shown_whole() -> None:
    assert focused_excerpt("A short clause.", 100, "anything") == "A short clause."


def test_the_window_shows_the_sentence_that_answers_the_question() -> None:
    question = "How long does confidentiality survive termination?"
    excerpt = focused_excerpt(CLAUSE, 300, question)
    assert "survive termination of this Agreement for a period of three years." in excerpt
    assert excerpt.startswith(ELLIPSIS) and excerpt.endswith(ELLIPSIS)
    assert len(excerpt) <= 300 + 2 * (len(ELLIPSIS) + 1)
    # cutting from the start, as without a question, would have hidden it
    assert "three years" not in trim_passage(CLAUSE, 300)


def test_excerpts_are_the_passage_own_words_cut_at_word_boundaries() -> None:
    excerpt = focused_excerpt(CLAUSE, 250, "survive termination")
    inner = excerpt.removeprefix(ELLIPSIS).removesuffix(ELLIPSIS).strip()
    assert inner in CLAUSE
    start = CLAUSE.index(inner)
    assert CLAUSE[start - 1] == " " and CLAUSE[start + len(inner)] == " "


def test_without_a_matching_sentence_the_passage_is_cut_from_the_start() -> None:
    assert focus_start(CLAUSE, 300, "indemnification of patent claims") == 0
    assert focused_excerpt(CLAUSE, 300, "") == trim_passage(CLAUSE, 300)


def test_a_sentence_longer_than_the_window_is_shown_from_its_first_word() -> None:
    long_sentence = "The Licensee shall indemnify the Licensor " + "and its affiliates " * 30 + "in full."
    text = FILLER * 3 + long_sentence + " " + FILLER * 3
    start = focus_start(text, 200, "Does the Licensee indemnify the Licensor?")
    assert text[start:].startswith("The Licensee shall indemnify")


def test_the_span_shown_is_the_excerpt_within_the_passage() -> None:
    offset = 1000  # the passage's place in the contract
    question = "How long does confidentiality survive termination?"
    start, end = excerpt_span((offset, offset + len(CLAUSE)), CLAUSE, 300, question)
    assert offset <= start < end <= offset + len(CLAUSE) and end - start == 300
    answer = CLAUSE.index("survive termination")
    assert start - offset <= answer < end - offset
    assert excerpt_span((offset, offset + 40), CLAUSE[:40], 300, question) == (offset, offset + 40)
