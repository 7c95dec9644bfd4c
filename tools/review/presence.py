"""The shipped provision-presence classifier: one logistic head per CUAD category over each
clause's vector (stored by the Archivist) and the words and word pairs of the clause's own text.

Why a head on stored vectors: deciding 41 provisions with the reranker costs 41 retrievals and
scores only what each query pack retrieved (CUAD presence macro F1 0.44 on held-out contracts).
A linear head per category reads every clause of the contract at once, costs one matrix product
(the embeddings are in the index already; the words are counted on the fly), and was trained on
what CUAD's annotators marked (``clausewise train provisions``; model card in
``clausewise/core/assets/provisions``). A provision is present when one clause's probability reaches
the category's threshold, calibrated on out-of-fold predictions of the training contracts.

Why words as well as vectors: many provisions are named by a few words a sentence embedding
dilutes ("most favored", "liquidated damages", "escrow", "third party beneficiary"); with
tf-idf unigrams and bigrams beside the vector, held-out macro F1 rose from 0.63 to 0.68.

The head only means something for the embedder it was trained with, so it records that model's
id and the review falls back to the reranker for an index embedded by another model.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
from scipy import sparse

from clausewise.core.domain import Chunk
from clausewise.core.errors import ModelIntegrityError, ModelUnavailable
from clausewise.core.resources import asset_dir

HEAD_FILE = "head.npz"
CONFIG_FILE = "config.json"
REPRESENTATIVE_KINDS = ("ancestor", "node", "passage")  # preferred first
_WORD = re.compile(r"[a-z][a-z\-]+")


def word_grams(text: str) -> set[str]:
    """The lower-cased words of a text and its adjacent word pairs."""
    words = _WORD.findall(text.lower())
    return set(words) | {f"{a} {b}" for a, b in itertools.pairwise(words)}


@dataclass(frozen=True)
class Wording:
    """Binary tf-idf features over a fixed vocabulary of words and word pairs, L2-normalised and
    scaled by ``weight`` so they sit beside a unit-length sentence vector."""

    vocabulary: tuple[str, ...]
    idf: np.ndarray
    weight: float = 1.0

    @cached_property
    def column(self) -> dict[str, int]:
        return {gram: number for number, gram in enumerate(self.vocabulary)}

    def features(self, texts: Sequence[str]) -> sparse.csr_matrix:
        rows: list[int] = []
        columns: list[int] = []
        values: list[float] = []
        for row, text in enumerate(texts):
            found = sorted(self.column[g] for g in word_grams(text) if g in self.column)
            if not found:
                continue
            weights = self.idf[found]
            weights = weights / np.linalg.norm(weights) * self.weight
            rows.extend([row] * len(found))
            columns.extend(found)
            values.extend(weights.tolist())
        return sparse.csr_matrix(
            (np.asarray(values, dtype=np.float32), (rows, columns)),
            shape=(len(texts), len(self.vocabulary)),
            dtype=np.float32,
        )


def shipped_presence_dir() -> Path:
    return asset_dir("provisions")


def clause_chunks(chunks: Iterable[Chunk]) -> list[Chunk]:
    """One chunk per clause, the one the head reads: the ancestor-aware chunk (the clause with
    its headings) when there is one, else the clause's own chunk, else a flat passage. Training
    and review both select with this function, so the head sees at run time what it learnt on."""
    best: dict[str, Chunk] = {}
    for chunk in chunks:
        if chunk.kind not in REPRESENTATIVE_KINDS:
            continue
        held = best.get(chunk.node_id)
        if held is None or REPRESENTATIVE_KINDS.index(chunk.kind) < REPRESENTATIVE_KINDS.index(held.kind):
            best[chunk.node_id] = chunk
    return sorted(best.values(), key=lambda c: (c.span[0], c.span[1], c.id))


def clause_texts(text: str, chunks: Sequence[Chunk]) -> list[str]:
    """Each clause's own words, without headings: what the head's word features read (the vector
    is the chunk's, headings included). Training and review both read with this function."""
    return [text[chunk.span[0] : chunk.span[1]] for chunk in chunks]


@dataclass(frozen=True)
class PresenceHead:
    """Weights [categories, dimension + vocabulary], biases and per-category thresholds."""

    categories: tuple[str, ...]
    weights: np.ndarray
    bias: np.ndarray
    thresholds: np.ndarray
    embedding_model: str
    wording: Wording | None = None
    bands: np.ndarray | None = None  # [categories, 2]: below the first "no", from the second "yes"
    calibration: np.ndarray | None = None  # [categories, 2]: slope and intercept over the best logit

    def present_probability(self, column: int, best: float) -> float | None:
        """P(the contract has the provision) given its best clause probability ``best``, with the
        two answers equally likely beforehand (None: a head without a calibration)."""
        if self.calibration is None:
            return None
        clipped = min(max(best, 1e-6), 1 - 1e-6)
        slope, intercept = (float(v) for v in self.calibration[column])
        return float(1.0 / (1.0 + np.exp(-(slope * np.log(clipped / (1 - clipped)) + intercept))))

    def band(self, column: int) -> tuple[float, float]:
        """The category's (no below, yes at) probabilities: between them the classifier is not
        confident either way. Without calibrated bands, both are the threshold."""
        if self.bands is None:
            threshold = float(self.thresholds[column])
            return threshold, threshold
        return float(self.bands[column, 0]), float(self.bands[column, 1])

    def probabilities(self, vectors: np.ndarray, texts: Sequence[str] = ()) -> np.ndarray:
        """P(clause belongs to category), one row per clause (its vector and, when the head reads
        words, its text), one column per category."""
        if vectors.shape[0] == 0:
            return np.zeros((0, len(self.categories)), dtype=np.float32)
        dimension = vectors.shape[1]
        logits = vectors.astype(np.float32) @ self.weights[:, :dimension].T + self.bias
        if self.wording is not None:
            if len(texts) != vectors.shape[0]:
                raise ValueError("this presence head reads each clause's text: pass one per vector")
            logits += np.asarray(self.wording.features(texts) @ self.weights[:, dimension:].T)
        return (1.0 / (1.0 + np.exp(-np.clip(logits, -50, 50)))).astype(np.float32)

    def category_index(self, name: str) -> int | None:
        """Column of a category, matched case-insensitively on its CUAD name."""
        wanted = name.strip().casefold()
        for number, category in enumerate(self.categories):
            if category.casefold() == wanted:
                return number
        return None

    def save(self, folder: Path, extra: dict | None = None) -> None:
        """Write the head and its config (with the head's checksum) into ``folder``."""
        folder.mkdir(parents=True, exist_ok=True)
        head = folder / HEAD_FILE
        # half precision halves the file; the trainer rounds weights the same way before scoring
        arrays = {"weights": self.weights.astype(np.float16), "bias": self.bias.astype(np.float32)}
        if self.wording is not None:
            arrays["vocabulary"] = np.asarray(self.wording.vocabulary, dtype=str)
            arrays["idf"] = self.wording.idf.astype(np.float32)
        with head.open("wb") as handle:
            np.savez_compressed(handle, **arrays)
        config = {
            "ngram_weight": self.wording.weight if self.wording is not None else None,
            "categories": list(self.categories),
            "thresholds": [round(float(t), 4) for t in self.thresholds],
            **(
                {"bands": [[round(float(a), 4), round(float(b), 4)] for a, b in self.bands]}
                if self.bands is not None
                else {}
            ),
            **(
                {"calibration": [[round(float(a), 5), round(float(b), 5)] for a, b in self.calibration]}
                if self.calibration is not None
                else {}
            ),
            "embedding_model": self.embedding_model,
            "sha256": hashlib.sha256(head.read_bytes()).hexdigest(),
            **(extra or {}),
        }
        (folder / CONFIG_FILE).write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def read_head(folder: Path) -> PresenceHead:
    """Load and verify a head written by :meth:`PresenceHead.save`."""
    head_file, config_file = folder / HEAD_FILE, folder / CONFIG_FILE
    if not head_file.is_file() or not config_file.is_file():
        raise ModelUnavailable(
            f"the provision presence classifier is missing from {folder}",
            hint="reinstall clausewise, run `clausewise train provisions`, or set review.presence=reranker",
        )
    config = json.loads(config_file.read_text(encoding="utf-8"))
    if hashlib.sha256(head_file.read_bytes()).hexdigest() != config.get("sha256"):
        raise ModelIntegrityError(
            f"the provision presence classifier {head_file} does not match its recorded checksum",
            hint="reinstall clausewise or run `clausewise train provisions`",
        )
    with np.load(head_file, allow_pickle=False) as arrays:
        weights, bias = arrays["weights"].astype(np.float32), arrays["bias"]
        wording = (
            Wording(tuple(arrays["vocabulary"].tolist()), arrays["idf"], float(config["ngram_weight"]))
            if "vocabulary" in arrays
            else None
        )
    categories = tuple(config["categories"])
    thresholds = np.asarray(config["thresholds"], dtype=np.float32)
    bands = np.asarray(config["bands"], dtype=np.float32) if "bands" in config else None
    calibration = np.asarray(config["calibration"], dtype=np.float32) if "calibration" in config else None
    if (
        weights.shape[0] != len(categories)
        or bias.shape != (len(categories),)
        or len(thresholds) != len(categories)
        or (bands is not None and bands.shape != (len(categories), 2))
        or (calibration is not None and calibration.shape != (len(categories), 2))
    ):
        raise ModelIntegrityError(
            f"the provision presence classifier in {folder} has inconsistent shapes",
            hint="run `clausewise train provisions` again",
        )
    return PresenceHead(
        categories, weights, bias, thresholds, config["embedding_model"], wording, bands, calibration
    )


class PresenceClassifier:
    """The head of a folder (the shipped one by default), loaded lazily and once."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or shipped_presence_dir()
        self._head: PresenceHead | None = None
        self._lock = threading.Lock()

    @property
    def head(self) -> PresenceHead:
        with self._lock:
            if self._head is None:
                self._head = read_head(self.folder)
            return self._head


@dataclass(frozen=True)
class ClauseScores:
    """The head's probabilities for every clause of one contract."""

    chunks: Sequence[Chunk]
    probabilities: np.ndarray  # [clauses, categories]

    def best(self, column: int) -> float:
        return float(self.probabilities[:, column].max()) if len(self.chunks) else 0.0

    def above(self, column: int, threshold: float, limit: int) -> list[tuple[Chunk, float]]:
        """The clauses at or above ``threshold`` for a category, most probable first."""
        scores = self.probabilities[:, column] if len(self.chunks) else np.zeros(0)
        order = np.argsort(-scores, kind="stable")
        return [(self.chunks[i], float(scores[i])) for i in order[:limit] if scores[i] >= threshold]
