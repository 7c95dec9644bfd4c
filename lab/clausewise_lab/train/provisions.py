"""``clausewise train provisions``: the presence classifier the provision review ships.

Data: CUAD's development contracts outside the held-out fold. Each contract is cut into clauses
exactly as ingestion cuts it (default structure and chunking settings, one chunk per clause chosen
by :func:`tools.review.presence.clause_chunks`), each clause is embedded by the default embedder,
and a clause is a positive of a category when it overlaps one of that category's answers.

Model: one class-balanced logistic regression per category over the clause vector and binary
tf-idf words and word pairs of the clause text (vocabulary: the grams in at least ``min_df``
training clauses) (scikit-learn, ``train`` extra). Thresholds: per category, the one that
maximises document-level presence F1 on out-of-fold predictions (contracts split in ``folds``
groups), or 0.5 for all when nested validation says per-category ones do not generalise
(:func:`choose_thresholds`). No threshold is chosen on contracts the weights were fitted on,
and none on the held-out fold, which is only scored.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clausewise.core.config import ChunkingSettings, StructureSettings
from clausewise.core.domain import Chunk
from clausewise.core.resources import asset_dir
from clausewise_lab.evals.cuad_bench import CuadContract, cuad_contracts, presence_scores
from clausewise_lab.evals.folds import document_key, is_heldout
from clausewise_lab.train.log import Log
from tools.review.presence import PresenceHead, Wording, clause_chunks, clause_texts, word_grams

if TYPE_CHECKING:
    from clausewise.core.backends.embeddings import Embedder

PROVISIONS_ASSETS_DIR = asset_dir("provisions")
THRESHOLD_GRID = tuple(
    sorted({round(float(t), 4) for t in np.geomspace(0.002, 0.5, 25)} | {0.55, 0.6, 0.7, 0.8, 0.9, 0.95})
)


@dataclass(frozen=True)
class ProvisionTrainConfig:
    """Everything that decides the shipped head; recorded in its model card."""

    data: Path
    out: Path = PROVISIONS_ASSETS_DIR
    regularisation: float = 1.0  # scikit-learn's C (inverse strength)
    folds: int = 4
    max_iterations: int = 500
    min_df: int = 5  # clauses a word or word pair must appear in to enter the vocabulary
    ngram_weight: float = 3.0  # length of the word features beside the unit-length vector; 0: none
    work_dir: Path | None = None  # keeps the clause vectors, so a rerun skips the embedding
    false_yes: float = 0.05  # share of contracts without a provision the band may still call "yes"
    false_no: float = 0.05  # share of contracts with a provision the band may still call "no"
    training_contracts: int | None = None  # the first N training contracts only (comparing embedders)


@dataclass
class EmbeddedContract:
    """One contract's clause vectors, clause labels [clauses, categories] and gold presence."""

    title: str
    heldout: bool
    vectors: np.ndarray
    labels: np.ndarray
    present: np.ndarray
    texts: list[str] = field(default_factory=list)


def contract_clauses(text: str, name: str) -> list[Chunk]:
    """The clauses of a contract text as ingestion (default settings) would index them."""
    from tools.chunking import build_chunks
    from tools.parsing.text import document_from_text
    from tools.structure.tree_builder import build_tree

    document = document_from_text(text, name)
    tree = build_tree(document, StructureSettings())
    chunks = build_chunks(document, tree, document_key(name) or "document", ChunkingSettings())
    return clause_chunks(chunks)


def clause_labels(clauses: Sequence[Chunk], contract: CuadContract, categories: Sequence[str]) -> np.ndarray:
    """1 where a clause's span overlaps an answer of the category."""
    labels = np.zeros((len(clauses), len(categories)), dtype=np.uint8)
    for column, category in enumerate(categories):
        for _, (start, end) in contract.answers.get(category, []):
            for row, clause in enumerate(clauses):
                if clause.span[0] < end and start < clause.span[1]:
                    labels[row, column] = 1
    return labels


def _vector_cache(work_dir: Path | None, model_id: str) -> tuple[Path | None, dict[str, np.ndarray]]:
    """Clause vectors of an earlier run with the same embedder, keyed by the sha1 of a
    contract's clause texts (a contract cut differently is embedded again)."""
    if work_dir is None:
        return None, {}
    path = work_dir / f"clause-vectors-{hashlib.sha1(model_id.encode()).hexdigest()[:12]}.npz"
    if not path.is_file():
        return path, {}
    with np.load(path, allow_pickle=False) as arrays:
        return path, {key: arrays[key] for key in arrays.files}


