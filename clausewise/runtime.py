"""The composition root: settings in, agents out.

Two objects, so that a process serving many tenants loads each model once and still keeps every
tenant's data apart:

- :class:`ModelHub` holds what is expensive and holds no one's data: the embedders, the loaded
  GGUF servers, the rerankers and the shipped classifiers. One per process, shared by every
  runtime; each model loads lazily, on first use, under a lock.
- :class:`Runtime` is one tenant's view with one set of settings: its contract store, its
  exemplar library, its completion cache, its chat threads and batch journals (all under
  ``<data_dir>/tenants/<tenant>/``), the chat models of its roles (over the hub's loaded
  servers, with the tenant's own cache and usage ledger), and the agents built from them.

Nothing else in the product builds an agent; the CLI, the Python API, the benchmarks and the
service ask a runtime.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.runnables import Runnable

from clausewise.core.backends.accounting import UsageLedger
from clausewise.core.backends.cache import CompletionCache
from clausewise.core.backends.embeddings import Embedder, create_embedder
from clausewise.core.backends.llm import LlamaServerPool, create_chat_model
from clausewise.core.backends.model_spans import ModelCallSpans
from clausewise.core.config import LLMSettings, Settings
from clausewise.core.errors import ConfigError
from indexes.store import ContractIndex, ContractStore
from indexes.threads import ThreadRegistry
from tools.retrieval.exemplars import ExemplarLibrary
from tools.retrieval.rerank import Reranker

if TYPE_CHECKING:
    from agents.archivist import Archivist
    from agents.checker import HypothesisChecker
    from agents.decider import AnswerDecider
    from agents.interrogator import Interrogator
    from agents.playbook_reviewer import PlaybookReviewer
    from agents.redline_drafter import RedlineDrafter
    from agents.researcher import Researcher
    from agents.reviewer import ProvisionReviewer
    from tools.checks.nli import NliClassifier
    from tools.decision.routing import QuestionRouter
    from tools.playbook.positions import Playbook
    from tools.review.presence import PresenceClassifier


class ModelHub:
    """The process's models, each loaded once and shared by every tenant's :class:`Runtime`."""

    def __init__(self, threads: int = 0) -> None:
        """``threads``: CPU threads of each classifier (0 = all cores); a worker running several
        processes gives each its share, so they do not fight over the cores."""
        self.threads = threads
        self._lock = threading.RLock()
        self._loaded: dict[Hashable, Any] = {}
        self.llama_servers = LlamaServerPool()

    def _once(self, key: Hashable, create: Callable[[], Any]) -> Any:
        with self._lock:
            if key not in self._loaded:
                self._loaded[key] = create()
            return self._loaded[key]

    def embedder(self, settings: Settings) -> Embedder:
        embedding = settings.models.embedding
        if self.threads and not embedding.threads:
            embedding = embedding.model_copy(update={"threads": self.threads})
        return self._once(("embedder", embedding), lambda: create_embedder(embedding))

    def cross_encoder(self, settings: Settings) -> Reranker | None:
        """The reranker of ``retrieval.reranker`` when it is a model of its own (onnx or a
        sentence-transformers cross-encoder); None for ``none`` and ``llm`` (a chat model, which
        belongs to a runtime)."""
        retrieval = settings.retrieval
        if retrieval.reranker == "onnx":
            from tools.retrieval.rerank import OnnxCrossEncoder

            return self._once(("reranker", "onnx"), lambda: OnnxCrossEncoder(threads=self.threads))
        if retrieval.reranker == "cross-encoder":
            if not retrieval.rerank_model:
                raise ConfigError(
                    "reranker=cross-encoder needs a model",
                    hint="set retrieval.rerank-model to a local CrossEncoder folder",
                )
            from tools.retrieval.rerank import SentenceTransformersCrossEncoder

            model = retrieval.rerank_model
            return self._once(("reranker", model), lambda: SentenceTransformersCrossEncoder(model))
        return None

    def nli(self) -> NliClassifier:
        from tools.checks.nli import NliClassifier

        return self._once("nli", lambda: NliClassifier(threads=self.threads))

    def presence_classifier(self) -> PresenceClassifier:
        from tools.review.presence import PresenceClassifier

        return self._once("presence", PresenceClassifier)

    def router(self, settings: Settings) -> QuestionRouter:
        """The router of questions to the known provisions' deciders (the shipped classifier over
        the embedder's question vectors), loaded once per embedder."""
        from tools.decision.catalogue import known_provisions
        from tools.decision.routing import ClassifierRouter, RouterModel

        embedder = self.embedder(settings)
        return self._once(
            ("router", settings.models.embedding),
            lambda: ClassifierRouter(known_provisions(), RouterModel(embedder)),
        )


