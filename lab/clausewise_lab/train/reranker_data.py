"""(query, passage, label) pairs for the cross-encoder reranker, from the development data only.

Sources (layout of ../shared/data, read with :mod:`clausewise_lab.evals.data`):

- ACORD: ``qrels/train.tsv`` with graded labels (score / 4); ``qrels/valid.tsv`` is the ACORD
  benchmark's evaluation set and only ever lands in the held-out fold.
- CUAD: per contract and category with answers, "<Category>: <description>" -> answer texts
  (short answers widened to their sentence); hard negatives are BM25-ranked node chunks of the
  same contract that overlap no answer of that category.
- LegalBench-RAG: query -> gold snippets; BM25 hard negatives from the same document.
- ContractNLI: hypothesis -> evidence spans (Entailment and Contradiction); negatives are the
  document's other spans ranked by BM25.

Each query also gets random negatives from other documents of the same source and fold. A
document is held out (never trained on) when the sha1 of its normalized name falls in bucket 0
of 5 (:func:`clausewise_lab.evals.folds.is_heldout`), so the validation figures are measured on
unseen contracts.
"""

from __future__ import annotations

import csv
import json
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from clausewise.core.config import ChunkingSettings, RetrievalSettings, StructureSettings
from clausewise.core.domain import Span
from clausewise_lab.evals import data as bench
from clausewise_lab.evals.folds import document_key, is_heldout
from clausewise_lab.train.log import Log
from indexes.bm25 import BM25Index

SOURCES = ("acord", "cuad", "legalbenchrag", "contractnli")
EVIDENCE_LABELS = ("Entailment", "Contradiction")


@dataclass(frozen=True)
class Pair:
    """One training or validation example; ``group`` ties the pairs of one query together."""

    query: str
    passage: str
    label: float
    source: str
    group: str
    role: str  # "positive", "hard_negative" or "random_negative"
    heldout: bool


@dataclass(frozen=True)
class PairConfig:
    """How many pairs each query yields, and the filters that keep negatives honest."""

    max_positives: int = 2
    hard_negatives: int = 4
    random_negatives: int = 1
    bm25_depth: int = 40
    min_positive_chars: int = 40  # shorter answers are widened to their enclosing sentence
    min_negative_chars: int = 25  # "1." or a lone heading is no useful negative
    max_passage_chars: int = 2000  # 256 tokens end well before this; keeps the pair list small


@dataclass
class PairSet:
    """Training pairs and held-out validation pairs, each shuffled with the build seed."""

    train: list[Pair] = field(default_factory=list)
    heldout: list[Pair] = field(default_factory=list)

    def counts(self) -> dict[str, dict[str, dict[str, int]]]:
        """Per split and source: query groups, pairs, positives and negatives (for the model card)."""
        result: dict[str, dict[str, dict[str, int]]] = {}
        for split, pairs in (("train", self.train), ("heldout", self.heldout)):
            by_source: dict[str, dict[str, int]] = {}
            for source in sorted({p.source for p in pairs}):
                rows = [p for p in pairs if p.source == source]
                by_source[source] = {
                    "queries": len({p.group for p in rows}),
                    "pairs": len(rows),
                    "positives": sum(1 for p in rows if p.label > 0),
                    "negatives": sum(1 for p in rows if p.label == 0),
                }
            result[split] = by_source
        return result


# --- spans and texts ----------------------------------------------------------------------------


def overlaps(a: Span, b: Span) -> bool:
    """Half-open spans share at least one character."""
    return a[0] < b[1] and b[0] < a[1]


def _normalized(text: str) -> str:
    """Lowercased, whitespace-collapsed text: duplicates differ in line breaks and case."""
    return " ".join(text.lower().split())


def extend_to_sentence(text: str, span: Span, min_chars: int = 40, window: int = 600) -> Span:
    """Widen a short answer ("New York", "June 21, 1999") to its enclosing sentence.

    A bare name or date says little about why it answers the query; the sentence around it does.
    The sentence search runs in a window around the span so that a wall of text without full
    stops cannot turn the positive into half the contract.
    """
    from tools.structure.sentences import sentence_spans

    start, end = span
    if end - start >= min_chars:
        return span
    low, high = max(0, start - window), min(len(text), end + window)
    covering = [s for s in sentence_spans(text, low, high, min_chars=1) if overlaps(s, span)]
    if not covering:
        return span
    widened = (min(start, *(s[0] for s in covering)), max(end, *(s[1] for s in covering)))
    if widened[1] - widened[0] > 2 * window:
        return span
    return widened


