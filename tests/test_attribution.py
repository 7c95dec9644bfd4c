"""Post-hoc attribution: which sentences of the passages shown get cited without the answerer."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tools.attribution import attribute

TEXT = (
    "1. Term. This Agreement lasts for two years from signature. It renews once for a further year.\n"
    "2. Survival. The obligations survive termination for three years. Notices are sent by email.\n"
    "3. Law. English law governs this Agreement and any dispute."
)
SURVIVAL = "2. Survival. The obligations survive termination for three years."


class KeywordScorer:
    """P(Entailment) by keyword: a stand-in for the classifier with known scores."""

    def __init__(self, scores: dict[str, tuple[float, float]]) -> None:
        self.scores = scores
        self.calls: list[tuple[str, list[str]]] = []

    def probabilities(self, hypothesis: str, pieces: Sequence[str]) -> np.ndarray:
        self.calls.append((hypothesis, list(pieces)))
        rows = []
        for piece in pieces:
            e, c = next((v for k, v in self.scores.items() if k in piece), (0.01, 0.01))
            rows.append([e, c, 1 - e - c])
        return np.array(rows)


def _span(passage: str) -> tuple[int, int]:
    start = TEXT.index(passage)
    return start, start + len(passage)


PASSAGES = [_span(line) for line in TEXT.splitlines()]


def test_the_best_sentence_of_each_passage_above_the_threshold_is_cited_strongest_first() -> None:
    scorer = KeywordScorer({"survive": (0.9, 0.05), "renews": (0.5, 0.3), "two years": (0.6, 0.1)})
    found = attribute("Do obligations survive?", TEXT, PASSAGES, scorer, at=0.7, limit=3)
    quotes = [TEXT[a.span[0] : a.span[1]] for a in found]
    assert quotes == [SURVIVAL, "It renews once for a further year."]
    assert [a.passage for a in found] == [1, 0]
    assert found[0].score == 0.95
    assert scorer.calls[0][0] == "Do obligations survive?"  # the question is the hypothesis


def test_limit_threshold_and_spans_already_cited() -> None:
    scorer = KeywordScorer({"survive": (0.9, 0.05), "English law": (0.1, 0.8)})
    assert [a.passage for a in attribute("q", TEXT, PASSAGES, scorer, at=0.7, limit=1)] == [1]
    assert attribute("q", TEXT, PASSAGES, scorer, at=0.99, limit=3) == []
    assert attribute("q", TEXT, PASSAGES, scorer, at=0.7, limit=0) == []
    cited = _span("The obligations survive")
    found = attribute("q", TEXT, PASSAGES, scorer, at=0.7, limit=3, already=[cited])
    assert [TEXT[a.span[0] : a.span[1]] for a in found] == [
        "3. Law. English law governs this Agreement and any dispute."
    ]


def test_a_sentence_in_overlapping_passages_is_cited_once() -> None:
    scorer = KeywordScorer({"survive": (0.9, 0.05)})
    section = (PASSAGES[0][0], PASSAGES[1][1])  # a passage that contains the next one
    found = attribute("q", TEXT, [section, PASSAGES[1]], scorer, at=0.7, limit=3)
    assert [TEXT[a.span[0] : a.span[1]] for a in found] == [SURVIVAL]


def test_sentences_beyond_the_passages_compete_each_on_its_own() -> None:
    from tools.checks.pieces import evidence_pieces

    scorer = KeywordScorer({"survive": (0.9, 0.05), "Notices": (0.8, 0.0), "English law": (0.75, 0.0)})
    shown = [PASSAGES[0]]  # only the term clause was shown
    sentences = evidence_pieces(TEXT)
    found = attribute("q", TEXT, shown, scorer, at=0.7, limit=3, beyond=sentences)
    quotes = [TEXT[a.span[0] : a.span[1]] for a in found]
    # two sentences of one unshown clause are both eligible: each sentence is its own unit
    law = "3. Law. English law governs this Agreement and any dispute."
    assert quotes == [SURVIVAL, "Notices are sent by email.", law]
    assert [a.passage for a in found] == [None, None, None]
    # a sentence of a passage shown keeps its passage and is scored once
    found = attribute("q", TEXT, PASSAGES[:2], scorer, at=0.7, limit=3, beyond=sentences)
    assert [a.passage for a in found] == [1, None]
    assert sum(len(pieces) for _, pieces in scorer.calls[-1:]) == len(sentences)
