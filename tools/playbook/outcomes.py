"""What a decision means for a playbook requirement, and a position's verdict from its outcomes.

Deterministic on purpose: the deciders settle what the contract says (present, absent, the law,
the duration, a hypothesis entailed), and these rules only compare that with the position. A
decider that was not confident makes the outcome "unsure", and an unsure outcome is never turned
into a verdict: the position is refused as ambiguous (rule "a playbook never guesses").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from clausewise.core.results import Decision, PositionVerdict
from tools.playbook.positions import Requirement, duration_months
from tools.values import normalize_place

Outcome = Literal["meets", "fails", "missing", "unsure"]

#: The value types a duration requirement is read from (the decider names a value by the kind the
#: question asked for).
_DURATION_TYPES = {"duration", "notice period", "expiry"}


def outcome(requirement: Requirement, decision: Decision) -> Outcome:
    """Whether ``decision`` (the decider's on the position's clause) meets ``requirement``."""
    if decision.verdict == "unclear":
        return "unsure"
    form = requirement.form
    if form == "require":
        if decision.verdict not in ("yes", "no"):
            return "unsure"
        present = decision.verdict == "yes"
        if requirement.require == "present":
            return "meets" if present else "missing"
        return "fails" if present else "meets"
    if form == "hypothesis":
        return {"yes": "meets", "no": "fails", "not addressed": "missing"}.get(
            decision.verdict or "", "unsure"
        )  # type: ignore[return-value]
    if decision.verdict == "not addressed":
        return "missing"
    if form == "law":
        if decision.value_type != "law" or not decision.normalized:
            return "unsure"
        return "meets" if normalize_place(decision.normalized) in requirement.laws() else "fails"
    assert requirement.duration is not None
    if decision.value_type not in _DURATION_TYPES or not decision.normalized:
        return "unsure"
    try:
        months = duration_months(decision.normalized)
    except ValueError:
        return "unsure"  # a date, not a duration: nothing to compare
    return "meets" if requirement.duration.holds(months) else "fails"


def verdict(standard: Outcome, fallbacks: Sequence[Outcome]) -> tuple[PositionVerdict, int | None]:
    """The position's verdict and, for "meets_fallback", which fallback (1-based).

    The standard first; a missing clause is missing whatever the fallbacks say (they relax a
    clause's terms, not its absence); a failed standard falls back in the playbook's order, and
    an unsure outcome met before any fallback holds refuses the position."""
    if standard == "meets":
        return "meets_standard", None
    if standard == "unsure":
        return "refused_ambiguous", None
    if standard == "missing":
        return "missing", None
    for number, fallback in enumerate(fallbacks, start=1):
        if fallback == "meets":
            return "meets_fallback", number
        if fallback == "unsure":
            return "refused_ambiguous", None
    return "deviation", None
