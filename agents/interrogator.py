"""The Interrogator: questions the Researcher over several turns, keeps a draft report, and writes
the final report whose every quote is verified against the contract.

It asks first the user's question itself, then each part of a compound question, then what
fills the draft's biggest gap, knowing what was asked and how many turns remain. After each
finding it rewrites the draft from the previous draft and the new finding only (never the whole
history: small models lose it), with its own verdict on whether the answer is complete. At the
end it checks every citation deterministically and every claim against the sources it cites,
asks the writer for one repair naming each failure, removes what still fails and says so, and
opens the report with a short answer decided by the strongest evidence (:mod:`tools.bottom_line`).

On a "does the agreement provide that ...?" question the hypothesis classifier rules first
(:meth:`Interrogator.rule`); every draft is written knowing the ruling, and the ruling's
evidence is numbered among the sources before any research finding.

Its methods take and return domain values (questions, findings, drafts, reports); the graph in
:mod:`graphs.qa_graph` decides when each is called.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from clausewise.core.backends.accounting import UsageSummary
from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import InterrogationSettings
from clausewise.core.errors import StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.report import REFERENCE, Report, ReportMetadata, ShortAnswer, Source
from clausewise.core.results import Draft, Finding, Inquiry, Ruling
from indexes.store import ContractIndex
from tools.attribution import SentenceScorer
from tools.bottom_line import VERDICT_OF_LABEL, best_reading, short_answer, states_value
from tools.citations import QuoteVerifier
from tools.claim_check import Contradiction, contradictions, remove_claims
from tools.question_kind import question_kind
from tools.report_checks import check, evidence_findings, number_sources, remove_failures, rewrite_texts

log = logging.getLogger(__name__)

#: Longest quote of a source the findings state for the short answer or a part (a clause with its
#: list of exceptions runs to 550 characters).
LIST_QUOTE_CHARS = 800

#: Value kinds whose every wording the value reader can compare (a short answer of these kinds
#: opens a preliminary answer that states none of it).
NUMERIC_VALUES = frozenset({"duration", "notice period", "expiry", "date", "amount"})

NOT_ADDRESSED = (
    "The contract does not appear to address this question: no passage that answers it could be "
    "found and verified."
)

#: What stands where every drafted statement of a section was contradicted by its sources.
STATEMENTS_REMOVED = "The statements drafted here were contradicted by the sources and removed; see the gaps."


def with_ruling(findings: list[Finding], ruling: Ruling | None) -> list[Finding]:
    """The findings with the ruling's evidence as a first, turn-0 finding (for numbering only)."""
    if ruling is None or not ruling.citations:
        return findings
    first = Finding(turn=0, question=ruling.hypothesis, answer=ruling.rationale, addressed=True)
    return [first.model_copy(update={"citations": ruling.citations}), *findings]


def ruling_numbers(ruling: Ruling | None, sources: list[Source]) -> list[int]:
    """The source numbers of the ruling's evidence."""
    spans = {c.span for c in ruling.citations} if ruling else set()
    return [s.number for s in sources if s.span in spans]


def decision_text(ruling: Ruling | None, sources: list[Source], question: str = "") -> str:
    """What the deciding component found, for the writer to write around: the hypothesis
    classifier's ruling, or, on a question asking for a value, the value reader's reading of the
    sources ("none" when neither applies)."""
    if ruling is not None:
        verdict = VERDICT_OF_LABEL[ruling.label]
        refs = " ".join(f"[{n}]" for n in ruling_numbers(ruling, sources)) or "(no sentence)"
        return (
            f"The hypothesis classifier, which decides such questions more reliably than reading, "
            f"answers: {verdict} (confidence {ruling.confidence:.2f}), from {refs}. {ruling.rationale} "
            "Write the short answer and the reasoning consistent with this ruling; if the sources plainly "
            "contradict it, say so."
        )
    kind = question_kind(question)
    best = best_reading(kind.question, kind.value or "", sources) if kind.form == "value" else None
    if best is None:
        return "none"
    source, reading = best
    return (
        f"The value reader finds the value that answers the question in [{source.number}] "
        f'({source.node_id}): {reading.mention.text}, in the sentence "{" ".join(reading.text.split())}". '
        "Give this value in the short answer and state any qualification that sentence makes, unless "
        "another source plainly answers the question better; then say why."
    )


class HypothesisRuler(Protocol):
    def rule(self, hypothesis: str) -> Ruling:
        """The hypothesis classifier's label for ``hypothesis`` on the contract, with evidence."""
        ...


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


