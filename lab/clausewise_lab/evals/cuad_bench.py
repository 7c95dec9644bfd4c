"""``clausewise eval cuad``: provision review against CUAD's expert labels.

Each contract's text is ingested and reviewed for the provisions of the built-in list (CUAD's 41
categories, matched by name). Scored per category: presence precision / recall / F1 (a category
is present when the contract has at least one gold answer) and their macro average; span overlap
(gold answer spans touched by the returned clause spans, and returned spans touching a gold
answer); answer accuracy for the categories with a value (the extracted value matches a gold
answer after normalisation); seconds per contract for the whole list.

``fold = "heldout"`` keeps only the contracts the shipped reranker and presence classifier never
saw in training. ``calibrate`` sweeps the presence threshold over the rows' best probabilities
(the classifier's or the reranker's, as ``review.presence`` says): one global figure per
candidate, and the best threshold of each category (with ``review.presence = "reranker"``, what
the ``threshold`` field of a provision list takes).
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clausewise.core.domain import Span
from clausewise.core.progress import NoProgress, Progress
from clausewise_lab.evals.data import in_fold, ingest_text, require
from tools.retrieval.spans import span_hit_rates
from tools.review.provisions import load_provisions

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

GOALS = {"presence_macro_f1": 0.85, "seconds_per_contract": 120.0}
SWEEP = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass
class CuadContract:
    title: str
    text: str
    answers: dict[str, list[tuple[str, Span]]]  # category name -> [(answer text, span)]


def cuad_contracts(root: Path, file_name: str = "cuad_dev.json") -> list[CuadContract]:
    entries = json.loads(require(root / "cuad" / file_name).read_text(encoding="utf-8"))["data"]
    contracts = []
    for entry in entries:
        paragraph = entry["paragraphs"][0]
        answers = {
            qa["id"].rsplit("__", 1)[-1]: [
                (a["text"], (a["answer_start"], a["answer_start"] + len(a["text"]))) for a in qa["answers"]
            ]
            for qa in paragraph["qas"]
        }
        contracts.append(CuadContract(entry["title"], paragraph["context"], answers))
    return contracts


def normalise(value: str) -> str:
    return " ".join(re.sub(r"[^a-z0-9]+", " ", value.lower()).split())


def answer_matches(value: str | None, gold: list[str]) -> bool:
    """The value names what a gold answer says: one contains the other after normalisation, or
    they share at least half their words (dates and names are written many ways)."""
    if not value:
        return False
    mine = normalise(value)
    for answer in gold:
        theirs = normalise(answer)
        if mine and theirs and (mine in theirs or theirs in mine):
            return True
        a, b = set(mine.split()), set(theirs.split())
        if a and b and 2 * len(a & b) / (len(a) + len(b)) >= 0.5:
            return True
    return False


def presence_scores(pairs: list[tuple[bool, bool]]) -> dict[str, float]:
    """(gold, predicted) presence pairs -> precision, recall, F1 (an empty class scores 1.0 F1
    when nothing was predicted either, as a category absent everywhere and never claimed is right)."""
    tp = sum(g and p for g, p in pairs)
    fp = sum(p and not g for g, p in pairs)
    fn = sum(g and not p for g, p in pairs)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "precision": round(precision, 4),
        "recall": round(recall, 4),
        "f1": round(f1, 4),
        "support": tp + fn,
    }


def summarise(rows: list[dict[str, Any]], threshold_of: dict[str, float] | None = None) -> dict[str, Any]:
    """Per-category and macro presence figures; with ``threshold_of``, presence is recomputed from
    each row's best probability at that category's threshold (calibration)."""

    def predicted(row: dict[str, Any]) -> bool:
        return row["best"] >= threshold_of[row["category"]] if threshold_of else row["present"]

    categories = sorted({r["category"] for r in rows})
    per_category = {
        c: presence_scores([(r["gold_present"], predicted(r)) for r in rows if r["category"] == c])
        for c in categories
    }
    return {
        "macro_f1": round(statistics.fmean(s["f1"] for s in per_category.values()), 4)
        if per_category
        else None,
        "per_category": per_category,
    }


def span_overlap(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    recall, precision = span_hit_rates(
        (row["gold_spans"], row["spans"] if row["present"] else []) for row in rows
    )
    return {"span_recall": recall, "span_precision": precision}


def run(
    runtime: Runtime,
    root: Path,
    *,
    file_name: str = "cuad_dev.json",
    limit: int | None = None,
    skip: int = 0,
    fold: str = "all",
    calibrate: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    from tools.retrieval.graph import open_graph

    progress = progress or NoProgress()
    provisions = load_provisions("cuad").provisions
    # skip: e.g. past the contracts the thresholds were calibrated on
    contracts = in_fold(cuad_contracts(root, file_name), lambda c: c.title, fold, skip, limit)
    rows: list[dict[str, Any]] = []
    seconds: list[float] = []
    progress.stage(f"CUAD {file_name}", total=len(contracts))
    with tempfile.TemporaryDirectory() as scratch:
        for number, contract in enumerate(contracts):
            contract_id = ingest_text(runtime, contract.text, f"cuad-dev-{number}", Path(scratch))
            index = runtime.store.open(contract_id)
            try:
                offsets_ok = index.document.text == contract.text
                reviewer = runtime.reviewer(index)
                started = time.perf_counter()
                with open_graph(
                    index.path, runtime.embedder, enabled=runtime.settings.retrieval.graph
                ) as graph:
                    for provision in provisions:
                        result = reviewer.review(provision, graph)
                        gold = contract.answers.get(provision.name, [])
                        rows.append(
                            {
                                "contract": contract.title,
                                "category": provision.name,
                                "gold_present": bool(gold),
                                "present": result.present,
                                "best": result.confidence,
                                "decided_by": result.decided_by,
                                "gold_spans": [s for _, s in gold],
                                "spans": [e.span for e in result.spans],
                                "has_value": provision.answer != "none",
                                "answer": result.answer,
                                "answer_correct": answer_matches(result.answer, [t for t, _ in gold]),
                                "offsets_match": offsets_ok,
                            }
                        )
                seconds.append(time.perf_counter() - started)
            finally:
                index.close()
            progress.advance()
    extracted = runtime.settings.review.extract_answers  # no values asked for: no accuracy to report
    valued = [r for r in rows if r["has_value"] and r["gold_present"]] if extracted else []
    results: dict[str, Any] = {
        "benchmark": "cuad",
        "data": str(root),
        "file": file_name,
        "fold": fold,
        "skipped": skip,
        "goals": GOALS,
        "contracts": len(contracts),
        "calibration_run": calibrate,
        "presence_by": runtime.settings.review.presence,
        "extract_answers": runtime.settings.review.extract_answers,
        "presence": summarise(rows),
        **span_overlap(rows),
        "answer_accuracy": round(sum(r["answer_correct"] for r in valued) / len(valued), 4)
        if valued
        else None,
        "answers_scored": len(valued),
        "seconds_per_contract": round(statistics.fmean(seconds), 2) if seconds else None,
        "rows": rows,
    }
    if calibrate:
        categories = sorted({r["category"] for r in rows})
        results["sweep"] = {str(t): summarise(rows, dict.fromkeys(categories, t))["macro_f1"] for t in SWEEP}
        best_of = {
            c: max(
                SWEEP,
                key=lambda t, c=c: (
                    summarise([r for r in rows if r["category"] == c], {c: t})["macro_f1"],
                    -abs(t - 0.5),
                ),
            )
            for c in categories
        }
        results["per_category_thresholds"] = best_of
        results["macro_f1_at_per_category_thresholds"] = summarise(rows, best_of)["macro_f1"]
    return results
