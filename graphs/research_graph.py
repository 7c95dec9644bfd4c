"""The Researcher as a LangGraph subgraph: plan -> retrieve -> answer (with verified citations).

``retrieve`` puts passages planned from the contract's text before retrieval's (each party's
duties, every ground to terminate, every warranty given, what follows the end, the payment terms:
:mod:`tools.text_plans`); a turn with planned passages answers by
them, without a model (:func:`answers_by_plan`).

For an open question the caller may ask for another ``method`` than the cited answer: ``pick``
(the answerer names the answering sentences by number, a dozen generated tokens instead of
hundreds) or ``extract`` (the deterministic plan and the sentences the reranker judges
answering, so the turn costs no model call).

The research node of the question-answering graph invokes it once per turn; it is the only way
research is done, so the tests drive it as the product runs it. Each node is one call of the
Researcher (:mod:`agents.researcher`), which the caller passes as run context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agents.researcher import Researcher
from clausewise.core.domain import Hit, Span
from clausewise.core.results import QueryPlan, ResearchResult
from graphs.traced import traced_node


@dataclass(frozen=True)
class ResearchContext:
    """The run context of the subgraph: the Researcher on one contract."""

    researcher: Researcher


#: How a turn answers: the answerer's cited answer, its pick of numbered sentences (an open
#: question), or the reranker's pick without a model call (an open question, extract research).
ResearchMethod = Literal["answer", "pick", "extract"]


class ResearchInput(TypedDict, total=False):
    question: str
    context: str
    serves: str  # the user's question a follow-up serves ("" for the user's question itself)
    read: list[Span]  # what earlier turns on the same question showed the answerer
    method: ResearchMethod  # how the turn answers (default "answer", the cited answer)


class ResearchOutput(TypedDict):
    result: ResearchResult


class ResearchState(ResearchInput, ResearchOutput, total=False):
    plan: QueryPlan
    retrieved: list[Hit]  # every hit retrieval returned (attribution may read them)
    hits: list[Hit]  # the passages the answerer reads


def plan(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    researcher = runtime.context.researcher
    rewrite = state.get("method", "answer") != "extract"
    return {"plan": researcher.plan(state["question"], state.get("context", ""), rewrite=rewrite)}


def retrieve(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    retrieved, shown = runtime.context.researcher.retrieve(
        state["question"], state["plan"], state.get("read", []), part=bool(state.get("serves"))
    )
    return {"retrieved": retrieved, "hits": shown}


def answers_by_plan(hits: list[Hit]) -> bool:
    """Whether the turn's findings are the passages planned from the text
    (:mod:`tools.text_plans`): then no model reads the passages."""
    return any(h.signals.get("planned") for h in hits)


def answer(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    researcher = runtime.context.researcher
    method = state.get("method", "answer")
    if answers_by_plan(state["hits"]):
        return {"result": researcher.planned_turn(state["question"], state["plan"], state["hits"])}
    if method == "extract":
        found = researcher.extract(state["question"], state["plan"], state["hits"], state.get("serves", ""))
        return {"result": found}
    if method == "pick":
        picked = researcher.pick(
            state["question"], state["plan"], state["hits"], context=state.get("context", "")
        )
        return {"result": picked}
    result = researcher.answer(
        state["question"],
        state["plan"],
        state["hits"],
        context=state.get("context", ""),
        retrieved=state.get("retrieved", []),
        serves=state.get("serves", ""),
    )
    return {"result": result}


def build_research_graph() -> CompiledStateGraph:
    graph = StateGraph(
        ResearchState,
        context_schema=ResearchContext,
        input_schema=ResearchInput,
        output_schema=ResearchOutput,
    )
    graph.add_node("plan", traced_node("plan", plan))
    graph.add_node("retrieve", traced_node("retrieve", retrieve))
    graph.add_node("answer", traced_node("answer", answer))
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "retrieve")
    graph.add_edge("retrieve", "answer")
    graph.add_edge("answer", END)
    return graph.compile()
