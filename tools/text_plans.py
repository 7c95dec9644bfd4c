"""Open questions planned from the contract's own text: which sentences answer them, found by
reading every sentence rather than by similarity to the question.

Some open questions ask for a list the contract spreads over many clauses (what each party must
do, every way to end the contract); retrieval finds the passages most like the question and
misses the rest. Each plan here is a named rule with a recogniser for its questions and a reader
of the contract's sentences; :func:`plan_for` picks the first plan that recognises a question.
The Researcher cites the planned sentences in the contract's words (:mod:`agents.researcher`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

from clausewise.core.domain import ClauseTree, Span
from tools.after_the_end import after_the_end, asks_after_the_end
from tools.party_duties import asks_each_partys_duties, party_duties
from tools.payment_terms import asks_payment_terms, payment_articles, payment_terms
from tools.question_kind import asks_for_an_account, looks_compound, question_kind
from tools.structure.sentences import clause_bodies
from tools.subject_plans import SUBJECTS, Subject, subject_sentences
from tools.termination_rights import asks_termination_rights, termination_rights
from tools.warranties_given import asks_warranties, warranties_given


class TextPlan(Protocol):
    """A rule that answers one kind of open question from the contract's sentences."""

    rule: str

    def asks(self, question: str) -> bool:
        """Whether ``question`` is of the kind this plan answers."""
        ...

    def spans(self, text: str, tree: ClauseTree | None) -> list[Span]:
        """The sentences of ``text`` that answer, in the order the answer shows them, read within
        the own texts of ``tree``'s clauses (:func:`tools.structure.sentences.clause_bodies`), or
        over the whole text when there is no tree."""
        ...


def _units(text: str, tree: ClauseTree | None) -> list[Span]:
    return clause_bodies(text, tree) if tree is not None else []


@dataclass(frozen=True)
class EachPartysDuties:
    """Rule "each party's duties" (:mod:`tools.party_duties`)."""

    rule: str = "each party's duties"

    def asks(self, question: str) -> bool:
        return asks_each_partys_duties(question)

    def spans(self, text: str, tree: ClauseTree | None) -> list[Span]:
        return [duty.span for duty in party_duties(text, _units(text, tree))]


@dataclass(frozen=True)
class EveryGroundToTerminate:
    """Rule "every ground to terminate" (:mod:`tools.termination_rights`)."""

    rule: str = "every ground to terminate"

    def asks(self, question: str) -> bool:
        return asks_termination_rights(question)

    def spans(self, text: str, tree: ClauseTree | None) -> list[Span]:
        return [ground.span for ground in termination_rights(text, _units(text, tree))]


@dataclass(frozen=True)
class EveryWarrantyGiven:
    """Rule "every warranty given" (:mod:`tools.warranties_given`)."""

    rule: str = "every warranty given"

    def asks(self, question: str) -> bool:
        return asks_warranties(question)

    def spans(self, text: str, tree: ClauseTree | None) -> list[Span]:
        return [warranty.span for warranty in warranties_given(text, _units(text, tree))]


@dataclass(frozen=True)
class WhatFollowsTheEnd:
    """Rule "what follows the end" (:mod:`tools.after_the_end`)."""

    rule: str = "what follows the end"

    def asks(self, question: str) -> bool:
        return asks_after_the_end(question)

    def spans(self, text: str, tree: ClauseTree | None) -> list[Span]:
        return after_the_end(text, _units(text, tree))


@dataclass(frozen=True)
class ThePaymentTerms:
    """Rule "the payment terms" (:mod:`tools.payment_terms`): sentences in an article whose title
    names payment need only be on payment."""

    rule: str = "the payment terms"

    def asks(self, question: str) -> bool:
        return asks_payment_terms(question)

    def spans(self, text: str, tree: ClauseTree | None) -> list[Span]:
        articles = payment_articles(tree) if tree is not None else []
        return payment_terms(text, _units(text, tree), articles)