def embed_contracts(
    contracts: Sequence[CuadContract],
    categories: Sequence[str],
    embedder: Embedder,
    log: Log,
    work_dir: Path | None = None,
) -> list[EmbeddedContract]:
    cache_path, cached = _vector_cache(work_dir, embedder.model_id)
    embedded = []
    started = time.perf_counter()
    for number, contract in enumerate(contracts, start=1):
        clauses = contract_clauses(contract.text, contract.title)
        key = hashlib.sha1("\n".join(c.text for c in clauses).encode()).hexdigest()
        vectors = cached.get(key)
        if vectors is None or len(vectors) != len(clauses):
            vectors = embedder.embed([c.text for c in clauses]).astype(np.float32)
            cached[key] = vectors
        embedded.append(
            EmbeddedContract(
                title=contract.title,
                heldout=is_heldout(contract.title),
                vectors=vectors,
                labels=clause_labels(clauses, contract, categories),
                present=np.array([bool(contract.answers.get(c)) for c in categories]),
                texts=clause_texts(contract.text, clauses),
            )
        )
        if number % 25 == 0 or number == len(contracts):
            log(f"embedded {number}/{len(contracts)} contracts ({time.perf_counter() - started:.0f} s)")
    if cache_path is not None:
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        partial = cache_path.with_name(cache_path.name + ".partial")
        with partial.open("wb") as handle:
            np.savez(handle, **cached)
        partial.replace(cache_path)
    return embedded


def fit_wording(contracts: Sequence[EmbeddedContract], config: ProvisionTrainConfig) -> Wording:
    """The vocabulary (grams in at least ``min_df`` clauses) and its smoothed idf."""
    counts: Counter[str] = Counter(g for c in contracts for text in c.texts for g in word_grams(text))
    vocabulary = tuple(sorted(g for g, n in counts.items() if n >= config.min_df))
    clauses = sum(len(c.texts) for c in contracts)
    idf = np.array([np.log((1 + clauses) / (1 + counts[g])) + 1 for g in vocabulary], dtype=np.float32)
    return Wording(vocabulary, idf, config.ngram_weight)


def features(contracts: Sequence[EmbeddedContract], wording: Wording | None) -> Any:
    """The clause matrix the head reads: vectors, and word features beside them (sparse)."""
    from scipy import sparse

    vectors = np.vstack([c.vectors for c in contracts])
    if wording is None:
        return vectors
    words = wording.features([t for c in contracts for t in c.texts])
    return sparse.hstack([sparse.csr_matrix(vectors), words]).tocsr()


