"""Where a question goes: the known provision whose decider settles it, taken which way round.

A route is a known provision (a CUAD category, an NDA topic) and a polarity: "present" when the
answer "yes" means the contract has the provision ("Is there a non-compete?"), "absent" when it
means the contract does not ("Are we free to work with their competitors?"). The decider decides
the provision and reads the verdict the question's way round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from tools.decision.matching import KnownProvision, ProvisionMatcher
from tools.question_kind import question_kind

Polarity = Literal["present", "absent"]
#: Value kinds that one CUAD category holds, whatever else the question says (rule "value kinds
#: one provision holds": "Who signed it?" asks for the parties however it is worded).
SINGLE_HOLDER = {"party": "Parties", "law": "Governing Law"}


@dataclass(frozen=True)
class Route:
    """A question's provision, its polarity, and how sure the router is (its probability, or the
    similarity of the matcher's best text)."""

    provision: KnownProvision
    polarity: Polarity = "present"
    confidence: float = 0.0
    runner_up: float = 0.0


class QuestionRouter(Protocol):
    def route(self, question: str) -> Route | None:
        """The route of ``question``, or None when no known provision is what it asks about."""
        ...


class MatcherRouter:
    """Routes by the embedding matcher's hand rules (:mod:`tools.decision.matching`)."""

    def __init__(self, matcher: ProvisionMatcher) -> None:
        self.matcher = matcher
        self.provisions = matcher.provisions

    def route(self, question: str) -> Route | None:
        kind = question_kind(question)
        if kind.form == "free":
            match = self.matcher.match(question, family="cuad", answer=True)
        elif kind.form == "value":
            match = self.matcher.match(question, family="cuad", answer=True) or self.matcher.match(
                question, family="cuad"
            )
            held_by = SINGLE_HOLDER.get(kind.value or "")
            if match is None and held_by is not None:
                provision = next(
                    (p for p in self.provisions if p.family == "cuad" and p.name == held_by), None
                )
                return Route(provision) if provision is not None else None
        elif kind.form == "verdict":
            match = self.matcher.match(question)
            if kind.hypothesis and (match is None or match.provision.family != "cuad"):
                # "does the agreement provide that X?": the NDA topic X is about, in the user's words
                match = self.matcher.match(kind.hypothesis, family="nda", qualifiers=False)
        else:
            return None
        if match is None:
            return None
        return Route(match.provision, "present", match.similarity, match.runner_up)