def _clip(text: str, limit: int) -> str:
    """At most ``limit`` characters: the tokenizer keeps far fewer, so memory is all we save."""
    return text if len(text) <= limit else text[:limit]


# --- per-document BM25 over passages ------------------------------------------------------------


@dataclass
class PassageIndex:
    """A document's candidate passages (spans + texts) and a BM25 index over them."""

    name: str
    spans: list[Span]
    texts: list[str]
    index: BM25Index

    @classmethod
    def build(cls, name: str, spans: Sequence[Span], texts: Sequence[str]) -> PassageIndex:
        """Index passages with the product's BM25 (same tokenizer, k1 and b as retrieval)."""
        retrieval = RetrievalSettings()
        ids = [str(i) for i in range(len(texts))]
        index = BM25Index.build(ids, list(texts), retrieval.bm25_k1, retrieval.bm25_b)
        return cls(name, list(spans), list(texts), index)

    def hard_negatives(
        self, query: str, positive_spans: Sequence[Span], positive_texts: Sequence[str], config: PairConfig
    ) -> list[str]:
        """Top BM25 passages that overlap no positive span and do not repeat a positive's text."""
        positives = [_normalized(t) for t in positive_texts if len(t.strip()) >= config.min_negative_chars]
        chosen: list[str] = []
        seen: set[str] = set()
        for chunk_id, _score in self.index.search(query, config.bm25_depth):
            position = int(chunk_id)
            span, passage = self.spans[position], self.texts[position]
            key = _normalized(passage)
            if len(key) < config.min_negative_chars or key in seen:
                continue
            if any(overlaps(span, p) for p in positive_spans):
                continue
            if any(p in key or key in p for p in positives):
                continue
            seen.add(key)
            chosen.append(passage)
            if len(chosen) == config.hard_negatives:
                break
        return chosen


def node_passages(text: str, name: str) -> PassageIndex:
    """The document's node-level chunks (default structure and chunking settings), BM25-indexed.

    Node chunks are what the reranker sees at run time: one clause's own text. A document the
    tree builder could only cut into flat passages contributes those instead.
    """
    from tools.chunking import build_chunks
    from tools.parsing.text import document_from_text
    from tools.structure.tree_builder import build_tree

    document = document_from_text(text, name)
    tree = build_tree(document, StructureSettings())
    chunks = build_chunks(document, tree, document_key(name) or "document", ChunkingSettings())
    nodes = [c for c in chunks if c.kind == "node"] or [c for c in chunks if c.kind == "passage"]
    return PassageIndex.build(name, [c.span for c in nodes], [c.text for c in nodes])


class RandomPool:
    """Passages to draw random negatives from, per (source, fold), remembering their document.

    Random negatives come from the same fold so that no held-out text is ever trained on.
    """

    def __init__(self) -> None:
        self._passages: dict[tuple[str, bool], list[tuple[str, str]]] = defaultdict(list)

    def add(self, source: str, heldout: bool, document: str, passages: Iterable[str]) -> None:
        self._passages[(source, heldout)].extend((document, p) for p in passages)

    def draw(self, source: str, heldout: bool, document: str, count: int, rng: random.Random) -> list[str]:
        """Up to ``count`` passages from other documents (a bounded number of tries)."""
        candidates = self._passages.get((source, heldout), [])
        drawn: list[str] = []
        for _ in range(20 * count):
            if len(drawn) == count or not candidates:
                break
            other, passage = candidates[rng.randrange(len(candidates))]
            if other != document and passage not in drawn:
                drawn.append(passage)
        return drawn


# --- one query's pairs --------------------------------------------------------------------------


@dataclass
class QueryExample:
    """A query with its graded positives and its negatives, before it becomes pairs."""

    source: str
    group: str
    document: str
    query: str
    heldout: bool
    positives: list[tuple[str, float]]
    hard_negatives: list[str]


