"""The Researcher: answers one sub-question from one contract with verified, cited spans.

plan (rewrite the question into keyword and semantic queries, choose tools; a model with a
deterministic fallback) -> retrieve (BM25 + dense + lexicon, the knowledge graph when enabled,
fused, reranked, expanded along the tree; then the passages the answerer reads) -> answer with
numbered citations, each checked against the contract text, plus the sentences attribution finds
deciding the question. The research subgraph (:mod:`graphs.research_graph`) calls these steps in
that order; it is the only research path.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import Settings
from clausewise.core.domain import Hit, Span
from clausewise.core.errors import StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.results import HitSummary, QueryPlan, ResearchResult, VerifiedCitation
from indexes.store import ContractIndex
from tools.answering_sentences import answering_sentences
from tools.attribution import SentenceScorer, attribute
from tools.checks.pieces import evidence_pieces
from tools.citations import QuoteVerifier, closest_sentence, sentence_stating, whole_quote
from tools.numbered_sentences import numbered_sentences, picked_sentence, render_numbered
from tools.passages import excerpt_span, render_passages
from tools.question_kind import question_kind
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.exemplars import ExemplarLibrary, render_exemplars
from tools.retrieval.graph import GraphSearch, open_graph
from tools.retrieval.query_plan import default_plan
from tools.retrieval.spans import covered, overlap
from tools.text_plans import plan_for
from tools.value_reading import PREAMBLE_CHARS, party_reading, value_readings

log = logging.getLogger(__name__)

#: Longest lead-in and list a citation of the lead-in is extended over (:meth:`Researcher._with_its_list`).
LIST_CHARS = 1500

REFERENCE_MARK = re.compile(r"\[\d{1,3}\]")

UNANSWERED = (
    "No answer this turn: the model's reply could not be read, so nothing from this search is cited. "
    "The question remains open."
)


class Citation(BaseModel):
    evidence: int = Field(ge=1, description="Number of the evidence passage.")
    quote: str = Field(min_length=3, description="Words copied exactly from that passage.")


class ModelAnswer(BaseModel):
    answer: str
    addressed: bool = True
    citations: list[Citation] = Field(default_factory=list)


class PickedSentence(BaseModel):
    """A sentence the answerer picked: its number and its first words (which make the model read
    the sentence it names; a bare list of numbers came back as 1, 2, 3, 4 on 5 of 12 tune-half
    questions)."""

    number: int
    opens: str = ""


class SentencePick(BaseModel):
    """The answerer's pick of the numbered sentences that answer an open question."""

    sentences: list[PickedSentence] = Field(default_factory=list)
    addressed: bool = True


class CitedAnswer(ModelAnswer):
    """The repair of an answer that cited nothing: at least one citation (constrained decoding
    makes the model point at the words it answered from; verification still judges them)."""

    citations: list[Citation] = Field(min_length=1)


