"""The contract encoder's training rows, from the development data: (anchor, positive, hard
negative) triplets and clauses labelled with their CUAD categories.

Three objectives share one set of vectors (:mod:`clausewise_lab.train.encoder`):

- **clause to provision** (CUAD): the anchor is a category's query ("Cap on Liability: Does the
  contract include a cap on liability ...") and the positive a clause labelled with it, cut exactly
  as ingestion cuts it (the chunk the presence head reads); the hard negative is a clause of the
  same contract that is *not* labelled with it: the one BM25 ranks highest for the category's
  query, or the clause next to the positive. A cap is thus taught apart from an uncapped
  carve-out and from its neighbours, which share its words.
- **question to clause** (LegalBench-RAG, ACORD's train qrels, ContractNLI): a query, one of its
  gold passages, and a passage of the same document BM25 ranks high that is not gold
  (:mod:`clausewise_lab.train.reranker_data` finds them).
- **clause to categories** (CUAD, multi-label): every clause labelled with a category, and the
  unlabelled clause BM25 ranks first for each category's query, with its labels (all zero for the
  latter); a classification head on the vectors learns every category at once, so a cap and an
  uncapped carve-out, which share their words, are told apart by the vectors themselves, the ones
  the presence head reads.

No held-out document is ever read into a triplet, and neither is a *calibration* document
(:func:`clausewise_lab.evals.folds.is_calibration`): thresholds and bands on the new vectors are
fitted on contracts the encoder has not seen.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from clausewise.core.config import RetrievalSettings
from clausewise_lab.evals.cuad_bench import CuadContract, cuad_contracts
from clausewise_lab.evals.folds import is_calibration, is_heldout
from clausewise_lab.train.log import Log
from clausewise_lab.train.provisions import clause_labels, contract_clauses
from clausewise_lab.train.reranker_data import PairConfig, collect_examples, cuad_descriptions, cuad_query
from indexes.bm25 import BM25Index

QUERY_SOURCES = ("legalbenchrag", "acord", "contractnli")


@dataclass(frozen=True)
class Triplet:
    anchor: str
    positive: str
    negative: str
    source: str  # "cuad-clause", "legalbenchrag", "acord" or "contractnli"
    document: str


@dataclass(frozen=True)
class TripletConfig:
    """How many triplets each query or (contract, category) yields."""

    max_positives: int = 2  # positives per (contract, category) or per query
    min_label: float = 0.75  # ACORD's graded clauses: 3 or 4 of 4 count as positives
    max_chars: int = 2000  # the 256-token window ends well before this


def trains_on(document: str) -> bool:
    """A document the encoder may learn from: neither held out nor kept for calibration."""
    return not is_heldout(document) and not is_calibration(document)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit]


@dataclass(frozen=True)
class LabelledClause:
    """A clause as ingestion cuts it and the categories it answers (1 per category, in order)."""

    text: str
    labels: tuple[int, ...]
    document: str


@dataclass(frozen=True)
class ClauseTable:
    """One contract's clauses as ingestion cuts them, their category labels and a BM25 index over
    them: cut once, read by both clause objectives."""

    title: str
    texts: list[str]
    labels: np.ndarray  # [clauses, categories]
    index: BM25Index

    @classmethod
    def of(cls, contract: CuadContract, categories: Sequence[str]) -> ClauseTable:
        clauses = contract_clauses(contract.text, contract.title)
        texts = [c.text for c in clauses]
        retrieval = RetrievalSettings()
        index = BM25Index.build(
            [str(i) for i in range(len(texts))], texts, retrieval.bm25_k1, retrieval.bm25_b
        )
        return cls(contract.title, texts, clause_labels(clauses, contract, categories), index)

    def ranked(self, query: str, unlabelled_in: np.ndarray) -> list[int]:
        """Rows BM25 ranks highest for the query among those ``unlabelled_in`` marks 0."""
        return [int(i) for i, _ in self.index.search(query, 40) if not unlabelled_in[int(i)]]


def clause_triplets(
    table: ClauseTable,
    categories: Sequence[str],
    descriptions: dict[str, str],
    config: TripletConfig,
    rng: random.Random,
) -> list[Triplet]:
    """One contract's (category query, labelled clause, unlabelled clause) triplets."""
    texts, labels = table.texts, table.labels
    if len(texts) < 2:
        return []
    triplets = []
    for column, category in enumerate(categories):
        rows = np.flatnonzero(labels[:, column])
        if not len(rows):
            continue
        anchor = cuad_query(category, descriptions)
        unlabelled = table.ranked(anchor, labels[:, column])
        chosen = sorted(rng.sample(list(rows), min(config.max_positives, len(rows))))
        for number, row in enumerate(chosen):
            neighbours = [r for r in (row + 1, row - 1) if 0 <= r < len(texts) and not labels[r, column]]
            # the first positive meets the confusable clause BM25 finds, the second its neighbour
            pool = (unlabelled + neighbours) if number % 2 == 0 else (neighbours + unlabelled)
            if not pool:
                continue
            triplets.append(
                Triplet(
                    anchor,
                    _clip(texts[row], config.max_chars),
                    _clip(texts[pool[0]], config.max_chars),
                    "cuad-clause",
                    table.title,
                )
            )
    return triplets