def fit_head(
    contracts: Sequence[EmbeddedContract],
    categories: Sequence[str],
    config: ProvisionTrainConfig,
    wording: Wording | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Weights [categories, columns] and biases of one balanced logistic regression per category."""
    from sklearn.linear_model import LogisticRegression

    vectors = features(contracts, wording)
    labels = np.vstack([c.labels for c in contracts])
    weights = np.zeros((len(categories), vectors.shape[1]), dtype=np.float32)
    bias = np.zeros(len(categories), dtype=np.float32)
    for column in range(len(categories)):
        target = labels[:, column]
        if target.min() == target.max():  # a category never (or always) marked: a constant head
            bias[column] = 20.0 if target[0] else -20.0
            continue
        model = LogisticRegression(
            C=config.regularisation, class_weight="balanced", max_iter=config.max_iterations
        )
        model.fit(vectors, target)
        weights[column], bias[column] = model.coef_[0], model.intercept_[0]
    # the head ships its weights in half precision; every figure is computed with those
    return weights.astype(np.float16).astype(np.float32), bias


def document_probabilities(head: PresenceHead, contracts: Sequence[EmbeddedContract]) -> np.ndarray:
    """[contracts, categories]: the best clause probability of each category in each contract."""
    return np.array(
        [
            head.probabilities(c.vectors, c.texts).max(axis=0)
            if len(c.vectors)
            else np.zeros(len(head.categories))
            for c in contracts
        ]
    )


def category_scores(gold: np.ndarray, predicted: np.ndarray) -> dict[str, float]:
    """Presence precision / recall / F1 of one category over contracts (boolean columns)."""
    return presence_scores(list(zip(gold.tolist(), predicted.tolist(), strict=True)))


def category_f1(gold: np.ndarray, best: np.ndarray, threshold: float) -> float:
    return category_scores(gold, best >= threshold)["f1"]


def calibrate_thresholds(gold: np.ndarray, best: np.ndarray) -> np.ndarray:
    """Per category, the grid threshold with the best presence F1 (ties: the one nearest 0.5)."""
    return np.array(
        [
            max(THRESHOLD_GRID, key=lambda t, k=k: (category_f1(gold[:, k], best[:, k], t), -abs(t - 0.5)))
            for k in range(gold.shape[1])
        ],
        dtype=np.float32,
    )


def choose_thresholds(gold: np.ndarray, best: np.ndarray, folds: int) -> tuple[np.ndarray, dict[str, float]]:
    """Per-category thresholds, or 0.5 for every category, whichever generalises better.

    Per-category thresholds chosen on out-of-fold predictions are optimistic when a category has
    few positives. So both choices are scored by nested validation on the training contracts
    (thresholds picked on the other folds, applied to the held-back one) and the better one is
    kept; the estimates go into the report."""
    predicted = np.zeros_like(gold, dtype=bool)
    for fold in range(folds):
        held = np.arange(len(gold)) % folds == fold
        thresholds = calibrate_thresholds(gold[~held], best[~held])
        predicted[held] = best[held] >= thresholds
    per_category = statistics.fmean(
        category_scores(gold[:, k], predicted[:, k])["f1"] for k in range(gold.shape[1])
    )
    half = statistics.fmean(category_f1(gold[:, k], best[:, k], 0.5) for k in range(gold.shape[1]))
    estimates = {"per_category": round(per_category, 4), "all_at_0.5": round(half, 4)}
    if per_category > half:
        return calibrate_thresholds(gold, best), estimates
    return np.full(gold.shape[1], 0.5, dtype=np.float32), estimates


def abstention_bands(
    gold: np.ndarray, best: np.ndarray, thresholds: np.ndarray, false_yes: float, false_no: float
) -> np.ndarray:
    """Per category, the band of document probabilities inside which the classifier abstains:
    [no below, yes at).

    "yes at" is the lowest probability that at most ``false_yes`` of the contracts *without* the
    provision reach; "no below" the highest that at most ``false_no`` of the contracts *with* it
    fall under. Both are rates within one side, so they do not depend on how common the
    provision is (a question bank asks as many contracts with it as without). The ranks are taken
    on out-of-fold probabilities, with one imagined contract on the wrong side (a category seen in
    ten contracts does not get a band from the best of ten); the category's threshold is always
    inside the band."""
    bands = np.zeros((gold.shape[1], 2), dtype=np.float32)
    for k in range(gold.shape[1]):
        present, absent = np.sort(best[gold[:, k], k]), np.sort(best[~gold[:, k], k])[::-1]
        threshold = float(thresholds[k])
        # the (n + 1) * rate-th highest absent probability: above it, "yes" errs at most at that rate
        allowed = int(np.floor(false_yes * (len(absent) + 1)))
        yes_at = float(absent[allowed]) + 1e-4 if allowed < len(absent) else 0.0
        allowed = int(np.floor(false_no * (len(present) + 1)))
        no_below = float(present[allowed]) if allowed < len(present) else 1.0
        bands[k] = (min(no_below, threshold), max(yes_at, threshold))
    return bands


def _logit(best: np.ndarray) -> np.ndarray:
    clipped = np.clip(best, 1e-6, 1 - 1e-6)
    return np.log(clipped / (1 - clipped))


#: Fewest contracts on each side for a category's own calibration; below it, the categories'
#: pooled one (a slope and an intercept fitted on seven contracts with a provision say little).
CALIBRATION_MIN_SIDE = 8


def fit_calibration(gold: np.ndarray, best: np.ndarray, regularisation: float = 1.0) -> np.ndarray:
    """Per category, [slope, intercept] of P(the contract has the provision) over the logit of its
    best clause probability, fitted on out-of-fold probabilities with the two sides weighted
    alike (the prior a question bank asks with, and a neutral one for a user who asks); a
    category with fewer than :data:`CALIBRATION_MIN_SIDE` contracts on a side takes the pooled fit."""
    from sklearn.linear_model import LogisticRegression

    def fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
        model = LogisticRegression(C=regularisation, class_weight="balanced", max_iter=1000)
        model.fit(x.reshape(-1, 1), y)
        return float(model.coef_[0, 0]), float(model.intercept_[0])

    logits = _logit(best)
    pooled = fit(logits.ravel(), gold.ravel().astype(int))
    calibration = np.zeros((gold.shape[1], 2), dtype=np.float32)
    for k in range(gold.shape[1]):
        with_it = int(gold[:, k].sum())
        if min(with_it, len(gold) - with_it) < CALIBRATION_MIN_SIDE:
            calibration[k] = pooled
        else:
            calibration[k] = fit(logits[:, k], gold[:, k].astype(int))
    return calibration


def calibrated(calibration: np.ndarray, best: np.ndarray) -> np.ndarray:
    """P(present) of documents' best clause probabilities [contracts, categories]."""
    z = _logit(best) * calibration[:, 0] + calibration[:, 1]
    return 1.0 / (1.0 + np.exp(-z))


def macro_tradeoff(gold: np.ndarray, decided: np.ndarray) -> dict[str, float]:
    """Right of committed, unclear and right overall of decisions (1 yes, -1 no, 0 unclear)
    [contracts, categories]: per category the contracts with and without the provision count
    alike (a question bank asks about as many of each), then the categories are averaged, as the
    bank's figures are."""
    committed, unclear, right_overall = [], [], []
    for k in range(gold.shape[1]):
        with_it, without = gold[:, k], ~gold[:, k]
        if not with_it.any() or not without.any():
            continue
        answers = decided[:, k]
        right = ((answers[with_it] == 1).mean() + (answers[without] == -1).mean()) / 2
        wrong = ((answers[with_it] == -1).mean() + (answers[without] == 1).mean()) / 2
        if right + wrong:
            committed.append(right / (right + wrong))
        unclear.append(1 - right - wrong)
        right_overall.append(right)
    return {
        "right_of_committed": round(statistics.fmean(committed), 4),
        "unclear": round(statistics.fmean(unclear), 4),
        "right_overall": round(statistics.fmean(right_overall), 4),
    }


#: Calibrated probabilities at which :func:`calibrated_frontier` estimates what committing trades.
FRONTIER_LEVELS = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97)


