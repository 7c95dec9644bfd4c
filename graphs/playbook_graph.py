"""Playbook review as a LangGraph loop over the position queue: take the next position, review
it (:class:`agents.playbook_reviewer.PlaybookReviewer`: find its decider, decide, judge, redline,
state), and go round until the queue is empty; then sum the risk up.

The reviewer is passed as run context, so the tests drive the loop with a scripted reviewer and
the product with the real one.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Literal, Protocol, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from clausewise.core.results import PlaybookSummary, PositionReview
from tools.playbook.positions import Position
from tools.playbook.summary import summarise


class ReviewsPositions(Protocol):
    def review(self, position: Position) -> PositionReview: ...


@dataclass(frozen=True)
class PlaybookContext:
    reviewer: ReviewsPositions


class PlaybookInput(TypedDict):
    queue: list[Position]


class PlaybookState(PlaybookInput, total=False):
    reviews: Annotated[list[PositionReview], operator.add]
    summary: PlaybookSummary


def review_next(state: PlaybookState, runtime: Runtime[PlaybookContext]) -> PlaybookState:
    """Review the queue's first position and take it off the queue."""
    position, *rest = state["queue"]
    return {"queue": rest, "reviews": [runtime.context.reviewer.review(position)]}


def summarise_risk(state: PlaybookState) -> PlaybookState:
    return {"summary": summarise(state.get("reviews", []))}


def more_positions(state: PlaybookState) -> Literal["review_next", "summarise_risk"]:
    """Go round while positions are queued."""
    return "review_next" if state["queue"] else "summarise_risk"


def build_playbook_graph() -> CompiledStateGraph:
    graph = StateGraph(PlaybookState, context_schema=PlaybookContext, input_schema=PlaybookInput)
    graph.add_node("review_next", review_next)
    graph.add_node("summarise_risk", summarise_risk)
    graph.add_conditional_edges(START, more_positions)
    graph.add_conditional_edges("review_next", more_positions)
    graph.add_edge("summarise_risk", END)
    return graph.compile()
