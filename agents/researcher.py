"""The Researcher: answers one sub-question from one contract with verified, cited spans.

plan (rewrite the question into keyword and semantic queries, choose tools; an LLM with a
deterministic fallback) -> gather (BM25 + dense + graph, fused, reranked, expanded along the
tree) -> optionally filter spans -> answer with numbered citations, each checked against the
contract text. It also offers the plain retrieval interface the benchmarks score.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import Settings
from clausewise.core.domain import Hit, RetrievalQuery, Span
from clausewise.core.errors import StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.results import QueryPlan, ResearchResult, VerifiedCitation
from indexes.bm25 import bm25_tokens
from indexes.store import ContractIndex
from tools.attribution import SentenceScorer, attribute
from tools.checks.pieces import evidence_pieces
from tools.citations import QuoteVerifier, closest_sentence
from tools.passages import excerpt_span, focused_excerpt
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.exemplars import ExemplarLibrary
from tools.retrieval.graph import GraphSearch
from tools.retrieval.rerank import Reranker
from tools.retrieval.spans import covered

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

_QUESTION_WORDS = frozenset(
    """what which who whom whose when where why how does do did is are was were can could may might shall
    should will would must has have had any the a an of to in on for by with under this that these those
    there their its it agreement contract document consider please tell me about""".split()
)
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]")
_CAPITALISED = re.compile(r"\b(?:[A-Z][a-z]+(?:\s+(?:of|and|for|to)?\s*[A-Z][a-z]+)*)\b")


def render_passages(index: ContractIndex, hits: Sequence[Hit], passage_chars: int, focus: str = "") -> str:
    """Numbered evidence passages for a prompt: heading, page, text cut to ``passage_chars``
    (around the sentence most related to ``focus`` when given, else from the start) and up to
    two linked definitions or cross-reference targets."""
    blocks = []
    text = index.document.text
    for number, hit in enumerate(hits, start=1):
        node = index.tree.node(hit.node_id)
        heading = " ".join(p for p in (node.label, node.title) if p) or hit.node_id
        links = "".join(
            f"\n  (linked {link.relation}: {link.label}) {text[link.span[0] : link.span[1]][:300]}"
            for link in hit.linked[:2]
        )
        excerpt = focused_excerpt(hit.text, passage_chars, focus)
        blocks.append(f"[{number}] {heading} (p. {hit.pages[0]})\n{excerpt}{links}")
    return "\n\n".join(blocks)


def default_plan(question: str, defined_terms: Sequence[str] = ()) -> QueryPlan:
    """Keywords without a model: quoted phrases, defined terms the question mentions, then the
    question's content words; the question itself is the semantic query."""
    keywords: list[str] = [m.group(1) for m in _QUOTED.finditer(question)]
    lowered = question.lower()
    keywords += [t for t in defined_terms if len(t) > 2 and t.lower() in lowered]
    keywords += [
        w for w in re.findall(r"[A-Za-z][A-Za-z-]{2,}", question) if w.lower() not in _QUESTION_WORDS
    ]
    unique = list(dict.fromkeys(k for k in keywords if bm25_tokens(k)))
    return QueryPlan(keywords=unique[:12], semantic_query=question)


class Citation(BaseModel):
    evidence: int = Field(ge=1, description="Number of the evidence passage.")
    quote: str = Field(min_length=3, description="Words copied exactly from that passage.")


class ModelAnswer(BaseModel):
    answer: str
    addressed: bool = True
    citations: list[Citation] = Field(default_factory=list)