def calibrated_frontier(
    gold: np.ndarray, best: np.ndarray, folds: int, levels: Sequence[float] = FRONTIER_LEVELS
) -> list[dict[str, float]]:
    """What deciding by the calibrated probability trades: "yes" at or above a level, "no" at or
    below one minus it, unclear between; calibrations fitted on the other folds' out-of-fold
    probabilities decide each held-back fold (no contract scores the fit it was part of)."""
    probability = np.zeros_like(best)
    fold_of = np.arange(len(gold)) % folds
    for fold in range(folds):
        rest, held = fold_of != fold, fold_of == fold
        probability[held] = calibrated(fit_calibration(gold[rest], best[rest]), best[held])
    frontier = []
    for level in levels:
        decided = np.where(probability >= level, 1, np.where(probability <= 1 - level, -1, 0))
        frontier.append({"level": level, **macro_tradeoff(gold, decided)})
    return frontier


#: Error rates each way at which :func:`band_frontier` estimates what the bands trade.
FRONTIER_RATES = (0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.30)


def band_frontier(
    gold: np.ndarray, best: np.ndarray, folds: int, rates: Sequence[float] = FRONTIER_RATES
) -> list[dict[str, float]]:
    """What the abstention bands trade between right and unclear, estimated without scoring a
    contract the bands were chosen on.

    Why: the shipped bands allow 5% wrong each way; whether any rate meets a goal such as "95% of
    committed answers right at most 15% unclear" is a property of the classifier, not of the
    rate, and this says so before a question bank is asked. For each rate, bands chosen on the
    other folds' out-of-fold probabilities decide each held-back fold's contracts. Per category
    the contracts with and without the provision count alike (a question bank asks about as
    many of each), then the categories are averaged, as the bank's figures are."""
    decided = np.zeros((len(rates), *gold.shape), dtype=np.int8)  # 1 yes, -1 no, 0 unclear
    fold_of = np.arange(len(gold)) % folds
    for fold in range(folds):
        rest, held = fold_of != fold, fold_of == fold
        thresholds = calibrate_thresholds(gold[rest], best[rest])
        for number, rate in enumerate(rates):
            no_below, yes_at = abstention_bands(gold[rest], best[rest], thresholds, rate, rate).T
            scored = best[held]
            decided[number, held] = np.where(scored >= yes_at, 1, np.where(scored < no_below, -1, 0))
    return [{"rate": rate, **macro_tradeoff(gold, decided[number])} for number, rate in enumerate(rates)]


