"""Conditions a sentence says are not needed ("without notice", "no consent is required"), and
whether another text imposes them.

Rule "a dropped condition": a sentence that does without a condition its source imposes states
the opposite of that source. "Either party may terminate without notice" against "terminate ...
only by giving ninety (90) days' prior written notice" shares every word with it but one, so word
overlap and a sentence classifier both read it as a restatement; it is a contradiction. The same
rule keeps a question ("Can either party terminate without notice?") from the decider of a
provision defined by that condition (termination for convenience is ending the contract *by
giving notice*): its presence does not settle the question.

Only conditions a clause grants or withholds are read (:data:`CONDITIONS`): "without limitation"
and "without prejudice" are drafting formulas, not conditions.
"""

from __future__ import annotations

import re

#: The conditions a clause can impose on an act, each with the word forms that name it.
CONDITIONS: dict[str, tuple[str, ...]] = {
    "notice": ("notice", "notices", "notify", "notifies", "notifying", "notified", "notification"),
    "consent": ("consent", "consents", "consented"),
    "approval": ("approval", "approvals", "approve", "approves", "approved"),
    "cause": ("cause",),
    "payment": ("payment", "payments", "paying", "pay"),
    "penalty": ("penalty", "penalties"),
    "fee": ("fee", "fees"),
    "compensation": ("compensation", "compensate"),
    "cure": ("cure", "remedy"),
}
_NAMES = {form: condition for condition, forms in CONDITIONS.items() for form in forms}
_FORMS = "|".join(sorted(_NAMES, key=len, reverse=True))
#: Words that may stand between "without" (or "no") and the condition: "without giving any
#: prior written notice", "without the other party's consent", "without having to pay a fee".
_FILLER = (
    r"(?:(?:giving|having|to|give|obtaining|obtain|first|any|prior|advance|written|further|the|a|an|its|"
    r"their|our|your|his|her|other|party'?s|parties'?|such|reasonable|formal|express|need(?:ing)?|"
    r"for|of|seeking|making|incurring|liability|or|[a-z]+['’]s|[a-z]+s['’])\s+){0,6}"
)
_WITHOUT = re.compile(rf"\bwithout\s+{_FILLER}(?P<form>{_FORMS})\b", re.IGNORECASE)
_NOT_NEEDED = re.compile(
    rf"\bno\s+{_FILLER}(?P<form>{_FORMS})\s+(?:is\s+|shall\s+be\s+|being\s+)?(?:required|needed|necessary)\b"
    rf"|\bneed\s+not\s+(?:\w+\s+){{0,3}}?{_FILLER}(?P<need>{_FORMS})\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z]+", re.IGNORECASE)
#: A word that forbids the act "without" qualifies: "Neither Party may assign ... without the
#: prior written consent" requires consent; it does not do without it.
_FORBIDS = re.compile(
    r"\b(?:not|no|neither|nor|never|cannot|can't|won't|mustn't|shan't|prohibited|barred|forbidden|unable)\b",
    re.IGNORECASE,
)
#: Where a clause of a sentence begins, for the reach of a forbidding word.
_CLAUSE_START = re.compile(r"[.;:?!]\s")


def _forbidden(text: str, at: int) -> bool:
    """Whether the act a "without" at ``at`` qualifies is forbidden in its clause."""
    starts = [m.end() for m in _CLAUSE_START.finditer(text, 0, at)]
    return _FORBIDS.search(text, starts[-1] if starts else 0, at) is not None


def dropped_conditions(text: str) -> set[str]:
    """The conditions ``text`` says an act does without ("may terminate without notice" ->
    {"notice"}); a forbidden act's "without" requires the condition instead ("may not assign
    without consent")."""
    found = {
        _NAMES[m.group("form").lower()] for m in _WITHOUT.finditer(text) if not _forbidden(text, m.start())
    }
    for match in _NOT_NEEDED.finditer(text):
        form = match.group("form") or match.group("need")
        found.add(_NAMES[form.lower()])
    return found


def names(text: str, condition: str) -> bool:
    """Whether ``text`` names ``condition`` in any of its forms ("notify" names notice)."""
    forms = CONDITIONS[condition]
    return any(word.lower() in forms for word in _WORD.findall(text))


def imposes(text: str, condition: str) -> bool:
    """Whether ``text`` names ``condition`` and never does without it: a source that speaks of
    notice only as "by giving ninety (90) days' notice" imposes it; one that says "without notice"
    anywhere does not (it may say both of different acts, and then it is no contradiction)."""
    return names(text, condition) and condition not in dropped_conditions(text)


def contradicted_conditions(claim: str, source: str) -> list[str]:
    """The conditions ``claim`` does without that ``source`` imposes (rule "a dropped condition")."""
    return sorted(c for c in dropped_conditions(claim) if imposes(source, c))