@dataclass(frozen=True)
class ASubjectsOwnSentences:
    """Rule "a subject's own sentences" (:mod:`tools.subject_plans`): an open question on one
    subject (liability, intellectual property, disputes, notices, assignment, amendment,
    confidentiality) is answered by the sentences the clause tree and the contract's words put on
    it. Bound to its ``question`` by :func:`plan_for`, since a question may ask some of the
    subject's aspects only ("How long ..., and what exceptions apply?")."""

    subject: Subject
    question: str = ""

    @property
    def rule(self) -> str:
        return f"a subject's own sentences ({self.subject.name})"

    def asks(self, question: str) -> bool:
        """A question naming the subject, open ("How is liability limited?"), compound ("How long
        ..., and what exceptions apply?") or asked as yes or no ("Is either party's liability capped
        or excluded?": composed from the plan only where no decider settles it,
        :func:`composed_from_the_text`, under the decider's abstention); not a hypothesis to check
        ("Does the agreement provide that ...?" is its decider's) nor one value ("What is the
        governing law?" is the value reader's)."""
        if not self.subject.asked.search(question):
            return False
        kind = question_kind(question)
        if kind.hypothesis:
            return False
        return asks_for_an_account(question) or kind.form == "verdict" or looks_compound(question)

    def spans(self, text: str, tree: ClauseTree | None) -> list[Span]:
        return subject_sentences(self.subject, self.question, text, tree)


def text_plans() -> tuple[TextPlan, ...]:
    """Every plan, in the order they are tried: what follows the end before each party's duties
    ("What are each party's obligations after termination?" asks what the end leaves them); the
    plans of one subject last (a question on the payment terms or the grounds to terminate has
    its own plan)."""
    return (
        WhatFollowsTheEnd(),
        EachPartysDuties(),
        EveryGroundToTerminate(),
        EveryWarrantyGiven(),
        ThePaymentTerms(),
        *(ASubjectsOwnSentences(subject) for subject in SUBJECTS),
    )


def plan_for(question: str) -> TextPlan | None:
    """The first plan that recognises ``question``, bound to it where the plan reads the
    question's words; None when retrieval alone answers it."""
    plan = next((plan for plan in text_plans() if plan.asks(question)), None)
    if isinstance(plan, ASubjectsOwnSentences):
        return replace(plan, question=question)
    return plan


def answered_by_its_plan(question: str) -> bool:
    """Rule "a plan answers its open question": an open question a plan recognises ("What does the
    contract warrant, and are any warranties disclaimed?", "How much is paid, and when?") is
    researched by its plan and composed from the plan's sentences even when a decider reads a
    value for it; the value is its short answer. Before the rule a value reader's "ninety (90) days"
    (the warranty's duration) took the warranties question off the plan: on the open-question
    bank's tune half it ran 3 turns and 12 model calls, 732 s, and "How much is paid, and when?"
    9 and 10 calls. A question asked as yes or no ("Can either party end this contract early, and
    how?") keeps its decider's verdict and explanation when settled."""
    return plan_for(question) is not None and question_kind(question).form != "verdict"


def asked_as_yes_or_no_alone(question: str) -> bool:
    """Whether ``question`` is asked as yes or no and asks nothing more ("Can this agreement be
    assigned?", not "Can either party end this contract early, and how?")."""
    return question_kind(question).form == "verdict" and not looks_compound(question)


def composed_from_the_text(question: str, decided: bool) -> bool:
    """Whether ``question`` is answered from its verified sentences, each restated or quoted,
    rather than by the writer's draft: an open question ("What are the termination rights?") that
    no decider answered (``decided``), and any question a plan recognises, decided or not.

    Rule "a planned question is composed": "Can either party end this contract early, and how?"
    had been drafted by the writer per turn; on the open-question bank's tune half its two reports
    ran 3 turns, 12 model calls and 306 and 340 s, and each ended "not addressed" though the plan
    had found every gold clause. Rule "a verdict shows what the contract says on it": a question
    asked as yes or no that a decider settles ("Can this agreement be assigned?": "Yes [1]") keeps
    its verdict as the short answer, and its account is the plan's sentences, not the writer's
    paraphrase of the one clause the decider grounded the verdict on. Before the rule, the tune
    half's five assignment reports each cited that one clause: 5 of the 19 gold clauses, where the
    assignment plan reaches 15 (a party's own right to assign, change of control, successors and
    assigns). The graph's routing and the report's restate pass both ask this."""
    return plan_for(question) is not None or (asks_for_an_account(question) and not decided)