def presence_report(
    gold: np.ndarray, best: np.ndarray, thresholds: np.ndarray, categories: Sequence[str]
) -> dict[str, Any]:
    per_category = {
        c: category_scores(gold[:, k], best[:, k] >= thresholds[k]) for k, c in enumerate(categories)
    }
    return {
        "contracts": int(gold.shape[0]),
        "macro_f1": round(statistics.fmean(s["f1"] for s in per_category.values()), 4),
        "per_category": per_category,
    }


def out_of_fold(
    contracts: Sequence[EmbeddedContract],
    categories: Sequence[str],
    config: ProvisionTrainConfig,
    model_id: str,
    wording: Wording | None = None,
) -> np.ndarray:
    """Document probabilities of each training contract from a head fitted without it (the
    vocabulary, which needs no labels, is the whole training fold's)."""
    best = np.zeros((len(contracts), len(categories)))
    for fold in range(config.folds):
        fitted = [c for i, c in enumerate(contracts) if i % config.folds != fold]
        scored = [i for i in range(len(contracts)) if i % config.folds == fold]
        weights, bias = fit_head(fitted, categories, config, wording)
        thresholds = np.full(len(categories), 0.5)
        head = PresenceHead(tuple(categories), weights, bias, thresholds, model_id, wording)
        best[scored] = document_probabilities(head, [contracts[i] for i in scored])
    return best


