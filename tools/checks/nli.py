"""The shipped hypothesis classifier: (hypothesis, piece) -> P(Entailment, Contradiction, NotMentioned).

A MiniLM cross-encoder fine-tuned on ContractNLI's development documents (``clausewise train
nli``; model card in ``clausewise/assets/nli``), int8 ONNX on onnxruntime, no torch. It reads
one sentence-sized piece at a time, so it is fast enough to judge every piece of the retrieved
evidence (~10 ms a piece on two cores) where the LLM judge needs 15-20 s per hypothesis.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from clausewise.domain import Span
from clausewise.errors import ModelUnavailable
from tools.checks.decision import LABELS
from tools.retrieval.rerank import OnnxCrossEncoder


def shipped_nli_dir() -> Path:
    return Path(str(resources.files("clausewise") / "assets" / "nli"))


@dataclass(frozen=True)
class ScoredPiece:
    """A piece of the contract with the classifier's probabilities, and the node it belongs to."""

    span: Span
    node_id: str
    entailment: float
    contradiction: float
    not_mentioned: float

    def probability(self, label: str) -> float:
        return {"Entailment": self.entailment, "Contradiction": self.contradiction}.get(
            label, self.not_mentioned
        )


class NliClassifier:
    """Label probabilities of pieces for a hypothesis; loads lazily and once."""

    name = "onnx-minilm-nli"

    def __init__(self, folder: Path | None = None, threads: int = 0) -> None:
        self.folder = folder or shipped_nli_dir()
        self._encoder = OnnxCrossEncoder(
            self.folder,
            threads=threads,
            what="NLI classifier",
            missing_hint="reinstall clausewise, run `clausewise train nli`, or set checks.judge=llm",
        )
        self._order: list[int] | None = None

    def _label_order(self) -> list[int]:
        """Column of each of :data:`LABELS` in the model's logits (from its config.json)."""
        if self._order is None:
            config_file = self.folder / "config.json"
            if not config_file.is_file():
                raise ModelUnavailable(
                    f"the NLI classifier is missing from {self.folder}", hint="run `clausewise train nli`"
                )
            labels = json.loads(config_file.read_text(encoding="utf-8")).get("labels", list(LABELS))
            self._order = [labels.index(label) for label in LABELS]
        return self._order

    def probabilities(self, hypothesis: str, pieces: Sequence[str]) -> np.ndarray:
        """Softmax probabilities, one row per piece, columns in :data:`LABELS` order."""
        if not pieces:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        logits = self._encoder.logits(hypothesis, pieces)[:, self._label_order()]
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        return shifted / shifted.sum(axis=1, keepdims=True)
