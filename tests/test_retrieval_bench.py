"""The retrieval interface on a slice of the development data, scored by the LegalBench-RAG
metric and checked against a brute-force character count."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise_lab.evals.data import legalbench_queries
from clausewise_lab.evals.retrieval_bench import KS, _scores, corpus_contract_id, question_part
from tools.retrieval.spans import precision_recall


def _brute_force(retrieved: list[tuple[str, tuple[int, int]]], gold: list[tuple[str, tuple[int, int]]]):
    got = {(f, i) for f, (s, e) in retrieved for i in range(s, e)}
    truth = {(f, i) for f, (s, e) in gold for i in range(s, e)}
    return len(got & truth) / len(got), len(got & truth) / len(truth)


def test_metric_matches_a_character_count_on_real_queries(
    bench_data: Path, tmp_path: Path, runtime_for
) -> None:
    from clausewise.core.config import load_settings
    from clausewise.retrieval import retrieve

    settings = load_settings(
        overrides={"paths": {"data_dir": str(tmp_path)}, "retrieval": {"reranker": "none"}}
    )
    runtime = runtime_for(settings)
    queries = [
        q
        for q in legalbench_queries(bench_data, "contractnli")
        if q.snippets[0][0] == legalbench_queries(bench_data, "contractnli")[0].snippets[0][0]
    ][:3]
    file_path = queries[0].snippets[0][0]
    contract_id = corpus_contract_id(file_path)
    runtime.archivist().ingest(bench_data / "legalbenchrag" / "corpus" / file_path, contract_id=contract_id)
    for query in queries:
        hits = retrieve(runtime, contract_id, question_part(query.query), k=8)
        retrieved = [(file_path, span) for _, span, _ in hits]
        assert all(name == Path(file_path).name for name, _, _ in hits)
        for k in (1, 2, 4, 8):
            assert precision_recall(retrieved[:k], query.snippets) == pytest.approx(
                _brute_force(retrieved[:k], query.snippets)
            )
        scores = _scores(retrieved, query.snippets)
        assert scores["recall"] == sorted(scores["recall"])  # recall never drops as k grows
        assert len(scores["precision"]) == len(KS)


def test_each_query_figures_are_kept_and_average_to_the_row(
    bench_data: Path, tmp_path: Path, runtime_for
) -> None:
    """The results file keeps every query's recall and precision at each k, so that a run before a
    change and one after can be compared query by query; their mean is the row's figure."""
    import statistics

    from clausewise.core.config import load_settings
    from clausewise_lab.evals import retrieval_bench

    settings = load_settings(
        overrides={"paths": {"data_dir": str(tmp_path)}, "retrieval": {"reranker": "none"}}
    )
    results = retrieval_bench.run(
        runtime_for(settings),
        bench_data,
        limit=3,
        scopes=("document",),
        configurations=("bm25",),
        datasets=("contractnli",),
    )
    rows = results["per_query"]["document"]["bm25"]["contractnli"]
    mean = results["scopes"]["document"]["bm25"]["contractnli"]
    assert len(rows) == results["queries"]["contractnli"] == 3
    assert {row["query"] for row in rows} <= {q.query for q in legalbench_queries(bench_data, "contractnli")}
    for key in ("recall", "precision"):
        for i in range(len(KS)):
            assert statistics.fmean(row[key][i] for row in rows) == pytest.approx(mean[key][i], abs=0.01)
