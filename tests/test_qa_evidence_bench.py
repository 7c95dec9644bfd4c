"""``eval qa-evidence`` on two development questions: gold spans among the answerer's passages."""

from __future__ import annotations

from pathlib import Path


def test_gold_spans_are_counted_in_the_passages_and_in_the_excerpts(
    hub, bench_data: Path, tmp_path: Path
) -> None:
    from clausewise.core.config import load_settings
    from clausewise.runtime import Runtime
    from clausewise_lab.evals import qa_evidence_bench

    def run(passage_chars: int, scope: str) -> dict:
        settings = load_settings(
            overrides={
                "paths": {"data_dir": str(tmp_path)},
                "retrieval": {"reranker": "none"},
                "interrogation": {"passage_chars": passage_chars, "attribution_scope": scope},
            }
        )
        return qa_evidence_bench.run(Runtime(settings, evaluation=True, hub=hub), bench_data, limit=2, seed=7)

    short, whole = run(200, "passages"), run(100_000, "contract")
    assert [r["source"] for r in short["rows"]] == ["legalbench-rag", "contractnli"]
    for row in short["rows"]:
        assert 0 <= row["in_excerpts"] <= row["in_passages"] <= row["gold_spans"]
        # attribution: at most attributed_sentences per question, each touching gold or not
        assert 0 <= row["attributed_on_gold"] <= row["attributed"] <= 2
        assert row["in_attributed"] <= row["in_passages"]  # attribution read the passages only
        assert max(row["in_excerpts"], row["in_attributed"]) <= row["in_reach"] <= row["gold_spans"]
    for row in whole["rows"]:  # attribution read the whole contract: it may cite beyond the passages
        assert max(row["in_excerpts"], row["in_attributed"]) <= row["in_reach"] <= row["gold_spans"]
        assert 0 <= row["attributed_on_gold"] <= row["attributed"] <= 2
    assert short["gold_spans"] == sum(r["gold_spans"] for r in short["rows"]) > 0
    # passages shown whole: every gold span among them is in what the answerer reads
    assert [r["in_excerpts"] for r in whole["rows"]] == [r["in_passages"] for r in whole["rows"]]
    assert [r["in_passages"] for r in whole["rows"]] == [r["in_passages"] for r in short["rows"]]
