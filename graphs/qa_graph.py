"""The question-answering graph: intake -> question -> research -> refine -> (route) -> final.

intake      the question, context and instructions are taken in; in a chat the Interrogator may
            first ask the user to clarify an ambiguous question (a LangGraph interrupt), a
            compound question is split into its parts, and the decider settles the short
            answer (agents/decider.py) before anything is written;
question    the Interrogator asks the Researcher: the user's question, then each part, then what
            fills the draft's biggest gap;
research    the Researcher subgraph (plan -> retrieve -> answer) answers with verified citations
            (for an open question, the sentences the reranker judges answering: no model call);
refine      the Interrogator rewrites the draft from the previous draft and the new finding (an
            open question's draft is its findings' verified sentences, written by no model:
            the report composes its answer from them, :func:`graphs.routing.composes`);
route       stop when the draft is complete and confident enough, or at the turn limit; a
            question a decider settled goes from intake straight to the draft, which explains
            the decision from its grounds (:mod:`graphs.routing`, pure functions of the state);
final       the Interrogator's report: citations and claims checked, one repair, removal with the
            gap stated, the short answer decided.

This module is wiring only: each node reads the state, calls one agent method and returns what
changed. The agents come in as run context (:class:`QAContext`), which is never checkpointed, so a
chat thread's checkpoints hold only its state. Progress events go to whoever streams the graph in
"custom" mode: start, answer (the decided short answer, before any writing), plan (the parts of a
compound question), question, research, draft, final.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from agents.decider import AnswerDecider
from agents.finishing import quick_answer_of
from agents.interrogator import Interrogator
from agents.researcher import Researcher
from clausewise.core.backends.accounting import UsageLedger
from clausewise.core.errors import ConfigError
from clausewise.core.results import Finding, Inquiry
from graphs.research_graph import ResearchContext, build_research_graph
from graphs.routing import (
    after_intake,
    after_refine,
    composes,
    pending_parts,
    read_spans,
    research_method,
    session_findings,
    stop_reason,
)
from graphs.state import QAInput, QAOutput, QAState
from graphs.traced import traced_node
from tools.text_plans import answered_by_its_plan


@dataclass(frozen=True)
class QAContext:
    """The run context: the agents on one contract (the decider of short answers, None to have
    none) and the ledger their models report to."""

    interrogator: Interrogator
    researcher: Researcher
    ledger: UsageLedger
    decider: AnswerDecider | None = None
    research_graph: CompiledStateGraph = field(default_factory=build_research_graph)


def _inquiry(state: QAState) -> Inquiry:
    return Inquiry(
        question=state["question"],
        context=state.get("context", ""),
        instructions=state.get("instructions", ""),
        max_turns=state["max_turns"],
        parts=state.get("parts", []),
    )


def intake(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    interrogator = runtime.context.interrogator
    question = " ".join(state.get("question", "").split())
    if not question:
        raise ConfigError("the question is empty", hint="ask a question about the contract")
    context = state.get("context", "")
    if state.get("interactive"):
        clarifying = interrogator.clarifying_question(question, context)
        if clarifying:
            reply = interrupt({"clarifying_question": clarifying})
            context = f"{context}\nClarification from the user: {reply}".strip()
    max_turns = state.get("max_turns") or interrogator.settings.max_turns
    runtime.stream_writer({"event": "start", "question": question, "max_turns": max_turns})
    # the answer first: the deciders take seconds, and nothing the model writes can change them
    decider = runtime.context.decider
    decision = (
        decider.decide(question, state.get("provision") or None)
        if decider is not None and interrogator.settings.short_answer
        else None
    )
    if decision is not None:
        short_answer, sources = quick_answer_of(decision)
        runtime.stream_writer(
            {
                "event": "answer",
                "short_answer": short_answer.model_dump(mode="json"),
                "sources": [source.model_dump(mode="json") for source in sources],
                "form": decision.form,
                "verdict": decision.verdict,
                "value": decision.value,
                "decided_by": decision.decided_by,
                "provision": decision.provision,
                "rationale": decision.rationale,
                "grounds": [g.model_dump(mode="json") for g in decision.grounds],
                "closest": [c.model_dump(mode="json") for c in decision.closest],
            }
        )
    # rule "a planned question has no parts": its plan reads every part's subject at once ("How
    # much is paid, and when?"); researched apart, the parts were answered by a warranty's
    # replacement charges and the preamble, in two more turns
    planned = answered_by_its_plan(question)
    parts = interrogator.decompose(question, context) if max_turns > 1 and not planned else []
    if parts:
        runtime.stream_writer({"event": "plan", "parts": parts})
    return {
        "question": question,
        "parts": parts,
        "context": context,
        "instructions": state.get("instructions", ""),
        "max_turns": max_turns,
        "turn": 0,
        "draft": None,
        "decision": decision,
        "report": None,
        "stop_reason": "",
        "session": state.get("session", 0) + 1,
        "ledger_mark": len(runtime.context.ledger.records),
        "started": time.time(),
    }


def question(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    turn = state.get("turn", 0) + 1
    asked = [f.question for f in session_findings(state)]
    next_question = runtime.context.interrogator.next_question(
        _inquiry(state), turn, asked, state.get("draft"), pending_parts(state)
    )
    runtime.stream_writer(
        {"event": "question", "turn": turn, "of": state["max_turns"], "question": next_question}
    )
    return {"turn": turn, "current_question": next_question, "questions_asked": [next_question]}


def research(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    researcher = runtime.context.researcher
    context, serves = state.get("context", ""), ""
    if state["current_question"] != state["question"]:
        # a part or follow-up ("What exceptions apply?") is read against the user's question,
        # so the Researcher knows what it is about
        serves = state["question"]
        context = f"{context}\nThis question serves the user's question: {serves}".strip()
    out = runtime.context.research_graph.invoke(
        {
            "question": state["current_question"],
            "context": context,
            "serves": serves,
            "read": read_spans(state, state["current_question"]),
            "method": research_method(state, runtime.context.interrogator.settings, researcher.can_extract),
        },
        context=ResearchContext(researcher),
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
        hits=researcher.summaries(result.hits, result.question),
    )
    runtime.stream_writer(
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


def refine(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    session = session_findings(state)
    interrogator = runtime.context.interrogator
    if composes(state, interrogator.settings):
        draft = interrogator.collect(_inquiry(state), state.get("findings", []), session)
    else:
        draft = interrogator.refine(
            _inquiry(state),
            state.get("draft"),
            state.get("findings", []),
            state.get("decision"),
            latest=session[-1] if session else None,
        )
    runtime.stream_writer(
        {"event": "draft", "turn": state["turn"], "complete": draft.complete, "confidence": draft.confidence}
    )
    return {"draft": draft}


def final(state: QAState, runtime: Runtime[QAContext]) -> dict[str, Any]:
    interrogator = runtime.context.interrogator
    report = interrogator.final_report(
        _inquiry(state),
        state.get("draft"),
        state.get("findings", []),
        session_findings(state),
        turns_used=state.get("turn", 0),
        stop=stop_reason(state, interrogator.settings.confidence_threshold),
        usage=lambda: runtime.context.ledger.summary(since=state.get("ledger_mark", 0)),
        seconds=lambda: round(time.time() - state.get("started", time.time()), 1),
        decision=state.get("decision"),
    )
    runtime.stream_writer(
        {
            "event": "final",
            "sources": len(report.sources),
            "removed": len(report.metadata.removed_citations),
            "removed_claims": len(report.metadata.removed_claims),
            "short_answer": report.short_answer.text() if report.short_answer else None,
        }
    )
    return {"report": report, "stop_reason": report.metadata.stopped_because}


def route_after_refine(state: QAState, runtime: Runtime[QAContext]) -> str:
    return after_refine(state, runtime.context.interrogator.settings.confidence_threshold)


def build_qa_graph(checkpointer: Any = None) -> CompiledStateGraph:
    """The compiled graph; run it with ``context=QAContext(...)`` (and a thread id in the config
    when a ``checkpointer`` keeps chat threads)."""
    graph = StateGraph(QAState, context_schema=QAContext, input_schema=QAInput, output_schema=QAOutput)
    graph.add_node("intake", traced_node("intake", intake))
    graph.add_node("question", traced_node("question", question))
    graph.add_node("research", traced_node("research", research))
    graph.add_node("refine", traced_node("refine", refine))
    graph.add_node("final", traced_node("final", final))
    graph.add_edge(START, "intake")
    graph.add_conditional_edges("intake", after_intake, {"question": "question", "refine": "refine"})
    graph.add_edge("question", "research")
    graph.add_edge("research", "refine")
    graph.add_conditional_edges("refine", route_after_refine, {"question": "question", "final": "final"})
    graph.add_edge("final", END)
    return graph.compile(checkpointer=checkpointer)
