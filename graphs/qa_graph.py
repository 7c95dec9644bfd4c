"""The question-answering graph: intake -> question -> research -> refine -> (route) -> final.

intake      the Archivist takes the question, context and instructions (and, in chat, may ask the
            user to clarify an ambiguous question: a LangGraph interrupt);
question    the Interrogator asks: first the user's question itself, then what fills the draft's
            biggest gap, knowing what was asked and how many turns remain;
research    the Researcher subgraph answers with verified citations;
refine      the Interrogator rewrites the draft from the previous draft and the new finding only
            (never the whole history: small models lose it), with its own verdict;
route       stop when the verdict is complete and confident enough, or at the turn limit;
final       citations checked deterministically, one repair, then removal with the gap stated.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import Runnable
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import interrupt
from pydantic import BaseModel, Field

from agents.researcher import Researcher
from clausewise.core.backends.accounting import UsageLedger
from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import Settings
from clausewise.core.errors import ConfigError, StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.report import Report, ReportMetadata, Source
from clausewise.core.results import Draft, Finding, HitSummary
from graphs.research_graph import build_research_graph
from graphs.routing import after_refine, pending_parts, read_spans, session_findings, stop_reason
from graphs.state import QAState
from graphs.validation import check, evidence_findings, number_sources, remove_failures

NOT_ADDRESSED = (
    "The contract does not appear to address this question: no passage that answers it could be "
    "found and verified."
)


class NextQuestion(BaseModel):
    question: str


class Decomposition(BaseModel):
    parts: list[str] = Field(default_factory=list, max_length=6)


class Clarification(BaseModel):
    ambiguous: bool = False
    clarifying_question: str = ""


@dataclass
class QADependencies:
    settings: Settings
    researcher: Researcher
    questioner: Runnable
    writer: Runnable
    ledger: UsageLedger


def _emit(event: dict[str, Any]) -> None:
    """A progress event for whoever streams the graph (a no-op otherwise)."""
    get_stream_writer()(event)


class QANodes:
    def __init__(self, deps: QADependencies) -> None:
        self.deps = deps
        self.settings = deps.settings.interrogation
        self.index = deps.researcher.index
        self.research_graph = build_research_graph(deps.researcher)

    # -- helpers ----------------------------------------------------------------------------------

    def _outline(self) -> str:
        tree = self.index.tree
        return "\n".join(f"{n.id} {n.title}".strip() for n in tree.children(tree.root_id))[:1500]

    def _draft_text(self, draft: Draft | None) -> str:
        return draft.model_dump_json(exclude={"complete", "confidence"}) if draft else "(no draft yet)"

    @staticmethod
    def _sources_text(sources: list[Source]) -> str:
        return (
            "\n".join(
                f'[{s.number}] {s.node_id} {s.title} (p. {s.pages[0]}): "{s.quote[:300]}"'.replace("  ", " ")
                for s in sources
            )
            or "(none yet)"
        )

    # -- nodes ------------------------------------------------------------------------------------

    def intake(self, state: QAState) -> QAState:
        question = " ".join(state.get("question", "").split())
        if not question:
            raise ConfigError("the question is empty", hint="ask a question about the contract")
        context = state.get("context", "")
        if state.get("interactive") and self.settings.clarify:
            messages = load_prompt("intake_clarify").messages(
                question=question, context=context or "none", outline=self._outline()
            )
            try:
                check_result = invoke_structured(self.deps.questioner, messages, Clarification)
            except StructuredOutputError:
                check_result = Clarification()
            if check_result.ambiguous and check_result.clarifying_question.strip():
                reply = interrupt({"clarifying_question": check_result.clarifying_question.strip()})
                context = f"{context}\nClarification from the user: {reply}".strip()
        max_turns = state.get("max_turns") or self.settings.max_turns
        parts = self._decompose(question, context) if self.settings.decompose and max_turns > 1 else []
        _emit({"event": "start", "question": question, "max_turns": max_turns, "parts": parts})
        return {
            "question": question,
            "parts": parts,
            "context": context,
            "instructions": state.get("instructions", ""),
            "max_turns": max_turns,
            "turn": 0,
            "draft": None,
            "report": None,
            "stop_reason": "",
            "session": state.get("session", 0) + 1,
            "ledger_mark": len(self.deps.ledger.records),
            "started": time.time(),
        }

    def _decompose(self, question: str, context: str) -> list[str]:
        """The separate points a compound question asks about (none when it asks one thing), so
        later turns research each of them instead of rephrasing the whole question."""
        messages = load_prompt("interrogator_decompose").messages(
            question=question, context=context or "none"
        )
        try:
            parts = invoke_structured(self.deps.questioner, messages, Decomposition).parts
        except StructuredOutputError:
            return []
        cleaned = list(dict.fromkeys(" ".join(p.split()) for p in parts if len(p.split()) >= 3))[:3]
        return [] if len(cleaned) < 2 else cleaned

    def question(self, state: QAState) -> QAState:
        turn = state.get("turn", 0) + 1
        asked = [f.question for f in session_findings(state)]
        draft = state.get("draft")
        asked_lower = {q.lower() for q in asked}
        pending = pending_parts(state)
        if turn == 1 or draft is None:
            question = state["question"]
        elif pending:
            question = pending[0]  # each part of a compound question gets its own search
        else:
            prompt = "interrogator_critique" if self.settings.critique else "interrogator_question"
            messages = load_prompt(prompt).messages(
                question=state["question"],
                context=state.get("context") or "none",
                instructions=state.get("instructions") or "none",
                asked="\n".join(f"- {q}" for q in asked),
                draft=self._draft_text(draft),
                remaining=state["max_turns"] - turn,
            )
            try:
                question = invoke_structured(self.deps.questioner, messages, NextQuestion).question.strip()
            except StructuredOutputError:
                question = ""
            if not question or question.lower() in asked_lower:
                fresh = [g for g in draft.gaps if g.lower() not in asked_lower]
                question = fresh[0] if fresh else f"What else in the contract bears on: {state['question']}"
        _emit({"event": "question", "turn": turn, "of": state["max_turns"], "question": question})
        return {"turn": turn, "current_question": question, "questions_asked": [question]}

    def research(self, state: QAState) -> QAState:
        context, serves = state.get("context", ""), ""
        if state["current_question"] != state["question"]:
            # a part or follow-up ("What exceptions apply?") is read against the user's question,
            # so the Researcher knows what it is about
            serves = state["question"]
            context = f"{context}\nThis question serves the user's question: {serves}".strip()
        out = self.research_graph.invoke(
            {
                "question": state["current_question"],
                "context": context,
                "serves": serves,
                "read": read_spans(state),
            }
        )
        result = out["result"]
        finding = Finding(
            session=state.get("session", 1),
            turn=state["turn"],
            question=result.question,
            answer=result.answer,
            addressed=result.addressed,
            citations=result.citations,
            rejected_quotes=result.rejected_quotes,
            hits=[
                HitSummary(
                    node_id=h.node_id,
                    span=h.span,
                    pages=h.pages,
                    score=h.score,
                    excerpt=self.deps.researcher.read_span(h, result.question),
                )
                for h in result.hits
            ],
        )
        _emit(
            {
                "event": "research",
                "turn": state["turn"],
                "spans": len(result.hits),
                "citations": len(result.citations),
                "rejected": len(result.rejected_quotes),
                "error": result.error,
                "nodes": [h.node_id for h in result.hits],
                # what the answerer read, so a benchmark can tell retrieval misses from citing ones
                "read": [list(h.excerpt) for h in finding.hits if h.excerpt is not None],
            }
        )
        return {"findings": [finding]}

    def refine(self, state: QAState) -> QAState:
        findings = state.get("findings", [])
        sources = number_sources(findings)
        number = {(s.contract_id, s.span): s.number for s in sources}
        latest = findings[-1]
        cited = "\n".join(
            f'[{number[(c.contract_id, c.span)]}] {c.node_id} (p. {c.pages[0]}): "{c.quote}"'
            for c in latest.citations
        )
        finding_text = (
            f"Answer: {latest.answer}\nAddressed by the contract: {'yes' if latest.addressed else 'no'}\n"
            f"Cited: {cited or '(nothing verified)'}"
        )
        messages = load_prompt("interrogator_refine").messages(
            question=state["question"],
            context=state.get("context") or "none",
            instructions=state.get("instructions") or "none",
            draft=self._draft_text(state.get("draft")),
            turn=latest.turn,
            finding_question=latest.question,
            finding=finding_text,
            sources=self._sources_text(sources),
        )
        try:
            draft = invoke_structured(self.deps.writer, messages, Draft)
        except StructuredOutputError:
            draft = self._fallback_draft(state, latest, number)
        _emit(
            {
                "event": "draft",
                "turn": state["turn"],
                "complete": draft.complete,
                "confidence": draft.confidence,
            }
        )
        return {"draft": draft}

    def _fallback_draft(self, state: QAState, latest: Finding, number: dict) -> Draft:
        """When the writer cannot produce a valid draft, the finding itself becomes the draft."""
        previous = state.get("draft")
        refs = " ".join(f"[{number[(c.contract_id, c.span)]}]" for c in latest.citations)
        reasoning = [*(previous.reasoning if previous else []), f"{latest.answer} {refs}".strip()]
        return Draft(
            title=previous.title if previous else state["question"],
            summary=state["question"],
            reasoning=reasoning,
            preliminary_answer=f"{latest.answer} {refs}".strip(),
            gaps=previous.gaps if previous else [],
            addressed=latest.addressed,
            complete=False,
            confidence=0.0,
        )

    def final(self, state: QAState) -> QAState:
        session = session_findings(state)
        sources = number_sources(state.get("findings", []))
        draft = state.get("draft") or Draft(
            title=state["question"],
            summary=state["question"],
            preliminary_answer=NOT_ADDRESSED,
            addressed=False,
        )
        verifier = self.deps.researcher.verifier
        failures = check(draft, sources, verifier)
        removed: list[str] = []
        if failures:
            messages = load_prompt("report_repair").messages(
                draft=self._draft_text(draft),
                sources=self._sources_text(sources),
                failures="\n".join(f"- {f}" for f in failures.describe()),
            )
            try:
                draft = invoke_structured(self.deps.writer, messages, Draft)
                failures = check(draft, sources, verifier)
            except StructuredOutputError:
                pass
            if failures:
                removed = failures.describe()
                draft = remove_failures(draft, failures)
                sources = [s for s in sources if s.number not in failures.bad_sources]
        supported = any(f.citations for f in session)
        addressed = draft.addressed and supported
        summary, preliminary, reasoning = draft.summary, draft.preliminary_answer, draft.reasoning
        if not supported:  # nothing verified: nothing may be asserted, not even in the summary
            summary, preliminary, reasoning = f"Question examined: {state['question']}", NOT_ADDRESSED, []
        elif not reasoning:  # the writer gave no findings: state what the verified sources say
            reasoning = evidence_findings(sources)
        reason = "not addressed" if not addressed else stop_reason(state, self.settings.confidence_threshold)
        reason = reason or "turn limit"
        records = self.deps.ledger.records[state.get("ledger_mark", 0) :]
        report = Report(
            question=state["question"],
            title=draft.title,
            summary=summary,
            reasoning=reasoning,
            preliminary_answer=preliminary,
            gaps=draft.gaps,
            sources=sources,
            addressed=addressed,
            metadata=ReportMetadata(
                contract_id=self.index.contract_id,
                file_name=self.index.manifest.file_name,
                turns_used=state.get("turn", 0),
                max_turns=state["max_turns"],
                questions_asked=[f.question for f in session],
                stopped_because=reason,
                confidence=draft.confidence,
                models=sorted({r.model for r in records}),
                llm_calls=len(records),
                prompt_tokens=sum(r.prompt_tokens for r in records),
                completion_tokens=sum(r.completion_tokens for r in records),
                seconds=round(time.time() - state.get("started", time.time()), 1),
                removed_citations=removed,
            ),
        )
        _emit({"event": "final", "sources": len(sources), "removed": len(removed)})
        return {"report": report, "stop_reason": reason, "draft": draft}


def build_qa_graph(deps: QADependencies, checkpointer: Any = None) -> CompiledStateGraph:
    nodes = QANodes(deps)
    threshold = deps.settings.interrogation.confidence_threshold
    graph = StateGraph(QAState)
    graph.add_node("intake", nodes.intake)
    graph.add_node("question", nodes.question)
    graph.add_node("research", nodes.research)
    graph.add_node("refine", nodes.refine)
    graph.add_node("final", nodes.final)
    graph.add_edge(START, "intake")
    graph.add_edge("intake", "question")
    graph.add_edge("question", "research")
    graph.add_edge("research", "refine")
    graph.add_conditional_edges(
        "refine", lambda state: after_refine(state, threshold), {"question": "question", "final": "final"}
    )
    graph.add_edge("final", END)
    return graph.compile(checkpointer=checkpointer)
