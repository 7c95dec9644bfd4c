"""A synthetic ACORD folder in the layout of ../shared/data, for tests that read ACORD."""

from __future__ import annotations

import csv
import json
from pathlib import Path


def write_acord(
    root: Path, corpus: dict[str, str], queries: dict[str, str], qrels: dict[str, dict[str, dict[str, int]]]
) -> None:
    """``root/acord``: ``corpus.jsonl`` (clause id -> text), ``queries.jsonl`` (query id -> text)
    and one ``qrels/<file>`` per entry of ``qrels`` (query id -> clause id -> grade 0-4)."""
    base = root / "acord"
    (base / "qrels").mkdir(parents=True, exist_ok=True)
    rows = [json.dumps({"_id": cid, "title": "", "text": text}) for cid, text in corpus.items()]
    (base / "corpus.jsonl").write_text("\n".join(rows), encoding="utf-8")
    lines = [json.dumps({"_id": qid, "text": text}) for qid, text in queries.items()]
    (base / "queries.jsonl").write_text("\n".join(lines), encoding="utf-8")
    for file_name, judgements in qrels.items():
        with (base / "qrels" / file_name).open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, delimiter="\t")
            writer.writerow(["query-id", "corpus-id", "score"])
            for query_id, grades in judgements.items():
                writer.writerows([query_id, corpus_id, grade] for corpus_id, grade in grades.items())
