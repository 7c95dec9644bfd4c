"""``clausewise eval second-opinion``: is the model's own yes/no worth asking inside the presence
classifier's band?

On the calibration quarter of CUAD's tune half (the head fitted on the training quarters, as
``eval encoder`` does), the (contract, category) pairs whose calibrated P(present) falls inside
the band are the questions the decider answers "unclear". A seeded sample of them is asked as the
question bank asks (one of the category's three yes/no wordings), the model reading the clauses
the head ranks first (:class:`SecondOpinion`, ``prompts/second_opinion.md``), its P(yes) from the
log-probabilities of its first token. Figures:

- how well each probability alone tells the pairs apart inside the band (AUC);
- the blend (:class:`OpinionBlend`, fitted out of fold over the sample, the two sides weighted
  alike): of the pairs inside the band, how many it commits at the decider's level and how many
  of those are right, with gold "yes" and "no" apart;
- seconds per call.

The blend fitted on the whole sample is written too: it is what the decider would ship. The
scorer is CUAD's annotation. Measured twice (two clauses, one clause) with the embedded 1.5B model,
the blend told the band apart worse than the classifier alone, so nothing of it is in the product
(docs/benchmarks.md, "A second opinion inside the band").
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clausewise.core.backends.structured import yes_probability
from clausewise.core.prompting import load_prompt
from clausewise_lab.evals.data_files import bank_phrasings
from clausewise_lab.train.encoder_eval import fit_on_calibration
from clausewise_lab.train.log import Log
from tools.review.provisions import load_provisions

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable

    from clausewise.core.backends.embeddings import Embedder

FOLDS = 5

#: Characters of each clause the model reads (a clause's head holds its operative words; the
#: embedded 1.5B model reads about 40 tokens a second on two cores).
CLAUSE_CHARS = 700
#: Probabilities are kept this far from 0 and 1 before their logit is taken.
_EDGE = 1e-4


def logit(probability: float) -> float:
    """log(p / (1 - p)), with p kept inside [_EDGE, 1 - _EDGE]."""
    p = min(max(probability, _EDGE), 1 - _EDGE)
    return math.log(p / (1 - p))


@dataclass(frozen=True)
class OpinionBlend:
    """P(present) from the classifier's calibrated probability and the model's P(yes):
    sigmoid(classifier_weight * logit(p_classifier) + model_weight * logit(p_model) + bias),
    fitted on questions inside the band (:func:`fit_blend`)."""

    classifier_weight: float
    model_weight: float
    bias: float

    def probability(self, classifier: float, model: float) -> float:
        z = self.classifier_weight * logit(classifier) + self.model_weight * logit(model) + self.bias
        return 1.0 / (1.0 + math.exp(-z))


@dataclass
class SecondOpinion:
    """The model's P(yes) that a contract holds a provision, read from its clauses."""

    model: Runnable

    def p_yes(self, question: str, provision: str, clauses: Sequence[str]) -> float | None:
        """P(" Yes") / (P(" Yes") + P(" No")) of the model's first token, None where the backend
        gives no log-probabilities."""
        numbered = enumerate(clauses, start=1)
        evidence = "\n\n".join(f"[{n}] {' '.join(text.split())[:CLAUSE_CHARS]}" for n, text in numbered)
        prompt = load_prompt("second_opinion")
        messages = prompt.messages(provision=provision, evidence=evidence, question=question)
        return yes_probability(self.model, messages)


