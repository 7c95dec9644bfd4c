"""``clausewise eval acord``: the metrics by hand, the judged pool and the per-grade summary."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from clausewise_lab.evals import acord_bench
from tests.acord_files import write_acord as write_acord_folder

VOCABULARY = ("cap", "liability", "fees", "paid", "governing", "law")


class WordCountEmbedder:
    """Unit vectors of vocabulary counts: deterministic, and close for texts sharing words."""

    model_id = "word-counts"

    def embed(self, texts: Sequence[str], progress: Callable[[int], None] | None = None) -> np.ndarray:
        rows = np.array([[t.lower().split().count(w) for w in VOCABULARY] for t in texts], dtype=float)
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.where(norms == 0, 1.0, norms)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)


class WordReranker:
    """Fees-based caps are what the query wants; other liability text is related; the rest is not."""

    name = "words"

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        return np.array([0.9 if "fees" in p else 0.5 if "liability" in p else 0.1 for p in passages])


def test_ndcg_matches_a_hand_computation() -> None:
    judgements = {"a": 0, "b": 4, "c": 2, "d": 3}
    # DCG = 0/log2(2) + 4/log2(3) + 2/log2(4) = 3.5237; ideal 4, 3, 2 gives 4 + 1.8928 + 1 = 6.8928
    assert acord_bench.ndcg(["a", "b", "c"], judgements, 3) == pytest.approx(3.5237 / 6.8928, abs=1e-4)
    assert acord_bench.ndcg(["b", "d", "c"], judgements, 3) == pytest.approx(1.0)
    assert acord_bench.ndcg(["x"], {"x": 0}, 5) == 0.0  # no relevant clause: 0, not a division error


def test_star_precision_counts_stars_as_score_plus_one() -> None:
    judgements = {"a": 4, "b": 3, "c": 2, "d": 0}
    ranked = ["a", "b", "c", "d", "unjudged"]
    assert acord_bench.star_precision(ranked, judgements, 5) == pytest.approx(1 / 5)
    assert acord_bench.star_precision(ranked, judgements, 4) == pytest.approx(2 / 5)
    assert acord_bench.star_precision(ranked, judgements, 3) == pytest.approx(3 / 5)


def test_probability_by_grade_averages_each_grade_in_ascending_order() -> None:
    summary = acord_bench.probability_by_grade([(3, 0.5), (0, 0.1), (3, 0.7), (0, 0.3), (1, 0.4)])
    assert list(summary) == ["0", "1", "3"]
    assert summary["0"] == {"mean_probability": 0.2, "candidates": 2}
    assert summary["3"] == {"mean_probability": 0.6, "candidates": 2}
    assert acord_bench.probability_by_grade([]) == {}


def write_acord(root: Path) -> None:
    corpus = {
        "c1": "liability cap equal to the fees paid",
        "c2": "liability for indirect damages is excluded",
        "c3": "governing law of Delaware",
        "c4": "cap liability cap liability",  # closest to the query in words, but never judged
    }
    qrels = {"valid.tsv": {"q1": {"c1": 4, "c2": 1, "c3": 0}}}
    write_acord_folder(root, corpus, {"q1": "cap on liability"}, qrels)


@pytest.fixture
def fake_runtime(settings) -> SimpleNamespace:
    return SimpleNamespace(
        settings=settings,
        tenant_dir=settings.paths.tenant_dir,
        embedder=WordCountEmbedder(),
        reranker=WordReranker,
    )


def test_judged_pool_ranks_only_judged_clauses_and_summarises_grades(tmp_path: Path, fake_runtime) -> None:
    write_acord(tmp_path)
    results = acord_bench.run(fake_runtime, tmp_path)
    assert results["queries"] == 1 and results["reranker"] == "words"
    # the unjudged c4 never enters the judged pool: three candidates, one per judged grade
    assert results["reranker_by_grade"] == {
        "0": {"mean_probability": 0.1, "candidates": 1},
        "1": {"mean_probability": 0.5, "candidates": 1},
        "4": {"mean_probability": 0.9, "candidates": 1},
    }
    assert results["rows"]["hybrid+rerank"]["ndcg@5"] == pytest.approx(100.0)
    per_query = results["ndcg@5_per_query"]["q1"]
    assert per_query["hybrid+rerank"] == pytest.approx(100.0)
    assert set(per_query) == set(results["rows"])


def test_corpus_pool_lets_unjudged_clauses_in_as_irrelevant(tmp_path: Path, fake_runtime) -> None:
    write_acord(tmp_path)
    results = acord_bench.run(fake_runtime, tmp_path, pool="corpus")
    assert results["reranker_by_grade"]["0"]["candidates"] == 2  # c3 and the unjudged c4
    # BM25 puts c4 first, which counts as grade 0, so BM25 is no longer a perfect order
    assert results["rows"]["bm25"]["ndcg@5"] < 100.0