@dataclass(eq=False, repr=False)
class Researcher:
    """Retrieves, reads and cites for one contract: the rewriter plans the queries, the answerer
    answers from the passages found, the attributor cites the sentences that decide."""

    settings: Settings
    index: ContractIndex
    retriever: ContractRetriever
    rewriter: Runnable | None = None
    answerer: Runnable | None = None
    exemplars: ExemplarLibrary | None = None
    attributor: SentenceScorer | None = None
    _verifier: QuoteVerifier = field(init=False)
    _sentences: list[Span] | None = field(default=None, init=False)  # the contract's, cut once when needed

    def __post_init__(self) -> None:
        self._verifier = QuoteVerifier(self.index.document.text)

    # -- planning ---------------------------------------------------------------------------------

    def plan(self, question: str, context: str = "", rewrite: bool = True) -> QueryPlan:
        """The queries and tools for ``question``: the rewriter model's plan (with the
        deterministic plan's keywords), or the deterministic plan alone when rewriting is off, or
        not wanted for this turn (``rewrite``: an extract turn spends no model call), nor for a
        question a text plan answers (:meth:`planned`: the turn cites the plan's sentences, and
        retrieval's passages are only read for attribution)."""
        terms = [d.term for d in self.index.definitions]
        fallback = default_plan(question, terms)
        wanted = rewrite and plan_for(question) is None
        if self.rewriter is None or not self.settings.retrieval.rewrite_queries or not wanted:
            return fallback
        messages = load_prompt("query_rewrite").messages(question=question, context=context or "none")
        try:
            planned = invoke_structured(self.rewriter, messages, QueryPlan)
        except StructuredOutputError as error:
            log.warning("query plan unreadable, the deterministic plan is used: %s", error)
            return fallback  # retrieval still works on the deterministic plan
        keywords = list(dict.fromkeys([*planned.keywords, *fallback.keywords]))[:12]
        tools = planned.tools or fallback.tools
        return QueryPlan(keywords=keywords, semantic_query=planned.semantic_query or question, tools=tools)

    # -- retrieval --------------------------------------------------------------------------------

    def gather(
        self,
        question: str,
        plan: QueryPlan,
        graph: GraphSearch | None = None,
        k: int | None = None,
        part: bool = False,
    ) -> list[Hit]:
        """One search for ``question``: the knowledge ``graph`` ranks too when retrieval uses the
        graph (``retrieval.graph``) and the plan chose it; clause headings rank too for a ``part``
        of a compound question or a follow-up (``retrieval.headings``)."""
        retrieval = self.settings.retrieval
        use_graph = graph if "graph" in plan.tools and retrieval.graph else None
        use = None
        if part and retrieval.headings == "parts" and "headings" not in retrieval.rankers:
            use = (*retrieval.rankers, "headings")
        return self.retriever.search(plan.query(question), k, graph=use_graph, use=use)

    def retrieve(
        self, question: str, plan: QueryPlan, read: Sequence[Span] = (), part: bool = False
    ) -> tuple[list[Hit], list[Hit]]:
        """Every hit retrieved for ``question`` (attribution may read them all) and the passages
        the answerer reads (:meth:`evidence`), looking deeper when earlier turns ``read`` some.
        The contract's knowledge graph is opened only when retrieval uses it."""
        enabled = self.settings.retrieval.graph and "graph" in plan.tools
        with open_graph(self.index.path, self.retriever.embedder, enabled=enabled) as graph:
            hits = self.gather(question, plan, graph, self.depth(read), part)
        planned = self.planned(question, read)
        return planned + hits, planned + self.evidence(hits, question, read)

    def planned(self, question: str, read: Sequence[Span] = ()) -> list[Hit]:
        """Passages planned from the contract's own text before retrieval, for a question a plan
        of :mod:`tools.text_plans` recognises (what each party must do: the sentences that put a
        duty on each party, grouped by party; how the contract may be ended: every sentence that
        grants, limits or triggers its end; the warranties, what follows the end, the payment
        terms), those not read in an earlier turn. The sentences are read within the clause
        tree's own texts (a payment plan also by its section titles). They come first, and the
        turn answers by them (:meth:`planned_turn`)."""
        plan = plan_for(question)
        if plan is None:
            return []
        text = self.index.document.text
        spans = plan.spans(text, self.index.tree)
        return [self._sentence_hit(span) for span in spans if not covered(span, read)]

    def planned_turn(self, question: str, plan: QueryPlan, hits: list[Hit]) -> ResearchResult:
        """The turn's result when passages were planned (:meth:`planned`): their sentences,
        cited in the contract's words, are its findings, and no model reads them (an answerer
        given a party's duties rewrites them at length, and on two cores its reply was cut off
        before its JSON ended)."""
        planned = [(n, h) for n, h in enumerate(hits, start=1) if h.signals.get("planned")]
        citations = [self._citation(h.span, h.text, n, attributed=True) for n, h in planned]
        return self._sentences_found(question, plan, hits, citations)

    def _sentence_hit(self, span: Span) -> Hit:
        node = self.index.tree.clause_of(self.index.tree.smallest_containing(span))
        text = self.index.document.text
        return Hit(
            contract_id=self.index.contract_id,
            file_name=self.index.manifest.file_name,
            node_id=node.id,
            chunk_id=f"planned:{span[0]}-{span[1]}",
            span=span,
            pages=self.index.document.pages_for(span),
            score=1.0,
            signals={"planned": 1.0},
            text=text[span[0] : span[1]],
        )

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

    def summaries(self, hits: Sequence[Hit], question: str) -> list[HitSummary]:
        """The passages of a turn as a finding remembers them, with the excerpt the answerer read."""
        return [
            HitSummary(
                node_id=h.node_id,
                span=h.span,
                pages=h.pages,
                score=h.score,
                excerpt=self.read_span(h, question),
            )
            for h in hits
        ]

    # -- answering --------------------------------------------------------------------------------

    def _render(self, hits: list[Hit], question: str) -> str:
        return render_passages(self.index, hits, self.settings.interrogation.passage_chars, focus=question)

    def _exemplars(self, question: str) -> str:
        count = self.settings.retrieval.exemplars
        if not count or self.exemplars is None:
            return "(none)"
        return render_exemplars(
            self.exemplars.search(question, count, exclude_source=self.index.manifest.file_name)
        )

    def verify(self, answer: ModelAnswer, hits: list[Hit]) -> tuple[list[VerifiedCitation], list[str]]:
        verified: list[VerifiedCitation] = []
        rejected: list[str] = []
        for citation in answer.citations:
            if not 1 <= citation.evidence <= len(hits):
                rejected.append(citation.quote)
                continue
            hit = hits[citation.evidence - 1]
            found = self._verifier.verify(citation.quote, hint=hit.span) or closest_sentence(
                self.index.document.text, hit.span, citation.quote
            )
            if found is None:
                log.info(
                    "quote rejected: not found in passage %d",
                    citation.evidence,
                    extra={"contract": self.index.contract_id, "quote": citation.quote[:200]},
                )
                rejected.append(citation.quote)
                continue
            verified.append(self._citation(found.span, found.text, citation.evidence, exact=found.exact))
        return verified, rejected

    def _with_its_list(self, span: Span, quote: str) -> tuple[Span, str]:
        """``span`` extended over the list it introduces, when the quote is a lead-in ending in a
        colon ("3.1 The obligations in Section 2 do not apply to information that ...:"): the
        lead-in alone states none of the exceptions it announces. So is a lead-in ending in a
        comma whose sentence its list completes ("Upon the expiration or termination of this
        Agreement," then "(i) the ... License ... shall immediately cease, and (ii) ..."): quoted
        alone it says nothing, and the writer restated one as "the agreement is terminated". The
        list is the lead-in's clause's own sub-clauses, quoted whole up to ``LIST_CHARS``."""
        if not quote.rstrip().endswith((":", ",")):
            return span, quote
        tree, text = self.index.tree, self.index.document.text
        node = tree.clause_of(tree.smallest_containing(span))
        if not node.children or text[span[1] : node.own_end].strip() or node.end - span[0] > LIST_CHARS:
            return span, quote
        end = len(text[: node.end].rstrip())
        return (span[0], end), text[span[0] : end]

    def _citation(
        self, span: Span, quote: str, evidence: int, *, exact: bool = True, attributed: bool = False
    ) -> VerifiedCitation:
        """A citation of a verified ``span``, attached to its clause (not to a bare sentence): the
        span widened to whole words and its sentence's end (rule "no sentence is cut off",
        :func:`tools.citations.whole_quote`); a lead-in cited with the list it introduces
        (:meth:`_with_its_list`)."""
        whole = whole_quote(self.index.document.text, span)
        if whole != span:
            span, quote = whole, self.index.document.text[whole[0] : whole[1]]
        span, quote = self._with_its_list(span, quote)
        node = self.index.tree.clause_of(self.index.tree.node_at(span[0]))
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

    def grounded(self, answer: str, hits: list[Hit], max_words: int = 12) -> list[VerifiedCitation]:
        """A short answer left without a verified quote, cited where a passage states it word for
        word (the first such sentence, in the order the passages were shown); none for a longer
        answer, whose words cannot be matched so safely."""
        phrase = REFERENCE_MARK.sub("", answer).strip().rstrip(".").strip()
        if not phrase or len(phrase.split()) > max_words:
            return []
        text = self.index.document.text
        for number, hit in enumerate(hits, start=1):
            found = sentence_stating(text, hit.span, phrase)
            if found is not None:
                log.info(
                    "uncited answer grounded in passage %d",
                    number,
                    extra={"contract": self.index.contract_id},
                )
                return [self._citation(found.span, found.text, number, exact=False)]
        return []

    def _repair(
        self, question: str, hits: list[Hit], answer: ModelAnswer, rejected: list[str]
    ) -> tuple[ModelAnswer, list[VerifiedCitation], list[str]]:
        """One more attempt, naming each quote that failed (or that an answer saying the contract
        addresses the question cites nothing); whatever still fails is dropped."""
        failures = "\n".join(
            f'- "{quote}" is not, character for character, in the passage it cites' for quote in rejected
        ) or (
            "- the answer says the contract addresses the question but cites no passage: quote the "
            "exact words of the passage that says it, or set addressed to false"
        )
        messages = load_prompt("research_repair").messages(
            question=question,
            evidence=self._render(hits, question),
            answer=answer.model_dump_json(),
            failures=failures,
        )
        schema = ModelAnswer if rejected else CitedAnswer
        try:
            repaired = invoke_structured(self.answerer, messages, schema)
        except StructuredOutputError:
            return answer, *self.verify(answer, hits)
        verified, still_rejected = self.verify(repaired, hits)
        return repaired, verified, still_rejected

    def cited_answer(
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
        user's question, attribution also judges the sentences against that one. Raises
        :class:`StructuredOutputError` when the model's reply cannot be read even after repair."""
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
        if rejected or (answer.addressed and not answer.citations):
            # an uncited answer is the commonest failure of small models ("England and Wales", no
            # quote): unsupported, it would be dropped, so it gets the same one repair
            answer, verified, rejected = self._repair(question, hits, answer, rejected)
        if answer.addressed and not verified:
            verified = self.grounded(answer.answer, hits)
        if answer.addressed:  # a "not addressed" answer stays without sources
            for hypothesis in dict.fromkeys(q for q in (question, serves) if q):
                verified += self.attributed(hypothesis, hits, verified, retrieved)
            verified += self.value_citations(question, hits, verified, retrieved)
        return answer, verified, rejected

    def value_citations(
        self,
        question: str,
        hits: list[Hit],
        cited: Sequence[VerifiedCitation] = (),
        retrieved: Sequence[Hit] = (),
    ) -> list[VerifiedCitation]:
        """The sentence stating the value that best answers ``question`` when it asks for a
        duration, date, law, amount or notice period (:mod:`tools.value_reading`), read in the
        passages shown and the other ``retrieved`` hits, cited unless a citation already states
        that value there (for a party question: the preamble sentence naming the parties). Small
        answerers cite the first value they see ("continues for two (2) years") where the question
        asks for another ("survive ... for three (3) years")."""
        kind = question_kind(question)
        if not self.settings.interrogation.read_values or kind.form != "value" or kind.value is None:
            return []
        text = self.index.document.text
        if kind.value == "party":  # the parties are named in the preamble
            parties = party_reading(text, 0, PREAMBLE_CHARS)
            if parties is None:
                return []
            span, sentence, stated, value = parties.span, parties.text, parties.span, parties.value()
        else:
            spans = list(dict.fromkeys(hit.span for hit in [*hits, *retrieved]))
            readings = value_readings(question, kind.value, text, spans)
            if not readings or readings[0].score <= 0:
                return []
            best = readings[0]
            span, sentence, value = best.span, best.text, best.mention.text
            stated = (best.span[0] + best.mention.span[0], best.span[0] + best.mention.span[1])
        if any(c.span[0] <= stated[0] and stated[1] <= c.span[1] for c in cited):
            return []  # a citation already states the value
        shown = [n for n, hit in enumerate(hits, start=1) if overlap(hit.span, span)]
        log.info("value reader cites %r", value, extra={"contract": self.index.contract_id, "span": span})
        return [self._citation(span, sentence, shown[0] if shown else 0, attributed=True)]

    @property
    def can_extract(self) -> bool:
        """Whether :meth:`extract` can research (it reads sentences with the reranker)."""
        return self.retriever.reranker is not None

    def extract(self, question: str, plan: QueryPlan, hits: list[Hit], serves: str = "") -> ResearchResult:
        """The turn's result for an open question without a model call: the sentences of the
        passages ``hits`` that the reranker judges answering ``question`` (or the user's question
        it ``serves``), cited in the contract's own words (:mod:`tools.answering_sentences`).
        None judged relevant: the turn says the contract was not found to address it."""
        reranker = self.retriever.reranker
        assert reranker is not None, "extract research needs a reranker (Researcher.can_extract)"
        settings = self.settings
        found = answering_sentences(
            [question, serves],
            self.index.document.text,
            [h.span for h in hits],
            reranker,
            at=settings.retrieval.rerank_threshold,
            limit=settings.interrogation.open_sentences,
        )
        text = self.index.document.text
        citations = [self._citation(f.span, text[f.span[0] : f.span[1]], f.passage) for f in found]
        return self._sentences_found(question, plan, hits, citations)

    @staticmethod
    def _sentences_found(
        question: str,
        plan: QueryPlan,
        hits: list[Hit],
        citations: list[VerifiedCitation],
        rejected: Sequence[str] = (),
    ) -> ResearchResult:
        """The result of a turn that cited chosen sentences (extract, pick) instead of a model's
        answer: addressed when any was cited, its answer saying how many."""
        answer = (
            f"{len(citations)} passage sentence(s) address this question."
            if citations
            else "No sentence of the passages searched addresses this question."
        )
        return ResearchResult(
            question=question,
            plan=plan,
            hits=hits,
            answer=answer,
            addressed=bool(citations),
            citations=citations,
            rejected_quotes=list(rejected),
        )

    def pick(self, question: str, plan: QueryPlan, hits: list[Hit], *, context: str = "") -> ResearchResult:
        """The turn's result for an open question: the answerer picks, by number, the sentences
        of the passages ``hits`` that answer ``question`` (:mod:`tools.numbered_sentences`), and
        they are cited in the contract's own words. It reads the same window of each passage the
        cited answer's prompt shows. A number that names no sentence is dropped (and reported
        among the rejected quotes); an unreadable reply makes a turn without a finding, as
        :meth:`answer` does."""
        if self.answerer is None:
            raise StructuredOutputError("no answerer model configured", hint="this is a bug")
        text = self.index.document.text
        limit = self.settings.interrogation.open_sentences
        sentences = numbered_sentences(text, hits, self.settings.interrogation.passage_chars, question)
        if not sentences:
            return ResearchResult(question=question, plan=plan, hits=hits, answer=UNANSWERED, addressed=False)
        messages = load_prompt("research_pick").messages(
            question=question,
            context=context or "none",
            limit=limit,
            passages=render_numbered(self.index, hits, sentences),
        )
        try:
            picked = invoke_structured(self.answerer, messages, SentencePick)
        except StructuredOutputError as error:
            log.warning("sentence pick unreadable: %s", error, extra={"contract": self.index.contract_id})
            return ResearchResult(
                question=question, plan=plan, hits=hits, answer=UNANSWERED, error=str(error)
            )
        found = [(p, picked_sentence(p.number, p.opens, sentences, text)) for p in picked.sentences]
        chosen = list(dict.fromkeys(s for _, s in found if s is not None))[:limit]
        rejected = [f"sentence ({p.number}) {p.opens}".strip() for p, s in found if s is None]
        citations = [self._citation(s.span, text[s.span[0] : s.span[1]], s.passage) for s in chosen]
        # a pick that says the question is not addressed cites nothing, whatever it named
        return self._sentences_found(question, plan, hits, citations if picked.addressed else [], rejected)

    def answer(
        self,
        question: str,
        plan: QueryPlan,
        hits: list[Hit],
        *,
        context: str = "",
        retrieved: Sequence[Hit] = (),
        serves: str = "",
    ) -> ResearchResult:
        """The turn's result: :meth:`cited_answer` over the passages ``hits``. One unreadable
        answer must not sink the whole interrogation: the turn then yields no finding, says so,
        and the Interrogator carries the question as a gap."""
        try:
            model_answer, citations, rejected = self.cited_answer(
                question, hits, context, retrieved, serves=serves
            )
        except StructuredOutputError as error:
            log.warning("research answer unreadable: %s", error, extra={"contract": self.index.contract_id})
            return ResearchResult(
                question=question, plan=plan, hits=hits, answer=UNANSWERED, error=str(error)
            )
        return ResearchResult(
            question=question,
            plan=plan,
            hits=hits,
            answer=model_answer.answer,
            addressed=model_answer.addressed,
            citations=citations,
            rejected_quotes=rejected,
        )
