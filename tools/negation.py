"""The negating words of a sentence, read alike by every check that compares two statements.

Why one module: the support check (a claim restating its source) and the contradiction check (a
claim the classifier reads as contradicting its own source) both accept a restatement only when
it is negated like its source. Each kept its own copy of the word list, and both lacked
"cannot": "the Receiving Party cannot show" passed as a restatement of "the Receiving Party can
show", since the two differ by one word of a dozen. One list, read by both, cannot drift.

The denials are the narrower list beside it: the words that reverse what their sentence states
("does not", "no party", "never"), counted by rule "a yes/no question restated is its answer"
(:mod:`tools.decision.support`). "unless", "except" and "without" qualify a statement without
reversing it, so they negate (a restatement must carry them alike) but do not deny.
"""

from __future__ import annotations

import re

_NEGATION = re.compile(r"\b(?:not|cannot|no|never|neither|nor|without|unless|except)\b|n't\b", re.IGNORECASE)
_DENIAL = re.compile(r"\b(?:not|cannot|no|never|neither|nor)\b|n't\b", re.IGNORECASE)


def negations(text: str) -> set[str]:
    """The negating words of ``text``, lower-cased (a set: how often each occurs does not count)."""
    return {match.lower() for match in _NEGATION.findall(text)}


def negated_alike(first: str, second: str) -> bool:
    """Whether two statements carry the same negating words."""
    return negations(first) == negations(second)


def denial_count(text: str) -> int:
    """How many words of ``text`` deny what it states ("does not ... never" counts two)."""
    return len(_DENIAL.findall(text))


def denial_ends(text: str) -> list[int]:
    """Where each denying word of ``text`` ends: what follows it is what it denies."""
    return [match.end() for match in _DENIAL.finditer(text)]