class Interrogator:
    def __init__(
        self,
        settings: InterrogationSettings,
        contract: ContractView,
        *,
        questioner: Runnable,
        writer: Runnable,
        ruler: HypothesisRuler | None = None,
        claim_scorer: SentenceScorer | None = None,
        contradiction_at: float = 0.5,
    ) -> None:
        """``ruler`` decides "does the agreement provide that ...?" questions (None: the writer
        does); ``claim_scorer`` is the classifier of the claim check's ``+nli`` part, which
        counts a claim contradicted at ``contradiction_at``."""
        self.settings = settings
        self.contract = contract
        self.questioner = questioner
        self.writer = writer
        self.ruler = ruler
        self.claim_scorer = claim_scorer
        self.contradiction_at = contradiction_at

    # -- the ruling -------------------------------------------------------------------------------

    def rule(self, question: str) -> Ruling | None:
        """The classifier's ruling when ``question`` asks whether the contract provides a
        hypothesis and verdicts are the classifier's (None otherwise)."""
        kind = question_kind(question)
        if self.ruler is None or self.settings.verdicts != "classifier" or not kind.hypothesis:
            return None
        ruling = self.ruler.rule(kind.hypothesis)
        log.info(
            "hypothesis classifier ruled %s",
            ruling.label,
            extra={"contract": self.contract.contract_id, "confidence": ruling.confidence},
        )
        return ruling

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
        if not self.settings.decompose:
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
        self, inquiry: Inquiry, draft: Draft | None, findings: list[Finding], ruling: Ruling | None = None
    ) -> Draft:
        """The draft rewritten with the latest of ``findings`` (the sources are numbered over
        all of them, the ruling's first, so a reference keeps its number from turn to turn)."""
        sources = number_sources(with_ruling(findings, ruling))
        number = {(s.contract_id, s.span): s.number for s in sources}
        latest = findings[-1]
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
            decision=decision_text(ruling, sources, inquiry.question),
        )
        try:
            return invoke_structured(self.writer, messages, Draft)
        except StructuredOutputError as error:
            log.warning("draft unreadable, the finding itself becomes the draft: %s", error)
            return self._fallback_draft(inquiry, draft, latest, number)

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
        usage: UsageSummary,
        seconds: float,
        ruling: Ruling | None = None,
    ) -> tuple[Report, Draft]:
        """The report on ``inquiry`` from the last draft: sources numbered over every finding of
        the thread (the ruling's evidence first), each quote and each claim checked, one repair
        by the writer naming the failures, then whatever still fails removed with the gap stated,
        and the short answer decided. ``session`` holds the findings of this question, ``stop``
        why the interrogation stopped ("" = turns ran out)."""
        sources = number_sources(with_ruling(findings, ruling))
        draft = draft or Draft(
            title=inquiry.question,
            summary=inquiry.question,
            preliminary_answer=NOT_ADDRESSED,
            addressed=False,
        )

        def with_parts(drafted: Draft) -> Draft:
            return _with_part_answers(drafted, inquiry.parts, session, sources)

        checked = self._verified(inquiry.question, with_parts(draft), sources, with_parts)
        draft, sources = checked.draft, checked.sources
        supported = any(f.citations for f in session) or bool(ruling and ruling.citations)
        addressed = draft.addressed and supported
        summary, preliminary, reasoning = draft.summary, draft.preliminary_answer, draft.reasoning
        if not supported:  # nothing verified: nothing may be asserted, not even in the summary
            summary, preliminary, reasoning = f"Question examined: {inquiry.question}", NOT_ADDRESSED, []
            draft = draft.model_copy(update={"short_answer": "", "addressed": False})
        elif not reasoning:  # the writer gave no findings: state what the verified sources say
            reasoning = evidence_findings(sources)
        draft = _with_unanswered_parts(draft, inquiry.parts, session)
        bottom_line, kind = None, question_kind(inquiry.question)
        if self.settings.short_answer:
            bottom_line = short_answer(kind, draft, sources, ruling, ruling_numbers(ruling, sources))
            if bottom_line is not None and supported:
                reasoning = _with_grounds(reasoning, bottom_line.sources, sources)
                preliminary = _with_value(preliminary, bottom_line, kind.question)
        if supported:  # every part answered by a turn has its sources among the findings
            for part in inquiry.parts:
                reasoning = _with_grounds(
                    reasoning, _part_sources(part, session, sources)[1], sources, limit=1
                )
        # the last guard: the report as it will be shown, checked once more (the findings and
        # lines added above, and sentences joined by them, were not in the draft checked)
        shown = draft.model_copy(
            update={
                "short_answer": "",
                "summary": summary,
                "reasoning": reasoning,
                "preliminary_answer": preliminary,
            }
        )
        late = self._contradictions(inquiry.question, shown, sources)
        if late:
            log.warning(
                "removed %d claim(s) of the finished report that their sources contradict",
                len(late),
                extra={"contract": self.contract.contract_id, "claims": [c.describe() for c in late]},
            )
            shown = _without_claims(shown, late)
            summary, reasoning, preliminary = shown.summary, shown.reasoning, shown.preliminary_answer
            draft = draft.model_copy(update={"gaps": shown.gaps})
            checked.removed_claims.extend(c.describe() for c in late)
            if bottom_line is not None and supported:  # the answer still answers what was asked
                preliminary = _with_value(preliminary, bottom_line, kind.question)
        if supported and not preliminary.strip():  # every sentence drafted was contradicted
            preliminary = STATEMENTS_REMOVED
        if supported and not summary.strip():  # the summary states the bottom line that stands
            summary = bottom_line.text() if bottom_line is not None else STATEMENTS_REMOVED
        reason = "not addressed" if not addressed else (stop or "turn limit")
        report = Report(
            question=inquiry.question,
            short_answer=bottom_line,
            title=draft.title,
            summary=summary,
            reasoning=reasoning,
            preliminary_answer=preliminary,
            gaps=draft.gaps,
            sources=sources,
            addressed=addressed,
            metadata=ReportMetadata(
                contract_id=self.contract.contract_id,
                file_name=self.contract.file_name,
                turns_used=turns_used,
                max_turns=inquiry.max_turns,
                questions_asked=[f.question for f in session],
                stopped_because=reason,
                confidence=draft.confidence,
                models=usage.models,
                llm_calls=usage.calls,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                seconds=seconds,
                removed_citations=checked.removed_citations,
                repaired_claims=checked.repaired_claims,
                removed_claims=checked.removed_claims,
            ),
        )
        return report, draft

    def _contradictions(self, question: str, draft: Draft, sources: list[Source]) -> list[Contradiction]:
        if self.settings.claim_check == "off":
            return []
        scorer = self.claim_scorer if self.settings.claim_check == "values+nli" else None
        texts = [draft.short_answer, draft.summary, *draft.reasoning, draft.preliminary_answer]
        return contradictions(texts, sources, question, scorer=scorer, at=self.contradiction_at)

    def _verified(
        self,
        question: str,
        draft: Draft,
        sources: list[Source],
        completed: Callable[[Draft], Draft],
    ) -> Checked:
        """The draft and sources after the checks of citations and claims: one repair naming
        every failure, then removal of what still fails (described in the report's metadata).
        ``completed`` adds back to the repaired draft what the report adds to every draft (the
        parts' lines: the writer's repair rewrites the whole draft, and a small writer drops
        them), so that what is added is checked, and a line removed stays removed."""
        verifier = self.contract.verifier
        failures = check(draft, sources, verifier)
        valid = [s for s in sources if s.number not in failures.bad_sources]
        contradicted = self._contradictions(question, draft, valid)
        if not failures and not contradicted:
            return Checked(draft, sources)
        problems = failures.describe() + [c.describe() for c in contradicted]
        log.info(
            "report checks failed, asking for one repair",
            extra={"contract": self.contract.contract_id, "failures": problems},
        )
        messages = load_prompt("report_repair").messages(
            draft=draft_text(draft),
            sources=sources_text(sources),
            failures="\n".join(f"- {f}" for f in problems),
        )
        first = contradicted
        try:
            draft = completed(invoke_structured(self.writer, messages, Draft))
            failures = check(draft, sources, verifier)
            valid = [s for s in sources if s.number not in failures.bad_sources]
            contradicted = self._contradictions(question, draft, valid)
        except StructuredOutputError as error:
            log.warning("report repair unreadable, failing statements are removed: %s", error)
        remaining = {c.claim for c in contradicted}
        repaired = [c.describe() for c in first if c.claim not in remaining]
        if failures:
            log.warning(
                "removed %d unverifiable citation(s) from the report",
                len(failures.describe()),
                extra={"contract": self.contract.contract_id, "failures": failures.describe()},
            )
            draft = remove_failures(draft, failures)
            sources = [s for s in sources if s.number not in failures.bad_sources]
        if contradicted:
            log.warning(
                "removed %d claim(s) their sources contradict",
                len(contradicted),
                extra={"contract": self.contract.contract_id, "claims": [c.describe() for c in contradicted]},
            )
            draft = _without_claims(draft, contradicted)
        return Checked(draft, sources, failures.describe(), repaired, [c.describe() for c in contradicted])


