"""``clausewise train router``: the question router the decider ships.

Why a trained router: the matcher it replaces compared a question with each provision's name and
description by embedding similarity under hand rules (a shared distinctive word, matching
qualifiers, near ties), and reached the right provision for a third of the phrasing set's check
half. A classifier fine-tuned on example questions learns how people ask (abbreviations, "can we
...", "what happens if ...") and which way round they ask it.

Data (every source written apart from the phrasing set's check half):

- the provision lists' own texts: each known provision's name, aliases, description, question
  and ``examples`` (polarity "present"), and its ``inverse_examples`` ("absent");
- ``clausewise/core/suites/outside.yaml``: questions about what no decider covers, and questions
  that narrow a provision by a qualifier its presence does not settle (both route "none");
- the **tune half** of the phrasing set (``data/routing-phrasings.yaml``).

Model: two logistic regressions (scikit-learn, ``train`` extra) over each question's vector from
the default embedder, beside tf-idf word grams and letter grams of its words
(:func:`tools.decision.routing.question_grams`): which route (the known provisions and "none",
classes weighted alike) and which way round ("absent"; fitted on catalogue questions only).
Fine-tuning MiniLM end to end with the same two heads was measured first and routed fewer tune
questions right (docs/benchmarks.md). Thresholds (the least route probability to route at all,
and the polarity band inside which the way round is too unsure to answer) are chosen on
out-of-fold predictions of the tune half: the most questions routed right with at most
``wrong_at_most`` of catalogue questions routed wrong and at most ``outside_at_most`` of outside
ones routed at all. The shipped heads are fitted on everything; the product routes with the
embedder it already has and a matrix product.
"""

from __future__ import annotations

import json
import shutil
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import yaml

from clausewise.core.backends.embeddings import Embedder
from clausewise.core.resources import asset_dir, suite_file
from clausewise_lab.evals import routing_bench
from clausewise_lab.train.log import Log
from tools.checks.suites import load_suite
from tools.decision.catalogue import known_provisions
from tools.decision.routing import (
    NONE,
    ROUTER_FILES,
    GramWeights,
    Linear,
    RouterHead,
    RouterWeights,
    polarity_features,
    question_grams,
)

ROUTER_ASSETS_DIR = asset_dir("router")
#: Thresholds tried when they are chosen: least route probability, least detail probability that
#: sends a question nowhere, half-width of the band around 0.5 where the way round is unsure.
ROUTE_AT_GRID = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
DETAIL_AT_GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)
POLARITY_BAND_GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45)
#: Least probability of a provision offered back to a question routed nowhere (rule "ask back").
ASK_AT_GRID = (0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5)
Group = Literal["catalogue", "outside", "qualified"]


@dataclass(frozen=True)
class RouterTrainConfig:
    """Everything that decides the shipped router; recorded in its model card."""

    out: Path = ROUTER_ASSETS_DIR
    regularisation: float = 10.0  # scikit-learn's C (inverse strength), every head
    max_iterations: int = 3000
    word_weight: float = 1.0  # length of the word-gram block beside the unit-length question vector
    letter_weight: float = 1.0  # length of the letter-gram block
    min_df: int = 1  # questions a gram must appear in to enter a vocabulary
    folds: int = 4
    seed: int = 13
    wrong_at_most: float = 0.01  # catalogue questions sent to another provision
    outside_at_most: float = 0.02  # questions outside the catalogue sent to a provision
    qualified_at_most: float = 0.1  # questions narrowed by a qualifier no decider decides, sent to one
    wrong_way_at_most: float = 0.02  # routed yes/no questions taken the wrong way round
    outside_offered_at_most: float = 0.05  # questions outside the catalogue asked back about a provision
    qualified_offered_at_most: float = 0.1  # qualified questions asked back about a provision


@dataclass(frozen=True)
class Example:
    """A training question: its route (a known provision's key, or "none"), its polarity (0 yes
    means present, 1 yes means absent, -1 not asked: a value or an outside question), its group
    (a catalogue question, one outside the catalogue, one that narrows a provision by a detail)
    and where it came from."""

    text: str
    route: str
    polarity: int
    group: Group
    source: str


