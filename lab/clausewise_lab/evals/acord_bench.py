"""``clausewise eval acord``: clause retrieval on ACORD (Wang et al., 2025).

Each of the 3,931 clauses is one passage; queries are attorney-written provision descriptions.
As in the ACORD paper, each query ranks its own candidate pool, the clauses judged for it (the
clauses of its category): BM25 over that pool reproduces the paper's BM25 figure. ``--pool
corpus`` ranks all 3,931 clauses instead (a harder setting, unjudged clauses count as 0).
Rows: BM25, dense, hybrid (RRF), hybrid + cross-encoder rerank of the top 50 ordered by the
reranker alone, and ``hybrid+rerank-fuse``, the product's default ordering (RRF of the hybrid and
the reranker orders, ``retrieval.rerank_mode = "fuse"``). Metrics: NDCG@5
and NDCG@10 with graded gains (the qrels score 0-4, log2 discount, as trec_eval/BEIR compute it)
and star precision@5: the share of the top five rated at least 3, 4 or 5 stars (score + 1). The
results also hold NDCG@5 per query and row (with a handful of queries, one query decides a mean)
and the reranker's mean probability per grade over the candidates it scored, which tells finding
relevant clauses (grade 0 against the rest) from ordering them by grade.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clausewise.core.progress import NoProgress, Progress
from clausewise_lab.evals.data import acord
from indexes.bm25 import BM25Index
from tools.retrieval.fusion import reciprocal_rank_fusion

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

GOALS = {"ndcg@5": 65.0}
ROWS = ("bm25", "dense", "hybrid", "hybrid+rerank", "hybrid+rerank-fuse")


def ndcg(ranked: Sequence[str], judgements: dict[str, int], k: int, exponential: bool = False) -> float:
    """NDCG@k with gain = grade (or 2^grade - 1) and discount log2(rank + 1).

    The ideal ranking is built from every judged clause of the query, not only the retrieved
    ones, so a first stage that misses relevant clauses is penalized.
    """

    def gain(grade: int) -> float:
        return float(2**grade - 1) if exponential else float(grade)

    dcg = sum(gain(judgements.get(doc, 0)) / math.log2(i + 2) for i, doc in enumerate(ranked[:k]))
    ideal = sorted((gain(g) for g in judgements.values()), reverse=True)[:k]
    best = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / best if best else 0.0


def star_precision(ranked: list[str], judgements: dict[str, int], stars: int, k: int = 5) -> float:
    return sum(1 for doc in ranked[:k] if judgements.get(doc, 0) + 1 >= stars) / k


def probability_by_grade(scored: list[tuple[int, float]]) -> dict[str, dict[str, float]]:
    """Mean reranker probability and candidate count per ACORD grade (0-4), grades ascending.

    NDCG@5 rewards two abilities at once: putting relevant clauses above irrelevant ones, and
    putting 5-star clauses above 2-star ones. Means that rise from grade 0 to 1 and stay flat
    after show a reranker that has the first and lacks the second.
    """
    by_grade: dict[int, list[float]] = {}
    for grade, probability in scored:
        by_grade.setdefault(grade, []).append(probability)
    return {
        str(grade): {"mean_probability": round(statistics.fmean(values), 3), "candidates": len(values)}
        for grade, values in sorted(by_grade.items())
    }


def _embeddings(runtime: Runtime, ids: list[str], texts: list[str], progress: Progress) -> np.ndarray:
    """Clause embeddings, cached in the data directory (keyed by model and corpus)."""
    digest = hashlib.sha256(("\x00".join(ids) + runtime.embedder.model_id).encode()).hexdigest()[:16]
    cache = runtime.tenant_dir / "cache" / f"acord-{digest}.npy"
    if cache.is_file():
        return np.load(cache)
    progress.stage("embedding ACORD clauses", total=len(texts))
    matrix = runtime.embedder.embed(texts, progress=progress.advance)
    cache.parent.mkdir(parents=True, exist_ok=True)
    np.save(cache, matrix)
    return matrix


def run(
    runtime: Runtime,
    root: Path,
    qrels_file: str = "valid.tsv",
    *,
    pool: str = "judged",
    rerank_top_n: int = 50,
    progress: Progress | None = None,
) -> dict[str, Any]:
    progress = progress or NoProgress()
    data = acord(root, qrels_file)
    ids = list(data.corpus)
    texts = [data.corpus[i] for i in ids]
    settings = runtime.settings.retrieval
    bm25 = BM25Index.build(ids, texts, settings.bm25_k1, settings.bm25_b)
    matrix = _embeddings(runtime, ids, texts, progress)
    reranker = runtime.reranker()
    queries = [q for q in data.qrels if q in data.queries]
    per_row: dict[str, dict[str, list[float]]] = {
        row: {"ndcg@5": [], "ndcg@10": [], "p@5_3star": [], "p@5_4star": [], "p@5_5star": []} for row in ROWS
    }
    scored: list[tuple[int, float]] = []
    per_query: dict[str, dict[str, float]] = {}
    progress.stage(f"ACORD {qrels_file}", total=len(queries))
    for query_id in queries:
        text = data.queries[query_id]
        judgements = data.qrels[query_id]
        allowed = judgements if pool == "judged" else None
        lexical = [doc for doc, _ in bm25.search(text, len(ids)) if allowed is None or doc in allowed]
        lexical = lexical[: settings.bm25_top_k]
        scores = matrix @ runtime.embedder.embed_queries([text])[0]
        dense = [ids[i] for i in np.argsort(-scores) if allowed is None or ids[i] in allowed]
        dense = dense[: settings.dense_top_k]
        fused = [
            doc
            for doc, _, _ in reciprocal_rank_fusion(
                {"bm25": lexical, "dense": dense},
                {"bm25": settings.bm25_weight, "dense": settings.dense_weight},
                settings.rrf_k,
            )
        ]
        rankings = {"bm25": lexical, "dense": dense, "hybrid": fused}
        if reranker is not None:
            head = fused[:rerank_top_n]
            probabilities = reranker.score(text, [data.corpus[d] for d in head])
            reranked = [head[i] for i in np.argsort(-probabilities, kind="stable")]
            scored += [(judgements.get(doc, 0), float(p)) for doc, p in zip(head, probabilities, strict=True)]
            rankings["hybrid+rerank"] = reranked
            rankings["hybrid+rerank-fuse"] = [
                doc
                for doc, _, _ in reciprocal_rank_fusion(
                    {"first": head, "rerank": reranked},
                    {"first": 1.0, "rerank": settings.rerank_weight},
                    settings.rrf_k,
                )
            ]
        for row, ranked in rankings.items():
            metrics = per_row[row]
            metrics["ndcg@5"].append(ndcg(ranked, judgements, 5))
            metrics["ndcg@10"].append(ndcg(ranked, judgements, 10))
            for stars in (3, 4, 5):
                metrics[f"p@5_{stars}star"].append(star_precision(ranked, judgements, stars))
        per_query[query_id] = {row: round(100 * per_row[row]["ndcg@5"][-1], 2) for row in rankings}
        progress.advance()
    table = {
        row: {name: round(100 * statistics.fmean(values), 2) for name, values in metrics.items() if values}
        for row, metrics in per_row.items()
        if metrics["ndcg@5"]
    }
    return {
        "benchmark": "acord",
        "data": str(root),
        "qrels": qrels_file,
        "pool": pool,
        "queries": len(queries),
        "corpus": len(ids),
        "reranker": getattr(reranker, "name", None),
        "goals": GOALS,
        "rows": table,
        "reranker_by_grade": probability_by_grade(scored),
        "ndcg@5_per_query": per_query,
    }
