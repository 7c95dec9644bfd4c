"""Playbook review of one contract: each position of the firm's playbook decided against the
contract, with the clause quoted, the verdict, its risk and, for a deviation or a missing
clause, the smallest edit that brings the contract to the position.

One pipeline per position, an explicit ordered list of steps, each run once
(:meth:`PlaybookReviewer.review`):

1. **find** the decider for the position's clause type: a CUAD category the presence classifier
   covers, or, for a requirement worded as a hypothesis, the hypothesis classifier; a position
   no decider covers is refused ("not covered"), never guessed;
2. **decide** the standard and each fallback with that decider (:mod:`agents.decider`): presence,
   the value read from the clauses holding the provision, or the hypothesis ruling;
3. **judge** the outcomes against the requirements (:mod:`tools.playbook.outcomes`): an unsure
   decider refuses the position as ambiguous;
4. **redline** a deviation or a missing clause (:mod:`tools.playbook.redlines`), re-deciding a
   value edit with the same value reader on the edited text;
5. **state** the verdict in one sentence built from the verified quote and the position.

No language model is asked: the review is quick and every verdict rests on a verified span.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from agents.decider import CATEGORY_VALUE, AnswerDecider
from clausewise.core.domain import RetrievalQuery, Span
from clausewise.core.results import (
    Decision,
    PlaybookCitation,
    PositionReview,
    Redline,
    RedlineEdit,
    VerifiedCitation,
)
from indexes.store import ContractIndex
from tools.checks.pieces import trimmed
from tools.decision.catalogue import KnownProvision
from tools.playbook.outcomes import outcome, verdict
from tools.playbook.positions import Playbook, Position, Requirement
from tools.playbook.redlines import (
    Edit,
    apply_edits,
    deletions,
    duration_words,
    insertion,
    next_label,
    normalized_duration,
    word_edits,
)
from tools.retrieval.contract_retriever import ContractRetriever
from tools.structure.sentences import sentence_spans
from tools.value_reading import value_readings

#: The value kinds a requirement's form is read as.
_VALUE_KIND = {"law": "law", "duration": "duration"}


def _known(catalogue: Sequence[KnownProvision], clause: str) -> KnownProvision | None:
    wanted = clause.strip().lower()
    return next((p for p in catalogue if p.family == "cuad" and p.name.lower() == wanted), None)


class PlaybookReviewer:
    def __init__(
        self,
        playbook: Playbook,
        decider: AnswerDecider,
        index: ContractIndex,
        retriever: ContractRetriever,
        catalogue: Sequence[KnownProvision],
        strike_at: float = 0.5,
    ) -> None:
        """``decider`` settles what the contract says; ``retriever`` finds where a missing clause
        belongs; ``catalogue`` holds the known provisions (CUAD's categories) positions name;
        a forbidden provision is struck from every clause whose own calibrated probability of
        holding it is at least ``strike_at`` (``playbook.strike_at``: striking only the deciding
        sentence left it in other clauses, 8 of 19 struck positions on the tune half)."""
        self.playbook = playbook
        self.decider = decider
        self.index = index
        self.retriever = retriever
        self.catalogue = catalogue
        self.strike_at = strike_at

    # -- the pipeline -----------------------------------------------------------------------------

    def review(self, position: Position) -> PositionReview:
        started = time.perf_counter()
        provision = self._provision(position)
        if provision is None:
            review = self._not_covered(position)
        else:
            decisions = self._decide(position, provision)
            outcomes = [outcome(r, d) for r, d in zip(self._requirements(position), decisions, strict=True)]
            found, fallback = verdict(outcomes[0], outcomes[1:])
            deciding = decisions[fallback or 0]
            cited = self._cite_position(position, fallback)
            review = PositionReview(
                position_id=position.id,
                clause=position.clause,
                verdict=found,
                fallback=fallback,
                risk=position.risk,
                rationale=self._rationale(position, found, fallback, deciding, cited.requirement),
                citations=_cited(found, deciding),
                playbook=cited,
                decided_by=deciding.decided_by,
                confidence=deciding.confidence,
                guidance=position.guidance,
                redline=self._redline(position, provision, found, decisions[0]),
            )
        return review.model_copy(update={"seconds": round(time.perf_counter() - started, 2)})

    # -- 1. find ------------------------------------------------------------------------------------

    def _provision(self, position: Position) -> KnownProvision | None:
        known = _known(self.catalogue, position.clause)
        if known is not None and self.decider.covers(known):
            return known
        if position.standard.form == "hypothesis":
            # the hypothesis classifier rules the position's own words, whatever its clause type
            return KnownProvision(key=f"playbook:{position.id}", family="nda", name=position.clause, texts=())
        return None

    def _not_covered(self, position: Position) -> PositionReview:
        return PositionReview(
            position_id=position.id,
            clause=position.clause,
            verdict="refused_not_covered",
            risk=position.risk,
            rationale=f'No decider covers the clause type "{position.clause}" with a '
            f"{position.standard.form} requirement; word the position as a hypothesis or name a CUAD "
            "category.",
            playbook=self._cite_position(position, None),
            guidance=position.guidance,
        )

    # -- 2. decide ----------------------------------------------------------------------------------

    @staticmethod
    def _requirements(position: Position) -> list[Requirement]:
        return [position.standard, *position.fallbacks]

    def _question(self, position: Position, provision: KnownProvision) -> str:
        if position.question:
            return position.question
        return (
            provision.texts[-1]
            if provision.texts
            else f"Does the contract contain a {position.clause} clause?"
        )

    def _decide(self, position: Position, provision: KnownProvision) -> list[Decision]:
        """One decision per requirement: the standard's form is the fallbacks' too, so presence and
        values are decided once and shared; each hypothesis is ruled in its own words."""
        question = self._question(position, provision)
        form = position.standard.form
        if form == "hypothesis":
            return [
                self.decider.decide_hypothesis(question, provision, r.hypothesis or "")
                for r in self._requirements(position)
            ]
        if form == "require":
            decision = self.decider.decide_presence(question, provision)
        else:
            decision = self.decider.decide_value(question, provision, self._value_kind(position, provision))
        return [decision] * (1 + len(position.fallbacks))

    @staticmethod
    def _value_kind(position: Position, provision: KnownProvision) -> str:
        if position.standard.form == "law":
            return "law"
        category = CATEGORY_VALUE.get(provision.name, "")
        return category if category in ("duration", "notice period") else "duration"

    # -- 4. redline ---------------------------------------------------------------------------------

    def _redline(
        self, position: Position, provision: KnownProvision, found: str, decision: Decision
    ) -> Redline | None:
        if found not in ("deviation", "missing"):
            return None
        text = self.index.document.text
        standard = position.standard
        if found == "missing" or (standard.form == "hypothesis" and not decision.grounds):
            if not position.preferred_text:
                return None
            at, label = self._insertion_point(position, decision.question)
            new_text = f"{label} {position.preferred_text}" if label else position.preferred_text
            edits = [insertion(at, new_text)]
            return self._as_redline("insert", edits, standard)
        if standard.form == "require":  # a forbidden clause is present: the clauses holding it go
            held = self.decider.clauses_holding(provision, self.strike_at)
            spans = held or [g.span for g in decision.grounds]
            sentences = [s for a, b in spans for s in sentence_spans(text, a, b)]
            return self._as_redline("delete", deletions(sentences), standard) if sentences else None
        if standard.form in ("law", "duration"):
            return self._value_redline(position, decision)
        if position.preferred_text and decision.grounds:  # a hypothesis contradicted: rewrite
            ground = decision.grounds[0]
            return self._as_redline(
                "rewrite", word_edits(text, ground.span, position.preferred_text), standard
            )
        return None

    def _as_redline(
        self, kind: str, edits: list[Edit], requirement: Requirement, satisfies: bool | None = None
    ) -> Redline:
        text = self.index.document.text
        return Redline(
            kind=kind,  # type: ignore[arg-type]
            edits=[
                RedlineEdit(span=(e.start, e.end), deleted=text[e.start : e.end], inserted=e.insert)
                for e in edits
            ],
            target=requirement.describe(),
            satisfies=satisfies,
        )

    def _value_redline(self, position: Position, decision: Decision) -> Redline | None:
        """The value the decision read, replaced by the standard's, and the edited sentence read
        again by the same value reader: the redline satisfies the position only if the value
        read from the edited text meets the standard."""
        if not decision.grounds:
            return None
        text = self.index.document.text
        sentence = decision.grounds[0].span
        kind = decision.value_type or _VALUE_KIND[position.standard.form]
        reading = next(
            (
                r
                for r in value_readings(decision.question, kind, text, [sentence])
                if r.mention.normalized == decision.normalized
            ),
            None,
        )
        if reading is None:
            return None
        standard = position.standard
        if standard.form == "law":
            replacement = (standard.law or [""])[0]
        else:
            assert standard.duration is not None
            bound = standard.duration.at_least or standard.duration.at_most or ""
            replacement = duration_words(normalized_duration(bound), reading.mention.text)
        start = reading.span[0] + reading.mention.span[0]
        edit = Edit(start, start + len(reading.mention.text), replacement)
        edited = apply_edits(text, [edit])
        shift = len(replacement) - len(reading.mention.text)
        again = value_readings(decision.question, kind, edited, [(sentence[0], sentence[1] + shift)])
        satisfies = False
        if again:
            redecided = decision.model_copy(update={"normalized": again[0].mention.normalized})
            satisfies = outcome(standard, redecided) == "meets"
        return self._as_redline("value", [edit], standard, satisfies)

    def _insertion_point(self, position: Position, question: str) -> tuple[int, str]:
        """Where a missing clause goes, and the number it takes: at the end of the top-level
        section holding the passage retrieval ranks first for the clause type's name and question
        (a lawyer adds a termination right to the termination article), numbered after that
        section's last numbered clause; the end of the contract's text when retrieval finds
        nothing. The clause type's words find its neighbours better than the preferred text,
        whose party names and details are the firm's, not the contract's."""
        query = f"{position.clause}: {question}"
        hits = self.retriever.search(RetrievalQuery(question=query, semantic=query), 1, expand=False)
        tree = self.index.tree
        text = self.index.document.text
        if not hits:
            return trimmed(text, (0, len(text)))[1], ""
        node = tree.smallest_containing(hits[0].span)
        chain = [*tree.ancestors(node.id), node]  # the top-level section first
        sections = [n for n in chain if n.depth >= 1]
        anchor = sections[0] if sections else node
        numbered = [c.label for c in tree.children(anchor.id) if c.label]
        return trimmed(text, anchor.span)[1], next_label(numbered[-1]) if numbered else ""

    # -- re-deciding an edit (a drafted redline is kept only if it holds) ------------------------

    def redecided(self, position: Position, edits: Sequence[Edit], clause: Span) -> bool | None:
        """Whether the contract with ``edits`` (all inside ``clause``) meets the position's
        standard or a fallback, deciding the edited clause again with the deciders that decided
        the position: the presence classifier's calibrated bands over the contract with the
        clause's words scored afresh, the value reader on its sentence, the NLI classifier on its
        words.
        None when no decider covers the position."""
        provision = self._provision(position)
        if provision is None:
            return None
        edited = apply_edits(self.index.document.text, edits)
        shift = sum(len(e.insert) - (e.end - e.start) for e in edits)
        words = edited[clause[0] : clause[1] + shift]
        question = self._question(position, provision)
        decisions = [
            self._edited_decision(position, provision, requirement, question, words, clause)
            for requirement in self._requirements(position)
        ]
        if any(d is None for d in decisions):
            return None
        outcomes = [outcome(r, d) for r, d in zip(self._requirements(position), decisions, strict=True)]  # type: ignore[arg-type]
        found, _ = verdict(outcomes[0], outcomes[1:])
        return found in ("meets_standard", "meets_fallback")

    def _edited_decision(
        self,
        position: Position,
        provision: KnownProvision,
        requirement: Requirement,
        question: str,
        words: str,
        clause: Span,
    ) -> Decision | None:
        """``requirement``'s decision on the edited clause's ``words`` (it stood at ``clause``)."""
        form = requirement.form
        if form == "require":
            said = self.decider.presence_after_edit(provision, clause, words)
            if said is None:
                return None
            return Decision(question=question, form="verdict", verdict=said)  # type: ignore[arg-type]
        if form == "hypothesis":
            ruled = self.decider.hypothesis_after_edit(requirement.hypothesis or "", words)
            if ruled is None:
                return None
            return Decision(question=question, form="verdict", verdict=ruled)  # type: ignore[arg-type]
        kind = self._value_kind(position, provision)
        readings = value_readings(question, kind, words, [(0, len(words))])
        if not readings:
            return Decision(question=question, form="value", verdict="unclear")
        return Decision(
            question=question, form="value", value_type=kind, normalized=readings[0].mention.normalized
        )

    # -- 5. state -----------------------------------------------------------------------------------

    def _where(self, citations: Sequence[VerifiedCitation]) -> str:
        """The clause a citation quotes, as a reader names it ("7.1 Limitation of liability")."""
        if not citations:
            return ""
        tree = self.index.tree
        node = tree.smallest_containing(citations[0].span)
        chain = [node, *reversed(tree.ancestors(node.id))]  # the nearest first
        named = next((n for n in chain if n.heading and n.depth >= 1), None)
        return named.heading if named else ""

    def _cite_position(self, position: Position, fallback: int | None) -> PlaybookCitation:
        requirement = position.fallbacks[fallback - 1] if fallback else position.standard
        return PlaybookCitation(
            playbook=self.playbook.name,
            version=self.playbook.version,
            position_id=position.id,
            requirement=requirement.describe(),
            fallback=fallback,
        )

    def _rationale(
        self,
        position: Position,
        found: str,
        fallback: int | None,
        decision: Decision,
        wanted: str,
    ) -> str:
        """One sentence: what the contract says (its verified words, or that no clause holds it)
        and what the position requires."""
        measure = f"fallback {fallback}" if fallback else "the standard"
        where = self._where(decision.grounds or decision.closest)
        if found == "refused_ambiguous":
            return (
                f"The {decision.decided_by} is not confident what the contract says about {position.clause}"
                f"{f' (closest: {where})' if where else ''}, so the position is not decided."
            )
        if found == "missing":
            return f"No clause of the contract holds {position.clause}; the standard requires {wanted}."
        verb = "meets" if found.startswith("meets") else "misses"
        if decision.form == "value" and decision.value:
            return f'{where or "The contract"} states "{decision.value}", which {verb} {measure} ({wanted}).'
        if position.standard.form == "require":
            holds = decision.verdict == "yes"
            state = (
                f"{where or 'The contract'} holds {position.clause}"
                if holds
                else f"No clause holds {position.clause}"
            )
            return f"{state}, which {verb} {measure} ({wanted})."
        ruled = {"yes": "provides", "no": "contradicts", "not addressed": "does not address"}.get(
            decision.verdict or "", ""
        )
        return f"{where or 'The contract'} {ruled} what {measure} requires ({wanted})."


def _cited(found: str, decision: Decision) -> list[VerifiedCitation]:
    """The clause a verdict rests on: the decision's grounds; for a refusal, the closest clause
    (shown as such); none where no clause holds the provision (missing, or absent as required)."""
    if decision.grounds:
        return decision.grounds
    return decision.closest[:1] if found == "refused_ambiguous" else []