def catalogue_examples() -> list[Example]:
    """The provision lists' texts and examples, and the outside questions."""
    examples = []
    for provision in known_provisions():
        examples += [Example(t, provision.key, 0, "catalogue", "catalogue") for t in provision.texts]
        examples += [Example(t, provision.key, 0, "catalogue", "catalogue") for t in provision.examples]
        examples += [
            Example(t, provision.key, 1, "catalogue", "catalogue") for t in provision.inverse_examples
        ]
    outside = yaml.safe_load(suite_file("outside").read_text(encoding="utf-8"))
    for topic in outside["topics"]:
        examples += [Example(t, NONE, -1, "outside", "outside.yaml") for t in topic["examples"]]
    for narrowed in outside["qualified"]:
        examples += [Example(t, NONE, -1, "qualified", "outside.yaml") for t in narrowed["examples"]]
    return examples


def product_keys() -> dict[str, str]:
    """The phrasing set's keys ("cuad:<category>", "nda:<ContractNLI key>") -> the product's."""
    keys = {f"cuad:{p.name}": p.key for p in known_provisions() if p.family == "cuad"}
    for hypothesis in load_suite("nda").hypotheses:
        keys[f"nda:{hypothesis.contractnli or hypothesis.key}"] = f"nda:{hypothesis.key}"
    return keys


def phrasing_examples(half: str) -> list[Example]:
    """The phrasing set's questions of one half, as training examples."""
    keys = product_keys()
    examples = []
    for case in routing_bench.cases(half):  # type: ignore[arg-type]
        if case.group != "catalogue":
            examples.append(Example(case.text, NONE, -1, case.group, half))  # type: ignore[arg-type]
            continue
        polarity = (1 if case.polarity == "absent" else 0) if case.form == "yes/no" else -1
        examples.append(Example(case.text, keys[case.expected], polarity, "catalogue", half))
    return examples


# --- the model ---------------------------------------------------------------------------------------


def fit_grams(documents: Sequence[Sequence[str]], weight: float, min_df: int) -> GramWeights:
    """The grams in at least ``min_df`` questions, with their smoothed idf."""
    counts: Counter[str] = Counter(g for grams in documents for g in set(grams))
    vocabulary = tuple(sorted(g for g, n in counts.items() if n >= min_df))
    total = len(documents)
    idf = np.array([np.log((1 + total) / (1 + counts[g])) + 1 for g in vocabulary], dtype=np.float32)
    return GramWeights(vocabulary, idf, weight)


def _linear(features: np.ndarray, target: np.ndarray, config: RouterTrainConfig):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(
        C=config.regularisation, class_weight="balanced", max_iter=config.max_iterations
    ).fit(features, target)


def _half(weights: np.ndarray) -> np.ndarray:
    """Weights as shipped (half precision): every figure is computed with those."""
    return weights.astype(np.float16).astype(np.float32)


def kinds_of(classes: Sequence[str]) -> tuple[str, ...]:
    """Each class's kind of provision (constraint, permission, fact; "" for none)."""
    kind = {p.key: p.kind for p in known_provisions()}
    return tuple(kind.get(name, "") for name in classes)


def fit(
    examples: Sequence[Example], vectors: np.ndarray, classes: Sequence[str], config: RouterTrainConfig
) -> RouterWeights:
    """The route, polarity and detail heads fitted on ``examples`` (their question vectors
    ``vectors``): routes on every question, the way round on catalogue yes/no questions, detail
    on catalogue questions against questions that narrow a provision."""
    grams = [question_grams(e.text) for e in examples]
    words = fit_grams([g for g, _ in grams], config.word_weight, config.min_df)
    letters = fit_grams([c for _, c in grams], config.letter_weight, config.min_df)
    empty = Linear(np.zeros((1, 0)), np.zeros(1))
    kinds = kinds_of(classes)
    shell = RouterWeights(tuple(classes), kinds, empty, empty, empty, words, letters)
    features = shell.features(vectors, [e.text for e in examples])
    index = {name: number for number, name in enumerate(classes)}
    routes = _linear(features, np.array([index[e.route] for e in examples]), config)
    route_weights = np.zeros((len(classes), features.shape[1]), dtype=np.float32)
    route_bias = np.full(len(classes), -50.0, dtype=np.float32)  # a class never seen is never chosen
    route_weights[routes.classes_] = routes.coef_
    route_bias[routes.classes_] = routes.intercept_
    asked = np.array([e.polarity >= 0 for e in examples])
    kind_of = dict(zip(classes, kinds, strict=True))
    gated = polarity_features(features[asked], [kind_of[e.route] for e in examples if e.polarity >= 0])
    polarity = _linear(gated, np.array([e.polarity for e in examples])[asked], config)
    judged = np.array([e.group in ("catalogue", "qualified") for e in examples])
    detail = _linear(features[judged], np.array([e.group == "qualified" for e in examples])[judged], config)
    return RouterWeights(
        tuple(classes),
        kinds,
        Linear(_half(route_weights), route_bias),
        Linear(_half(polarity.coef_), polarity.intercept_.astype(np.float32)),
        Linear(_half(detail.coef_), detail.intercept_.astype(np.float32)),
        words,
        letters,
    )


