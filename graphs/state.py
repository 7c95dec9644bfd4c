"""Typed state of the question-answering graph, with reducers.

Lists that grow over the interrogation (questions asked, findings) use ``operator.add`` so each
node returns only what it adds; the draft and the decision are replaced each turn. In a chat
thread the findings persist, so a follow-up question can reuse earlier research.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

from pydantic import BaseModel, Field

from agents.researcher import VerifiedCitation
from clausewise.core.domain import Span
from clausewise.core.report import Report


class HitSummary(BaseModel):
    node_id: str
    span: Span
    pages: list[int]
    score: float
    excerpt: Span | None = Field(
        default=None, description="The part of the hit the answerer read (None: recorded before it was kept)."
    )


class Finding(BaseModel):
    """What one research turn established: the Researcher's answer and its verified citations."""

    session: int = Field(default=1, description="Which question of a chat thread it served.")
    turn: int
    question: str
    answer: str
    addressed: bool
    citations: list[VerifiedCitation] = Field(default_factory=list)
    hits: list[HitSummary] = Field(default_factory=list)
    rejected_quotes: list[str] = Field(default_factory=list)


class Draft(BaseModel):
    """The Interrogator's working report, rewritten after each turn, with its own verdict on
    whether the question is answered."""

    title: str
    summary: str
    reasoning: list[str] = Field(default_factory=list)
    preliminary_answer: str
    gaps: list[str] = Field(default_factory=list)
    addressed: bool = True
    complete: bool = False
    confidence: float = Field(default=0.0, ge=0, le=1)


class QAState(TypedDict, total=False):
    # the request (intake)
    question: str
    context: str
    instructions: str
    max_turns: int
    interactive: bool
    session: int  # 1 for the first question of a thread, 2 for the follow-up, ...
    ledger_mark: int  # model calls recorded before this question (for the report's accounting)
    started: float
    parts: list[str]  # the points of a compound question, researched one per turn after the first
    # the interrogation
    turn: int
    current_question: str
    questions_asked: Annotated[list[str], operator.add]
    findings: Annotated[list[Finding], operator.add]
    draft: Draft | None
    stop_reason: Literal["confident", "turn limit", "not addressed", ""]
    # the result
    report: Report | None
