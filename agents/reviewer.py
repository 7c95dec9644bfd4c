"""Provision review (due diligence): for each provision of a list, present or absent, the clause
spans that hold it, and its value where it has one (a date, the governing law, a duration).

Presence needs no language model, so 41 provisions fit in a minute or two on a CPU. For CUAD's
categories the shipped presence classifier (:mod:`tools.review.presence`) scores every clause of
the contract from the vectors already in its index, and the provision is present when one clause
reaches the category's calibrated threshold; those clauses are its spans. Any other provision
(or ``review.presence = "reranker"``, or an index embedded by another model) is decided by
retrieval: its query pack (keywords for BM25, a question for dense search and the reranker)
retrieves candidate clauses, and it is present when the best reranker probability reaches its
threshold. Absence is a valid outcome, stated as such. Only present provisions that have a value
are shown to the model, whose quote must be found in the contract before the value is reported.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import Settings
from clausewise.core.domain import EvidenceSpan, Hit
from clausewise.core.errors import ConfigError, StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.results import ProvisionResult
from indexes.store import ContractIndex
from tools.citations import QuoteVerifier
from tools.evidence import evidence_span
from tools.passages import render_passages
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.graph import GraphSearch
from tools.review.presence import ClauseScores, PresenceHead, clause_chunks, clause_texts
from tools.review.provisions import Provision

log = logging.getLogger(__name__)


class Extraction(BaseModel):
    """What the model answers for a provision's value (structured output)."""

    found: bool = False
    value: str = ""
    evidence: int = Field(default=1, description="Number of the passage quoted.")
    quote: str = ""


@dataclass(eq=False, repr=False)
class ProvisionReviewer:
    """Reviews one contract's provisions: present or absent (the presence classifier, else the
    reranker's threshold), the clauses that hold each, and its value where it has one."""

    settings: Settings
    index: ContractIndex
    retriever: ContractRetriever
    extractor: Runnable | None
    presence: tuple[PresenceHead, ClauseScores] | None = None
    verifier: QuoteVerifier = field(init=False)

    def __post_init__(self) -> None:
        if self.retriever.reranker is None:
            raise ConfigError(
                "provision review decides presence with the reranker, and none is configured",
                hint="set retrieval.reranker to onnx (the default), cross-encoder or llm",
            )
        self.verifier = QuoteVerifier(self.index.document.text)

    def threshold(self, provision: Provision) -> float:
        return (
            provision.threshold if provision.threshold is not None else self.settings.review.present_threshold
        )

    def review(self, provision: Provision, graph: GraphSearch | None = None) -> ProvisionResult:
        started = time.perf_counter()
        review = self.settings.review
        column = self.presence[0].category_index(provision.name) if self.presence else None
        hits: list[Hit] | None = None
        if self.presence is not None and column is not None:
            head, scores = self.presence
            threshold = float(head.thresholds[column])  # calibrated with the head
            best, decided_by = scores.best(column), "classifier"
            kept = [(c.span, c.node_id) for c, _ in scores.above(column, threshold, review.spans)]
        else:
            hits = self.retriever.search(provision.query(), review.spans, graph=graph, expand=False)
            threshold, decided_by = self.threshold(provision), "reranker"
            probabilities = [h.signals.get("rerank", 0.0) for h in hits]
            best = max(probabilities, default=0.0)
            kept = [(h.span, h.node_id) for h, p in zip(hits, probabilities, strict=True) if p >= threshold]
        present = bool(kept) and best >= threshold
        spans = (
            [e for e in (evidence_span(self.index, self.verifier, s, n) for s, n in kept) if e]
            if present
            else []
        )
        answer, where = None, None
        if present and provision.answer != "none" and review.extract_answers and self.extractor is not None:
            if hits is None:
                hits = self.retriever.search(provision.query(), review.spans, graph=graph, expand=False)
            answer, where = self._extract(provision, hits)
        return ProvisionResult(
            key=provision.key,
            name=provision.name,
            present=present,
            confidence=round(best, 4),
            decided_by=decided_by,
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
        except StructuredOutputError as error:
            log.warning(
                "value of %s unreadable: %s",
                provision.name,
                error,
                extra={"contract": self.index.contract_id},
            )
            return None, None
        if not extraction.found or not extraction.value.strip() or not 1 <= extraction.evidence <= len(hits):
            return None, None
        found = self.verifier.verify(extraction.quote, hint=hits[extraction.evidence - 1].span)
        if found is None:
            log.info(
                "value of %s dropped: its quote is not in the contract",
                provision.name,
                extra={"contract": self.index.contract_id, "quote": extraction.quote[:200]},
            )
            return None, None
        where = evidence_span(
            self.index, self.verifier, found.span, self.index.tree.node_at(found.span[0]).id
        )
        if where is None:
            return None, None
        return " ".join(extraction.value.split()), where


def clause_scores(head: PresenceHead, index: ContractIndex) -> ClauseScores | None:
    """The head's probabilities for every clause of ``index``, from the vectors stored at ingest;
    None when the index was embedded by another model than the head was trained on."""
    if index.manifest.embedding_model != head.embedding_model:
        return None
    chunks = clause_chunks(index.chunks.values())
    ids, vectors = index.vectors.embeddings()
    row_of = {chunk_id: row for row, chunk_id in enumerate(ids)}
    chunks = [c for c in chunks if c.id in row_of]
    matrix = vectors[[row_of[c.id] for c in chunks]]
    return ClauseScores(chunks, head.probabilities(matrix, clause_texts(index.document.text, chunks)))
