"""The Researcher as a LangGraph subgraph: plan -> retrieve -> answer (with verified citations)."""

from __future__ import annotations

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agents.researcher import Researcher
from clausewise.core.domain import Hit, Span
from clausewise.core.errors import StructuredOutputError
from clausewise.core.results import QueryPlan, ResearchResult
from tools.retrieval.graph import open_graph

UNANSWERED = (
    "No answer this turn: the model's reply could not be read, so nothing from this search is cited. "
    "The question remains open."
)


class ResearchState(TypedDict, total=False):
    question: str
    context: str
    serves: str  # the user's question a follow-up serves ("" for the user's question itself)
    plan: QueryPlan
    retrieved: list[Hit]  # every hit retrieval returned (attribution may read them)
    hits: list[Hit]  # the passages the answerer reads
    read: list[Span]  # what earlier turns on the same question showed the answerer
    result: ResearchResult


def build_research_graph(researcher: Researcher) -> CompiledStateGraph:
    def plan(state: ResearchState) -> ResearchState:
        return {"plan": researcher.plan(state["question"], state.get("context", ""))}

    def retrieve(state: ResearchState) -> ResearchState:
        read = state.get("read", [])
        enabled = researcher.settings.retrieval.graph
        with open_graph(researcher.index.path, researcher.retriever.embedder, enabled=enabled) as graph:
            hits = researcher.gather(state["question"], state["plan"], graph, researcher.depth(read))
        shown = researcher.evidence(hits, state["question"], read)
        return {"retrieved": hits, "hits": shown}

    def answer(state: ResearchState) -> ResearchState:
        hits = state["hits"]
        try:
            model_answer, citations, rejected = researcher.answer(
                state["question"],
                hits,
                state.get("context", ""),
                state.get("retrieved", []),
                serves=state.get("serves", ""),
            )
        except StructuredOutputError as exc:
            # One unreadable answer must not sink the whole interrogation: the turn yields no
            # finding, says so, and the Interrogator carries the question as a gap.
            return {
                "result": ResearchResult(
                    question=state["question"],
                    plan=state["plan"],
                    hits=hits,
                    answer=UNANSWERED,
                    error=str(exc),
                )
            }
        return {
            "result": ResearchResult(
                question=state["question"],
                plan=state["plan"],
                hits=hits,
                answer=model_answer.answer,
                addressed=model_answer.addressed,
                citations=citations,
                rejected_quotes=rejected,
            )
        }

    graph = StateGraph(ResearchState)
    graph.add_node("plan", plan)
    graph.add_node("retrieve", retrieve)
    graph.add_node("answer", answer)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "retrieve")
    graph.add_edge("retrieve", "answer")
    graph.add_edge("answer", END)
    return graph.compile()