class Researcher:
    def __init__(
        self,
        settings: Settings,
        index: ContractIndex,
        retriever: ContractRetriever,
        rewriter: Runnable | None = None,
        answerer: Runnable | None = None,
        exemplars: ExemplarLibrary | None = None,
        attributor: SentenceScorer | None = None,
    ) -> None:
        self.settings = settings
        self.index = index
        self.retriever = retriever
        self.rewriter = rewriter
        self.answerer = answerer
        self.exemplars = exemplars
        self.attributor = attributor
        self.verifier = QuoteVerifier(index.document.text)
        self._sentences: list[Span] | None = None  # the contract's sentences, cut once when needed

    # -- planning ---------------------------------------------------------------------------------

    def plan(self, question: str, context: str = "") -> QueryPlan:
        terms = [d.term for d in self.index.definitions]
        fallback = default_plan(question, terms)
        if self.rewriter is None or not self.settings.retrieval.rewrite_queries:
            return fallback
        messages = load_prompt("query_rewrite").messages(question=question, context=context or "none")
        try:
            planned = invoke_structured(self.rewriter, messages, QueryPlan)
        except StructuredOutputError:
            return fallback  # retrieval still works on the deterministic plan
        keywords = list(dict.fromkeys([*planned.keywords, *fallback.keywords]))[:12]
        tools = planned.tools or fallback.tools
        return QueryPlan(keywords=keywords, semantic_query=planned.semantic_query or question, tools=tools)

    # -- retrieval --------------------------------------------------------------------------------

    def gather(
        self, question: str, plan: QueryPlan, graph: GraphSearch | None = None, k: int | None = None
    ) -> list[Hit]:
        use_graph = graph if "graph" in plan.tools and self.settings.retrieval.graph else None
        return self.retriever.search(plan.query(question), k, graph=use_graph)

    def evidence(self, hits: list[Hit], question: str = "", read: Sequence[Span] = ()) -> list[Hit]:
        """The hits the answerer reads: the best ``evidence_passages`` of the fused order (which
        already weighs the reranker's judgement). Keeping only hits flagged relevant showed the
        model fewer gold spans: over 80 development questions of ``eval qa`` (161 gold spans),
        54% were among five passages so filtered, 58% among the top five.

        In a later turn on the same question, ``interrogation.fresh_passages`` of them are hits
        whose excerpt for ``question`` lies outside the text the answerer has ``read`` already;
        the rest are the best of this turn's own ranking, read before or not. A follow-up
        question ranks much as the first did, so re-reading the same six passages finds little
        new: on the 20 questions of ``eval qa``, the top 6 hold 57% of the gold spans and the
        top 12, 80% (``clausewise eval qa-evidence --limit 20``, ``evidence_passages`` 6 and 12).
        Yet a passage the answerer read without citing can be what a follow-up needs, so the
        best of its own ranking stay in view. Too few unread hits: read ones fill the places."""
        count = self.settings.interrogation.evidence_passages
        fresh = min(self.settings.interrogation.fresh_passages, count) if read else 0
        if not fresh:  # the first turn, or switched off: nothing to pass over
            return hits[:count]
        own = hits[: count - fresh]
        unread = [h for h in hits[len(own) :] if not covered(self.read_span(h, question), read)]
        chosen = own + unread[:fresh]
        return chosen + [h for h in hits if h not in chosen][: count - len(chosen)]

    def depth(self, read: Sequence[Span] = ()) -> int:
        """Hits to retrieve: ``retrieval.top_k``, and one more for each passage already read when
        :meth:`evidence` passes those over."""
        extra = len(read) if self.settings.interrogation.fresh_passages else 0
        return self.settings.retrieval.top_k + extra

    def read_span(self, hit: Hit, question: str) -> Span:
        """The part of ``hit`` the answerer reads when asked ``question``."""
        return excerpt_span(hit.span, hit.text, self.settings.interrogation.passage_chars, question)

    # -- answering --------------------------------------------------------------------------------

    def _render(self, hits: list[Hit], question: str) -> str:
        return render_passages(self.index, hits, self.settings.interrogation.passage_chars, focus=question)

    def _exemplars(self, question: str) -> str:
        count = self.settings.retrieval.exemplars
        if not count or self.exemplars is None:
            return "(none)"
        found = self.exemplars.search(question, count, exclude_source=self.index.manifest.file_name)
        return "\n".join(f'- {e.label} for "{e.question}": "{e.text[:400]}"' for e in found) or "(none)"

    def verify(self, answer: ModelAnswer, hits: list[Hit]) -> tuple[list[VerifiedCitation], list[str]]:
        verified: list[VerifiedCitation] = []
        rejected: list[str] = []
        for citation in answer.citations:
            if not 1 <= citation.evidence <= len(hits):
                rejected.append(citation.quote)
                continue
            hit = hits[citation.evidence - 1]
            found = self.verifier.verify(citation.quote, hint=hit.span) or closest_sentence(
                self.index.document.text, hit.span, citation.quote
            )
            if found is None:
                rejected.append(citation.quote)
                continue
            verified.append(self._citation(found.span, found.text, citation.evidence, exact=found.exact))
        return verified, rejected

    def _citation(
        self, span: Span, quote: str, evidence: int, *, exact: bool = True, attributed: bool = False
    ) -> VerifiedCitation:
        """A citation of a verified ``span``, attached to its clause (not to a bare sentence)."""
        node = self.index.tree.node_at(span[0])
        while node.kind == "sentence" and node.parent is not None:
            node = self.index.tree.node(node.parent)
        return VerifiedCitation(
            contract_id=self.index.contract_id,
            node_id=node.id,
            title=node.title,
            pages=self.index.document.pages_for(span),
            span=span,
            quote=quote,
            evidence=evidence,
            exact=exact,
            attributed=attributed,
        )

    def attributed(
        self,
        question: str,
        hits: list[Hit],
        cited: Sequence[VerifiedCitation] = (),
        retrieved: Sequence[Hit] = (),
    ) -> list[VerifiedCitation]:
        """Sentences that the hypothesis classifier finds deciding the question, cited even when
        the answerer did not (:mod:`tools.attribution`): of the passages shown (``hits``), and,
        as ``interrogation.attribution_scope`` says, of all ``retrieved`` hits or of the whole
        contract."""
        settings = self.settings.interrogation
        if self.attributor is None or not settings.attributed_sentences:
            return []
        text = self.index.document.text
        found = attribute(
            question,
            text,
            [hit.span for hit in hits],
            self.attributor,
            at=settings.attribution_at,
            limit=settings.attributed_sentences,
            already=[c.span for c in cited],
            beyond=self._sentences_beyond(retrieved),
        )
        return [
            self._citation(
                a.span,
                text[a.span[0] : a.span[1]],
                a.passage + 1 if a.passage is not None else 0,  # 0: not among the passages shown
                attributed=True,
            )
            for a in found
        ]

    def _sentences_beyond(self, retrieved: Sequence[Hit]) -> list[Span]:
        """The sentences attribution reads besides the passages shown: none (scope ``passages``),
        those of the ``retrieved`` hits, or every sentence of a contract short enough to read
        whole (scope ``contract``; a longer one falls back to the retrieved hits)."""
        settings = self.settings.interrogation
        if settings.attribution_scope == "passages":
            return []
        if settings.attribution_scope == "contract":
            if self._sentences is None:
                self._sentences = evidence_pieces(self.index.document.text)
            if len(self._sentences) <= settings.attribution_max_sentences:
                return self._sentences
        text = self.index.document.text
        return list(dict.fromkeys(piece for hit in retrieved for piece in evidence_pieces(text, hit.span)))

    def _repair(
        self, question: str, hits: list[Hit], answer: ModelAnswer, rejected: list[str]
    ) -> tuple[ModelAnswer, list[VerifiedCitation], list[str]]:
        """One more attempt, naming each quote that failed; whatever still fails is dropped."""
        failures = "\n".join(
            f'- "{quote}" is not, character for character, in the passage it cites' for quote in rejected
        )
        messages = load_prompt("research_repair").messages(
            question=question,
            evidence=self._render(hits, question),
            answer=answer.model_dump_json(),
            failures=failures,
        )
        try:
            repaired = invoke_structured(self.answerer, messages, ModelAnswer)
        except StructuredOutputError:
            return answer, *self.verify(answer, hits)
        verified, still_rejected = self.verify(repaired, hits)
        return repaired, verified, still_rejected

    def answer(
        self,
        question: str,
        hits: list[Hit],
        context: str = "",
        retrieved: Sequence[Hit] = (),
        serves: str = "",
    ) -> tuple[ModelAnswer, list[VerifiedCitation], list[str]]:
        """The model's cited answer to the passages ``hits``: its quotes verified (one repair for
        those that fail), then the sentences attribution finds deciding the question (in the
        ``retrieved`` hits too, as the attribution scope says). A follow-up question ("What
        exceptions apply?") is rarely a claim the classifier can judge, so when it ``serves`` a
        user's question, attribution also judges the sentences against that one. Both the
        Researcher's own :meth:`research` and the research subgraph answer through here."""
        if self.answerer is None:
            raise StructuredOutputError("no answerer model configured", hint="this is a bug")
        messages = load_prompt("research_answer").messages(
            question=question,
            context=context or "none",
            exemplars=self._exemplars(question),
            evidence=self._render(hits, question),
        )
        answer = invoke_structured(self.answerer, messages, ModelAnswer)
        verified, rejected = self.verify(answer, hits)
        if rejected:
            answer, verified, rejected = self._repair(question, hits, answer, rejected)
        if answer.addressed:  # a "not addressed" answer stays without sources
            for hypothesis in dict.fromkeys(q for q in (question, serves) if q):
                verified += self.attributed(hypothesis, hits, verified, retrieved)
        return answer, verified, rejected

    def research(
        self, question: str, context: str = "", graph: GraphSearch | None = None, read: Sequence[Span] = ()
    ) -> ResearchResult:
        plan = self.plan(question, context)
        retrieved = self.gather(question, plan, graph, self.depth(read))
        hits = self.evidence(retrieved, question, read)
        answer, citations, rejected = self.answer(question, hits, context, retrieved)
        return ResearchResult(
            question=question,
            plan=plan,
            hits=hits,
            answer=answer.answer,
            addressed=answer.addressed,
            citations=citations,
            rejected_quotes=rejected,
        )