def _repeats_positive(text: str, positive_keys: Sequence[str]) -> bool:
    """A negative that contains, or is contained in, a positive's text would teach a contradiction.

    Boilerplate repeats across contracts (the same governing-law sentence) and ACORD holds
    duplicate clauses judged differently, so identical text can come back as a "negative".
    """
    key = _normalized(text)
    return any(p in key or key in p for p in positive_keys)


def _pairs_for(example: QueryExample, pool: RandomPool, config: PairConfig, rng: random.Random) -> list[Pair]:
    """The query's positives, hard negatives and random negatives as pairs (duplicates dropped)."""
    positive_keys = [_normalized(text) for text, _ in example.positives]
    rows: list[tuple[str, float, str]] = [(text, label, "positive") for text, label in example.positives]
    rows += [
        (t, 0.0, "hard_negative") for t in example.hard_negatives if not _repeats_positive(t, positive_keys)
    ]
    randoms = pool.draw(example.source, example.heldout, example.document, config.random_negatives, rng)
    rows += [(t, 0.0, "random_negative") for t in randoms if not _repeats_positive(t, positive_keys)]
    pairs, seen = [], set()
    for text, label, role in rows:
        key = _normalized(text)
        if not key or key in seen:
            continue
        seen.add(key)
        pairs.append(
            Pair(
                example.query,
                _clip(text, config.max_passage_chars),
                label,
                example.source,
                example.group,
                role,
                example.heldout,
            )
        )
    return pairs


# --- ACORD --------------------------------------------------------------------------------------


def acord_index(corpus: dict[str, str]) -> BM25Index:
    """BM25 over every ACORD clause (the first stage the reranker is evaluated behind)."""
    retrieval = RetrievalSettings()
    ids = sorted(corpus)
    return BM25Index.build(ids, [corpus[i] for i in ids], retrieval.bm25_k1, retrieval.bm25_b)


def acord_examples(
    root: Path, config: PairConfig, rng: random.Random
) -> tuple[list[QueryExample], RandomPool]:
    """Train queries (qrels/train.tsv) for training, valid queries (qrels/valid.tsv) held out.

    ACORD has few queries but ~30 graded clauses each, so every graded clause (score > 0) is kept
    with label score / 4; hard negatives are the clauses judged 0 that BM25 ranks highest (as many
    as there are positives, at least ``hard_negatives``).
    """
    examples: list[QueryExample] = []
    pool = RandomPool()
    index: BM25Index | None = None
    for qrels_file, heldout in (("train.tsv", False), ("valid.tsv", True)):
        data = bench.acord(root, qrels_file)
        index = index or acord_index(data.corpus)
        pool.add("acord", heldout, "", [data.corpus[i] for i in sorted(data.corpus)])
        for query_id in sorted(data.qrels):
            judged = data.qrels[query_id]
            positives = [
                (data.corpus[c], s / 4) for c, s in sorted(judged.items()) if s > 0 and c in data.corpus
            ]
            if not positives or query_id not in data.queries:
                continue
            query = data.queries[query_id]
            scores = dict(zip(index.ids, index.scores(query).tolist(), strict=True))
            zeros = sorted(
                (c for c, s in judged.items() if s == 0 and c in data.corpus), key=lambda c: -scores[c]
            )
            wanted = max(config.hard_negatives, len(positives))
            examples.append(
                QueryExample(
                    "acord",
                    f"acord:{query_id}",
                    f"acord:{query_id}",
                    query,
                    heldout,
                    positives,
                    [data.corpus[c] for c in zeros[:wanted]],
                )
            )
    return examples, pool


# --- CUAD ---------------------------------------------------------------------------------------


def cuad_descriptions(root: Path) -> dict[str, str]:
    """Category -> description from cuad/category_descriptions.csv ("Category: X" cells)."""
    path = bench.require(root / "cuad" / "category_descriptions.csv")
    descriptions: dict[str, str] = {}
    with path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle)
        next(rows, None)
        for row in rows:
            if len(row) < 2:
                continue
            category = row[0].removeprefix("Category:").strip()
            descriptions[category] = " ".join(row[1].removeprefix("Description:").split())
    return descriptions


def cuad_query(category: str, descriptions: dict[str, str]) -> str:
    """ "Governing Law: Which state/country's law governs the interpretation of the contract?"."""
    description = descriptions.get(category, "")
    return f"{category}: {description}" if description else category


