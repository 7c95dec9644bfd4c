"""Which stated value answers a question: the value reader's choice among the values in a text.

A contract states many durations: "How long must the Receiving Party keep the information
confidential?" on an NDA whose Section 6 says the agreement "continues for two (2) years, unless
terminated earlier ... on thirty (30) days' written notice" and that the obligations "survive
the expiry or termination of this Agreement for three (3) years" has three candidates in one
clause. Taking the first value (or the one the small model cites) answers two years, which is the
term of the agreement, not how long confidentiality lasts.

So each candidate is scored by the sentence that states it: the question's words it shares (as
the excerpt focus of :mod:`tools.passages` scores them), plus what a lawyer reads first for the
kind of question:

- how long an obligation lasts (keep confidential, not solicit, not compete) is answered by the
  survival clause ("survive ... for three (3) years", "continue for five (5) years after the
  expiry or termination"), not by the agreement's term;
- a notice period is the duration followed by "notice"; for any other duration question a
  duration followed by "notice" is a notice period and ranks lower;
- how long the agreement itself lasts (or when it expires) is answered by its term ("continues
  for two (2) years"), not by a survival clause;
- a renewal term is stated next to "renew";
- a duration led by "within" is a deadline to act, not how long anything lasts.

A heading run into a sentence by the text layer ("TERM AND SURVIVAL 6.1 This Agreement ...") is
not part of what the sentence says, so it is left out of the scoring.

Deterministic on purpose, like :mod:`tools.values`: the same passages give the same answer, and
each rule is one line a reviewer can read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from clausewise.core.domain import Span
from indexes.bm25 import bm25_tokens
from tools.structure.sentences import sentence_spans
from tools.values import ValueMention, ValueType, find_values

#: The value types a question asking for a value of each kind is read as ("when does it
#: expire?" may be answered by a date or by a term counted from the start; "what is the
#: effective date?" only by a date).
READ_AS: dict[str, tuple[ValueType, ...]] = {
    "duration": ("duration",),
    "notice period": ("duration",),
    "expiry": ("date", "duration"),
    "date": ("date",),
    "law": ("law",),
    "amount": ("amount",),
}

_OBLIGATION_QUESTION = re.compile(
    r"confiden|obligat|\bkeep\b|non-?compet|\bcompet|solicit|restrict|surviv|exclusiv", re.I
)
_SURVIVAL = re.compile(
    r"\bsurviv|\bfor\s+so\s+long\s+as\b|\bfrom\s+the\s+date\s+of\s+(?:its\s+|such\s+)?disclosure"
    r"|\b(?:after|following|beyond)\s+(?:the\s+)?(?:expiry|expiration|termination|end)\b",
    re.I,
)
_TERM = re.compile(
    r"\b(?:continues?|remains?)\s+(?:in\s+(?:full\s+)?(?:force|effect)\s+)?(?:for|until)\b"
    r"|\bterm\s+of\s+(?:this|the)\s+(?:agreement|contract)\s+(?:shall\s+be|is|will\s+be)\b|\bexpires?\b",
    re.I,
)
_NOTICE_AFTER = re.compile(r"^\W*(?:'s?|’s?)?\s*(?:\w+\s+){0,2}(?:prior\s+)?(?:written\s+)?notice\b", re.I)
_BEFORE_AFTER = re.compile(r"^\W*(?:\w+\s+)?(?:prior\s+to|before|in\s+advance)\b", re.I)
_NOTICE_BEFORE = re.compile(r"\bnotif|\bnotice\b", re.I)
_STARTS = re.compile(
    r"\beffective\s+(?:as\s+of|date)|\bas\s+of\b|\bdated\b|\bentered\s+into\b|\bcommenc", re.I
)
_RENEW = re.compile(r"\brenew", re.I)
#: A duration led by "within" is a deadline to act ("within thirty (30) days after termination"),
#: not how long something lasts (rule ``within is a deadline``).
_DEADLINE_BEFORE = re.compile(
    r"\b(?:within|no\s+later\s+than|not\s+later\s+than)\s+(?:a\s+period\s+of\s+)?$", re.I
)
#: Heading lines the text layer runs into the next sentence ("TERM AND SURVIVAL\n\n6.1 This").
_LEADING_HEADING = re.compile(r"^(?:[^a-z\n]*\n+)+")

#: The words where a sentence turns from its rule to what the rule excepts ("...; however,
#: obligations relating to trade secrets continue ..."); the claim check reads the same turn.
RULE_TURNS = r"however|provided(?:,)?\s+that|save\s+that|but"
_QUALIFIER = re.compile(rf"[;,]\s*(?=(?:{RULE_TURNS}|except|unless)\b)", re.I)
#: Longest qualification quoted with a value (a longer one is left to the findings).
QUALIFICATION_CHARS = 300

#: Bonus of a sentence that states what the kind of question asks about (see module docstring).
CUE = 1.0
#: Penalty of a duration that is a notice period when the question asks for another duration.
NOTICE_PENALTY = 0.5


@dataclass(frozen=True)
class ValueReading:
    """A value stated in the contract: the sentence stating it (absolute ``span`` and its
    ``text``), the value (``mention.span`` is relative to the sentence) and how well that sentence
    answers the question."""

    span: Span
    text: str
    mention: ValueMention
    score: float


def _shared_words(question: str, sentence: str) -> float:
    asked = set(bm25_tokens(question))
    words = set(bm25_tokens(sentence))
    return len(asked & words) / math.sqrt(len(words)) if words else 0.0


def is_notice_period(text: str, mention: ValueMention) -> bool:
    """Whether the duration ``mention`` of ``text`` is a notice period ("sixty (60) days' prior
    written notice", "notifies the other in writing at least sixty (60) days prior to ...")."""
    if mention.type != "duration":
        return False
    after = text[mention.span[1] : mention.span[1] + 40]
    if _NOTICE_AFTER.match(after):
        return True
    return bool(_BEFORE_AFTER.match(after)) and bool(_NOTICE_BEFORE.search(text[: mention.span[0]][-150:]))


def relevance(question: str, value_kind: str, sentence: str, mention: ValueMention) -> float:
    """How well ``mention``, stated in ``sentence``, answers ``question`` asking for a value of
    ``value_kind`` (higher is better; comparable between candidates of one question only)."""
    heading = _LEADING_HEADING.match(sentence)
    said = sentence[heading.end() :] if heading and heading.end() <= mention.span[0] else sentence
    score = _shared_words(question, said)
    if mention.type == "date" and value_kind == "expiry" and _STARTS.search(sentence[: mention.span[0]]):
        score -= CUE / 2  # the date the agreement starts, not the one it ends
    if mention.type != "duration":
        return score
    if value_kind == "expiry" and mention.normalized.endswith(("day", "days")):
        score -= NOTICE_PENALTY  # a term is counted in months or years; days are deadlines
    is_notice = is_notice_period(sentence, mention)
    if value_kind == "notice period":
        return score + (CUE if is_notice else 0.0)
    if is_notice:
        score -= NOTICE_PENALTY
    if _DEADLINE_BEFORE.search(sentence[: mention.span[0]]):
        score -= NOTICE_PENALTY  # a deadline, not a duration
    survival = bool(_SURVIVAL.search(said))
    if value_kind == "duration" and _OBLIGATION_QUESTION.search(question):
        score += CUE if survival else 0.0
    elif _TERM.search(said) and not survival:  # the agreement's own term or expiry
        score += CUE
    if _RENEW.search(question) and _RENEW.search(said):
        score += CUE
    return score


#: The agreement's own term stated ("continues for an initial term of three (3) years", "It then
#: renews automatically for successive periods of one (1) year").
_OWN_TERM = re.compile(
    rf"{_TERM.pattern}|\b(?:initial|renewal)\s+term\b|\brenews?\s+automatically\b|\bterm\s+of\s+(?:this|the)\s+(?:agreement|contract)\b",
    re.I,
)


def _the_agreements_term_for_another(question: str, value_kind: str, sentence: str) -> bool:
    """Rule "the agreement's term is no obligation's duration": asked how long an obligation lasts
    ("How long does confidentiality last?"), a sentence that states the agreement's own term and
    neither names the obligation nor says what outlives the agreement does not answer. Over
    sentences that left the confidentiality clause out, the value reader answered "one (1) year"
    from "The initial term of this Agreement shall be one (1) year"."""
    asked = _OBLIGATION_QUESTION.search(question)
    if value_kind != "duration" or asked is None or not _OWN_TERM.search(sentence):
        return False
    return not (_SURVIVAL.search(sentence) or re.search(re.escape(asked.group()), sentence, re.I))


def value_readings(
    question: str, value_kind: str, text: str, spans: Sequence[Span] = ()
) -> list[ValueReading]:
    """Every value of the kind ``question`` asks for stated in the sentences of ``text`` within
    ``spans`` (the whole text when none), best answer first; equal scores keep text order. A
    sentence stating the agreement's own term is no answer to how long an obligation lasts
    (:func:`_the_agreements_term_for_another`)."""
    types = READ_AS.get(value_kind)
    if not types:
        return []
    readings: list[ValueReading] = []
    seen: set[tuple[Span, Span]] = set()
    for start, end in spans or [(0, len(text))]:
        for sentence_span in sentence_spans(text, start, end, min_chars=1):
            sentence = text[sentence_span[0] : sentence_span[1]]
            if _the_agreements_term_for_another(question, value_kind, sentence):
                continue
            for mention in find_values(sentence, types):
                key = (sentence_span, mention.span)
                if key in seen:
                    continue
                seen.add(key)
                score = relevance(question, value_kind, sentence, mention)
                readings.append(ValueReading(sentence_span, sentence, mention, score))
    return sorted(readings, key=lambda r: -r.score)


def qualification(reading: ValueReading) -> str:
    """The words after the value in its sentence that qualify it ("however, obligations relating
    to trade secrets continue for so long as ...", "unless terminated earlier ..."), verbatim
    ("" when the sentence adds none, or too long a one to quote beside the value)."""
    after = reading.mention.span[1]
    found = _QUALIFIER.search(reading.text, after)
    if found is None:
        return ""
    words = " ".join(reading.text[found.end() :].split()).rstrip(".;").strip()
    return words if len(words) <= QUALIFICATION_CHARS else ""


# -- parties -------------------------------------------------------------------------------------

_BETWEEN = re.compile(r"\b(?:by\s+and\s+)?(?:between|among)\s+", re.I)
#: Where one party's description ends and the next begins: after its defined term in
#: parentheses ('("Company") and DAVID ...'), else at "and" before a capital.
_AFTER_DEFINED = re.compile(r"(?<=\))\s*[,;]?\s*(?:and\s+)?(?=[A-Z\"“])")
_NEXT_PARTY = re.compile(r"\s*(?:;\s*(?:and\s+)?|,?\s+and\s+(?=[A-Z\"“]))")
#: A corporate suffix that ends an organisation's name ("Inc.", "LLC", "GmbH").
ORGANISATION_SUFFIX = re.compile(
    r"\b(?:inc|incorporated|ltd|llc|l\.l\.c|limited|corporation|corp|plc|gmbh|ag|llp|l\.p|lp|s\.a|n\.v|b\.v|"
    r"co|company|pty)\b\.?(?=,|\s|$)",
    re.I,
)
_NAME_END = re.compile(
    r",?\s+\(|,\s+(?:a|an|the)\s|,\s+\d|,\s+(?:with|having|whose|located|organi[sz]ed|incorporated|"
    r"registered|existing|acting|of)\b|\s+(?:a|an)\s+[A-Z]?[a-z]+\s+(?:corporation|company|limited)",
)
_DEFINED = re.compile(
    r"\(\s*(?:hereinafter\s+(?:referred\s+to\s+as\s+|called\s+)?|the\s+)?[\"“]([^\"”]{1,40})[\"”]"
)
#: How far into a contract its parties are named (the preamble).
PREAMBLE_CHARS = 4000


@dataclass(frozen=True)
class PartyReading:
    """The parties as the contract's preamble names them: the sentence (absolute ``span``), and
    each party's name with the term it is defined as ("MOSSIMO, INC." / "Company")."""

    span: Span
    text: str
    parties: tuple[tuple[str, str], ...]

    def value(self) -> str:
        """'MOSSIMO, INC. ("Company") and DAVID DUVAL ENTERPRISES, INC. ("Licensor")'."""
        named = [f'{name} ("{defined}")' if defined else name for name, defined in self.parties]
        return ", ".join(named[:-1]) + f" and {named[-1]}" if len(named) > 1 else "".join(named)


def _party(segment: str) -> tuple[str, str] | None:
    """One party's name (up to its corporate suffix, its address or its description) and the
    term it is defined as."""
    suffix = ORGANISATION_SUFFIX.search(segment)
    cut = _NAME_END.search(segment)
    end = min(suffix.end() if suffix else len(segment), cut.start() if cut else len(segment))
    name = segment[:end].strip(" ,;:")
    defined = _DEFINED.search(segment)
    if not name or not name[0].isupper() or len(name) > 100:
        return None
    return name, defined.group(1).strip() if defined else ""


def party_reading(text: str, start: int = 0, end: int | None = None) -> PartyReading | None:
    """The first sentence of ``text[start:end]`` that names two or more parties "between" or
    "among" (the preamble), with the parties it names; None when no sentence does."""
    for sentence_span in sentence_spans(text, start, end, min_chars=1):
        sentence = text[sentence_span[0] : sentence_span[1]]
        found = _BETWEEN.search(sentence)
        if found is None:
            continue
        body = sentence[found.end() :]
        segments = _AFTER_DEFINED.split(body)
        if len(segments) < 2:
            segments = _NEXT_PARTY.split(body)
        parties = [p for p in map(_party, segments) if p is not None]
        if len(parties) >= 2:
            return PartyReading(sentence_span, sentence, tuple(parties[:4]))
    return None
