"""Routing decisions of the question-answering graph: small pure functions of the state."""

from __future__ import annotations

from typing import Literal

from clausewise.core.config import InterrogationSettings
from clausewise.core.domain import Span
from clausewise.core.report import REFERENCE
from clausewise.core.results import Draft, Finding
from graphs.research_graph import ResearchMethod
from graphs.state import QAState, StopReason
from tools.text_plans import composed_from_the_text

# An answer without verified evidence (the contract is silent, or nothing could be cited) is
# accepted only after this many searches, or all the turns there are: one search that finds
# nothing is weak evidence of absence, and small models declare themselves done too early.
TURNS_BEFORE_ABSENCE = 2

# Once a decider has settled the short answer (a verdict, a value, "not stated"), no research turn
# can change it: the writer drafts the explanation from the decision's own grounds straight away
# (one writer call instead of a turn's three). An unclear answer, an open question and the parts
# of a compound one keep their turns, to show the lawyer what the contract says. (At b1294b7
# nearly every ruled question ran all 3 turns, 208.8 s each, though none could change the
# classifier's verdict.)
DECIDED_TURNS = 0


def session_findings(state: QAState) -> list[Finding]:
    """The findings of the question being answered (a chat thread keeps earlier questions')."""
    return [f for f in state.get("findings", []) if f.session == state.get("session", 1)]


def read_spans(state: QAState, asking: str = "") -> list[Span]:
    """What the answerer has read for the question being answered: the excerpt of every passage
    shown in its earlier turns (the next turn reads further down the ranking). None when
    ``asking`` is a part of a compound question: the passages read for the whole question were
    read for another topic, and passing over them hid Section 3 EXCEPTIONS from the part "What
    exceptions apply?" because the first turn had shown it for "how long ...?"."""
    if asking and asking in state.get("parts", []):
        return []
    return [h.excerpt for f in session_findings(state) for h in f.hits if h.excerpt is not None]


def pending_parts(state: QAState) -> list[str]:
    """The parts of a compound question not yet researched in this question's session."""
    asked = {f.question.lower() for f in session_findings(state)}
    return [p for p in state.get("parts", []) if p.lower() not in asked]


def composes(state: QAState, settings: InterrogationSettings) -> bool:
    """Rule "an open answer is composed from what research found": an open or list question no
    decider settles is drafted from its findings' verified sentences without the writer, and the
    report's restate pass states each in one plain sentence. A writer's paragraph per turn cost a
    call and half a minute each, and failed the support check at the end (issue 54: 11.6 calls
    and p50 442 s a report). So is any question a text plan recognises, settled or not: a settled
    verdict is its short answer, the plan's sentences its account
    (:func:`tools.text_plans.composed_from_the_text`)."""
    return settings.compose_answer and composed_from_the_text(
        state.get("question", ""), decided=state.get("decision") is not None
    )


def research_method(state: QAState, settings: InterrogationSettings, can_extract: bool) -> ResearchMethod:
    """How a turn researches the question: a composed question (:func:`composes`) by the
    ``interrogation.open_research`` method (extract only when the Researcher ``can_extract``,
    else the answerer's pick), any other by the answerer's cited answer, whose prose the writer
    drafts from."""
    if not composes(state, settings) or settings.open_research == "model":
        return "answer"
    if settings.open_research == "extract" and can_extract:
        return "extract"
    return "pick"


def cites_a_source(draft: Draft) -> bool:
    """Rule "an answer citing nothing is no answer": a draft whose preliminary answer cites no
    source is removed by the support check at the end (a small writer's paragraph often is),
    however complete and confident the writer says it is, so it does not end the research."""
    return bool(REFERENCE.search(draft.preliminary_answer))


def stop_reason(state: QAState, threshold: float) -> StopReason:
    """Why the interrogation should stop now ("" = keep going).

    A question whose short answer a decider settled stops after :data:`DECIDED_TURNS` turns,
    confident or not. A draft's
    confidence does not end the research while parts of a compound question remain
    unasked: the first turn searches the whole question, whose strongest part crowds out the
    others ("how long ... and what exceptions apply?" finds the term, not the exceptions), and a
    small writer declares itself complete from that alone. Nor does a draft that answers without
    citing a source (:func:`cites_a_source`)."""
    draft = state.get("draft")
    turn, max_turns = state.get("turn", 0), state.get("max_turns", 1)
    confident = (
        draft is not None
        and draft.complete
        and draft.confidence >= threshold
        and not pending_parts(state)
        and (not draft.addressed or cites_a_source(draft))
    )
    supported = draft is not None and draft.addressed and any(f.citations for f in state.get("findings", []))
    if confident and (supported or turn >= min(TURNS_BEFORE_ABSENCE, max_turns)):
        return "confident"
    decision = state.get("decision")
    if (
        decision is not None
        and decision.settled
        and turn >= min(DECIDED_TURNS, max_turns)
        and not pending_parts(state)
    ):
        return "decided"
    if turn >= max_turns:
        return "not addressed" if draft is not None and not draft.addressed else "turn limit"
    return ""


def after_refine(state: QAState, threshold: float) -> Literal["question", "final"]:
    return "final" if stop_reason(state, threshold) else "question"


def after_intake(state: QAState) -> Literal["question", "refine"]:
    """Straight to the draft when a decider settled the question and it has no parts to research,
    unless its account is composed from a plan's sentences (:func:`tools.text_plans.composed_from_the_text`:
    the decider's verdict or value is its short answer, the plan's sentences its account)."""
    decision = state.get("decision")
    settled = decision is not None and decision.settled and (decision.grounds or decision.closest)
    composed = composed_from_the_text(state.get("question", ""), decided=True)
    drafted = settled and not state.get("parts") and not composed
    return "refine" if drafted and DECIDED_TURNS == 0 else "question"