def build_researcher(runtime: Runtime, index: ContractIndex, reranker: Reranker | None) -> Researcher:
    """A Researcher wired to the runtime's models (rewriter and answerer roles)."""
    retriever = ContractRetriever(index, runtime.embedder, runtime.settings.retrieval, reranker)
    return Researcher(
        runtime.settings,
        index,
        retriever,
        rewriter=runtime.chat_model("rewriter"),
        answerer=runtime.chat_model("answerer"),
        exemplars=runtime.exemplars if runtime.settings.retrieval.exemplars else None,
        attributor=runtime.nli() if runtime.settings.interrogation.attributed_sentences else None,
    )


def retrieve(
    runtime: Runtime, scope: str | Sequence[str], query: str, k: int = 10
) -> list[tuple[str, Span, float]]:
    """The plain retrieval interface: ``(file name, (start, end), score)`` for a query over one
    contract (an id or ingested file) or over several (a list: corpus scope). No language model
    is involved, so the benchmarks can score it directly."""
    from tools.retrieval.corpus import CorpusRetriever
    from tools.retrieval.graph import open_graph

    settings = runtime.settings.retrieval
    request = RetrievalQuery(question=query)
    if isinstance(scope, str):
        index = runtime.store.open(scope)
        try:
            retriever = ContractRetriever(index, runtime.embedder, settings, runtime.reranker())
            with open_graph(index.path, runtime.embedder, enabled=settings.graph) as graph:
                hits = retriever.search(request, k, graph=graph, expand=False)
        finally:
            index.close()
    else:
        corpus = CorpusRetriever(
            [runtime.store.open(c) for c in scope], runtime.embedder, settings, runtime.reranker()
        )
        hits = corpus.search(request, k)
    return [(hit.file_name, hit.span, hit.score) for hit in hits]