def _category_of(qa: dict) -> str:
    """The category named in a CUAD question id ("<title>__Governing Law")."""
    return str(qa["id"]).rsplit("__", 1)[-1]


def _choose(items: Sequence, count: int, rng: random.Random) -> list:
    """Up to ``count`` items, sampled (seeded) when there are more, in their original order."""
    if len(items) <= count:
        return list(items)
    keep = sorted(rng.sample(range(len(items)), count))
    return [items[i] for i in keep]


def cuad_examples(
    root: Path, config: PairConfig, rng: random.Random, log: Log | None = None
) -> tuple[list[QueryExample], RandomPool]:
    """One query per (contract, category with answers) of cuad/cuad_dev.json."""
    descriptions = cuad_descriptions(root)
    data = json.loads(bench.require(root / "cuad" / "cuad_dev.json").read_text(encoding="utf-8"))
    examples: list[QueryExample] = []
    pool = RandomPool()
    for position, entry in enumerate(data["data"]):
        title, paragraph = entry["title"], entry["paragraphs"][0]
        text, heldout = paragraph["context"], is_heldout(title)
        passages = node_passages(text, title)
        pool.add("cuad", heldout, title, passages.texts)
        for qa in paragraph["qas"]:
            answers = sorted({(a["answer_start"], a["answer_start"] + len(a["text"])) for a in qa["answers"]})
            if not answers:
                continue
            widened = sorted({extend_to_sentence(text, s, config.min_positive_chars) for s in answers})
            chosen = _choose(widened, config.max_positives, rng)
            query = cuad_query(_category_of(qa), descriptions)
            positive_texts = [text[a:b] for a, b in chosen]
            negatives = passages.hard_negatives(query, answers + widened, positive_texts, config)
            examples.append(
                QueryExample(
                    "cuad",
                    f"cuad:{document_key(title)}:{_category_of(qa)}",
                    title,
                    query,
                    heldout,
                    [(t, 1.0) for t in positive_texts],
                    negatives,
                )
            )
        if log and (position + 1) % 50 == 0:
            log(f"cuad: {position + 1}/{len(data['data'])} contracts")
    return examples, pool


# --- LegalBench-RAG -----------------------------------------------------------------------------


def legalbench_examples(
    root: Path,
    config: PairConfig,
    rng: random.Random,
    datasets: Sequence[str] = bench.LEGALBENCH_DATASETS,
    log: Log | None = None,
) -> tuple[list[QueryExample], RandomPool]:
    """Query -> gold snippets of its (first) document; hard negatives from that document."""
    examples: list[QueryExample] = []
    pool = RandomPool()
    indexes: dict[str, PassageIndex] = {}
    texts: dict[str, str] = {}
    for dataset in datasets:
        for number, test in enumerate(bench.legalbench_queries(root, dataset)):
            if not test.snippets:
                continue
            file_path = test.snippets[0][0]
            if file_path not in indexes:
                texts[file_path] = bench.legalbench_corpus_text(root, file_path)
                indexes[file_path] = node_passages(texts[file_path], file_path)
                pool.add("legalbenchrag", is_heldout(file_path), file_path, indexes[file_path].texts)
            text = texts[file_path]
            gold = sorted({span for path, span in test.snippets if path == file_path})
            chosen = _choose(gold, config.max_positives, rng)
            positive_texts = [text[a:b] for a, b in chosen if text[a:b].strip()]
            if not positive_texts:
                continue
            negatives = indexes[file_path].hard_negatives(test.query, gold, positive_texts, config)
            examples.append(
                QueryExample(
                    "legalbenchrag",
                    f"legalbenchrag:{dataset}:{number}",
                    file_path,
                    test.query,
                    any(is_heldout(path) for path, _ in test.snippets),
                    [(t, 1.0) for t in positive_texts],
                    negatives,
                )
            )
        if log:
            log(f"legalbenchrag/{dataset}: {len(indexes)} documents indexed so far")
    return examples, pool


# --- ContractNLI --------------------------------------------------------------------------------