def labelled_clauses(
    table: ClauseTable, categories: Sequence[str], descriptions: dict[str, str], config: TripletConfig
) -> list[LabelledClause]:
    """Every clause of the contract labelled with a category, and for each category's query the
    unlabelled clause BM25 ranks first (the confusable one, taught to be none of them)."""
    labels = table.labels
    rows = set(np.flatnonzero(labels.any(axis=1)).tolist())
    unlabelled = labels.any(axis=1)
    for category in categories:
        rows.update(table.ranked(cuad_query(category, descriptions), unlabelled)[:1])
    return [
        LabelledClause(
            _clip(table.texts[row], config.max_chars), tuple(int(v) for v in labels[row]), table.title
        )
        for row in sorted(rows)
    ]


def query_triplets(
    root: Path, config: TripletConfig, rng: random.Random, log: Log | None = None
) -> list[Triplet]:
    """Question-to-passage triplets of the retrieval benchmarks' training documents."""
    pair_config = PairConfig(max_positives=config.max_positives, hard_negatives=2, random_negatives=0)
    triplets = []
    for examples, _pool in collect_examples(root, pair_config, rng, QUERY_SOURCES, log):
        for example in examples:
            if example.heldout or not example.hard_negatives:
                continue
            if example.source != "acord" and not trains_on(example.document):
                continue  # ACORD's clauses are no contracts of ours: its valid queries are its held-out part
            positives = [t for t, label in example.positives if label >= config.min_label]
            for number, positive in enumerate(positives[: config.max_positives]):
                negative = example.hard_negatives[number % len(example.hard_negatives)]
                triplets.append(
                    Triplet(
                        example.query,
                        _clip(positive, config.max_chars),
                        _clip(negative, config.max_chars),
                        example.source,
                        example.document,
                    )
                )
    return triplets


@dataclass(frozen=True)
class TrainingRows:
    """What the encoder learns from: triplets, labelled clauses, and the categories' order."""

    triplets: list[Triplet]
    clauses: list[LabelledClause]
    categories: list[str]


def build_training_rows(
    root: Path,
    *,
    seed: int = 13,
    config: TripletConfig | None = None,
    max_triplets: int | None = None,
    log: Log | None = None,
) -> TrainingRows:
    """Every training triplet and labelled clause, each list shuffled (seeded); at most
    ``max_triplets`` triplets (a bounded run)."""
    config = config or TripletConfig()
    rng = random.Random(seed)
    descriptions = cuad_descriptions(root)
    contracts = [c for c in cuad_contracts(root) if trains_on(c.title)]
    categories = sorted({category for contract in contracts for category in contract.answers})
    triplets: list[Triplet] = []
    clauses: list[LabelledClause] = []
    for number, contract in enumerate(contracts, start=1):
        table = ClauseTable.of(contract, categories)
        triplets += clause_triplets(table, categories, descriptions, config, rng)
        clauses += labelled_clauses(table, categories, descriptions, config)
        if log and (number % 50 == 0 or number == len(contracts)):
            log(
                f"cuad clauses: {number}/{len(contracts)} contracts, "
                f"{len(triplets)} triplets, {len(clauses)} clauses"
            )
    triplets += query_triplets(root, config, rng, log)
    rng.shuffle(triplets)
    rng.shuffle(clauses)
    return TrainingRows(
        triplets[:max_triplets] if max_triplets is not None else triplets, clauses, categories
    )


def triplet_counts(triplets: Sequence[Triplet]) -> dict[str, dict[str, int]]:
    """Per source: triplets, distinct anchors and documents (for the model card)."""
    by_source = Counter(t.source for t in triplets)
    return {
        source: {
            "triplets": count,
            "anchors": len({t.anchor for t in triplets if t.source == source}),
            "documents": len({t.document for t in triplets if t.source == source}),
        }
        for source, count in sorted(by_source.items())
    }
