"""``clausewise eval legalbench-rag``: character-level precision and recall at k (LegalBench-RAG).

For each dataset (ContractNLI, CUAD, MAUD, PrivacyQA) and ALL (mean of the four), P@k and R@k for
k in 1..64 in two scopes: per document (the contract is known: the product's case) and corpus
(every document of the dataset). Ablation rows: BM25, dense, hybrid (RRF), + lexicon (legal query
expansion), + graph, + rerank; ``hybrid+lexicon+rerank`` is the product's default search
(``hybrid+lexicon+graph+rerank`` the same with ``retrieval.graph`` on).
The corpus scope has no lexicon rows: concept words say nothing about which document is meant.
Also the mean characters retrieved at each k, retrieval latency on 2 cores, and each query's own
recall and precision (``per_query``), for comparing two runs query by query.

Corpus files are ingested once into the tenant ``legalbenchrag`` of the data directory (our
indexes, built by the Archivist like any contract); re-runs reuse them.

Every LegalBench-RAG query starts by naming its document ("Consider the Non-Disclosure Agreement
between X and Y; Does the document ..."). In the per-document scope the document is already
known, so that designation is dropped and only the question is searched; the corpus scope keeps
the whole query, since there the designation is what finds the document.
"""

from __future__ import annotations

import hashlib
import random
import re
import statistics
import time
from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clausewise.core.config import Settings, with_overrides
from clausewise.core.progress import NoProgress, Progress
from clausewise.retrieval import SpanSearch
from clausewise.runtime import Runtime
from clausewise_lab.evals.data import LEGALBENCH_DATASETS, LegalBenchQuery, legalbench_queries, require
from clausewise_lab.evals.folds import is_heldout
from indexes.layout import contract_id_for
from tools.retrieval.spans import merge_spans, precision_recall

KS = (1, 2, 4, 8, 16, 32, 64)
TENANT = "legalbenchrag"
GOALS = {
    "document_all_recall@1": 35.0,
    "document_all_recall@64": 95.0,
    "document_all_precision@1": 30.0,
    "retrieval_p95_ms": 100.0,
    "rerank_50_seconds": 1.0,
}


@dataclass(frozen=True)
class Configuration:
    """One row: the product's retrieval under these settings (``retrieval.*`` overrides)."""

    name: str
    rankers: tuple[str, ...]
    graph: bool
    rerank: bool

    def overrides(self, reranker: str) -> dict[str, Any]:
        return {
            "retrieval": {
                "rankers": list(self.rankers),
                "graph": self.graph,
                "reranker": reranker if self.rerank else "none",
            }
        }


CONFIGURATIONS = (
    Configuration("bm25", ("bm25",), graph=False, rerank=False),
    Configuration("dense", ("dense",), graph=False, rerank=False),
    Configuration("hybrid", ("bm25", "dense"), graph=False, rerank=False),
    Configuration("hybrid+graph", ("bm25", "dense"), graph=True, rerank=False),
    Configuration("hybrid+rerank", ("bm25", "dense"), graph=False, rerank=True),
    Configuration("hybrid+graph+rerank", ("bm25", "dense"), graph=True, rerank=True),
    Configuration("hybrid+lexicon", ("bm25", "dense", "lexicon"), graph=False, rerank=False),
    Configuration("hybrid+lexicon+rerank", ("bm25", "dense", "lexicon"), graph=False, rerank=True),
    Configuration("hybrid+lexicon+graph+rerank", ("bm25", "dense", "lexicon"), graph=True, rerank=True),
)


def corpus_contract_id(file_path: str) -> str:
    """A stable contract id for a corpus file ("maud/Acacia_...txt" -> "maud-acacia-...-1a2b3c")."""
    dataset, _, name = file_path.partition("/")
    digest = hashlib.sha1(file_path.encode()).hexdigest()[:6]
    return f"{dataset.replace('_', '-')}-{contract_id_for(name)[:70]}-{digest}"


def benchmark_settings(settings: Settings) -> Settings:
    """The benchmark's tenant; its contracts carry the knowledge graph so that the graph rows
    can be run on the same ingest as the rest."""
    return with_overrides(settings, {"paths": {"tenant": TENANT}, "structure": {"knowledge_graph": True}})


def question_part(query: str) -> str:
    """The question without its document designation ("Consider ...; <question>")."""
    head, separator, rest = query.partition("; ")
    return rest.strip() if separator and head.lower().startswith("consider") and rest.strip() else query


def sample_queries(
    queries: list[LegalBenchQuery], limit: int | None, seed: int = 13
) -> list[LegalBenchQuery]:
    if not limit or limit >= len(queries):
        return queries
    return random.Random(seed).sample(queries, limit)


def ingest_corpus(runtime: Runtime, root: Path, files: list[str], progress: Progress) -> dict[str, str]:
    """Ingest (or reuse) every corpus file; returns file path -> contract id."""
    archivist = runtime.archivist()
    ids: dict[str, str] = {}
    progress.stage("ingesting corpus files", total=len(files))
    for file_path in files:
        contract_id = corpus_contract_id(file_path)
        archivist.ingest(root / "legalbenchrag" / "corpus" / file_path, contract_id=contract_id)
        ids[file_path] = contract_id
        progress.advance()
    return ids


