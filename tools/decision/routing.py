"""Where a question goes: the known provision whose decider settles it, taken which way round.

A route is a known provision (a CUAD category, an NDA topic) and a polarity: "present" when the
answer "yes" means the contract has the provision ("Is there a non-compete?"), "absent" when it
means the contract does not ("Are we free to compete with them?"), "unsure" when the router
cannot tell (the decider then says what the contract has, and leaves the yes or no open).

The router is a classifier trained on example questions (``clausewise train router``; model card
in ``clausewise/core/assets/router``): routes described by example utterances, as semantic routers
define them, with an explicit "none" route learnt from questions about what no decider covers.
Three linear heads read the question's vector from the embedder beside its word and letter grams:

- **route**: which known provision, or none (softmax);
- **detail**: whether the question narrows the provision by something its presence does not
  settle ("Can either party terminate *without any notice*?", "Is the cap *at least twelve
  months of fees*?"): such a question goes nowhere, whatever its route;
- **polarity**: P(the question's "yes" means the provision is absent).

Its thresholds (least route probability, least detail probability that sends a question
nowhere, and the band around 0.5 inside which the way round is unsure) are chosen on the tune
half of the phrasing set and recorded in the model's config.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from clausewise.core.backends.embeddings import Embedder
from clausewise.core.errors import ModelIntegrityError, ModelUnavailable
from clausewise.core.resources import asset_dir
from tools.decision.catalogue import KnownProvision
from tools.qualifiers import dropped_conditions, imposes

Polarity = Literal["present", "absent", "unsure"]
#: The route of questions no known provision settles.
NONE = "none"
#: What the router's folder ships (besides its model card and training report).
ROUTER_FILES = ("head.npz", "config.json")


@dataclass(frozen=True)
class Route:
    """A question's provision, which way round it asks, and the router's probability of the
    provision (and of the runner-up)."""

    provision: KnownProvision
    polarity: Polarity = "present"
    confidence: float = 0.0
    runner_up: float = 0.0


class QuestionRouter(Protocol):
    def route(self, question: str) -> Route | None:
        """The route of ``question``, or None when no known provision is what it asks about."""
        ...

    def options(self, question: str) -> tuple[Route, ...]:
        """When :meth:`route` takes none: the provisions the question may still mean, most probable
        first, to be offered back to the asker as choices (empty when it means none of them)."""
        ...

    def route_as(self, question: str, key: str) -> Route | None:
        """``question`` read as asking about the provision ``key`` (the asker's choice among the
        options), taken the way round the router reads it; None for a key no provision has."""
        ...


@dataclass(frozen=True)
class RouterHead:
    """How the heads' probabilities become a route: the top route when it is not "none", its
    probability is at least ``route_at`` and P(detail) is below ``detail_at``; its polarity
    "absent" above 0.5 + ``polarity_band``, "present" below 0.5 - ``polarity_band``, "unsure"
    between."""

    classes: tuple[str, ...]
    route_at: float
    detail_at: float
    polarity_band: float
    ask_at: float | None = None  # None: a router trained before asking back; never offers
    most_options: int = 2

    def decide(self, routes: np.ndarray, absent: float, detail: float) -> tuple[str, Polarity | None]:
        """(route key, polarity), or ("", None) for no route."""
        top = int(np.argmax(routes))
        if self.classes[top] == NONE or float(routes[top]) < self.route_at or detail >= self.detail_at:
            return "", None
        return self.classes[top], self.polarity(absent)

    def polarity(self, absent: float) -> Polarity:
        """Which way round a routed question asks, from P(absent) and the band around 0.5."""
        if abs(absent - 0.5) <= self.polarity_band:
            return "unsure"
        return "absent" if absent > 0.5 else "present"

    def offered(self, routes: np.ndarray, absent: float, detail: float) -> list[str]:
        """Rule "ask back": a question routed nowhere whose likeliest provisions still reach
        ``ask_at`` is offered them (at most ``most_options``, most probable first) instead of being
        left to no decider; a question that narrows a provision by a detail (P(detail) at least
        ``detail_at``) is not, since no decider settles the detail it asks."""
        if self.ask_at is None or detail >= self.detail_at or self.decide(routes, absent, detail)[0]:
            return []
        order = np.argsort(-routes, kind="stable")
        keys = [self.classes[i] for i in order if self.classes[i] != NONE and float(routes[i]) >= self.ask_at]
        return keys[: self.most_options]


_TOKEN = re.compile(r"[a-z0-9]+")

# Rule "British and American spellings read alike": the grams of a question are the same whichever
# spelling its writer learned, so a head never learns a spelling as a signal (the phrasing set and
# the provision lists use both, unevenly). Only words both spellings of which occur in contracts.
_SPELLINGS = {
    "licence": "license",
    "licences": "licenses",
    "licenced": "licensed",
    "favour": "favor",
    "favoured": "favored",
    "favourable": "favorable",
    "organisation": "organization",
    "authorise": "authorize",
    "authorised": "authorized",
    "defence": "defense",
    "offence": "offense",
    "judgement": "judgment",
    "labour": "labor",
    "honour": "honor",
    "programme": "program",
    "cancelled": "canceled",
}


def question_grams(text: str, chars: tuple[int, int] = (3, 5)) -> tuple[list[str], list[str]]:
    """The words and word pairs of a question, and the letter sequences of its words (3 to 5
    letters, each word padded with a space): an abbreviation ("T4C", "LoL", "ROFR") or a word
    split differently ("non-compete", "noncompete") is matched by its letters when no embedding
    knows it. Training and routing both read questions with this function."""
    words = [_SPELLINGS.get(word, word) for word in _TOKEN.findall(text.lower())]
    grams = words + [f"{a} {b}" for a, b in itertools.pairwise(words)]
    letters = []
    for word in words:
        padded = f" {word} "
        for n in range(chars[0], chars[1] + 1):
            letters += [padded[i : i + n] for i in range(max(1, len(padded) - n + 1))]
    return grams, letters


@dataclass(frozen=True)
class GramWeights:
    """A vocabulary with its smoothed idf: sublinear term frequency times idf, L2-normalised and
    scaled by ``weight`` so the block sits beside a unit-length sentence vector."""

    vocabulary: tuple[str, ...]
    idf: np.ndarray
    weight: float

    def matrix(self, documents: Sequence[Sequence[str]]) -> np.ndarray:
        column = {gram: number for number, gram in enumerate(self.vocabulary)}
        out = np.zeros((len(documents), len(self.vocabulary)), dtype=np.float32)
        for row, grams in enumerate(documents):
            counts: dict[int, int] = {}
            for gram in grams:
                number = column.get(gram)
                if number is not None:
                    counts[number] = counts.get(number, 0) + 1
            if not counts:
                continue
            found = np.fromiter(counts, dtype=np.int64)
            values = (1.0 + np.log(np.fromiter(counts.values(), dtype=np.float32))) * self.idf[found]
            out[row, found] = values / np.linalg.norm(values) * self.weight
        return out


@dataclass(frozen=True)
class Linear:
    """One linear head: weights [outputs, features] and biases [outputs]."""

    weights: np.ndarray
    bias: np.ndarray

    def logits(self, features: np.ndarray) -> np.ndarray:
        return features @ self.weights.T + self.bias


def _sigmoid(logits: np.ndarray) -> np.ndarray:
    return (1.0 / (1.0 + np.exp(-np.clip(logits, -50, 50)))).astype(np.float32)


#: The kinds of provision whose questions the polarity head reads with weights of their own.
GATED_KINDS = ("permission", "constraint")


def polarity_features(features: np.ndarray, kinds: Sequence[str]) -> np.ndarray:
    """The question's features, then a copy for each of :data:`GATED_KINDS`, zero unless the
    provision asked about is of that kind: "Can we assign it?" is asked the other way round of a
    constraint (yes = no restriction), straight of a permission ("Can we terminate at will?"), so
    the head learns the words' way round per kind (rule "the way round depends on what the
    provision does")."""
    gates = [np.array([[kind == gated] for kind in kinds], dtype=np.float32) for gated in GATED_KINDS]
    return np.hstack([features, *(features * gate for gate in gates)])


