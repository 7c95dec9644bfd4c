"""``clausewise eval contractnli``: hypothesis checks against ContractNLI's gold labels.

Each document's text is ingested as a contract, every annotated hypothesis (read from the data
file, not from the built-in suite) is checked, and the labels are scored: accuracy, precision /
recall / F1 per class, macro and weighted F1, the confusion matrix, evidence recall and precision
against the gold spans (a returned span counts when it overlaps a gold span), and seconds per
hypothesis.

Calibration. With the NLI judge every row records the highest P(Entailment) and
P(Contradiction) of any evidence sentence and the precedence its hypothesis' wording gives, which
is all :func:`tools.checks.decision.nli_decision` looks at, so the sweep over
(``checks.nli_precedence``, ``checks.contradiction_at``, ``checks.entailment_at``) relabels the
rows exactly as a run with those settings would. With the LLM judge, ``calibrate`` asks the
judge for every hypothesis (no early NotMentioned) and records the best reranker probability; the
sweep relabels NotMentioned every check whose best probability falls under each candidate
``checks.not_mentioned_below``.

``fold="heldout"`` keeps the documents that neither the reranker nor the NLI classifier was
trained on (:func:`clausewise_lab.evals.folds.is_heldout`): the honest dev figure.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from clausewise.core.progress import NoProgress, Progress
from clausewise.core.results import LABELS
from clausewise_lab.evals.data import ContractNliDocument, contractnli, in_fold, ingest_text
from clausewise_lab.evals.exemplars import CONTRACTNLI_EXEMPLAR_SOURCE, contractnli_exemplars
from tools.checks.decision import PrecedenceSetting, nli_label, precedence_for
from tools.checks.suites import Hypothesis
from tools.retrieval.spans import span_hit_rates

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

GOALS = {"accuracy": 0.75, "contradiction_f1": 0.50, "seconds_per_hypothesis": 20.0}
SWEEP = (0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4)
NLI_SWEEP = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def ingest_document(runtime: Runtime, document: ContractNliDocument, scratch: Path) -> str:
    """Ingest a ContractNLI document's text as a contract."""
    return ingest_text(runtime, document.text, f"contractnli-dev-{document.id}", scratch)


def exemplar_source(document: ContractNliDocument) -> str:
    """The exemplar source of this document's own labels (never shown while it is judged)."""
    return f"{CONTRACTNLI_EXEMPLAR_SOURCE}{document.file_name}"


def label_metrics(gold: Sequence[str], predicted: Sequence[str]) -> dict[str, Any]:
    """Accuracy, per-class precision/recall/F1 with support, macro and weighted F1, confusion
    matrix (rows gold, columns predicted, in :data:`LABELS` order)."""
    per_class: dict[str, dict[str, float]] = {}
    for label in LABELS:
        tp = sum(g == p == label for g, p in zip(gold, predicted, strict=True))
        predicted_n = sum(p == label for p in predicted)
        support = sum(g == label for g in gold)
        precision = tp / predicted_n if predicted_n else 0.0
        recall = tp / support if support else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_class[label] = {
            "precision": round(precision, 4),
            "recall": round(recall, 4),
            "f1": round(f1, 4),
            "support": support,
        }
    total = len(gold)
    present = [label for label in LABELS if per_class[label]["support"]]
    return {
        "n": total,
        "accuracy": round(sum(g == p for g, p in zip(gold, predicted, strict=True)) / total, 4)
        if total
        else None,
        "per_class": per_class,
        "macro_f1": round(statistics.fmean(per_class[c]["f1"] for c in present), 4) if present else None,
        "weighted_f1": round(sum(per_class[c]["f1"] * per_class[c]["support"] for c in present) / total, 4)
        if total
        else None,
        "confusion": {
            g: {p: sum(a == g and b == p for a, b in zip(gold, predicted, strict=True)) for p in LABELS}
            for g in LABELS
        },
    }