def _scores(
    hits: list[tuple[str, tuple[int, int]]], gold: list[tuple[str, tuple[int, int]]]
) -> dict[str, Any]:
    precision, recall, characters = [], [], []
    for k in KS:
        head = hits[:k]
        p, r = precision_recall(head, gold)
        precision.append(p)
        recall.append(r)
        by_file = defaultdict(list)
        for name, span in head:
            by_file[name].append(span)
        characters.append(sum(e - s for spans in by_file.values() for s, e in merge_spans(spans)))
    return {"precision": precision, "recall": recall, "characters": characters}


def _query_row(query: LegalBenchQuery, retrieved: list[tuple[str, tuple[int, int]]]) -> dict[str, Any]:
    """One query's scores, with its text: the means are taken over these rows, and each is kept
    (rounded) in the results file for comparing two runs query by query."""
    return {"query": query.query, **_scores(retrieved, query.snippets)}


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    """One query's row for the results file: its text, recall and precision at each k (%)."""
    return {
        "query": row["query"],
        "recall": [round(100 * r, 2) for r in row["recall"]],
        "precision": [round(100 * p, 2) for p in row["precision"]],
    }


def _mean(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if not rows:
        return {}
    out = {
        key: [round(100 * statistics.fmean(r[key][i] for r in rows), 2) for i in range(len(KS))]
        for key in ("precision", "recall")
    }
    out["characters"] = [round(statistics.fmean(r["characters"][i] for r in rows)) for i in range(len(KS))]
    out["queries"] = len(rows)
    return out


def run(
    runtime: Runtime,
    root: Path,
    *,
    limit: int | None,
    scopes: tuple[str, ...],
    configurations: tuple[str, ...],
    datasets: tuple[str, ...] = LEGALBENCH_DATASETS,
    fold: str = "all",
    queries_kind: str = "all",
    progress: Progress | None = None,
    max_document_bytes: int | None = None,
    time_reranker: bool = True,
) -> dict[str, Any]:
    """Score every chosen configuration; ``fold="heldout"`` keeps only queries whose documents
    the shipped reranker never saw in training (its validation fold), so + rerank rows are not
    flattered by training on the same documents. ``queries_kind="terms"`` keeps only the sampled
    queries whose question names a defined term of their document (a party such as "the
    Company", or "Confidential Information"): where the knowledge graph, whose entities are the
    defined terms, parties and clauses, should help if anywhere. ``max_document_bytes`` samples
    only among queries whose documents are no longer (a cheaper fixed sample, for the gate);
    ``time_reranker`` times the reranker on 50 chunks of each document (its latency row)."""
    progress = progress or NoProgress()
    require(root / "legalbenchrag")
    chosen = [c for c in CONFIGURATIONS if c.name in configurations]
    results: dict[str, Any] = {
        "benchmark": "legalbench-rag",
        "data": str(root),
        "ks": list(KS),
        "goals": GOALS,
        "limit_per_dataset": limit,
        "fold": fold,
        "queries_kind": queries_kind,
        "queries": {},
        "scopes": {},
    }
    per_dataset: dict[str, dict[str, dict[str, list]]] = {s: {c.name: {} for c in chosen} for s in scopes}
    # every query's own figures, so that two runs (before and after a change) can be compared
    # query by query: how many moved down and up at each k, not only the means
    per_query: dict[str, dict[str, dict[str, list[dict[str, Any]]]]] = {}
    latency_ms: dict[str, list[float]] = defaultdict(list)
    rerank_seconds: list[float] = []
    reranker_kind = runtime.settings.retrieval.reranker
    # every row is the product's retrieval interface under the row's settings (models shared)
    runtimes = {
        c.name: Runtime(
            with_overrides(runtime.settings, c.overrides(reranker_kind)), evaluation=True, hub=runtime.hub
        )
        for c in chosen
    }
    reranker = runtime.reranker() if time_reranker and any(c.rerank for c in chosen) else None
    for dataset in datasets:
        pool = in_fold(legalbench_queries(root, dataset), fold)
        if max_document_bytes is not None:
            corpus = root / "legalbenchrag" / "corpus"
            pool = [
                q
                for q in pool
                if all((corpus / f).stat().st_size <= max_document_bytes for f, _ in q.snippets)
            ]
        queries = sample_queries(pool, limit)
        results["queries"][dataset] = len(queries)
        if not queries:
            continue
        files = (
            sorted({f for q in queries for f, _ in q.snippets})
            if "corpus" not in scopes
            else sorted(
                {
                    p.relative_to(root / "legalbenchrag" / "corpus").as_posix()
                    for p in (root / "legalbenchrag" / "corpus" / dataset).glob("*")
                    if p.is_file()
                }
            )
        )
        ids = ingest_corpus(runtime, root, files, progress)
        if queries_kind == "terms":
            queries = naming_defined_terms(runtime, queries, ids)
            results["queries"][dataset] = len(queries)
        rows: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
        if "document" in scopes:
            by_document: dict[str, list[LegalBenchQuery]] = defaultdict(list)
            for query in queries:
                by_document[query.snippets[0][0]].append(query)
            progress.stage(f"{dataset}: per-document retrieval", total=len(queries))
            for file_path, group in by_document.items():
                with ExitStack() as stack:
                    searches = {
                        c.name: stack.enter_context(SpanSearch(runtimes[c.name], ids[file_path]))
                        for c in chosen
                    }
                    for query in group:
                        question = question_part(query.query)
                        for configuration in chosen:
                            started = time.perf_counter()
                            spans = searches[configuration.name](question, max(KS))
                            latency_ms[configuration.name].append(1000 * (time.perf_counter() - started))
                            retrieved = [(file_path, span) for _, span, _ in spans]
                            rows[("document", configuration.name)].append(_query_row(query, retrieved))
                        progress.advance()
                if reranker is not None and group:
                    index = runtime.store.open(ids[file_path])
                    texts = [c.text for c in list(index.chunks.values())[:50]]
                    index.close()
                    started = time.perf_counter()
                    reranker.score(group[0].query, texts)
                    rerank_seconds.append(time.perf_counter() - started)
        if "corpus" in scopes:
            by_name = {Path(file_path).name: file_path for file_path in files}
            corpus_rows = [c for c in chosen if not c.graph and "lexicon" not in c.rankers]
            # graphs are per contract and concept words say nothing about which document is
            # meant: no corpus-scope graph or lexicon rows
            progress.stage(f"{dataset}: corpus retrieval", total=len(queries))
            with ExitStack() as stack:
                searches = {
                    c.name: stack.enter_context(SpanSearch(runtimes[c.name], [ids[f] for f in files]))
                    for c in corpus_rows
                }
                for query in queries:
                    for configuration in corpus_rows:
                        spans = searches[configuration.name](query.query, max(KS))
                        retrieved = [(by_name[name], span) for name, span, _ in spans]
                        rows[("corpus", configuration.name)].append(_query_row(query, retrieved))
                    progress.advance()
        for (scope, name), values in rows.items():
            per_dataset[scope][name][dataset] = _mean(values)
            per_query.setdefault(scope, {}).setdefault(name, {})[dataset] = [_rounded(v) for v in values]
    for scope, by_configuration in per_dataset.items():
        table: dict[str, Any] = {}
        for name, datasets in by_configuration.items():
            if not datasets:
                continue
            complete = [d for d in LEGALBENCH_DATASETS if d in datasets]
            if len(complete) < len(LEGALBENCH_DATASETS):
                table[name] = dict(datasets)  # ALL is defined over the four datasets only
                continue
            table[name] = {
                **datasets,
                "ALL": {
                    key: [
                        round(statistics.fmean(datasets[d][key][i] for d in complete), 2)
                        for i in range(len(KS))
                    ]
                    for key in ("precision", "recall")
                },
            }
        results["scopes"][scope] = table
    results["per_query"] = per_query
    results["latency"] = {
        "per_query_ms": {name: _percentiles(values, 1) for name, values in latency_ms.items()},
        "rerank_50_seconds": _percentiles(rerank_seconds, 3),
        "measured_on": "per-document retrieval of 64 spans, one query at a time, tree expansion off",
    }
    return results


def naming_defined_terms(
    runtime: Runtime, queries: list[LegalBenchQuery], ids: dict[str, str]
) -> list[LegalBenchQuery]:
    """The queries whose question (without its document designation) names a defined term of
    their document, as a word, in the case the contract defines it."""
    terms: dict[str, list[str]] = {}
    kept = []
    for query in queries:
        file_path = query.snippets[0][0]
        if file_path not in terms:
            index = runtime.store.open(ids[file_path])
            terms[file_path] = [d.term for d in index.definitions if len(d.term) > 2]
            index.close()
        question = question_part(query.query)
        if any(re.search(rf"\b{re.escape(term)}\b", question) for term in terms[file_path]):
            kept.append(query)
    return kept


def _percentiles(values: list[float], digits: int) -> dict[str, float | None]:
    return {
        "p50": round(statistics.median(values), digits) if values else None,
        "p95": round(statistics.quantiles(values, n=20)[-1], digits) if len(values) >= 20 else None,
        "n": len(values),
    }


def in_fold(queries: list[LegalBenchQuery], fold: str) -> list[LegalBenchQuery]:
    """``all``; ``heldout``: queries whose every document is in the reranker's validation fold;
    ``tune``: queries none of whose documents is (what the product was fitted on)."""
    if fold == "all":
        return queries
    if fold == "heldout":
        return [q for q in queries if all(is_heldout(name) for name, _ in q.snippets)]
    if fold == "tune":
        return [q for q in queries if not any(is_heldout(name) for name, _ in q.snippets)]
    raise ValueError(f"unknown fold {fold!r}: use all, heldout or tune")
