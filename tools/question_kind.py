"""What kind of answer a question asks for: a verdict (yes / no), a value of a known type, or a
free answer; and, for a question worded as "does the agreement provide that ...?", the
hypothesis inside it, which the hypothesis classifier can decide.

Rules over the wording, not a model: the short answer's form must not depend on a model's mood,
and the rules are easy to read and to extend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

AnswerForm = Literal["verdict", "value", "list", "free"]
ValueKind = Literal["duration", "expiry", "date", "law", "amount", "party", "notice period"]

_VERDICT_START = re.compile(
    r"^(?:does|do|did|is|are|was|were|may|can|could|must|shall|should|will|would|has|have|had)\b", re.I
)
_HYPOTHESIS = re.compile(
    r"^(?:does|do|did)\s+(?:the\s+|this\s+)?(?:agreement|contract|nda|document)\s+"
    r"(?:provide|state|say|require|specify|stipulate)s?\s+that\s+(?P<hypothesis>.+?)\??$",
    re.I,
)
_VALUE_RULES: tuple[tuple[ValueKind, re.Pattern[str]], ...] = (
    (
        "notice period",
        re.compile(
            r"\b(?:how\s+much|what|how\s+many\s+days'?)\s+(?:prior\s+)?notice\b|\bnotice\s+period\b", re.I
        ),
    ),
    (
        "law",
        re.compile(
            r"\b(?:which|what)\s+(?:\w+\s+)?(?:law|jurisdiction's\s+law)s?\b|\bgoverning\s+law\b", re.I
        ),
    ),
    (
        "expiry",
        re.compile(
            r"\bexpir|\bwhen\s+(?:does|will)\s+(?:the\s+|this\s+)?(?:agreement|contract|term)\s+(?:end|terminate)\b",
            re.I,
        ),
    ),
    (
        "duration",
        re.compile(
            r"^how\s+long\b|\b(?:what|which)\s+is\s+the\s+(?:term|duration|renewal\s+term)\b|\bfor\s+how\s+long\b",
            re.I,
        ),
    ),
    (
        "date",
        re.compile(
            r"^when\b|\b(?:what|which)\s+(?:is|was)\s+the\s+(?:\w+\s+)?date\b|\bon\s+what\s+date\b", re.I
        ),
    ),
    (
        "amount",
        re.compile(
            r"^how\s+much\b|\b(?:what|which)\s+is\s+the\s+(?:\w+\s+)?(?:amount|fee|price|cap|payment)\b", re.I
        ),
    ),
    (
        "party",
        re.compile(
            r"^who\s+(?:are|is)\s+the\s+part(?:y|ies)\b|\b(?:which|what)\s+(?:are\s+the\s+)?parties\b|\bparties\s+to\b"
            r"|^(?:who|which\s+\w+)\s+(?:signed|executed|entered\s+into)\b",
            re.I,
        ),
    ),
)


#: A question asking for several things: "What exceptions apply?", "Which obligations survive?",
#: "List the termination rights" (rule ``list question``): no single verdict or value answers it.
_LIST = re.compile(
    r"^(?:list|enumerate|name\s+(?:the|all|every))\b"
    r"|^(?:what|which)\s+(?:(?:other|are|were)\s+)?(?:the\s+)?(?:\w+\s+)?(?!does\b|is\b|was\b|has\b|means\b)"
    r"(?:\w+(?:ions|ies|ts|ns|ses|ges|ds|ks|ps|ls|rs))\b(?:\s+(?:apply|are|exist|survive|does|do|must|can|may|of|to|under|in))",
    re.I,
)
#: Where a question asks two things ("How long ..., and what exceptions apply?", "Who may ...?
#: When ...?") (rule ``compound question``): its parts are researched one per turn.
_COMPOUND = re.compile(
    r"[,;]\s*(?:and|or|as\s+well\s+as)\s+(?:what|which|how|when|who|whom|whether|where|why|is|are|does|do|can|may|must)\b"
    r"|\?\s+\S",
    re.I,
)


#: A later part of a question that asks for a value: "..., and for how long?", "If so, how long is
#: each renewal term?", "..., and which one?" (rule ``a verdict and a value``).
_VALUE_PART = re.compile(
    r"^(?:(?:and|or)\s+)?(?:if\s+so,?\s+)?(?:for\s+|until\s+|by\s+|under\s+|in\s+)?"
    r"(?:what|which|how\s+(?:long|much|many|far)|when|whose|who)\b",
    re.I,
)
_PARTS = re.compile(r"[,;]\s+(?=(?:and|or)\s)|\?\s+")


def value_asked_too(question: str) -> QuestionKind | None:
    """For a yes/no question that also asks for a value ("Does it renew automatically, and for how
    long?"), the kind of that value (its ``value`` None when the words name no kind: "..., and
    which one?" asks for the provision's own); None when the question asks no value after its
    verdict (rule "a verdict and a value")."""
    text = " ".join(question.split()).strip()
    parts = [p.strip(" ,;?") for p in _PARTS.split(text) if p.strip(" ,;?")]
    for part in parts[1:]:
        if _VALUE_PART.match(part):
            asked = re.sub(r"^(?:(?:and|or)\s+)?(?:if\s+so,?\s+)?", "", part, flags=re.I) + "?"
            kind = question_kind(asked[:1].upper() + asked[1:])
            return QuestionKind("value", kind.value if kind.form == "value" else None, question=asked)
    return None


#: A question's words for what follows an end rather than when or how it comes: "What are the
#: consequences of termination or expiry?", "What obligations survive expiry?".
_WHAT_FOLLOWS_AN_END = re.compile(
    r"\b(?:consequences?|effects?|happens?|surviv\w*|after|upon|following|post[-\s]?termination|"
    r"wind[-\s]?down)\b|\bon\s+(?:termination|expiry|expiration)\b",
    re.IGNORECASE,
)


def asks_what_follows_an_end(question: str) -> bool:
    """Whether ``question`` names what follows an end ("consequences", "survive", "upon
    termination"): it asks what the end does, not when the contract expires or how it may be
    ended."""
    return bool(_WHAT_FOLLOWS_AN_END.search(question))


def looks_compound(question: str) -> bool:
    """Whether ``question`` asks more than one thing (rule "compound question")."""
    return bool(_COMPOUND.search(" ".join(question.split())))


@dataclass(frozen=True)
class QuestionKind:
    form: AnswerForm
    value: ValueKind | None = None
    hypothesis: str = ""  # the claim of a "does the agreement provide that ...?" question
    question: str = ""  # the question's own words (the value reader scores sentences against them)


def question_kind(question: str) -> QuestionKind:
    """The answer form of the first clause of ``question`` (a compound question is typed by
    what it asks first: "How long ..., and what exceptions apply?" asks for a duration)."""
    text = " ".join(question.split()).strip()
    first = re.split(r"[,;]\s+(?:and|or)\s+|\?\s+", text, maxsplit=1)[0]
    match = _HYPOTHESIS.match(first)
    if match:
        hypothesis = match.group("hypothesis").strip().rstrip("?.")
        claim = hypothesis[:1].upper() + hypothesis[1:] + "."
        return QuestionKind("verdict", hypothesis=claim, question=first)
    if _VERDICT_START.match(first):
        # asked as yes or no ("Does the agreement say which law governs it?"): a verdict, whose
        # grounds show the value
        return QuestionKind("verdict", question=first)
    for kind, pattern in _VALUE_RULES:
        # rule "what follows an end is no date": "What are the consequences of termination or
        # expiry?" named expiry and was read as asking the expiry date
        if kind == "expiry" and asks_what_follows_an_end(first):
            continue
        if pattern.search(first):
            return QuestionKind("value", kind, question=first)
    if _LIST.search(first):
        return QuestionKind("list", question=first)
    return QuestionKind("free", question=first)


def asks_for_an_account(question: str) -> bool:
    """Whether ``question`` is open or asks for a list: no verdict or value answers it."""
    return question_kind(question).form in ("list", "free")
