"""Routing decisions of the question-answering graph: small pure functions of the state."""

from __future__ import annotations

from typing import Literal

from graphs.state import QAState

StopReason = Literal["confident", "turn limit", "not addressed", ""]


# An answer without verified evidence (the contract is silent, or nothing could be cited) is
# accepted only after this many searches, or all the turns there are: one search that finds
# nothing is weak evidence of absence, and small models declare themselves done too early.
TURNS_BEFORE_ABSENCE = 2


def stop_reason(state: QAState, threshold: float) -> StopReason:
    """Why the interrogation should stop now ("" = keep going)."""
    draft = state.get("draft")
    turn, max_turns = state.get("turn", 0), state.get("max_turns", 1)
    confident = draft is not None and draft.complete and draft.confidence >= threshold
    supported = draft is not None and draft.addressed and any(f.citations for f in state.get("findings", []))
    if confident and (supported or turn >= min(TURNS_BEFORE_ABSENCE, max_turns)):
        return "confident"
    if turn >= max_turns:
        return "not addressed" if draft is not None and not draft.addressed else "turn limit"
    return ""


def after_refine(state: QAState, threshold: float) -> Literal["question", "final"]:
    return "final" if stop_reason(state, threshold) else "question"