def evidence_scores(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """Gold spans overlapped by returned evidence (recall) and returned spans that overlap a gold
    span (precision), over hypotheses whose gold label is Entailment or Contradiction."""
    recall, precision = span_hit_rates(
        (row["gold_spans"], row["evidence_spans"]) for row in rows if row["gold"] != "NotMentioned"
    )
    return {"evidence_recall": recall, "evidence_precision": precision}


def relabel(rows: Sequence[dict[str, Any]], threshold: float) -> list[str]:
    """Labels had the NotMentioned threshold been ``threshold`` (rows of a calibration run)."""
    return [
        "NotMentioned"
        if r["best_relevance"] is not None and r["best_relevance"] < threshold
        else r["predicted"]
        for r in rows
    ]


def nli_relabel(
    rows: Sequence[dict[str, Any]],
    contradiction_at: float,
    entailment_at: float,
    precedence: PrecedenceSetting = "wording",
) -> list[str]:
    """Labels had the NLI settings been these: :func:`nli_label` on each row's strongest
    sentence per label, exactly what the checker decides from."""
    labels: list[str] = []
    for row in rows:
        best = row["best_probabilities"] or {"Entailment": 0.0, "Contradiction": 0.0}
        order = row["wording_precedence"] if precedence == "wording" else precedence
        labels.append(
            nli_label(best["Entailment"], best["Contradiction"], contradiction_at, entailment_at, order)
        )
    return labels


def nli_sweep(rows: Sequence[dict[str, Any]], grid: Sequence[float] = NLI_SWEEP) -> list[dict[str, Any]]:
    """Accuracy, macro F1 and contradiction F1 for every (precedence, contradiction_at,
    entailment_at)."""
    gold = [r["gold"] for r in rows]
    results = []
    for precedence in get_args(PrecedenceSetting):
        for contradiction_at in grid:
            for entailment_at in grid:
                metrics = label_metrics(gold, nli_relabel(rows, contradiction_at, entailment_at, precedence))
                results.append(
                    {
                        "precedence": precedence,
                        "contradiction_at": contradiction_at,
                        "entailment_at": entailment_at,
                        "accuracy": metrics["accuracy"],
                        "macro_f1": metrics["macro_f1"],
                        "contradiction_f1": metrics["per_class"]["Contradiction"]["f1"],
                    }
                )
    return results


def run(
    runtime: Runtime,
    root: Path,
    *,
    file_name: str = "dev.json",
    limit: int | None = None,
    fold: str = "all",
    calibrate: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    from tools.retrieval.graph import open_graph

    progress = progress or NoProgress()
    checks = runtime.settings.checks
    if checks.judge == "llm" and checks.exemplars and not runtime.exemplars.examples():
        runtime.exemplars.add(contractnli_exemplars(root))  # the dev labels, as `exemplars seed` adds
    data = contractnli(root, file_name)
    documents = in_fold(data.documents, lambda d: d.file_name, fold, limit=limit)
    total = sum(len(d.annotations) for d in documents)
    rows: list[dict[str, Any]] = []
    progress.stage(f"ContractNLI {file_name}", total=total)
    with tempfile.TemporaryDirectory() as scratch:
        for document in documents:
            contract_id = ingest_document(runtime, document, Path(scratch))
            index = runtime.store.open(contract_id)
            try:
                offsets_ok = index.document.text == document.text
                checker = runtime.checker(index, exclude_source=exemplar_source(document))
                with open_graph(
                    index.path, runtime.embedder, enabled=runtime.settings.retrieval.graph
                ) as graph:
                    for key, (gold, span_ids) in sorted(document.annotations.items()):
                        started = time.perf_counter()
                        result = checker.check(Hypothesis(key=key, text=data.hypotheses[key]), graph)
                        rows.append(
                            {
                                "document": document.id,
                                "key": key,
                                "gold": gold,
                                "predicted": result.label,
                                "confidence": result.confidence,
                                "best_relevance": result.best_relevance,
                                "best_probabilities": result.best_probabilities,
                                "wording_precedence": precedence_for(data.hypotheses[key]),
                                "asked_model": result.asked_model,
                                "gold_spans": [document.spans[i] for i in span_ids],
                                "evidence_spans": [e.span for e in result.evidence],
                                "offsets_match": offsets_ok,
                                "seconds": round(time.perf_counter() - started, 2),
                            }
                        )
                        progress.advance()
            finally:
                index.close()
    gold = [r["gold"] for r in rows]
    results: dict[str, Any] = {
        "benchmark": "contractnli",
        "data": str(root),
        "file": file_name,
        "goals": GOALS,
        "fold": fold,
        "documents": len(documents),
        "hypotheses": len(rows),
        "calibration_run": calibrate,
        "judge": checks.judge,
        "thresholds": {
            "contradiction_at": checks.contradiction_at,
            "entailment_at": checks.entailment_at,
            "precedence": checks.nli_precedence,
        }
        if checks.judge == "nli"
        else {"not_mentioned_below": checks.not_mentioned_below},
        "judge_model": "clausewise/core/assets/nli (int8 ONNX)"
        if checks.judge == "nli"
        else runtime.settings.models.for_role("judge").model_dump(
            mode="json", include={"backend", "model", "embedded_model"}
        ),
        "labels": label_metrics(gold, [r["predicted"] for r in rows]),
        **evidence_scores(rows),
        "seconds_per_hypothesis": round(statistics.fmean(r["seconds"] for r in rows), 2) if rows else None,
        "model_calls_share": round(sum(r["asked_model"] for r in rows) / len(rows), 3) if rows else None,
        "rows": rows,
    }
    if calibrate and checks.judge == "nli":
        results["sweep"] = nli_sweep(rows)
    elif calibrate:
        results["sweep"] = {
            str(threshold): {
                "accuracy": (m := label_metrics(gold, relabel(rows, threshold)))["accuracy"],
                "macro_f1": m["macro_f1"],
                "contradiction_f1": m["per_class"]["Contradiction"]["f1"],
            }
            for threshold in SWEEP
        }
    return results
