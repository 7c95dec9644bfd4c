"""Provision review (due diligence): for each provision of a list, present or absent, the clause
spans that hold it, and its value where it has one (a date, the governing law, a duration).

Presence is decided by retrieval alone, so 41 provisions fit in a couple of minutes on a CPU:
the provision's query pack (keywords for BM25, a question for dense search and the reranker)
retrieves candidate clauses, and the provision is present when the best reranker probability
reaches its threshold (calibrated on the development data). Absence is a valid outcome, stated as
such. Only present provisions that have a value are shown to the model, whose quote must be found
in the contract before the value is reported.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from agents.researcher import render_passages
from clausewise.backends.structured import invoke_structured
from clausewise.config import Settings
from clausewise.domain import EvidenceSpan, Hit
from clausewise.errors import ConfigError, StructuredOutputError
from clausewise.prompting import load_prompt
from indexes.store import ContractIndex
from tools.citations import QuoteVerifier
from tools.evidence import evidence_span
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.graph import GraphSearch
from tools.review.provisions import Provision

if TYPE_CHECKING:
    from clausewise.runtime import Runtime


class Extraction(BaseModel):
    """What the model answers for a provision's value (structured output)."""

    found: bool = False
    value: str = ""
    evidence: int = Field(default=1, description="Number of the passage quoted.")
    quote: str = ""


class ProvisionResult(BaseModel):
    key: str
    name: str
    present: bool
    confidence: float = Field(description="Best reranker probability of the provision's clauses.")
    spans: list[EvidenceSpan] = Field(default_factory=list)
    answer: str | None = Field(default=None, description="The extracted value, when verified.")
    answer_evidence: EvidenceSpan | None = Field(default=None, description="Where the value is stated.")
    seconds: float = 0.0


class ProvisionReviewer:
    def __init__(
        self,
        settings: Settings,
        index: ContractIndex,
        retriever: ContractRetriever,
        extractor: Runnable | None,
    ) -> None:
        if retriever.reranker is None:
            raise ConfigError(
                "provision review decides presence with the reranker, and none is configured",
                hint="set retrieval.reranker to onnx (the default), cross-encoder or llm",
            )
        self.settings = settings
        self.index = index
        self.retriever = retriever
        self.extractor = extractor
        self.verifier = QuoteVerifier(index.document.text)

    def threshold(self, provision: Provision) -> float:
        return (
            provision.threshold if provision.threshold is not None else self.settings.review.present_threshold
        )

    def review(self, provision: Provision, graph: GraphSearch | None = None) -> ProvisionResult:
        started = time.perf_counter()
        review = self.settings.review
        hits = self.retriever.search(provision.query(), review.spans, graph=graph, expand=False)
        probabilities = [h.signals.get("rerank", 0.0) for h in hits]
        best = max(probabilities, default=0.0)
        present = bool(hits) and best >= self.threshold(provision)
        kept = (
            [h for h, p in zip(hits, probabilities, strict=True) if p >= self.threshold(provision)]
            if present
            else []
        )
        spans = [e for e in (evidence_span(self.index, self.verifier, h.span, h.node_id) for h in kept) if e]
        answer, where = None, None
        if present and provision.answer != "none" and review.extract_answers and self.extractor is not None:
            answer, where = self._extract(provision, hits)
        return ProvisionResult(
            key=provision.key,
            name=provision.name,
            present=present,
            confidence=round(best, 4),
            spans=spans,
            answer=answer,
            answer_evidence=where,
            seconds=round(time.perf_counter() - started, 2),
        )

    def _extract(self, provision: Provision, hits: list[Hit]) -> tuple[str | None, EvidenceSpan | None]:
        """The provision's value, kept only when its quote is found in the cited passage's
        neighbourhood of the contract; a failed or unverifiable extraction reports no value."""
        messages = load_prompt("provision_extract").messages(
            provision=f"{provision.name}: {provision.question}",
            kind=provision.answer,
            evidence=render_passages(self.index, hits, self.settings.review.passage_chars),
        )
        try:
            extraction = invoke_structured(self.extractor, messages, Extraction)
        except StructuredOutputError:
            return None, None
        if not extraction.found or not extraction.value.strip() or not 1 <= extraction.evidence <= len(hits):
            return None, None
        found = self.verifier.verify(extraction.quote, hint=hits[extraction.evidence - 1].span)
        if found is None:
            return None, None
        where = evidence_span(
            self.index, self.verifier, found.span, self.index.tree.node_at(found.span[0]).id
        )
        if where is None:
            return None, None
        return " ".join(extraction.value.split()), where


def build_reviewer(runtime: Runtime, index: ContractIndex) -> ProvisionReviewer:
    """A reviewer wired to the runtime's retriever, reranker and the judge model (extraction)."""
    retriever = ContractRetriever(index, runtime.embedder, runtime.settings.retrieval, runtime.reranker())
    extractor = runtime.chat_model("judge") if runtime.settings.review.extract_answers else None
    return ProvisionReviewer(runtime.settings, index, retriever, extractor)