# --- thresholds ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Predictions:
    routes: np.ndarray
    absent: np.ndarray
    detail: np.ndarray


def routed(
    examples: Sequence[Example],
    predicted: Predictions,
    classes: Sequence[str],
    route_at: float,
    detail_at: float,
) -> list[str]:
    """Each question's route key under the thresholds ("" = none)."""
    head = RouterHead(tuple(classes), route_at, detail_at, 0.0)
    return [
        head.decide(r, 0.5 + 1e-6, float(d))[0]  # any way round: only the route is asked here
        for r, d in zip(predicted.routes, predicted.detail, strict=True)
    ]


def route_tally(examples: Sequence[Example], keys: Sequence[str]) -> dict[str, float]:
    """Catalogue questions sent to their provision (right), another (wrong) or none; outside and
    qualified questions sent to any provision."""
    counts: Counter[str] = Counter()
    for example, key in zip(examples, keys, strict=True):
        if example.group == "catalogue":
            counts["right" if key == example.route else "wrong" if key else "none"] += 1
        else:
            counts[f"{example.group}_routed" if key else f"{example.group}_away"] += 1
    catalogue = counts["right"] + counts["wrong"] + counts["none"]

    def share(part: str, *whole: str) -> float:
        return round(counts[part] / max(1, sum(counts[w] for w in whole)), 4)

    return {
        "right": share("right", "right", "wrong", "none"),
        "wrong": share("wrong", "right", "wrong", "none"),
        "none": share("none", "right", "wrong", "none"),
        "outside_routed": share("outside_routed", "outside_routed", "outside_away"),
        "qualified_routed": share("qualified_routed", "qualified_routed", "qualified_away"),
        "catalogue": catalogue,
    }


def way_tally(examples: Sequence[Example], keys: Sequence[str], absent: np.ndarray, band: float) -> dict:
    """Of the yes/no questions sent to their provision: taken the right way round, the wrong way,
    or unsure."""
    counts: Counter[str] = Counter()
    for example, key, probability in zip(examples, keys, absent, strict=True):
        if example.polarity < 0 or key != example.route:
            continue
        if abs(float(probability) - 0.5) <= band:
            counts["unsure"] += 1
        else:
            counts["right" if int(probability > 0.5) == example.polarity else "wrong"] += 1
    total = max(1, sum(counts.values()))
    return {name: round(counts[name] / total, 4) for name in ("right", "wrong", "unsure")}


def choose_thresholds(
    examples: Sequence[Example], predicted: Predictions, classes: Sequence[str], config: RouterTrainConfig
) -> tuple[dict[str, float], list[dict[str, Any]]]:
    """The route and detail thresholds sending the most catalogue questions to their provision with
    at most ``wrong_at_most`` sent to another, ``outside_at_most`` of outside questions and
    ``qualified_at_most`` of qualified ones sent anywhere (if no pair is within the limits, the one
    with the fewest wrong, outside and qualified); then the narrowest polarity band with at most
    ``wrong_way_at_most`` taken the wrong way round."""
    grid = []
    for route_at in ROUTE_AT_GRID:
        for detail_at in DETAIL_AT_GRID:
            keys = routed(examples, predicted, classes, route_at, detail_at)
            grid.append({"route_at": route_at, "detail_at": detail_at, **route_tally(examples, keys)})
    within = [
        g
        for g in grid
        if g["wrong"] <= config.wrong_at_most
        and g["outside_routed"] <= config.outside_at_most
        and g["qualified_routed"] <= config.qualified_at_most
    ]
    best = (
        max(within, key=lambda g: (g["right"], -g["qualified_routed"], -g["route_at"]))
        if within
        else min(grid, key=lambda g: (g["wrong"] + g["outside_routed"] + g["qualified_routed"], -g["right"]))
    )
    keys = routed(examples, predicted, classes, best["route_at"], best["detail_at"])
    ways = [
        {"polarity_band": b, **way_tally(examples, keys, predicted.absent, b)} for b in POLARITY_BAND_GRID
    ]
    band = next((w for w in ways if w["wrong"] <= config.wrong_way_at_most), ways[-1])
    chosen = {
        "route_at": best["route_at"],
        "detail_at": best["detail_at"],
        "polarity_band": band["polarity_band"],
    }
    offers = [{"ask_at": a, **offer_tally(examples, predicted, classes, chosen, a)} for a in ASK_AT_GRID]
    asked = next(
        (
            o
            for o in offers
            if o["outside_offered"] <= config.outside_offered_at_most
            and o["qualified_offered"] <= config.qualified_offered_at_most
        ),
        None,
    )
    return {**chosen, "ask_at": asked["ask_at"] if asked else None}, grid + ways + offers


