"""Playbook review as a LangGraph loop over the position queue: take the next position, review
it (:class:`agents.playbook_reviewer.PlaybookReviewer`: find its decider, decide, judge, redline,
state), with ``playbook.draft`` have the drafter model propose a redline where the rule-made one
falls short (:class:`agents.redline_drafter.RedlineDrafter`, kept only if it holds), file the
review, and go round until the queue is empty; then sum the risk up.

The reviewer and the drafter are passed as run context, so the tests drive the loop with
scripted ones and the product with the real ones. Routing reads the state alone.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Literal, NotRequired, Protocol, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.runtime import Runtime

from agents.redline_drafter import wants_draft
from clausewise.core.results import PlaybookSummary, PositionReview
from graphs.traced import traced_node
from tools.playbook.positions import Position
from tools.playbook.summary import summarise


class ReviewsPositions(Protocol):
    def review(self, position: Position) -> PositionReview: ...


class DraftsRedlines(Protocol):
    def draft(self, position: Position, review: PositionReview) -> PositionReview: ...


@dataclass(frozen=True)
class PlaybookContext:
    reviewer: ReviewsPositions
    drafter: DraftsRedlines | None = None


class PlaybookInput(TypedDict):
    queue: list[Position]
    draft: NotRequired[bool]  # a drafter is in the context (playbook.draft)


class PlaybookState(PlaybookInput, total=False):
    position: Position  # the position under review
    current: PositionReview  # its review, not yet filed
    reviews: Annotated[list[PositionReview], operator.add]
    summary: PlaybookSummary


def review_next(state: PlaybookState, runtime: Runtime[PlaybookContext]) -> PlaybookState:
    """Review the queue's first position and take it off the queue."""
    position, *rest = state["queue"]
    return {"queue": rest, "position": position, "current": runtime.context.reviewer.review(position)}


def draft_redline(state: PlaybookState, runtime: Runtime[PlaybookContext]) -> PlaybookState:
    """The drafter's redline for the review, where it holds (else the review says why not)."""
    drafter = runtime.context.drafter
    assert drafter is not None, "routed here only with a drafter"
    return {"current": drafter.draft(state["position"], state["current"])}


def file_review(state: PlaybookState) -> PlaybookState:
    return {"reviews": [state["current"]]}


def summarise_risk(state: PlaybookState) -> PlaybookState:
    return {"summary": summarise(state.get("reviews", []))}


def after_review(state: PlaybookState) -> Literal["draft_redline", "file_review"]:
    """To the drafter when drafting is on and the review's redline falls short."""
    return "draft_redline" if state.get("draft") and wants_draft(state["current"]) else "file_review"


def more_positions(state: PlaybookState) -> Literal["review_next", "summarise_risk"]:
    """Go round while positions are queued."""
    return "review_next" if state["queue"] else "summarise_risk"


def build_playbook_graph() -> CompiledStateGraph:
    graph = StateGraph(PlaybookState, context_schema=PlaybookContext, input_schema=PlaybookInput)
    graph.add_node("review_next", traced_node("review_next", review_next))
    graph.add_node("draft_redline", traced_node("draft_redline", draft_redline))
    graph.add_node("file_review", traced_node("file_review", file_review))
    graph.add_node("summarise_risk", traced_node("summarise_risk", summarise_risk))
    graph.add_conditional_edges(START, more_positions)
    graph.add_conditional_edges("review_next", after_review)
    graph.add_edge("draft_redline", "file_review")
    graph.add_conditional_edges("file_review", more_positions)
    graph.add_edge("summarise_risk", END)
    return graph.compile()
