"""Typed state of the question-answering graph: what comes in, what goes out, and the working
state in between, with reducers.

Lists that grow over the interrogation (questions asked, findings) use ``operator.add`` so each
node returns only what it adds; the draft is replaced each turn. In a chat thread the findings
persist, so a follow-up question can reuse earlier research.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, TypedDict

from clausewise.core.report import Report
from clausewise.core.results import Decision, Draft, Finding

StopReason = Literal["confident", "decided", "turn limit", "not addressed", ""]


class QAInput(TypedDict, total=False):
    """What a caller passes in: the question, its background and how to answer it."""

    question: str
    context: str
    instructions: str
    max_turns: int  # default: interrogation.max_turns
    interactive: bool  # in a chat the Interrogator may ask the user to clarify
    provision: str  # a known provision's key: the asker's choice among the options offered back


class QAOutput(TypedDict, total=False):
    """What the graph returns: the verified report and why the interrogation stopped."""

    report: Report | None
    stop_reason: StopReason


class QAState(QAInput, QAOutput, total=False):
    """The working state of one question (and, in a chat, of the thread)."""

    session: int  # 1 for the first question of a thread, 2 for the follow-up, ...
    ledger_mark: int  # model calls recorded before this question (for the report's accounting)
    started: float
    parts: list[str]  # the points of a compound question, researched one per turn after the first
    turn: int
    current_question: str
    questions_asked: Annotated[list[str], operator.add]
    findings: Annotated[list[Finding], operator.add]
    draft: Draft | None
    decision: Decision | None  # the short answer as the decider settled it (None: a list or open question)
