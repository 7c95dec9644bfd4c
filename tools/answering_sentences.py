"""The sentences of retrieved passages that answer an open question, as the reranker judges them.

An open question ("What are the payment terms?", "What are each party's main obligations?") is
answered by several sentences spread over the contract, not by one value. Asking a small model to
pick and quote them costs a call per turn and its quotes often fail verification; the reranker
that ordered the passages can instead read each sentence of the passages against the question and
keep those it judges relevant. They are the contract's own words, so they verify by construction,
and the answer restates them one by one (:mod:`agents.finishing`, the restate pass).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from clausewise.core.domain import Span
from tools.checks.pieces import evidence_pieces
from tools.decision.instructions import addresses_a_model
from tools.retrieval.rerank import Reranker

#: Shortest sentence worth citing: a heading or a bare list marker ("(a)") states no term.
MIN_WORDS = 5


@dataclass(frozen=True)
class AnsweringSentence:
    """A sentence of passage ``passage`` (1-based, in the order shown) and the reranker's
    probability that it answers the question."""

    span: Span
    passage: int
    score: float


def passage_sentences(text: str, passages: Sequence[Span]) -> list[tuple[Span, int]]:
    """The sentences of ``passages`` worth citing, each with its passage's number (1-based, in the
    order given): no heading or bare list marker (fewer than :data:`MIN_WORDS` words), no sentence
    that instructs an assistant, and a sentence in two passages once, for the first."""
    seen: set[Span] = set()
    found: list[tuple[Span, int]] = []
    for number, passage in enumerate(passages, start=1):
        for piece in evidence_pieces(text, passage):
            sentence = text[piece[0] : piece[1]]
            if piece in seen or len(sentence.split()) < MIN_WORDS or addresses_a_model(sentence):
                continue
            seen.add(piece)
            found.append((piece, number))
    return found


def answering_sentences(
    questions: Sequence[str],
    text: str,
    passages: Sequence[Span],
    reranker: Reranker,
    *,
    at: float,
    limit: int,
    per_passage: int = 2,
) -> list[AnsweringSentence]:
    """The sentences of ``passages`` the ``reranker`` judges answering one of ``questions`` with
    probability at least ``at``, best first: at most ``per_passage`` from one passage (so one long
    clause does not fill the answer) and ``limit`` in all. A sentence that instructs an assistant
    is never a candidate. A sentence in two passages counts once, for the first."""
    candidates = passage_sentences(text, passages)
    if not candidates:
        return []
    sentences = [" ".join(text[s:e].split()) for (s, e), _ in candidates]
    best = [0.0] * len(candidates)
    for question in dict.fromkeys(q for q in questions if q):
        for i, score in enumerate(reranker.score(question, sentences)):
            best[i] = max(best[i], float(score))
    ranked = sorted(range(len(candidates)), key=lambda i: -best[i])
    kept: list[AnsweringSentence] = []
    per: dict[int, int] = {}
    for i in ranked:
        span, number = candidates[i]
        if best[i] < at or per.get(number, 0) >= per_passage:
            continue
        per[number] = per.get(number, 0) + 1
        kept.append(AnsweringSentence(span, number, best[i]))
        if len(kept) == limit:
            break
    return kept
