"""The Interrogator: questions the Researcher over several turns, keeps a draft report, and writes
the final report whose every quote is verified against the contract.

It asks first the user's question itself, then each part of a compound question, then what
fills the draft's biggest gap, knowing what was asked and how many turns remain. After each
finding it rewrites the draft from the previous draft and the new finding only (never the whole
history: small models lose it), with its own verdict on whether the answer is complete. The
short answer is not the writer's: the decider (:mod:`agents.decider`) settles it before the first
turn, every draft is written knowing it, and its grounds are numbered among the sources before
any research finding. The report is finished by the passes of :mod:`agents.finishing`.

Its methods take and return domain values (questions, findings, drafts, reports); the graph in
:mod:`graphs.qa_graph` decides when each is called.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from agents.finishing import Finisher, decision_finding, filled_answer
from clausewise.core.backends.accounting import UsageSummary
from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import InterrogationSettings
from clausewise.core.errors import StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.report import Report, Source
from clausewise.core.results import Decision, Draft, Finding, Inquiry
from indexes.store import ContractIndex
from tools.citations import QuoteVerifier
from tools.question_kind import looks_compound
from tools.report_checks import number_sources

log = logging.getLogger(__name__)


def decision_text(decision: Decision | None, sources: list[Source]) -> str:
    """What the decider settled, for the writer to write around ("none" for a list or open
    question)."""
    if decision is None:
        return "none"
    number = {s.span: s.number for s in sources}
    refs = " ".join(f"[{number[g.span]}]" for g in decision.grounds if g.span in number) or "(no source)"
    closest = " ".join(f"[{number[c.span]}]" for c in decision.closest if c.span in number)
    if decision.unclear:
        return (
            f"Unclear: {decision.rationale}. The closest clauses are {closest or '(none)'}. Give no yes/no "
            "verdict and no value; say what the closest clauses provide and what remains open."
        )
    if decision.form == "verdict":
        cited = refs if decision.grounds else closest or "(no source)"
        return (
            f"{(decision.verdict or '').capitalize()}, decided by the {decision.decided_by} "
            f"({decision.rationale}), from {cited}. Explain this answer from those sources; do not "
            "contradict it."
        )
    if not decision.value:
        nearest = closest or "(none)"
        return f"Not stated in the contract ({decision.rationale}); the closest clauses are {nearest}."
    qualified = f' ("{decision.qualification}")' if decision.qualification else ""
    return (
        f"The value is {decision.value}{qualified}, read by the {decision.decided_by} from {refs}. "
        "Give this value and any qualification its sentence makes."
    )


class NextQuestion(BaseModel):
    question: str


class Decomposition(BaseModel):
    parts: list[str] = Field(default_factory=list, max_length=6)


class ClarifyingCheck(BaseModel):
    ambiguous: bool = False
    clarifying_question: str = ""


@dataclass(frozen=True)
class ContractView:
    """What the Interrogator knows of the contract: its name, its outline (to judge whether a
    question is ambiguous) and its text, through the verifier every quoted word must pass."""

    contract_id: str
    file_name: str
    outline: str
    verifier: QuoteVerifier

    @classmethod
    def of(cls, index: ContractIndex) -> ContractView:
        tree = index.tree
        outline = "\n".join(f"{n.id} {n.title}".strip() for n in tree.children(tree.root_id))[:1500]
        return cls(index.contract_id, index.manifest.file_name, outline, QuoteVerifier(index.document.text))


def draft_text(draft: Draft | None) -> str:
    return draft.model_dump_json(exclude={"complete", "confidence"}) if draft else "(no draft yet)"


def sources_text(sources: list[Source]) -> str:
    return (
        "\n".join(
            f'[{s.number}] {s.node_id} {s.title} (p. {s.pages[0]}): "{s.quote[:300]}"'.replace("  ", " ")
            for s in sources
        )
        or "(none yet)"
    )


@dataclass(eq=False, repr=False)
class Interrogator:
    """Questions the Researcher and writes the report; ``finisher`` runs the report's finishing
    passes (:mod:`agents.finishing`)."""

    settings: InterrogationSettings
    contract: ContractView
    _: KW_ONLY
    questioner: Runnable
    writer: Runnable
    finisher: Finisher

    # -- intake -----------------------------------------------------------------------------------

    def clarifying_question(self, question: str, context: str) -> str | None:
        """A question to put to the user first, when ``question`` is too ambiguous to research
        (None when it is clear, when clarifying is switched off, or when the check is unreadable)."""
        if not self.settings.clarify:
            return None
        messages = load_prompt("intake_clarify").messages(
            question=question, context=context or "none", outline=self.contract.outline
        )
        try:
            verdict = invoke_structured(self.questioner, messages, ClarifyingCheck)
        except StructuredOutputError as error:
            log.warning("clarity check unreadable, question taken as clear: %s", error)
            return None
        asked = verdict.clarifying_question.strip()
        return asked if verdict.ambiguous and asked else None

    def decompose(self, question: str, context: str) -> list[str]:
        """The separate points a compound question asks about (none when it asks one thing), so
        later turns research each of them instead of rephrasing the whole question."""
        if not self.settings.decompose or not looks_compound(question):
            return []
        messages = load_prompt("interrogator_decompose").messages(
            question=question, context=context or "none"
        )
        try:
            parts = invoke_structured(self.questioner, messages, Decomposition).parts
        except StructuredOutputError as error:
            log.warning("decomposition unreadable, question researched whole: %s", error)
            return []
        cleaned = list(dict.fromkeys(" ".join(p.split()) for p in parts if len(p.split()) >= 3))[:3]
        return [] if len(cleaned) < 2 else cleaned

    # -- questioning ------------------------------------------------------------------------------

    def next_question(
        self, inquiry: Inquiry, turn: int, asked: list[str], draft: Draft | None, pending: list[str]
    ) -> str:
        """The question for the Researcher in ``turn``: the user's own first, then each part not
        yet researched (``pending``), then what the draft most needs, never one already asked."""
        if turn == 1 or draft is None:
            return inquiry.question
        if pending:
            return pending[0]
        asked_lower = {q.lower() for q in asked}
        prompt = "interrogator_critique" if self.settings.critique else "interrogator_question"
        messages = load_prompt(prompt).messages(
            question=inquiry.question,
            context=inquiry.context or "none",
            instructions=inquiry.instructions or "none",
            asked="\n".join(f"- {q}" for q in asked),
            draft=draft_text(draft),
            remaining=inquiry.max_turns - turn,
        )
        try:
            question = invoke_structured(self.questioner, messages, NextQuestion).question.strip()
        except StructuredOutputError as error:
            log.warning("next question unreadable, a gap of the draft is asked instead: %s", error)
            question = ""
        if not question or question.lower() in asked_lower:
            fresh = [g for g in draft.gaps if g.lower() not in asked_lower]
            question = fresh[0] if fresh else f"What else in the contract bears on: {inquiry.question}"
        return question

    # -- drafting ---------------------------------------------------------------------------------

    def refine(
        self,
        inquiry: Inquiry,
        draft: Draft | None,
        findings: list[Finding],
        decision: Decision | None = None,
        latest: Finding | None = None,
    ) -> Draft:
        """The draft rewritten with the ``latest`` finding (by default the last of ``findings``; a
        question settled before any research is drafted from the decision's own grounds). The
        sources are numbered over all findings, the decision's first, so a reference keeps its
        number from turn to turn."""
        grounds = decision_finding(decision)
        sources = number_sources([*grounds, *findings])
        number = {(s.contract_id, s.span): s.number for s in sources}
        latest = latest or (findings[-1] if findings else grounds[0])
        cited = "\n".join(
            f'[{number[(c.contract_id, c.span)]}] {c.node_id} (p. {c.pages[0]}): "{c.quote}"'
            for c in latest.citations
        )
        finding_text = (
            f"Answer: {latest.answer}\nAddressed by the contract: {'yes' if latest.addressed else 'no'}\n"
            f"Cited: {cited or '(nothing verified)'}"
        )
        messages = load_prompt("interrogator_refine").messages(
            question=inquiry.question,
            parts="\n".join(f"- {part}" for part in inquiry.parts) or "none",
            context=inquiry.context or "none",
            instructions=inquiry.instructions or "none",
            draft=draft_text(draft),
            turn=latest.turn,
            finding_question=latest.question,
            finding=finding_text,
            sources=sources_text(sources),
            decision=decision_text(decision, sources),
        )
        try:
            return invoke_structured(self.writer, messages, Draft)
        except StructuredOutputError as error:
            log.warning("draft unreadable, the finding itself becomes the draft: %s", error)
            return self._fallback_draft(inquiry, draft, latest, number)

    def collect(self, inquiry: Inquiry, findings: list[Finding], session: list[Finding]) -> Draft:
        """The draft of an open question whose answer the report composes from its findings
        (:func:`graphs.routing.composes`: no decider settled it, so no grounds are numbered): no
        model call, the verified sentences of this question's findings quoted with their numbers
        (the restate pass states them in plain words at the end). Complete and confident once a
        finding cites something; the graph still asks every part of a compound question first
        (:func:`graphs.routing.stop_reason`)."""
        sources = number_sources(findings)
        cited = {(c.contract_id, c.span) for f in session for c in f.citations}
        mine = [s for s in sources if (s.contract_id, s.span) in cited]
        lines = filled_answer(mine, inquiry.question, limit=len(mine), lead_ins=self.finisher.lead_ins(mine))
        return Draft(
            title=inquiry.question,
            summary="",
            preliminary_answer=" ".join(lines),
            addressed=bool(mine),
            complete=bool(mine),
            confidence=1.0 if mine else 0.0,
        )

    @staticmethod
    def _fallback_draft(inquiry: Inquiry, previous: Draft | None, latest: Finding, number: dict) -> Draft:
        """When the writer cannot produce a valid draft, the finding itself becomes the draft."""
        refs = " ".join(f"[{number[(c.contract_id, c.span)]}]" for c in latest.citations)
        reasoning = [*(previous.reasoning if previous else []), f"{latest.answer} {refs}".strip()]
        return Draft(
            title=previous.title if previous else inquiry.question,
            summary=inquiry.question,
            reasoning=reasoning,
            preliminary_answer=f"{latest.answer} {refs}".strip(),
            gaps=previous.gaps if previous else [],
            addressed=latest.addressed,
            complete=False,
            confidence=0.0,
        )

    # -- the report -------------------------------------------------------------------------------

    def final_report(
        self,
        inquiry: Inquiry,
        draft: Draft | None,
        findings: list[Finding],
        session: list[Finding],
        *,
        turns_used: int,
        stop: str,
        usage: Callable[[], UsageSummary],
        seconds: Callable[[], float],
        decision: Decision | None = None,
    ) -> Report:
        """The report on ``inquiry`` from the last draft, finished by the passes of
        :mod:`agents.finishing`. ``session`` holds the findings of this question, ``stop`` why the
        interrogation stopped ("" = turns ran out); ``usage`` and ``seconds`` are read once the
        report is finished."""
        return self.finisher.finish(
            inquiry,
            draft,
            findings,
            session,
            decision,
            turns_used=turns_used,
            stop=stop,
            questions_asked=[f.question for f in session],
            contract_id=self.contract.contract_id,
            file_name=self.contract.file_name,
            usage=usage,
            seconds=seconds,
        )
