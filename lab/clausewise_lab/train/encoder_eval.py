"""``clausewise eval encoder``: what an embedder's clause vectors are worth to the presence decider,
measured on contracts no fine-tuned encoder was trained on.

The tune half of CUAD (outside the held-out fold) is split by :func:`is_calibration`: the head is
fitted on the other three quarters (the contracts a fine-tuned encoder learnt from), its
thresholds and abstention bands chosen out of fold there, and the calibration quarter is scored.
The frozen embedder is measured the same way, so the two rows differ only by their vectors. The
held-out fold is not read here (``clausewise train provisions`` scores it once a design is settled).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clausewise_lab.evals.cuad_bench import cuad_contracts
from clausewise_lab.evals.folds import is_calibration, is_heldout
from clausewise_lab.train.log import Log
from clausewise_lab.train.provisions import (
    EmbeddedContract,
    ProvisionTrainConfig,
    abstention_bands,
    calibrated,
    choose_thresholds,
    document_probabilities,
    embed_contracts,
    fit_calibration,
    fit_head,
    fit_wording,
    macro_tradeoff,
    out_of_fold,
    presence_report,
)
from tools.review.presence import PresenceHead

if TYPE_CHECKING:
    from clausewise.core.backends.embeddings import Embedder

BAND_RATE = 0.05  # the shipped bands' error rate each way
CALIBRATED_LEVEL = 0.9


@dataclass(frozen=True)
class CalibrationQuarter:
    """A presence head fitted on the training quarters and its scores on the calibration quarter:
    ``best`` [contracts, categories] the best clause probability, ``probability`` P(present)
    calibrated out of fold on the fitted contracts, ``gold`` the annotation."""

    categories: list[str]
    head: PresenceHead
    scored: list[EmbeddedContract]
    gold: np.ndarray
    best: np.ndarray
    probability: np.ndarray
    banded: np.ndarray  # 1 yes, -1 no, 0 unclear by the bands at BAND_RATE
    thresholds: np.ndarray
    fitted_contracts: int


def fit_on_calibration(
    root: Path,
    embedder: Embedder,
    work_dir: Path,
    log: Log,
    fit_contracts: int | None = None,
    ngram_weight: float = 3.0,
) -> CalibrationQuarter:
    """The presence head fitted on (the first ``fit_contracts`` of) the training quarters, its
    thresholds, bands and calibration chosen out of fold there, applied to the calibration quarter."""
    contracts = [c for c in cuad_contracts(root) if not is_heldout(c.title)]
    categories = sorted({category for contract in contracts for category in contract.answers})
    fitted = [c for c in contracts if not is_calibration(c.title)][:fit_contracts]
    scored = [c for c in contracts if is_calibration(c.title)]
    log(f"{embedder.model_id}: embedding {len(fitted)} + {len(scored)} contracts' clauses")
    config = replace(ProvisionTrainConfig(data=root), work_dir=work_dir, ngram_weight=ngram_weight)
    embedded = embed_contracts([*fitted, *scored], categories, embedder, log, work_dir)
    fit_set, scored_set = embedded[: len(fitted)], embedded[len(fitted) :]
    wording = fit_wording(fit_set, config) if ngram_weight > 0 else None
    oof = out_of_fold(fit_set, categories, config, embedder.model_id, wording)
    fit_gold = np.array([c.present for c in fit_set])
    thresholds, _ = choose_thresholds(fit_gold, oof, config.folds)
    weights, bias = fit_head(fit_set, categories, config, wording)
    head = PresenceHead(tuple(categories), weights, bias, thresholds, embedder.model_id, wording)
    best = document_probabilities(head, scored_set)
    no_below, yes_at = abstention_bands(fit_gold, oof, thresholds, BAND_RATE, BAND_RATE).T
    return CalibrationQuarter(
        categories=categories,
        head=head,
        scored=scored_set,
        gold=np.array([c.present for c in scored_set]),
        best=best,
        probability=calibrated(fit_calibration(fit_gold, oof), best),
        banded=np.where(best >= yes_at, 1, np.where(best < no_below, -1, 0)),
        thresholds=thresholds,
        fitted_contracts=len(fit_set),
    )


def by_level(probability: np.ndarray, level: float) -> np.ndarray:
    """1 yes at or above ``level``, -1 no at or below one minus it, 0 unclear between."""
    return np.where(probability >= level, 1, np.where(probability <= 1 - level, -1, 0))


def presence_on_calibration(
    quarter: CalibrationQuarter, embedder_id: str, ngram_weight: float
) -> dict[str, Any]:
    """Macro F1, and what the bands and the calibrated probability trade, on the calibration quarter."""
    gold, best, categories = quarter.gold, quarter.best, quarter.categories
    level = CALIBRATED_LEVEL
    report = presence_report(gold, best, quarter.thresholds, categories)
    return {
        "embedder": embedder_id,
        "ngram_weight": ngram_weight,
        "fitted_contracts": quarter.fitted_contracts,
        "scored_contracts": len(quarter.scored),
        "macro_f1": report["macro_f1"],
        "macro_f1_at_0.5": presence_report(gold, best, np.full(len(categories), 0.5), categories)["macro_f1"],
        "bands_5pct": macro_tradeoff(gold, quarter.banded),
        f"calibrated_{level}": macro_tradeoff(gold, by_level(quarter.probability, level)),
        "clause_auc_macro": _clause_auc(quarter.head, quarter.scored),
        "per_category_f1": {c: round(s["f1"], 4) for c, s in report["per_category"].items()},
    }


def _clause_auc(head: PresenceHead, contracts: list[EmbeddedContract]) -> float | None:
    """Macro AUC of clause probabilities against clause labels: how well single clauses are told
    apart, the representation's own figure before any contract-level rule."""
    from sklearn.metrics import roc_auc_score

    probabilities = np.vstack([head.probabilities(c.vectors, c.texts) for c in contracts if len(c.vectors)])
    labels = np.vstack([c.labels for c in contracts if len(c.vectors)])
    scores = [
        roc_auc_score(labels[:, k], probabilities[:, k])
        for k in range(labels.shape[1])
        if 0 < labels[:, k].sum() < len(labels)
    ]
    return round(statistics.fmean(scores), 4) if scores else None
