"""`clausewise eval ingest` on a slice of the development data (skipped without the data)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from clausewise.cli.main import run
from clausewise.core.config import Settings
from clausewise_lab.cli.evals import code_state
from clausewise_lab.evals.data import GoldDocument
from clausewise_lab.evals.ingest_bench import integrity, word_accuracy


def test_integrity_is_computed_from_the_smallest_containing_node(settings) -> None:
    text = (
        "1. TERM\n\n1.1 This Agreement lasts for two full years. It then renews every year automatically.\n\n"
        "1.2 Either party may end it on notice.\n"
    )
    sentence = (text.index("It then"), text.index("automatically.") + len("automatically."))
    across = (text.index("1.1"), text.index("on notice.") + len("on notice."))
    result = integrity([GoldDocument("t.txt", text, [sentence, across])], settings)
    assert result["spans"] == 2
    assert result["non_root_share"] == 1.0  # both fit inside section 1
    # the sentence is a node of its own (ratio 1); 1.1 + 1.2 together need node "1"
    section = len(text.rstrip()) / (across[1] - across[0])
    assert result["median_node_to_span_ratio"] == round((1.0 + section) / 2, 3)


def test_word_accuracy_counts_words_recovered_in_order() -> None:
    assert word_accuracy("the quick brown fox", "the quick brown fox") == 1.0
    assert word_accuracy("the quick brown fox", "the quack brown fox") == 0.75
    assert word_accuracy("a b c d", "") == 0.0


def test_clause_integrity_goal_on_development_documents(bench_data: Path) -> None:
    from clausewise_lab.evals.data import cuad_documents, legalbench_documents

    documents = cuad_documents(bench_data)[:40] + legalbench_documents(bench_data, "contractnli")[:20]
    result = integrity(documents, Settings())
    assert result["non_root_share"] >= 0.95
    assert result["median_node_to_span_ratio"] <= 3.0


def test_eval_ingest_command_writes_json(bench_data: Path, tmp_path: Path, tesseract: str) -> None:
    out = tmp_path / "ingest.json"
    with pytest.raises(SystemExit) as exited:
        run(
            [
                "--data-dir",
                str(tmp_path / "store"),
                "eval",
                "ingest",
                "--data",
                str(bench_data),
                "--limit",
                "2",
                "--ocr-pages",
                "1",
                "--embed-pages",
                "3",
                "--out",
                str(out),
            ]
        )
    assert exited.value.code == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert set(results["integrity"]) >= {"cuad_dev", "legalbenchrag_maud", "all"}
    assert results["pdf_speed"]["pdfs"] == 2 and results["pdf_speed"]["pages_per_second"] > 0
    assert results["pdf_speed"]["embedding"]["chunks"] > 0
    assert results["ocr"]["pages"] == 1 and results["ocr"]["word_accuracy"] > 0.9
    # the code measured is the code at the start; the file is replaced whole, never half-written
    assert {"commit", "uncommitted_changes", "started", "when"} <= set(results["environment"])
    assert not list(tmp_path.glob(".*.partial"))


def test_a_benchmark_sees_uncommitted_code_anywhere_in_the_checkout(tmp_path) -> None:
    """The code state a benchmark records: a change to a module outside the folder git is run
    from must count (pathspecs are relative to git's working folder; a run at an edited tree was
    once recorded as clean)."""

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    (tmp_path / "tools").mkdir()
    (tmp_path / "cli").mkdir()
    (tmp_path / "tools" / "rules.py").write_text("RULES = 1\n", encoding="utf-8")
    (tmp_path / "notes.md").write_text("notes\n", encoding="utf-8")
    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    assert code_state(tmp_path / "cli")["uncommitted_changes"] is False
    (tmp_path / "notes.md").write_text("more notes\n", encoding="utf-8")
    assert code_state(tmp_path / "cli")["uncommitted_changes"] is False  # not code
    (tmp_path / "tools" / "rules.py").write_text("RULES = 2\n", encoding="utf-8")
    state = code_state(tmp_path / "cli")
    assert state["uncommitted_changes"] is True and state["commit"]
