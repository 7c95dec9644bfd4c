"""The shipped hypothesis classifier: (hypothesis, piece) -> P(Entailment, Contradiction, NotMentioned).

A MiniLM cross-encoder fine-tuned on ContractNLI's development documents (``clausewise train
nli``; model card in ``clausewise/core/assets/nli``), int8 ONNX on onnxruntime, no torch. It reads
one sentence-sized piece at a time, and is fast enough to judge every sentence of a contract
(~2 ms a sentence on two cores) where the LLM judge needs 12-20 s per hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from clausewise.core.resources import asset_dir
from clausewise.core.results import LABELS
from tools.retrieval.rerank import OnnxCrossEncoder


def shipped_nli_dir() -> Path:
    return asset_dir("nli")


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

    def probabilities(self, hypothesis: str, pieces: Sequence[str]) -> np.ndarray:
        """Softmax probabilities, one row per piece, columns in :data:`LABELS` order."""
        if not pieces:
            return np.zeros((0, len(LABELS)), dtype=np.float32)
        logits = self._encoder.logits(hypothesis, pieces)  # loads the model and its config once
        if self._order is None:
            labels = self._encoder.config.get("labels", list(LABELS))
            self._order = [labels.index(label) for label in LABELS]  # our label order in its logits
        logits = logits[:, self._order]
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        return shifted / shifted.sum(axis=1, keepdims=True)
