"""The Researcher as a LangGraph subgraph: plan -> retrieve -> answer (with verified citations).

The research node of the question-answering graph invokes it once per turn; it is the only way
research is done, so the tests drive it as the product runs it. Each node is one call of the
Researcher (:mod:`agents.researcher`), which the caller passes as run context.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agents.researcher import Researcher
from clausewise.core.domain import Hit, Span
from clausewise.core.results import QueryPlan, ResearchResult


@dataclass(frozen=True)
class ResearchContext:
    """The run context of the subgraph: the Researcher on one contract."""

    researcher: Researcher


class ResearchInput(TypedDict, total=False):
    question: str
    context: str
    serves: str  # the user's question a follow-up serves ("" for the user's question itself)
    read: list[Span]  # what earlier turns on the same question showed the answerer


class ResearchOutput(TypedDict):
    result: ResearchResult


class ResearchState(ResearchInput, ResearchOutput, total=False):
    plan: QueryPlan
    retrieved: list[Hit]  # every hit retrieval returned (attribution may read them)
    hits: list[Hit]  # the passages the answerer reads


def plan(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    return {"plan": runtime.context.researcher.plan(state["question"], state.get("context", ""))}


def retrieve(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    retrieved, shown = runtime.context.researcher.retrieve(
        state["question"], state["plan"], state.get("read", []), part=bool(state.get("serves"))
    )
    return {"retrieved": retrieved, "hits": shown}


def answer(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    result = runtime.context.researcher.answer(
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
    graph.add_node("plan", plan)
    graph.add_node("retrieve", retrieve)
    graph.add_node("answer", answer)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "retrieve")
    graph.add_edge("retrieve", "answer")
    graph.add_edge("answer", END)
    return graph.compile()
