"""Per-process access to settings, stores and lazily loaded models.

The CLI (and the API) creates one Runtime and passes it down; models load on first use and
once. This replaces module-level singletons, so tests can build as many as they need.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cached_property
from typing import TYPE_CHECKING

from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from clausewise.core.backends.accounting import UsageLedger
from clausewise.core.backends.cache import CompletionCache
from clausewise.core.backends.embeddings import Embedder, create_embedder
from clausewise.core.backends.llm import LlamaServerPool, create_chat_model
from clausewise.core.config import LLMSettings, Settings
from clausewise.core.errors import ConfigError
from indexes.store import ContractStore
from tools.retrieval.exemplars import ExemplarLibrary
from tools.retrieval.rerank import Reranker

if TYPE_CHECKING:
    from tools.checks.nli import NliClassifier
    from tools.review.presence import PresenceClassifier


class Runtime:
    """``evaluation`` switches the completion cache on for roles whose cache setting is "auto"."""

    def __init__(self, settings: Settings, *, evaluation: bool = False) -> None:
        self.settings = settings
        self.evaluation = evaluation
        self.ledger = UsageLedger()
        self._lock = threading.RLock()
        self._embedder: Embedder | None = None
        self._models: dict[LLMSettings, BaseChatModel] = {}
        self._pool = LlamaServerPool()
        self._cache: CompletionCache | None = None
        self._reranker: Reranker | None = None
        self._reranker_ready = False
        self._nli: NliClassifier | None = None
        self._presence: PresenceClassifier | None = None

    @cached_property
    def store(self) -> ContractStore:
        return ContractStore(self.settings)

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = create_embedder(self.settings.models.embedding)
            return self._embedder

    @property
    def models_dir(self):
        return self.settings.paths.data_dir / "models"

    def _completion_cache(self, settings: LLMSettings) -> CompletionCache | None:
        enabled = settings.cache == "on" or (settings.cache == "auto" and self.evaluation)
        if not enabled:
            return None
        with self._lock:
            if self._cache is None:
                self._cache = CompletionCache(self.settings.paths.data_dir / "cache" / "completions.sqlite")
            return self._cache

    def base_model(
        self, settings: LLMSettings, progress: Callable[[int], None] | None = None
    ) -> BaseChatModel:
        """The chat model for these settings, created once (roles with equal settings share it)."""
        with self._lock:
            if settings not in self._models:
                self._models[settings] = create_chat_model(
                    settings,
                    pool=self._pool,
                    models_dir=self.models_dir,
                    callbacks=[self.ledger],
                    cache=self._completion_cache(settings),
                    progress=progress,
                )
            return self._models[settings]

    def chat_model(self, role: str, progress: Callable[[int], None] | None = None) -> Runnable:
        """The model configured for ``role``, tagged so the ledger attributes its calls."""
        model = self.base_model(self.settings.models.for_role(role), progress)
        return model.with_config(metadata={"clausewise_role": role}, run_name=role)

    def reranker(self) -> Reranker | None:
        """The configured reranker, created once (None for retrieval.reranker=none)."""
        with self._lock:
            if not self._reranker_ready:
                self._reranker = self._create_reranker()
                self._reranker_ready = True
            return self._reranker

    def _create_reranker(self) -> Reranker | None:
        from tools.retrieval.rerank import (
            LLMJudgeReranker,
            OnnxCrossEncoder,
            SentenceTransformersCrossEncoder,
        )

        settings = self.settings.retrieval
        if settings.reranker == "onnx":
            return OnnxCrossEncoder()
        if settings.reranker == "cross-encoder":
            if not settings.rerank_model:
                raise ConfigError(
                    "reranker=cross-encoder needs a model",
                    hint="set retrieval.rerank-model to a local CrossEncoder folder",
                )
            return SentenceTransformersCrossEncoder(settings.rerank_model)
        if settings.reranker == "llm":
            return LLMJudgeReranker(self.chat_model("reranker"))
        return None

    def nli(self) -> NliClassifier:
        """The shipped NLI classifier of the hypothesis checks, created once (loads lazily)."""
        with self._lock:
            if self._nli is None:
                from tools.checks.nli import NliClassifier

                self._nli = NliClassifier()
            return self._nli

    def presence_classifier(self) -> PresenceClassifier:
        """The shipped provision-presence classifier of the review, created once (loads lazily)."""
        with self._lock:
            if self._presence is None:
                from tools.review.presence import PresenceClassifier

                self._presence = PresenceClassifier()
            return self._presence

    @cached_property
    def exemplars(self) -> ExemplarLibrary:
        return ExemplarLibrary(self.settings.paths.data_dir / "exemplars", self.embedder)

    def archivist(self):
        from agents.archivist import Archivist

        return Archivist(self.settings, self.store, self.embedder)