@dataclass(frozen=True)
class RouterWeights:
    """The router's heads over [question vector, word grams, letter grams]; ``kinds`` gives each
    class's kind of provision (constraint, permission, fact; "" for none)."""

    classes: tuple[str, ...]
    kinds: tuple[str, ...]
    route: Linear
    polarity: Linear
    detail: Linear
    words: GramWeights
    letters: GramWeights

    def features(self, vectors: np.ndarray, texts: Sequence[str]) -> np.ndarray:
        grams = [question_grams(t) for t in texts]
        return np.hstack(
            [vectors, self.words.matrix([g for g, _ in grams]), self.letters.matrix([c for _, c in grams])]
        )

    def predict(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Route probabilities [questions, classes], P(absent) of the top route's way round and
        P(detail) [questions]."""
        logits = self.route.logits(features)
        logits -= logits.max(axis=1, keepdims=True)
        routes = np.exp(logits)
        routes /= routes.sum(axis=1, keepdims=True)
        kinds = [self.kinds[int(top)] for top in routes.argmax(axis=1)]
        absent = _sigmoid(self.polarity.logits(polarity_features(features, kinds))[:, 0])
        detail = _sigmoid(self.detail.logits(features)[:, 0])
        return routes.astype(np.float32), absent, detail

    def save(self, folder: Path, config: dict) -> None:
        """Write ``head.npz`` and ``config.json`` (``config``, the classes, the gram weights and the
        head's checksum) into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        head = folder / "head.npz"
        arrays = {
            f"{name}_{part}": getattr(getattr(self, name), part).astype(
                np.float16 if part == "weights" else np.float32
            )
            for name in ("route", "polarity", "detail")
            for part in ("weights", "bias")
        }
        with head.open("wb") as handle:
            np.savez_compressed(
                handle,
                **arrays,
                word_vocabulary=np.asarray(self.words.vocabulary, dtype=str),
                word_idf=self.words.idf.astype(np.float32),
                letter_vocabulary=np.asarray(self.letters.vocabulary, dtype=str),
                letter_idf=self.letters.idf.astype(np.float32),
            )
        written = {
            **config,
            "classes": list(self.classes),
            "kinds": list(self.kinds),
            "word_weight": self.words.weight,
            "letter_weight": self.letters.weight,
            "sha256": hashlib.sha256(head.read_bytes()).hexdigest(),
        }
        (folder / "config.json").write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")


def read_router(folder: Path) -> tuple[RouterWeights, dict]:
    """Load and verify a router written by :meth:`RouterWeights.save`."""
    head, config_file = folder / "head.npz", folder / "config.json"
    hint = "reinstall clausewise or run `clausewise train router`"
    if not head.is_file() or not config_file.is_file():
        raise ModelUnavailable(f"the question router is missing from {folder}", hint=hint)
    config = json.loads(config_file.read_text(encoding="utf-8"))
    if hashlib.sha256(head.read_bytes()).hexdigest() != config.get("sha256"):
        raise ModelIntegrityError(
            f"the question router {head} does not match its recorded checksum", hint=hint
        )
    with np.load(head, allow_pickle=False) as arrays:
        heads = {
            name: Linear(arrays[f"{name}_weights"].astype(np.float32), arrays[f"{name}_bias"])
            for name in ("route", "polarity", "detail")
        }
        words = GramWeights(
            tuple(arrays["word_vocabulary"].tolist()), arrays["word_idf"], float(config["word_weight"])
        )
        letters = GramWeights(
            tuple(arrays["letter_vocabulary"].tolist()), arrays["letter_idf"], float(config["letter_weight"])
        )
    weights = RouterWeights(
        tuple(config["classes"]), tuple(config["kinds"]), **heads, words=words, letters=letters
    )
    if weights.route.weights.shape[0] != len(weights.classes) or len(weights.kinds) != len(weights.classes):
        raise ModelIntegrityError(f"the question router in {folder} has inconsistent shapes", hint=hint)
    return weights, config


def shipped_router_dir() -> Path:
    return asset_dir("router")


class RouterModel:
    """The shipped router's heads over the embedder's question vectors; loaded lazily and once."""

    def __init__(self, embedder: Embedder, folder: Path | None = None) -> None:
        self.embedder = embedder
        self.folder = folder or shipped_router_dir()
        self._lock = threading.Lock()
        self._loaded: tuple[RouterWeights, RouterHead] | None = None

    def _load(self) -> tuple[RouterWeights, RouterHead]:
        with self._lock:
            if self._loaded is None:
                weights, config = read_router(self.folder)
                if config.get("embedding_model") != self.embedder.model_id:
                    raise ModelUnavailable(
                        f"the question router was trained on {config.get('embedding_model')} vectors, not "
                        f"{self.embedder.model_id}'s",
                        hint="use the default embedder, or run `clausewise train router` with yours",
                    )
                head = RouterHead(
                    weights.classes,
                    float(config["route_at"]),
                    float(config["detail_at"]),
                    float(config["polarity_band"]),
                    float(config["ask_at"]) if config.get("ask_at") is not None else None,
                )
                self._loaded = (weights, head)
            return self._loaded

    @property
    def head(self) -> RouterHead:
        return self._load()[1]

    def predict(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Route probabilities [texts, classes], P(absent) and P(detail) [texts]."""
        weights, _ = self._load()
        vectors = self.embedder.embed_queries(list(texts))
        return weights.predict(weights.features(vectors, texts))


def conditions_against(question: str, provision: KnownProvision) -> list[str]:
    """Rule "a dropped condition" (:mod:`tools.qualifiers`) for a route: the conditions the
    question does without ("terminate *without notice*") that the provision's own texts impose
    ("... by giving notice"). Its decider finds the provision, which then answers a different
    question, so the question is not routed there. A condition the provision's examples
    themselves do without ("Can we assign it without consent?") is one its decider reads."""
    asked = dropped_conditions(question)
    if not asked:
        return []
    described = (*provision.texts, *provision.examples, *provision.inverse_examples)
    read = set().union(*(dropped_conditions(text) for text in described))
    definition = " ".join(provision.texts)
    return sorted(c for c in asked - read if imposes(definition, c))


class ClassifierRouter:
    """Routes with the shipped classifier (:class:`RouterModel`); a route whose provision imposes
    a condition the question does without is not taken, nor offered (:func:`conditions_against`)."""

    def __init__(self, provisions: Sequence[KnownProvision], model: RouterModel) -> None:
        self.provisions = list(provisions)
        self.model = model
        self._by_key = {p.key: p for p in self.provisions}

    def _predicted(self, question: str) -> tuple[np.ndarray, float, float]:
        routes, absent, detail = self.model.predict([" ".join(question.split())])
        return routes[0], float(absent[0]), float(detail[0])

    def _route(self, key: str, routes: np.ndarray, absent: float) -> Route | None:
        provision = self._by_key.get(key)
        if provision is None:
            return None
        column = self.model.head.classes.index(key)
        runner_up = max((float(p) for i, p in enumerate(routes) if i != column), default=0.0)
        return Route(provision, self.model.head.polarity(absent), float(routes[column]), runner_up)

    def route(self, question: str) -> Route | None:
        routes, absent, detail = self._predicted(question)
        key, _ = self.model.head.decide(routes, absent, detail)
        route = self._route(key, routes, absent) if key else None
        if route is None or conditions_against(question, route.provision):
            return None
        return route

    def options(self, question: str) -> tuple[Route, ...]:
        routes, absent, detail = self._predicted(question)
        # a question the head routes is offered nothing (RouterHead.offered), also when the route
        # is not taken because its provision imposes a condition the question drops
        offered = (
            self._route(key, routes, absent) for key in self.model.head.offered(routes, absent, detail)
        )
        return tuple(r for r in offered if r is not None and not conditions_against(question, r.provision))

    def route_as(self, question: str, key: str) -> Route | None:
        if key not in self._by_key:
            return None
        routes, absent, _ = self._predicted(question)
        return self._route(key, routes, absent)