@dataclass
class Checked:
    """A draft after the report checks, and what they changed."""

    draft: Draft
    sources: list[Source]
    removed_citations: list[str] = field(default_factory=list)
    repaired_claims: list[str] = field(default_factory=list)
    removed_claims: list[str] = field(default_factory=list)


def _with_unanswered_parts(draft: Draft, parts: list[str], session: list[Finding]) -> Draft:
    """The draft with a gap for each part of the question that no finding answered with a
    verified citation (a part the turns did not reach, or one the contract did not answer)."""
    answered = {f.question for f in session if f.citations and f.addressed}
    missing = [p for p in parts if p not in answered]
    if not missing:
        return draft
    gaps = [*draft.gaps, *(f"Not answered from the contract yet: {part}" for part in missing)]
    return draft.model_copy(update={"gaps": list(dict.fromkeys(gaps))})


def _as_to(question: str) -> str:
    """The lead of an answer's line on ``question``: "As to what exceptions apply:"."""
    return f"As to {question[:1].lower()}{question[1:]}".rstrip("?,; ") + ":"


def _part_sources(
    part: str, session: list[Finding], sources: list[Source]
) -> tuple[Finding | None, list[int]]:
    """The finding that answered ``part`` with verified citations, and its source numbers."""
    for finding in session:
        if finding.question == part and finding.addressed and finding.citations:
            spans = {c.span for c in finding.citations}
            return finding, [s.number for s in sources if s.span in spans]
    return None, []