def second_opinion_on_calibration(
    root: Path,
    embedder: Embedder,
    model: Runnable,
    work_dir: Path,
    log: Log,
    *,
    level: float,
    pairs: int,
    clauses: int = 2,
    seed: int = 13,
    fit_contracts: int | None = None,
) -> dict[str, Any]:
    """Ask the model on a sample of the band's pairs; the blend's figures out of fold."""
    quarter = fit_on_calibration(root, embedder, work_dir, log, fit_contracts)
    inside = np.argwhere((quarter.probability > 1 - level) & (quarter.probability < level))
    rng = random.Random(seed)
    sample = rng.sample([tuple(map(int, pair)) for pair in inside], min(pairs, len(inside)))
    definitions = {p.name: p.description for p in load_provisions("cuad").provisions}
    wordings = bank_phrasings().yes_no
    opinion = SecondOpinion(model)
    rows = []
    for number, (row, column) in enumerate(sample, start=1):
        contract, category = quarter.scored[row], quarter.categories[column]
        ranked = np.argsort(-quarter.head.probabilities(contract.vectors, contract.texts)[:, column])
        question = rng.choice(wordings[category])
        started = time.perf_counter()
        p_model = opinion.p_yes(
            question, definitions[category], [contract.texts[i] for i in ranked[:clauses]]
        )
        rows.append(
            {
                "contract": contract.title,
                "category": category,
                "question": question,
                "gold": bool(quarter.gold[row, column]),
                "p_classifier": round(float(quarter.probability[row, column]), 4),
                "p_model": None if p_model is None else round(p_model, 4),
                "seconds": round(time.perf_counter() - started, 2),
            }
        )
        if number % 10 == 0 or number == len(sample):
            log(f"asked {number}/{len(sample)}")
    answered = [r for r in rows if r["p_model"] is not None]
    return {
        "embedder": embedder.model_id,
        "level": level,
        "clauses": clauses,
        "seed": seed,
        "scored_contracts": len(quarter.scored),
        "pairs_inside_band": len(inside),
        "pairs_total": int(quarter.probability.size),
        "asked": len(rows),
        "answered": len(answered),
        **blend_figures(answered, level),
        "seconds_per_call": _seconds(rows),
        "rows": rows,
    }


def blend_figures(rows: list[dict[str, Any]], level: float) -> dict[str, Any]:
    """AUC of each probability inside the band; the blend's decisions out of fold; the blend
    fitted on all rows."""
    from sklearn.metrics import roc_auc_score

    if len(rows) < 2 * FOLDS or len({r["gold"] for r in rows}) < 2:
        return {"note": "too few answered pairs of both kinds to fit a blend"}
    gold = np.array([r["gold"] for r in rows])
    features = _features(rows)
    blended = np.zeros(len(rows))
    fold_of = np.arange(len(rows)) % FOLDS
    for fold in range(FOLDS):
        rest, held = fold_of != fold, fold_of == fold
        blend = fit_blend(features[rest], gold[rest])
        blended[held] = [
            blend.probability(rows[i]["p_classifier"], rows[i]["p_model"]) for i in np.flatnonzero(held)
        ]
    decided = np.where(blended >= level, 1, np.where(blended <= 1 - level, -1, 0))
    return {
        "auc_classifier": round(float(roc_auc_score(gold, features[:, 0])), 4),
        "auc_model": round(float(roc_auc_score(gold, features[:, 1])), 4),
        "auc_blend": round(float(roc_auc_score(gold, blended)), 4),
        "gold_yes": int(gold.sum()),
        "out_of_fold": _decisions(gold, decided),
        "by_gold": {
            "yes": _decisions(gold[gold], decided[gold]),
            "no": _decisions(gold[~gold], decided[~gold]),
        },
        "blend": vars(fit_blend(features, gold)),
    }


def fit_blend(features: np.ndarray, gold: np.ndarray) -> OpinionBlend:
    """Logistic regression over the two logits, the two sides weighted alike."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(class_weight="balanced", max_iter=1000).fit(features, gold.astype(int))
    return OpinionBlend(
        classifier_weight=round(float(model.coef_[0, 0]), 4),
        model_weight=round(float(model.coef_[0, 1]), 4),
        bias=round(float(model.intercept_[0]), 4),
    )


def _features(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array([[logit(r["p_classifier"]), logit(r["p_model"])] for r in rows])


def _decisions(gold: np.ndarray, decided: np.ndarray) -> dict[str, Any]:
    committed = decided != 0
    right = (decided == 1) & gold | (decided == -1) & ~gold
    return {
        "n": len(gold),
        "committed": int(committed.sum()),
        "right": int(right.sum()),
        "wrong": int((committed & ~right).sum()),
        "right_of_committed": round(float(right.sum() / committed.sum()), 4) if committed.any() else None,
        "committed_share": round(float(committed.mean()), 4) if len(gold) else None,
    }


def _seconds(rows: list[dict[str, Any]]) -> dict[str, float] | None:
    seconds = sorted(r["seconds"] for r in rows)
    if not seconds:
        return None
    return {
        "mean": round(statistics.fmean(seconds), 2),
        "p50": seconds[len(seconds) // 2],
        "p95": seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))],
    }
