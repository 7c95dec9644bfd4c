"""Post-hoc attribution: the sentences of the retrieved evidence that decide the question.

The embedded 1.5B answerer often cites the wrong passage while the right one is in front of it
(asked whether the Receiving Party may share information with its employees, it answered "yes"
citing the purpose clause, with the clause on employees shown as passage 1). The hypothesis
classifier that the checks use (:mod:`tools.checks.nli`) reads the question as a hypothesis and
scores each sentence of the passages shown (whole passages, not only the excerpts the answerer
read): a sentence it finds entailing or contradicting the
question, P(Entailment) + P(Contradiction) at or above a threshold, bears on the answer whatever
the answer says, so the Researcher cites it too (its quote is the sentence itself, exact by
construction). On the questions of ``eval qa`` (``clausewise eval qa-evidence``), the
hypothesis-shaped ones gain most; a question that is not a yes/no claim rarely reaches the
threshold, so it adds little noise there.

The deciding sentence is often not among the passages shown at all: retrieval ranks clauses by
their likeness to the question, the classifier reads what a sentence commits the parties to. So
sentences ``beyond`` the passages compete too, each on its own: the Researcher passes those of
the retrieved hits it did not show (``interrogation.attribution_scope = "retrieved"``, the
default), or every sentence of a contract short enough to read whole (``"contract"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from clausewise.core.domain import Span
from tools.checks.pieces import evidence_pieces
from tools.retrieval.spans import overlap


class SentenceScorer(Protocol):
    def probabilities(self, hypothesis: str, pieces: Sequence[str]) -> np.ndarray:
        """Rows of P(Entailment), P(Contradiction), P(NotMentioned), one per piece."""
        ...


@dataclass(frozen=True)
class Attribution:
    passage: int | None  # 0-based index of the passage shown it belongs to; None: not shown
    span: Span
    score: float  # P(Entailment) + P(Contradiction)


def attribute(
    question: str,
    text: str,
    passages: Sequence[Span],
    scorer: SentenceScorer,
    *,
    at: float,
    limit: int,
    already: Sequence[Span] = (),
    beyond: Sequence[Span] = (),
) -> list[Attribution]:
    """At most ``limit`` sentences of ``text`` scoring at least ``at``, strongest first, none
    overlapping another: the best one of each passage, and any of the sentences ``beyond`` that
    lie outside the passages (each its own unit). Sentences overlapping ``already`` (spans cited
    already) are skipped."""
    if limit <= 0 or not (passages or beyond):
        return []
    units = [(number, piece) for number, span in enumerate(passages) for piece in evidence_pieces(text, span)]
    units += [
        (len(passages) + number, piece)
        for number, piece in enumerate(beyond)
        if not any(overlap(piece, span) > 0 for span in passages)
    ]
    pieces = [(n, piece) for n, piece in units if not any(overlap(piece, cited) > 0 for cited in already)]
    if not pieces:
        return []
    # passages may overlap (a section and its clause): each sentence is scored once
    unique = list(dict.fromkeys(piece for _, piece in pieces))
    rows = scorer.probabilities(question, [text[a:b] for a, b in unique])
    scores = {piece: float(row[0] + row[1]) for piece, row in zip(unique, rows, strict=True)}
    best: dict[int, Attribution] = {}
    for number, piece in pieces:
        score = scores[piece]
        if score >= at and (number not in best or score > best[number].score):
            shown = number if number < len(passages) else None
            best[number] = Attribution(shown, piece, round(score, 4))
    chosen: list[Attribution] = []
    for candidate in sorted(best.values(), key=lambda a: -a.score):
        # passages may overlap (a section and its clause): one sentence is cited once
        if not any(overlap(candidate.span, a.span) > 0 for a in chosen):
            chosen.append(candidate)
    return chosen[:limit]