def _with_part_answers(
    draft: Draft, parts: list[str], session: list[Finding], sources: list[Source]
) -> Draft:
    """The draft with a line in the preliminary answer for each part of the question whose
    finding it leaves out: the Researcher's answer to that part, with the part's sources. The
    1.5B writer often answers the first part only ("how long ...") and drops "what exceptions
    apply?" although a turn found them; the line is checked with every other claim."""
    lines = []
    cited = {int(n) for n in REFERENCE.findall(draft.preliminary_answer)}
    for part in parts:
        finding, numbers = _part_sources(part, session, sources)
        if finding is None or not numbers or cited & set(numbers):
            continue
        answer = " ".join(REFERENCE.sub("", finding.answer).split()).rstrip(" .")
        refs = " ".join(f"[{n}]" for n in numbers)
        if answer.endswith(":") or len(answer.split()) < 4:
            # a lead-in ("The following exceptions apply:") says nothing by itself: the line
            # quotes the part's fullest source, the clause with its list, and points to the rest
            fullest = max((s for s in sources if s.number in numbers), key=lambda s: len(s.quote))
            others = " ".join(f"[{n}]" for n in numbers if n != fullest.number)
            quoted = evidence_findings([fullest], quote_chars=LIST_QUOTE_CHARS)[0]
            lines.append(f"{_as_to(part)} {quoted}" + (f"; see also {others}." if others else "."))
        else:
            lines.append(f"{_as_to(part)} {answer} {refs}.")
    if not lines:
        return draft
    return draft.model_copy(
        update={"preliminary_answer": " ".join([draft.preliminary_answer, *lines]).strip()}
    )


def _with_value(preliminary: str, bottom_line: ShortAnswer, asked: str) -> str:
    """The preliminary answer, opened with the value the value reader read when it states no
    such value (the writer answered another part only, or its sentence was removed as
    contradicted): the answer must answer what was asked."""
    if (
        bottom_line.decided_by != "value reader"
        or bottom_line.value_type not in NUMERIC_VALUES
        or states_value(preliminary, bottom_line)
    ):
        return preliminary  # a law is named in too many ways ("England", "English law") to tell
    rest = preliminary.strip()
    rest = rest[:1].upper() + rest[1:]  # its own sentence, not the tail of the value's
    return f"{_as_to(asked)} {bottom_line.text()}. {rest}".strip()


def _with_grounds(
    reasoning: list[str], numbers: list[int], sources: list[Source], limit: int | None = None
) -> list[str]:
    """The findings, with what the sources ``numbers`` say (the ``limit`` longest of them: a whole
    clause states more than a fragment of it) where no finding cites them yet. The short answer
    rests on its sources (the value reader's sentence, the classifier's evidence) and a part of
    the question on its finding's, so the reasoning must show them, qualifications and lists
    included ("survive ... for three (3) years; however, obligations relating to trade secrets
    continue ...", "(a) is or becomes generally available ...")."""
    cited = {int(n) for item in reasoning for n in REFERENCE.findall(item)}
    chosen = sorted((s for s in sources if s.number in numbers), key=lambda s: -len(s.quote))[:limit]
    missing = sorted((s for s in chosen if s.number not in cited), key=lambda s: s.number)
    return [*reasoning, *evidence_findings(missing, quote_chars=LIST_QUOTE_CHARS)] if missing else reasoning


def _without_claims(draft: Draft, contradicted: list[Contradiction]) -> Draft:
    """The draft without the contradicted sentences, each gap stated."""
    gaps = [
        *draft.gaps,
        *(
            f"A statement was removed because source [{c.source}] contradicts it ({c.reason}); "
            "the point should be researched again."
            for c in contradicted
        ),
    ]
    cleaned = rewrite_texts(draft, lambda text: remove_claims(text, contradicted))
    return cleaned.model_copy(update={"gaps": list(dict.fromkeys(gaps))})
