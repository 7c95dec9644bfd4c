"""Training pairs for the hypothesis classifier, from ContractNLI's development documents.

Each (document, hypothesis) gives (hypothesis, piece, label) pairs where the pieces are the
document cut by :func:`tools.checks.pieces.evidence_pieces`, as at run time:

- a piece that covers at least half of a gold evidence span (or is half covered by one) takes
  the document's label for the hypothesis, Entailment or Contradiction;
- NotMentioned pairs are the pieces BM25 ranks highest for the hypothesis that touch no gold
  evidence (the ones retrieval will put in front of the classifier), plus one random piece;
- a piece that touches evidence without covering it is left out: its label is unclear.

At run time the classifier reads every sentence of a contract (often over a hundred) and the
label comes from the strongest one, so one confident mistake among many unrelated sentences
decides. With 3 BM25 + 1 random negatives per hypothesis, broad definitions of "Confidential
Information" were read as contradicting "all Confidential Information shall be expressly
identified": 11 false Contradiction labels on the held-out fold. With 6 + 3 (about twice the
NotMentioned pairs) there were 2 (``clausewise eval contractnli --fold heldout``).

Documents split by the reranker's held-out rule (:func:`clausewise_lab.evals.folds.is_heldout`), so the same
contracts stay unseen by both models and the held-out figures are honest for the whole pipeline.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from clausewise.core.domain import Span
from clausewise.core.results import LABELS
from clausewise_lab.evals import data as bench
from clausewise_lab.evals.folds import is_heldout
from clausewise_lab.train.reranker_data import PassageIndex
from tools.checks.pieces import evidence_pieces
from tools.retrieval.spans import overlap

EVIDENCE_LABELS = ("Entailment", "Contradiction")


@dataclass(frozen=True)
class NliPair:
    hypothesis: str
    piece: str
    label: int  # index into tools.checks.decision.LABELS
    group: str  # document:hypothesis key
    heldout: bool


@dataclass(frozen=True)
class NliPairConfig:
    hard_negatives: int = 6
    random_negatives: int = 3
    bm25_depth: int = 40
    min_cover: float = 0.5
    contradiction_repeats: int = 3  # Contradiction is ~9% of labels: trained on 3x (held-out pairs: once)
    max_piece_chars: int = 1500


@dataclass
class NliPairSet:
    train: list[NliPair] = field(default_factory=list)
    heldout: list[NliPair] = field(default_factory=list)

    def counts(self) -> dict[str, dict[str, int]]:
        """Pairs per split and label (for the model card)."""
        return {
            split: {LABELS[label]: n for label, n in sorted(Counter(p.label for p in pairs).items())}
            for split, pairs in (("train", self.train), ("heldout", self.heldout))
        }


def piece_label(piece: Span, evidence: list[Span], label: str, min_cover: float) -> str | None:
    """The piece's label: ``label`` when it covers (or is covered by) gold evidence, NotMentioned
    when it touches none, ``None`` (left out) in between."""
    best = 0.0
    for gold in evidence:
        shared = overlap(piece, gold)
        if shared:
            shorter = min(piece[1] - piece[0], gold[1] - gold[0]) or 1
            best = max(best, shared / shorter)
    if best >= min_cover and label in EVIDENCE_LABELS:
        return label
    if best == 0.0:
        return "NotMentioned"
    return None


def document_pairs(
    document: bench.ContractNliDocument,
    hypotheses: dict[str, str],
    config: NliPairConfig,
    rng: random.Random,
) -> list[NliPair]:
    """Every pair one document gives (all its annotated hypotheses)."""
    heldout = is_heldout(document.file_name)
    pieces = evidence_pieces(document.text)
    texts = [document.text[a:b][: config.max_piece_chars] for a, b in pieces]
    index = PassageIndex.build(document.file_name, pieces, texts)
    pairs: list[NliPair] = []
    for key in sorted(document.annotations):
        if key not in hypotheses:
            continue
        choice, span_ids = document.annotations[key]
        evidence = [document.spans[i] for i in span_ids if 0 <= i < len(document.spans)]
        labels = [piece_label(p, evidence, choice, config.min_cover) for p in pieces]
        group = f"{document.id}:{key}"
        hypothesis = hypotheses[key]

        chosen = [(i, label) for i, label in enumerate(labels) if label in EVIDENCE_LABELS]
        negatives = [
            int(chunk_id)
            for chunk_id, _score in index.index.search(hypothesis, config.bm25_depth)
            if labels[int(chunk_id)] == "NotMentioned"
        ][: config.hard_negatives]
        others = [i for i, label in enumerate(labels) if label == "NotMentioned" and i not in negatives]
        negatives += rng.sample(others, min(config.random_negatives, len(others)))
        chosen += [(i, "NotMentioned") for i in negatives]
        pairs.extend(
            NliPair(hypothesis, texts[i], LABELS.index(label), group, heldout) for i, label in chosen
        )
    return pairs


def build_nli_pairs(root: Path, config: NliPairConfig | None = None, seed: int = 13) -> NliPairSet:
    """All pairs of ``<root>/contractnli/dev.json``, split by the held-out rule, shuffled (seeded)."""
    config = config or NliPairConfig()
    rng = random.Random(seed)
    data = bench.contractnli(root)
    result = NliPairSet()
    contradiction = LABELS.index("Contradiction")
    for document in data.documents:
        for pair in document_pairs(document, data.hypotheses, config, rng):
            if pair.heldout:
                result.heldout.append(pair)
            else:
                repeats = config.contradiction_repeats if pair.label == contradiction else 1
                result.train.extend([pair] * repeats)
    rng.shuffle(result.train)
    return result
