"""Rerankers: score (query, passage) pairs as probabilities of relevance.

- ``onnx``: our cross-encoder (MiniLM fine-tuned on the development data), int8 ONNX shipped in
  ``clausewise/core/assets/reranker``; runs on onnxruntime, no torch.
- ``cross-encoder``: any sentence-transformers CrossEncoder by local path or name.
- ``llm``: the reranker role's model, as a yes/no judge (P(yes) from first-token log-probs).
- ``none``: keep the fused order.
Scores are sigmoid-normalised so one calibrated threshold applies to all of them.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np
from langchain_core.runnables import Runnable

from clausewise.core.errors import ModelIntegrityError, ModelUnavailable
from clausewise.core.resources import asset_dir


class Reranker(Protocol):
    name: str

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Probability of relevance of each passage to the query, in passage order."""
        ...


def _sigmoid(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-logits))


def shipped_reranker_dir() -> Path:
    return asset_dir("reranker")


class OnnxCrossEncoder:
    """The shipped int8 cross-encoder; loads lazily and once, verifies its checksum."""

    name = "onnx-minilm-cross-encoder"

    def __init__(
        self,
        folder: Path | None = None,
        threads: int = 0,
        batch_size: int = 16,
        what: str = "reranker",
        missing_hint: str = "reinstall clausewise, run `clausewise train reranker`, or set reranker=none",
    ) -> None:
        """``what`` and ``missing_hint`` name the model in errors (the NLI classifier reuses this)."""
        self.folder = folder or shipped_reranker_dir()
        self.what = what
        self.missing_hint = missing_hint
        self.threads = threads
        self.batch_size = batch_size
        self._lock = threading.Lock()
        # one inference at a time: its intra-op threads already use every core it was given, so
        # concurrent runs (twenty requests at once in the service) add no throughput, only memory
        # (each run holds its own activations in the session's arena)
        self._run_lock = threading.Lock()
        self._session = None
        self._tokenizer = None
        self.max_length = 256
        self.config: dict = {}  # the model's config.json, once loaded

    def _load(self) -> None:
        with self._lock:
            if self._session is not None:
                return
            model = self.folder / "model.onnx"
            config_file = self.folder / "config.json"
            if not model.is_file() or not config_file.is_file():
                raise ModelUnavailable(
                    f"the {self.what} model is missing from {self.folder}", hint=self.missing_hint
                )
            config = json.loads(config_file.read_text(encoding="utf-8"))
            self.config = config
            digest = hashlib.sha256(model.read_bytes()).hexdigest()
            if config.get("sha256") and digest != config["sha256"]:
                raise ModelIntegrityError(
                    f"the {self.what} model {model} does not match its recorded checksum",
                    hint=f"reinstall clausewise or retrain the {self.what}",
                )
            import onnxruntime
            from tokenizers import Tokenizer

            self.max_length = int(config.get("max_length", 256))
            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = self.threads or (os.cpu_count() or 1)
            options.inter_op_num_threads = 1
            options.log_severity_level = 3
            # No busy-waiting between operators: on two cores shared with the LLM, spinning
            # threads steal the CPU the other model needs.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            self._session = onnxruntime.InferenceSession(
                str(model), options, providers=["CPUExecutionProvider"]
            )
            tokenizer = Tokenizer.from_file(str(self.folder / "tokenizer.json"))
            tokenizer.enable_truncation(max_length=self.max_length, strategy="longest_first")  # as trained
            tokenizer.no_padding()
            self._tokenizer = tokenizer

    def logits(self, query: str, passages: Sequence[str]) -> np.ndarray:
        """Raw logits, one row per passage (one column for the reranker, one per label for a
        classifier such as the NLI model)."""
        if not passages:
            return np.zeros((0, 1), dtype=np.float32)
        self._load()
        assert self._session is not None and self._tokenizer is not None
        encodings = self._tokenizer.encode_batch([(query, p) for p in passages])
        names = {i.name for i in self._session.get_inputs()}
        order = np.argsort([len(e.ids) for e in encodings], kind="stable")
        rows: np.ndarray | None = None
        for first in range(0, len(order), self.batch_size):
            chosen = order[first : first + self.batch_size]
            width = max(len(encodings[i].ids) for i in chosen)
            ids = np.zeros((len(chosen), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, i in enumerate(chosen):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
                types[row, :n] = encodings[i].type_ids
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
            with self._run_lock:
                out = self._session.run(None, {k: v for k, v in feeds.items() if k in names})[0]
            block = np.asarray(out, dtype=np.float32).reshape(len(chosen), -1)
            if rows is None:
                rows = np.zeros((len(passages), block.shape[1]), dtype=np.float32)
            rows[chosen] = block
        assert rows is not None
        return rows

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        if not passages:
            return np.zeros(0, dtype=np.float32)
        return _sigmoid(self.logits(query, passages)[:, 0])


class SentenceTransformersCrossEncoder:
    """Any sentence-transformers CrossEncoder, offline (extra ``st``)."""

    def __init__(self, model: str) -> None:
        self.model_name = model
        self.name = f"cross-encoder:{model}"
        self._lock = threading.Lock()
        self._model = None

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        if not passages:
            return np.zeros(0, dtype=np.float32)
        with self._lock:
            if self._model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                try:
                    from sentence_transformers import CrossEncoder
                except ImportError as exc:
                    raise ModelUnavailable(
                        "sentence-transformers is not installed", hint='pip install -e ".[st]"'
                    ) from exc
                try:
                    self._model = CrossEncoder(self.model_name, device="cpu")
                except OSError as exc:
                    raise ModelUnavailable(
                        f"cross-encoder {self.model_name!r} is not available offline ({exc})",
                        hint="point retrieval.rerank_model at a local folder",
                    ) from exc
        raw = np.asarray(
            self._model.predict([(query, p) for p in passages], show_progress_bar=False), dtype=np.float32
        )
        return raw if raw.min() >= 0 and raw.max() <= 1 else _sigmoid(raw)


class LLMJudgeReranker:
    """A language model as a relevance judge: P(yes) of "is this passage relevant?"."""

    name = "llm-judge"

    def __init__(self, model: Runnable) -> None:
        self.model = model

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        from clausewise.core.backends.structured import yes_probability
        from clausewise.core.prompting import load_prompt

        prompt = load_prompt("relevance_judge")
        probabilities = []
        for passage in passages:
            probability = yes_probability(self.model, prompt.messages(question=query, evidence=passage))
            if probability is None:
                raise ModelUnavailable(
                    "the reranker role's model exposes no log-probabilities",
                    hint="use retrieval.reranker=onnx or a backend with logprobs",
                )
            probabilities.append(probability)
        return np.asarray(probabilities, dtype=np.float32)
