"""Hypothesis checks (ContractNLI-style): Entailment, Contradiction or NotMentioned, with evidence.

Two judges:

- ``nli`` (default): the shipped NLI classifier scores every sentence of the contract (of a
  contract over ``checks.nli_all_sentences`` sentences: every sentence of the clauses retrieved
  for the hypothesis and for its exceptions); :func:`tools.checks.decision.nli_decision` picks
  the label from the strongest sentences with thresholds calibrated on the development data.
  Well under a second per hypothesis for a typical NDA on two cores.
- ``llm``: retrieve evidence twice (the hypothesis itself, and a search aimed at its exceptions
  and carve-outs, where checks most often go wrong), stop early when nothing relevant is found,
  otherwise ask the judge model with labelled exemplars from other contracts and let
  :func:`tools.checks.decision.decide` keep or overrule its label.

Evidence is shown as spans of the contract, each re-checked against the contract text before
it is returned.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from langchain_core.runnables import Runnable

from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import Settings
from clausewise.core.domain import EvidenceSpan, Hit, RetrievalQuery, Span
from clausewise.core.prompting import load_prompt
from clausewise.core.results import CheckResult, Ruling, VerifiedCitation
from indexes.store import ContractIndex
from tools.checks.decision import (
    Decision,
    Judgement,
    decide,
    nli_decision,
    nothing_relevant,
    precedence_for,
    without_model,
)
from tools.checks.nli import NliClassifier
from tools.checks.pieces import evidence_pieces
from tools.checks.suites import Hypothesis
from tools.citations import QuoteVerifier
from tools.evidence import evidence_span
from tools.passages import render_passages
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.exemplars import ExemplarLibrary, render_exemplars
from tools.retrieval.graph import GraphSearch
from tools.retrieval.query_plan import default_plan
from tools.retrieval.spans import covered

# Words that introduce exceptions; added to the keywords of the second search.
EXCEPTION_WORDS = ("except", "unless", "provided", "notwithstanding", "however", "only", "exclude")


@dataclass(eq=False, repr=False)
class HypothesisChecker:
    """Checks hypotheses against one contract. ``judge`` is the LLM (``checks.judge = "llm"``),
    ``classifier`` the NLI model (``"nli"``). ``exclude_source``: exemplars from this source are
    never shown (default: the contract's own file), so a contract is not judged with its own
    labels."""

    settings: Settings
    index: ContractIndex
    retriever: ContractRetriever
    judge: Runnable | None
    exemplars: ExemplarLibrary | None = None
    exclude_source: str | None = None
    classifier: NliClassifier | None = None
    verifier: QuoteVerifier = field(init=False)
    _pieces: list[tuple[Span, str]] | None = field(default=None, init=False)
    _places: dict[tuple[Span, str], str] = field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        if (self.judge if self.settings.checks.judge == "llm" else self.classifier) is None:
            raise ValueError(f"checks.judge={self.settings.checks.judge} needs its model")
        self.exclude_source = self.exclude_source or self.index.manifest.file_name
        self.verifier = QuoteVerifier(self.index.document.text)

    def evidence(
        self, hypothesis: str, graph: GraphSearch | None = None, limit: int | None = None
    ) -> list[Hit]:
        """Hits for the hypothesis, interleaved with hits for its exceptions, distinct spans only
        (``limit`` per search and in all; default ``checks.evidence_passages``)."""
        checks = self.settings.checks
        limit = limit or checks.evidence_passages
        plan = default_plan(hypothesis, [d.term for d in self.index.definitions])
        searches = [self.retriever.search(plan.query(hypothesis), limit, graph=graph)]
        if checks.exception_query:
            exceptions = RetrievalQuery(
                question=hypothesis,
                keywords=[*plan.keywords, *EXCEPTION_WORDS],
                semantic=f"{hypothesis} Exceptions: except, unless, provided that, notwithstanding.",
            )
            searches.append(self.retriever.search(exceptions, limit, graph=graph))
        return interleave(searches, limit)

    def _exemplars(self, hypothesis: str) -> str:
        count = self.settings.checks.exemplars
        if not count or self.exemplars is None:
            return "(none)"
        return render_exemplars(self.exemplars.search(hypothesis, count, exclude_source=self.exclude_source))

    def _evidence_spans(self, located: Sequence[tuple[Span, str]], numbers: list[int]) -> list[EvidenceSpan]:
        """The verified evidence of the 1-based ``numbers`` among (span, node id) pairs."""
        found = (evidence_span(self.index, self.verifier, *located[n - 1]) for n in numbers)
        return [e for e in found if e is not None]

    def check(self, hypothesis: Hypothesis, graph: GraphSearch | None = None) -> CheckResult:
        if self.settings.checks.judge == "nli":
            return self.check_with_classifier(hypothesis, graph)
        return self.check_with_model(hypothesis, graph)

    def rule(self, hypothesis: str) -> Ruling:
        """The classifier's ruling on a hypothesis a question asks about, its evidence as
        citations (for the Interrogator: the report's short answer follows it)."""
        result = self.check_with_classifier(Hypothesis(key="question", text=hypothesis))
        citations = [
            VerifiedCitation(
                contract_id=self.index.contract_id,
                node_id=e.node_id,
                title=e.title,
                pages=e.pages,
                span=e.span,
                quote=e.quote,
                evidence=number,
                attributed=True,
            )
            for number, e in enumerate(result.evidence, start=1)
        ]
        return Ruling(
            hypothesis=hypothesis,
            label=result.label,
            confidence=result.confidence,
            rationale=result.rationale,
            citations=citations,
        )

    def check_with_classifier(self, hypothesis: Hypothesis, graph: GraphSearch | None = None) -> CheckResult:
        """Score the sentences with the NLI classifier and decide from the strongest."""
        assert self.classifier is not None
        started = time.perf_counter()
        checks = self.settings.checks
        text = self.index.document.text
        hits: list[Hit] = []
        pieces = self._all_pieces()
        if pieces is None:  # a long contract: the sentences of the retrieved clauses only
            hits = self.evidence(hypothesis.text, graph, checks.nli_passages)
            pieces = []
            for hit in hits:
                for piece in evidence_pieces(text, hit.span):
                    if not covered(piece, (p for p, _ in pieces)):
                        pieces.append((piece, hit.node_id))
        probabilities = self.classifier.probabilities(hypothesis.text, [text[a:b] for (a, b), _ in pieces])
        names = [self._place(node_id, span) for span, node_id in pieces]
        decision = nli_decision(
            probabilities.tolist(),
            names,
            checks.contradiction_at,
            checks.entailment_at,
            precedence=precedence_for(hypothesis.text, checks.nli_precedence),
        )
        result = self._result(hypothesis, decision, pieces, False, time.perf_counter() - started)
        result.best_relevance = best_rerank(hits)
        result.best_probabilities = {
            label: round(float(probabilities[:, column].max()), 4) if len(pieces) else 0.0
            for column, label in enumerate(("Entailment", "Contradiction"))
        }
        return result

    def _all_pieces(self) -> list[tuple[Span, str]] | None:
        """Every sentence of the contract with its clause, when there are at most
        ``checks.nli_all_sentences`` of them (None otherwise); computed once per checker.

        Reading every sentence cannot miss evidence that retrieval ranks low, and costs ~2 ms a
        sentence: ~0.2 s per hypothesis for a typical NDA, ~5 s at the default limit of 3,000.
        """
        if self._pieces is None:
            pieces = evidence_pieces(self.index.document.text)
            limit = self.settings.checks.nli_all_sentences
            self._pieces = (
                [(p, self.index.tree.smallest_containing(p).id) for p in pieces]
                if len(pieces) <= limit
                else []
            )
        return self._pieces or None

    def _place(self, node_id: str, span: Span) -> str:
        """Where a piece is, for a rationale: "Section 4.2 (p. 3)"; remembered, since every
        hypothesis names the same sentences of the contract."""
        if (span, node_id) not in self._places:
            node = self.index.tree.node(node_id)
            label = node.heading or node_id
            pages = self.index.document.pages_for(span)
            self._places[(span, node_id)] = f"{label} (p. {pages[0]})" if pages else label
        return self._places[(span, node_id)]

    def check_with_model(self, hypothesis: Hypothesis, graph: GraphSearch | None = None) -> CheckResult:
        """Ask the judge LLM over the evidence passages (with exemplars), unless nothing is relevant."""
        assert self.judge is not None
        started = time.perf_counter()
        hits = self.evidence(hypothesis.text, graph)
        best = best_rerank(hits)
        if not hits or nothing_relevant(best, self.settings.checks.not_mentioned_below):
            decision, asked = without_model(best or 0.0), False
        else:
            messages = load_prompt("hypothesis_judge").messages(
                hypothesis=hypothesis.text,
                exemplars=self._exemplars(hypothesis.text),
                evidence=render_passages(self.index, hits, self.settings.checks.passage_chars),
            )
            judgement = invoke_structured(self.judge, messages, Judgement)
            decision, asked = decide(judgement, len(hits), best), True
        located = [(h.span, h.node_id) for h in hits]
        result = self._result(hypothesis, decision, located, asked, time.perf_counter() - started)
        result.best_relevance = best
        return result

    def _result(
        self,
        hypothesis: Hypothesis,
        decision: Decision,
        located: Sequence[tuple[Span, str]],
        asked: bool,
        seconds: float,
    ) -> CheckResult:
        """The result of a decision whose evidence numbers point into ``located`` (span, node id)."""
        return CheckResult(
            key=hypothesis.key,
            topic=hypothesis.topic,
            hypothesis=hypothesis.text,
            label=decision.label,
            confidence=decision.confidence,
            evidence=self._evidence_spans(located, decision.evidence),
            rationale=decision.rationale,
            overruled=decision.overruled,
            asked_model=asked,
            seconds=round(seconds, 2),
        )


def best_rerank(hits: Sequence[Hit]) -> float | None:
    """The best reranker probability among ``hits`` (None when none was reranked)."""
    rerank = [h.signals["rerank"] for h in hits if "rerank" in h.signals]
    return max(rerank) if rerank else None


def interleave(rankings: Sequence[list[Hit]], limit: int) -> list[Hit]:
    """Round-robin over ranked hit lists, skipping spans already covered, up to ``limit``."""
    chosen: list[Hit] = []
    spans: list[Span] = []
    for rank in range(max((len(r) for r in rankings), default=0)):
        for ranking in rankings:
            if rank < len(ranking) and not covered(ranking[rank].span, spans):
                chosen.append(ranking[rank])
                spans.append(ranking[rank].span)
                if len(chosen) >= limit:
                    return chosen
    return chosen