def _publish(head: PresenceHead, out: Path, extra: dict[str, Any]) -> None:
    """Write into a sibling folder, then move the files in: a crash leaves the old head whole."""
    staging = out.with_name(out.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    head.save(staging, extra)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("head.npz", "config.json"):
        (staging / name).replace(out / name)
    shutil.rmtree(staging, ignore_errors=True)


def run(config: ProvisionTrainConfig, embedder: Embedder, log: Log) -> dict[str, Any]:
    contracts = cuad_contracts(config.data)
    if config.training_contracts is not None:  # a bounded run: every held-out contract, fewer to fit on
        fitted = {c.title for c in contracts if not is_heldout(c.title)}
        kept = set(sorted(fitted, key=[c.title for c in contracts].index)[: config.training_contracts])
        contracts = [c for c in contracts if is_heldout(c.title) or c.title in kept]
    categories = sorted({category for contract in contracts for category in contract.answers})
    log(f"{len(contracts)} CUAD contracts, {len(categories)} categories; embedding their clauses")
    embedded = embed_contracts(contracts, categories, embedder, log, config.work_dir)
    training = [c for c in embedded if not c.heldout]
    heldout = [c for c in embedded if c.heldout]
    log(f"fitting on {len(training)} contracts ({sum(len(c.vectors) for c in training)} clauses)")
    wording = fit_wording(training, config) if config.ngram_weight > 0 else None
    log(f"vocabulary: {len(wording.vocabulary) if wording else 0} words and word pairs")
    oof = out_of_fold(training, categories, config, embedder.model_id, wording)
    train_gold = np.array([c.present for c in training])
    thresholds, threshold_estimates = choose_thresholds(train_gold, oof, config.folds)
    log(f"thresholds, nested out-of-fold macro F1: {threshold_estimates}")
    bands = abstention_bands(train_gold, oof, thresholds, config.false_yes, config.false_no)
    calibration = fit_calibration(train_gold, oof)
    weights, bias = fit_head(training, categories, config, wording)
    head = PresenceHead(
        tuple(categories), weights, bias, thresholds, embedder.model_id, wording, bands, calibration
    )
    heldout_gold = np.array([c.present for c in heldout])
    heldout_best = document_probabilities(head, heldout)
    report = {
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items()},
        "training_contracts": len(training),
        "training_clauses": int(sum(len(c.vectors) for c in training)),
        "vocabulary": len(wording.vocabulary) if wording else 0,
        "positives": dict(
            zip(categories, np.vstack([c.labels for c in training]).sum(0).tolist(), strict=True)
        ),
        "threshold_choice": threshold_estimates,
        "band_frontier": band_frontier(train_gold, oof, config.folds),
        "calibrated_frontier": calibrated_frontier(train_gold, oof, config.folds),
        "out_of_fold": presence_report(train_gold, oof, thresholds, categories),
        "heldout": presence_report(heldout_gold, heldout_best, thresholds, categories),
        "heldout_at_0.5": presence_report(
            heldout_gold, heldout_best, np.full(len(categories), 0.5), categories
        ),
    }
    extra = {
        "training": "CUAD v1 development contracts outside the held-out fold (CC BY 4.0)",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    _publish(head, config.out, extra)
    (config.out / "MODEL_CARD.md").write_text(model_card(config, report), encoding="utf-8")
    (config.out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    log(
        f"presence macro F1: out-of-fold {report['out_of_fold']['macro_f1']}, "
        f"held-out {report['heldout']['macro_f1']} ({len(heldout)} contracts)"
    )
    return report


def model_card(config: ProvisionTrainConfig, report: dict[str, Any]) -> str:
    held, oof = report["heldout"], report["out_of_fold"]
    vocabulary = f"{report['vocabulary']:,} grams"
    rows = "\n".join(
        f"| {category} | {report['positives'][category]} | {held['per_category'][category]['support']} | "
        f"{held['per_category'][category]['f1']:.2f} |"
        for category in held["per_category"]
    )
    frontier = "\n".join(
        f"| {point['rate']:.0%} | {point['right_of_committed']:.3f} | {point['unclear']:.3f} | "
        f"{point['right_overall']:.3f} |"
        for point in report.get("band_frontier", [])
    )
    return f"""# Clausewise provision presence classifier

One class-balanced logistic regression per CUAD category over each clause's vector from the
default embedder (all-MiniLM-L6-v2, int8 ONNX; the clause with its headings, as ingestion
indexes it) and the binary tf-idf words and word pairs of the clause's own text ({vocabulary} in
the vocabulary, each in at least {config.min_df} training clauses, scaled to length
{config.ngram_weight}), applied to every clause of a contract; a provision is present when one
clause reaches its category's threshold. `head.npz` holds the weights (half precision), biases,
vocabulary and idf, `config.json` the categories, thresholds, embedder id and the checksum of
`head.npz`.

- Data: CUAD v1 (The Atticus Project, CC BY 4.0), development contracts outside the held-out fold:
  {report["training_contracts"]} contracts, {report["training_clauses"]} clauses, cut as ingestion
  cuts them. A clause is a positive of a category when it overlaps one of its answers.
- Regularisation C = {config.regularisation}. Thresholds: per category, the one that maximises
  document-level presence F1 on {config.folds}-fold out-of-fold predictions of the training
  contracts, or 0.5 for all, whichever scores better in nested validation on the training contracts
  (macro F1 {report["threshold_choice"]}).
- Reproduce: `clausewise train provisions` (needs the `train` extra and the benchmark data).

## Figures (document-level presence, macro F1 over {len(held["per_category"])} categories)

| split | contracts | macro F1 |
|---|---|---|
| training contracts, out of fold | {oof["contracts"]} | {oof["macro_f1"]:.4f} |
| held-out fold (never fitted or calibrated on) | {held["contracts"]} | {held["macro_f1"]:.4f} |
| held-out fold at threshold 0.5 for all | {held["contracts"]} | {report["heldout_at_0.5"]["macro_f1"]:.4f} |

How the bands trade (training contracts, nested: bands chosen on the other folds at each error
rate each way, applied to the held-back fold; with and without the provision weighted alike per
category, macro over categories). The shipped bands allow {config.false_yes:.0%} / {config.false_no:.0%}.

| error rate each way | right of committed | unclear | right, unclear counted wrong |
|---|---|---|---|
{frontier}

| category | training clauses | held-out contracts with it | held-out F1 |
|---|---|---|---|
{rows}

Limits: categories with few training clauses (Joint IP Ownership, Price Restrictions, Third Party
Beneficiary...) are decided poorly; a category absent from every held-out contract scores F1 1.0
when never predicted. The head reads a clause's vector only, so a provision spread across clauses
is found by its strongest clause.
"""