def offer_tally(
    examples: Sequence[Example],
    predicted: Predictions,
    classes: Sequence[str],
    thresholds: dict[str, float],
    ask_at: float,
) -> dict[str, float]:
    """Under rule "ask back" at ``ask_at``: of the catalogue questions routed nowhere, the share
    offered a choice and the share whose provision is among the choices; of the outside and the
    qualified questions, the share offered any."""
    head = RouterHead(
        tuple(classes), thresholds["route_at"], thresholds["detail_at"], thresholds["polarity_band"], ask_at
    )
    counts: Counter[str] = Counter()
    for example, routes, absent, detail in zip(
        examples, predicted.routes, predicted.absent, predicted.detail, strict=True
    ):
        if head.decide(routes, float(absent), float(detail))[0]:
            continue
        offered = head.offered(routes, float(absent), float(detail))
        counts[f"{example.group}_unrouted"] += 1
        counts[f"{example.group}_offered"] += bool(offered)
        counts["catalogue_among"] += example.group == "catalogue" and example.route in offered
    totals = Counter(e.group for e in examples)

    def share(part: int, whole: int) -> float:
        return round(part / max(1, whole), 4)

    return {
        "unrouted": counts["catalogue_unrouted"],
        "unrouted_offered": share(counts["catalogue_offered"], counts["catalogue_unrouted"]),
        "unrouted_provision_offered": share(counts["catalogue_among"], counts["catalogue_unrouted"]),
        "outside_offered": share(counts["outside_offered"], totals["outside"]),
        "qualified_offered": share(counts["qualified_offered"], totals["qualified"]),
    }


def out_of_fold(
    base: Sequence[Example],
    tune: Sequence[Example],
    vectors: tuple[np.ndarray, np.ndarray],
    classes: Sequence[str],
    config: RouterTrainConfig,
) -> Predictions:
    """Predictions for each tune question by heads fitted without it (the catalogue always in)."""
    base_vectors, tune_vectors = vectors
    routes = np.zeros((len(tune), len(classes)), dtype=np.float32)
    absent = np.zeros(len(tune), dtype=np.float32)
    detail = np.zeros(len(tune), dtype=np.float32)
    fold_of = np.random.default_rng(config.seed).permutation(len(tune)) % config.folds
    for fold in range(config.folds):
        rest, held = fold_of != fold, fold_of == fold
        fitted = [*base, *(e for e, keep in zip(tune, rest, strict=True) if keep)]
        weights = fit(fitted, np.vstack([base_vectors, tune_vectors[rest]]), classes, config)
        held_texts = [e.text for e, keep in zip(tune, held, strict=True) if keep]
        routes[held], absent[held], detail[held] = weights.predict(
            weights.features(tune_vectors[held], held_texts)
        )
    return Predictions(routes, absent, detail)


