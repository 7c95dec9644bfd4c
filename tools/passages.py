"""Passages shown to a language model, cut to a character budget, and rendered for a prompt.

A retrieved clause is often longer than the budget a small model can read per passage (a quarter
of the hits exceed 900 characters). Cutting from the start hides whatever the clause says later:
the gold sentence of a long definition or a proviso at its end. :func:`focused_excerpt` keeps the
window around the sentence that shares most words with the question instead. Quotes are always
verified against the whole contract, so an excerpt can never produce a false citation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from clausewise.core.domain import Hit, Span
from indexes.bm25 import bm25_tokens
from indexes.store import ContractIndex
from tools.structure.sentences import sentence_spans

ELLIPSIS = "[...]"


def trim_passage(text: str, limit: int) -> str:
    """The first ``limit`` characters, cut at a word boundary."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + f" {ELLIPSIS}"


def _overlap_score(sentence: str, question_terms: set[str]) -> float:
    """Distinct question terms in the sentence, damped by the sentence's own vocabulary so that a
    long sentence does not win by size alone."""
    terms = set(bm25_tokens(sentence))
    if not terms:
        return 0.0
    return len(terms & question_terms) / math.sqrt(len(terms))


def focus_start(text: str, limit: int, question: str) -> int:
    """Where a ``limit``-character window of ``text`` should start to show the sentence most
    related to ``question`` (0 when the text fits, or when no sentence shares a word with it)."""
    if len(text) <= limit:
        return 0
    question_terms = set(bm25_tokens(question))
    best_score, best_span = 0.0, None
    for span in sentence_spans(text):
        score = _overlap_score(text[span[0] : span[1]], question_terms)
        if score > best_score:
            best_score, best_span = score, span
    if best_span is None:
        return 0
    if best_span[1] - best_span[0] >= limit:
        start = best_span[0]  # a sentence longer than the window is shown from its first word
    else:
        start = (best_span[0] + best_span[1]) // 2 - limit // 2
    return max(0, min(start, len(text) - limit))


def excerpt_span(span: Span, text: str, limit: int, question: str) -> Span:
    """The part of the contract at ``span`` (whose text is ``text``) that a reader given at most
    ``limit`` characters around the sentence most related to ``question`` sees."""
    start = span[0] + focus_start(text, limit, question)
    return start, min(span[1], start + limit)


def focused_excerpt(text: str, limit: int, question: str) -> str:
    """At most ``limit`` characters of ``text`` around its sentence most related to ``question``,
    cut at word boundaries and marked with "[...]" where text was left out."""
    if len(text) <= limit:
        return text
    start = focus_start(text, limit, question)
    if start == 0:
        return trim_passage(text, limit)
    end = start + limit
    window = text[start:end]
    if not text[start - 1].isspace() and " " in window:
        window = window.split(" ", 1)[1]  # drop the partial first word
    if end < len(text):
        window = window.rsplit(" ", 1)[0] + f" {ELLIPSIS}"
    return f"{ELLIPSIS} {window.strip()}"


def render_passages(index: ContractIndex, hits: Sequence[Hit], passage_chars: int, focus: str = "") -> str:
    """Numbered evidence passages for a prompt: heading, page, text cut to ``passage_chars``
    (around the sentence most related to ``focus`` when given, else from the start) and up to
    two linked definitions or cross-reference targets. Every agent that shows passages to a
    model (answerer, judge, extractor) renders them here, so the numbers it cites mean the same."""
    blocks = []
    text = index.document.text
    for number, hit in enumerate(hits, start=1):
        node = index.tree.node(hit.node_id)
        heading = node.heading or hit.node_id
        links = "".join(
            f"\n  (linked {link.relation}: {link.label}) {text[link.span[0] : link.span[1]][:300]}"
            for link in hit.linked[:2]
        )
        excerpt = focused_excerpt(hit.text, passage_chars, focus)
        blocks.append(f"[{number}] {heading} (p. {hit.pages[0]})\n{excerpt}{links}")
    return "\n\n".join(blocks)