def contractnli_examples(
    root: Path, config: PairConfig, rng: random.Random
) -> tuple[list[QueryExample], RandomPool]:
    """Hypothesis -> its evidence spans (Entailment / Contradiction); negatives: other spans by BM25."""
    data = bench.contractnli(root)
    examples: list[QueryExample] = []
    pool = RandomPool()
    for document in data.documents:
        heldout = is_heldout(document.file_name)
        texts = [document.text[a:b] for a, b in document.spans]
        passages = PassageIndex.build(document.file_name, document.spans, texts)
        pool.add("contractnli", heldout, document.file_name, texts)
        for key in sorted(document.annotations):
            choice, indexes = document.annotations[key]
            evidence = sorted({document.spans[i] for i in indexes if 0 <= i < len(document.spans)})
            if choice not in EVIDENCE_LABELS or not evidence or key not in data.hypotheses:
                continue
            chosen = _choose(evidence, config.max_positives, rng)
            positive_texts = [document.text[a:b] for a, b in chosen]
            query = data.hypotheses[key]
            negatives = passages.hard_negatives(query, evidence, positive_texts, config)
            examples.append(
                QueryExample(
                    "contractnli",
                    f"contractnli:{document_key(document.file_name)}:{key}",
                    document.file_name,
                    query,
                    heldout,
                    [(t, 1.0) for t in positive_texts],
                    negatives,
                )
            )
    return examples, pool


# --- everything together ------------------------------------------------------------------------


def collect_examples(
    root: Path,
    config: PairConfig,
    rng: random.Random,
    sources: Sequence[str] = SOURCES,
    log: Log | None = None,
) -> list[tuple[list[QueryExample], RandomPool]]:
    """Every source's query examples with its random-negative pool, in a fixed source order."""
    builders: dict[str, Callable[[], tuple[list[QueryExample], RandomPool]]] = {
        "acord": lambda: acord_examples(root, config, rng),
        "cuad": lambda: cuad_examples(root, config, rng, log),
        "legalbenchrag": lambda: legalbench_examples(root, config, rng, log=log),
        "contractnli": lambda: contractnli_examples(root, config, rng),
    }
    results = []
    for source in sources:
        examples, pool = builders[source]()
        if log:
            log(f"{source}: {len(examples)} queries")
        results.append((examples, pool))
    return results


def cap_groups(
    pairs: list[Pair], max_pairs: int | None, rng: random.Random, prefer: Sequence[str] = ("acord",)
) -> list[Pair]:
    """At most ``max_pairs`` pairs, keeping whole query groups picked at random (seeded).

    Whole groups keep each query's positive/negative balance; groups of the ``prefer`` sources
    (ACORD: few queries, the benchmark the reranker is judged on) are taken first.
    """
    if max_pairs is None or len(pairs) <= max_pairs:
        return pairs
    by_group: dict[str, list[Pair]] = defaultdict(list)
    for pair in pairs:
        by_group[pair.group].append(pair)
    first = sorted(g for g, rows in by_group.items() if rows[0].source in prefer)
    rest = sorted(g for g, rows in by_group.items() if rows[0].source not in prefer)
    rng.shuffle(first)
    rng.shuffle(rest)
    chosen: set[str] = set()
    budget = max_pairs
    for group in first + rest:
        if len(by_group[group]) <= budget:
            chosen.add(group)
            budget -= len(by_group[group])
    return [p for p in pairs if p.group in chosen]


def build_pairs(
    root: Path,
    *,
    seed: int = 13,
    max_pairs: int | None = None,
    config: PairConfig | None = None,
    sources: Sequence[str] = SOURCES,
    log: Log | None = None,
) -> PairSet:
    """All pairs of the development data, split by the held-out rule, capped and shuffled (seeded)."""
    config = config or PairConfig()
    rng = random.Random(seed)
    pairs: list[Pair] = []
    for examples, pool in collect_examples(root, config, rng, sources, log):
        for example in examples:
            pairs.extend(_pairs_for(example, pool, config, rng))
    train = cap_groups([p for p in pairs if not p.heldout], max_pairs, rng)
    heldout = [p for p in pairs if p.heldout]
    rng.shuffle(train)
    rng.shuffle(heldout)
    return PairSet(train, heldout)


def role_counts(pairs: Iterable[Pair]) -> dict[str, int]:
    """How many pairs of each role (positive / hard_negative / random_negative)."""
    return dict(sorted(Counter(p.role for p in pairs).items()))
