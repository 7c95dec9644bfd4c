"""Typed state of the question-answering graph, with reducers.

Lists that grow over the interrogation (questions asked, findings) use ``operator.add`` so each
node returns only what it adds; the draft and the decision are replaced each turn. In a chat
thread the findings persist, so a follow-up question can reuse earlier research.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

from clausewise.core.report import Report
from clausewise.core.results import Draft, Finding


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
