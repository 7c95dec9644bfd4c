"""Routing decisions of the question-answering graph: small pure functions of the state."""

from __future__ import annotations

from typing import Literal

from graphs.state import QAState

StopReason = Literal["confident", "turn limit", "not addressed", ""]


def stop_reason(state: QAState, threshold: float) -> StopReason:
    """Why the interrogation should stop now ("" = keep going)."""
    draft = state.get("draft")
    if draft is not None and draft.complete and draft.confidence >= threshold:
        return "confident"
    if state.get("turn", 0) >= state.get("max_turns", 1):
        return "not addressed" if draft is not None and not draft.addressed else "turn limit"
    return ""


def after_refine(state: QAState, threshold: float) -> Literal["question", "final"]:
    return "final" if stop_reason(state, threshold) else "question"