class Runtime:
    """One tenant's stores and models under one set of settings, and the agents built from them.

    ``evaluation`` switches the completion cache on for roles whose cache setting is "auto".
    """

    def __init__(self, settings: Settings, *, evaluation: bool = False, hub: ModelHub | None = None) -> None:
        self.settings = settings
        self.evaluation = evaluation
        self.hub = hub or ModelHub()
        self.ledger = UsageLedger()
        self._lock = threading.RLock()
        self._models: dict[LLMSettings, BaseChatModel] = {}
        self._cache: CompletionCache | None = None
        self._llm_reranker: Reranker | None = None

    # -- where this tenant's data lives ------------------------------------------------------------

    @property
    def tenant(self) -> str:
        return self.settings.paths.tenant

    @property
    def tenant_dir(self) -> Path:
        """Everything stored for this tenant lives under here (see the module docstring)."""
        return self.settings.paths.tenant_dir

    @property
    def models_dir(self) -> Path:
        """Assembled model files: shared by tenants, since they hold no one's data
        (``paths.models_dir``, else ``<data_dir>/models``)."""
        paths = self.settings.paths
        return paths.models_dir.expanduser() if paths.models_dir is not None else paths.data_dir / "models"

    @cached_property
    def store(self) -> ContractStore:
        return ContractStore(self.settings)

    @cached_property
    def threads(self) -> ThreadRegistry:
        return ThreadRegistry(self.tenant_dir / "threads.sqlite")

    def journal_dir(self, kind: str) -> Path:
        """Where the journals of resumable batches of ``kind`` ("checks", "reviews") are kept."""
        return self.tenant_dir / "batches" / kind

    @cached_property
    def exemplars(self) -> ExemplarLibrary:
        return ExemplarLibrary(self.tenant_dir / "exemplars", self.embedder)

    # -- models --------------------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        return self.hub.embedder(self.settings)

    def completion_cache(self, settings: LLMSettings) -> CompletionCache | None:
        """The tenant's cache of completions when ``settings`` (a role's model) uses one."""
        enabled = settings.cache == "on" or (settings.cache == "auto" and self.evaluation)
        if not enabled:
            return None
        with self._lock:
            if self._cache is None:
                self._cache = CompletionCache(self.tenant_dir / "cache" / "completions.sqlite")
            return self._cache

    def base_model(
        self, settings: LLMSettings, progress: Callable[[int], None] | None = None
    ) -> BaseChatModel:
        """The chat model for these settings, created once (roles with equal settings share it).
        A GGUF file is loaded once per process (the hub's servers); the model object wrapping it
        carries this runtime's cache and usage ledger."""
        with self._lock:
            if settings not in self._models:
                self._models[settings] = create_chat_model(
                    settings,
                    pool=self.hub.llama_servers,
                    models_dir=self.models_dir,
                    callbacks=self.model_callbacks(settings),
                    cache=self.completion_cache(settings),
                    progress=progress,
                )
            return self._models[settings]

    def model_callbacks(self, settings: LLMSettings) -> list[BaseCallbackHandler]:
        """What watches every call of a chat model: the tenant's usage ledger and a trace span."""
        provider = "llama.cpp" if settings.backend in {"embedded", "gguf"} else settings.backend
        return [self.ledger, ModelCallSpans(provider)]

    def chat_model(self, role: str, progress: Callable[[int], None] | None = None) -> Runnable:
        """The model configured for ``role``, tagged so the ledger attributes its calls."""
        model = self.base_model(self.settings.models.for_role(role), progress)
        return model.with_config(metadata={"clausewise_role": role}, run_name=role)

    def reranker(self) -> Reranker | None:
        """The configured reranker (None for retrieval.reranker=none)."""
        if self.settings.retrieval.reranker != "llm":
            return self.hub.cross_encoder(self.settings)
        with self._lock:
            if self._llm_reranker is None:
                from tools.retrieval.rerank import LLMJudgeReranker

                self._llm_reranker = LLMJudgeReranker(self.chat_model("reranker"))
            return self._llm_reranker

    def nli(self) -> NliClassifier:
        """The shipped NLI classifier of the hypothesis checks (loads lazily, once per process)."""
        return self.hub.nli()

    def presence_classifier(self) -> PresenceClassifier:
        """The shipped provision-presence classifier (loads lazily, once per process)."""
        return self.hub.presence_classifier()

    # -- agents ------------------------------------------------------------------------------------

    def archivist(self) -> Archivist:
        from agents.archivist import Archivist

        return Archivist(self.settings, self.store, self.embedder)

    def retriever(self, index: ContractIndex):
        from tools.retrieval.contract_retriever import ContractRetriever

        return ContractRetriever(index, self.embedder, self.settings.retrieval, self.reranker())

    def researcher(self, index: ContractIndex) -> Researcher:
        """A Researcher on ``index`` wired to the rewriter and answerer roles, the exemplar
        library when exemplars are shown, and the NLI classifier when attribution is on."""
        from agents.researcher import Researcher

        settings = self.settings
        return Researcher(
            settings,
            index,
            self.retriever(index),
            rewriter=self.chat_model("rewriter"),
            answerer=self.chat_model("answerer"),
            exemplars=self.exemplars if settings.retrieval.exemplars else None,
            attributor=self.nli() if settings.interrogation.attributed_sentences else None,
        )

    def interrogator(self, index: ContractIndex) -> Interrogator:
        """The Interrogator for questions on ``index`` (questioner and writer roles), with the
        finishing passes of its report (the NLI classifier for the claim checks)."""
        from agents.finishing import Finisher
        from agents.interrogator import ContractView, Interrogator

        settings = self.settings
        interrogation = settings.interrogation
        view = ContractView.of(index)
        writer = self.chat_model("writer")
        finisher = Finisher(
            interrogation,
            settings.decision,
            view.verifier,
            writer,
            scorer=self.nli() if interrogation.claim_check == "values+nli" else None,
            contradiction_at=settings.checks.contradiction_at,
        )
        return Interrogator(
            interrogation, view, questioner=self.chat_model("questioner"), writer=writer, finisher=finisher
        )

    def decider(self, index: ContractIndex, model: bool = True) -> AnswerDecider:
        """The decider of short answers on ``index``: the router, the presence classifier (when
        the index was embedded by the model it was trained on), the hypothesis classifier, the
        reranker and, for questions no classifier covers, the judge role's model (``model``)."""
        from agents.decider import AnswerDecider, Presence
        from agents.reviewer import clause_scores

        settings = self.settings
        head = self.presence_classifier().head
        scores = clause_scores(head, index)
        retriever = self.retriever(index)
        return AnswerDecider(
            settings.decision,
            index,
            router=self.hub.router(settings),
            retriever=retriever,
            reranker=retriever.reranker,
            presence=Presence(head, scores) if scores is not None else None,
            ruler=self.checker(index, judge="nli"),
            scorer=self.nli(),
            model=self.chat_model("judge") if model and settings.decision.uses_model else None,
            relevant_at=settings.retrieval.rerank_threshold,
        )

    def checker(
        self, index: ContractIndex, exclude_source: str | None = None, judge: str | None = None
    ) -> HypothesisChecker:
        """A hypothesis checker on ``index``: the NLI classifier, or the judge model with
        exemplars (``checks.judge``, or ``judge`` when given)."""
        from agents.checker import HypothesisChecker

        settings = self.settings
        if judge is not None and judge != settings.checks.judge:
            settings = settings.model_copy(
                update={"checks": settings.checks.model_copy(update={"judge": judge})}
            )
        retriever = self.retriever(index)
        if settings.checks.judge == "nli":
            return HypothesisChecker(
                settings, index, retriever, None, exclude_source=exclude_source, classifier=self.nli()
            )
        exemplars = self.exemplars if settings.checks.exemplars else None
        judge = self.chat_model("judge")
        return HypothesisChecker(settings, index, retriever, judge, exemplars, exclude_source)

    def reviewer(self, index: ContractIndex) -> ProvisionReviewer:
        """A provision reviewer on ``index``: the presence classifier over the stored clause
        vectors (when the index was embedded by the model it was trained on), the reranker for
        other provisions, and the judge model for values."""
        from agents.reviewer import ProvisionReviewer, clause_scores

        settings = self.settings
        extractor = self.chat_model("judge") if settings.review.extract_answers else None
        presence = None
        if settings.review.presence == "classifier":
            head = self.presence_classifier().head
            scores = clause_scores(head, index)
            presence = (head, scores) if scores is not None else None
        return ProvisionReviewer(settings, index, self.retriever(index), extractor, presence)

    def playbook_reviewer(self, index: ContractIndex, playbook: Playbook) -> PlaybookReviewer:
        """A playbook reviewer on ``index``: the decider without its model (every verdict comes
        from a classifier or the value reader), the retriever to place missing clauses, and the
        known provisions positions name."""
        from agents.playbook_reviewer import PlaybookReviewer
        from tools.decision.catalogue import known_provisions

        decider = self.decider(index, model=False)
        return PlaybookReviewer(
            playbook,
            decider,
            index,
            decider.retriever,
            known_provisions(),
            strike_at=self.settings.playbook.strike_at,
        )

    def redline_drafter(self, index: ContractIndex, reviewer: PlaybookReviewer) -> RedlineDrafter:
        """The drafter model's redlines on ``index``, re-decided by ``reviewer`` (playbook.draft)."""
        from agents.redline_drafter import RedlineDrafter

        return RedlineDrafter(self.chat_model("drafter"), index.document.text, reviewer)
