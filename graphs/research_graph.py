"""The Researcher as a LangGraph subgraph: plan -> retrieve -> answer (with verified citations).

For an open question the caller may ask for an ``extract`` turn: the plan is the deterministic one
and the answer the sentences the reranker judges answering, so the turn costs no model call.

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
    extract: bool  # an open question: the reranker picks the answering sentences, no model call


class ResearchOutput(TypedDict):
    result: ResearchResult


class ResearchState(ResearchInput, ResearchOutput, total=False):
    plan: QueryPlan
    retrieved: list[Hit]  # every hit retrieval returned (attribution may read them)
    hits: list[Hit]  # the passages the answerer reads


def plan(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    researcher = runtime.context.researcher
    rewrite = not state.get("extract", False)
    return {"plan": researcher.plan(state["question"], state.get("context", ""), rewrite=rewrite)}


def retrieve(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    retrieved, shown = runtime.context.researcher.retrieve(
        state["question"], state["plan"], state.get("read", []), part=bool(state.get("serves"))
    )
    return {"retrieved": retrieved, "hits": shown}


def answer(state: ResearchState, runtime: Runtime[ResearchContext]) -> ResearchState:
    researcher = runtime.context.researcher
    if state.get("extract", False):
        found = researcher.extract(state["question"], state["plan"], state["hits"], state.get("serves", ""))
        return {"result": found}
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
    graph.add_node("plan", plan)
    graph.add_node("retrieve", retrieve)
    graph.add_node("answer", answer)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "retrieve")
    graph.add_edge("retrieve", "answer")
    graph.add_edge("answer", END)
    return graph.compile()