def run(config: RouterTrainConfig, embedder: Embedder, log: Log) -> dict[str, Any]:
    base = catalogue_examples()
    tune = phrasing_examples("tune")
    classes = [*sorted({p.key for p in known_provisions()}), NONE]
    log(f"{len(base)} catalogue and outside questions, {len(tune)} of the tune half, {len(classes)} routes")
    started = time.perf_counter()
    vectors = (
        embedder.embed_queries([e.text for e in base]),
        embedder.embed_queries([e.text for e in tune]),
    )
    log(f"embedded in {time.perf_counter() - started:.0f} s")
    predicted = out_of_fold(base, tune, vectors, classes, config)
    thresholds, grid = choose_thresholds(tune, predicted, classes, config)
    keys = routed(tune, predicted, classes, thresholds["route_at"], thresholds["detail_at"])
    chosen = {
        **route_tally(tune, keys),
        "way_round": way_tally(tune, keys, predicted.absent, thresholds["polarity_band"]),
    }
    if thresholds["ask_at"] is not None:
        chosen["ask_back"] = offer_tally(tune, predicted, classes, thresholds, thresholds["ask_at"])
    log(f"thresholds {thresholds}: tune half out of fold {chosen}")
    weights = fit([*base, *tune], np.vstack(vectors), classes, config)
    staged = config.out.with_name(config.out.name + ".partial")
    shutil.rmtree(staged, ignore_errors=True)
    weights.save(
        staged,
        {**thresholds, "embedding_model": embedder.model_id, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
    )
    report = {
        "config": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(config).items()},
        "examples": {"catalogue_and_outside": len(base), "tune_half": len(tune), "routes": len(classes)},
        "thresholds": thresholds,
        "tune_out_of_fold": chosen,
        "threshold_grid": grid,
        "vocabulary": {"words": len(weights.words.vocabulary), "letters": len(weights.letters.vocabulary)},
        "size_bytes": (staged / "head.npz").stat().st_size,
    }
    config.out.mkdir(parents=True, exist_ok=True)
    for name in ROUTER_FILES:  # the head, then its config (with the head's checksum)
        (staged / name).replace(config.out / name)
    shutil.rmtree(staged, ignore_errors=True)
    (config.out / "report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    (config.out / "MODEL_CARD.md").write_text(model_card(config, report), encoding="utf-8")
    return report


def model_card(config: RouterTrainConfig, report: dict[str, Any]) -> str:
    tune, thresholds = report["tune_out_of_fold"], report["thresholds"]
    vocabulary = report["vocabulary"]
    return f"""# Clausewise question router

Sends a question to the known provision whose decider settles it (CUAD's 41 categories, the NDA
suite's 17 topics) or to none, and says which way round it asks ("Is there a non-compete?": yes =
present; "Are we free to compete with them?": yes = absent). Three logistic heads over the
question's vector from the default embedder (all-MiniLM-L6-v2, int8 ONNX), beside tf-idf word
grams and letter grams of its words ({vocabulary["words"]:,} and {vocabulary["letters"]:,} in the
vocabularies, blocks of length {config.word_weight} and {config.letter_weight}), classes weighted
alike: **route** (softmax over {report["examples"]["routes"]} classes, "none" included),
**detail** (the question narrows a provision by something its presence does not settle: "without
any notice", "at least twelve months of fees") and **polarity** (the question's yes means the
provision is absent). `head.npz` holds the weights (half precision) and the vocabularies;
`config.json` the classes, the thresholds, the embedder's id and the checksum.

- Data: the provision lists' names, aliases, descriptions, questions and example questions
  (`clausewise/core/suites/cuad.yaml`, `nda.yaml`), the questions of `outside.yaml` (none; its
  `qualified` ones also teach the detail head), and the tune half of the phrasing set
  (`lab/clausewise_lab/data/routing-phrasings.yaml`, even wordings):
  {report["examples"]["catalogue_and_outside"]} + {report["examples"]["tune_half"]} questions. The
  check half is never read in training.
- Regularisation C = {config.regularisation}.
- Thresholds, chosen on {config.folds}-fold out-of-fold predictions of the tune half: route when
  the top route's probability is at least {thresholds["route_at"]} and P(detail) below
  {thresholds["detail_at"]}; the way round is unsure when P(absent) is within
  {thresholds["polarity_band"]} of 0.5. There, catalogue questions right {tune["right"]}, wrong
  {tune["wrong"]}, none {tune["none"]}; outside questions routed {tune["outside_routed"]};
  qualified ones routed {tune["qualified_routed"]}; of the yes/no questions routed right, the way
  round {tune["way_round"]}.
- Rule "ask back": a question routed nowhere (and not narrowed by a detail) is offered back the
  provisions, at most two, whose route probability is at least {thresholds.get("ask_at")}: the
  lowest such threshold with at most {config.outside_offered_at_most:.0%} of the outside
  questions and {config.qualified_offered_at_most:.0%} of the qualified ones offered any. There:
  {tune.get("ask_back", "not chosen")}.
- Reproduce: `clausewise train router` (needs the `train` extra).

Figures on the check half: `clausewise eval routing` (docs/benchmarks.md).
"""
