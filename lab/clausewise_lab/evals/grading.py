"""Grading a short answer against the question bank's gold answer.

The grader sees what a user sees: the verdict word, the short answer's line and the spans of the
sources it cites. It reads values with :mod:`clausewise_lab.evals.answer_key`, never with the product's
value readers, so a reader's mistake cannot grade itself right.

Outcomes: ``right``, ``wrong`` or ``abstained`` (the answer says the contract is unclear). The
rules, per kind of question:

- yes/no (a CUAD provision): "yes" is right when the contract has the provision, "no" (or "not
  addressed": the contract does not provide for it) when it does not.
- verdict (a ContractNLI hypothesis): the verdict must be the gold label's (yes / no / not
  addressed).
- verdict+value (a CUAD provision asked with its value): gold "no" is right when the answer says
  "no" (or "not addressed") and states no value; gold "yes" when it says "yes" and its value is
  right by the value rules below (a "yes" without the value is wrong: half the question unanswered).
- value, gold "not stated": right when the answer states no value; wrong when it states one.
- value, gold "stated": the answer must cite a source, and
  - where the gold text states values of the kind asked (a law, a date, a duration), one of the
    answer's values must be one of them, and a law answer may name no place the gold text does
    not name;
  - where it states none (a condition or a reference: "until the last warranty period ends"),
    one of the answer's sources must overlap a gold span and the answer may state no value of
    that kind;
  - parties: the answer must name two of the annotated parties (or the one there is).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from clausewise.core.domain import Span
from clausewise_lab.evals import answer_key
from clausewise_lab.evals.bank import BankQuestion

Outcome = Literal["right", "wrong", "abstained", "ungraded"]
ABSTAINED = frozenset({"unclear", ""})


@dataclass(frozen=True)
class Shown:
    """A short answer as the user sees it: the verdict word (yes / no / not addressed / unclear /
    partly, or "" for a value), the line, whether it states a value, and its sources' spans."""

    verdict: str
    line: str
    states_value: bool
    source_spans: Sequence[Span] = ()


def _overlaps(spans: Sequence[Span], gold: Sequence[Span]) -> bool:
    return any(a < d and c < b for a, b in spans for c, d in gold)


def _keys(reading: str, text: str) -> set:
    if reading == "law":
        return answer_key.laws(text)
    if reading == "date":
        return answer_key.dates(text)
    if reading == "duration":
        return answer_key.durations(text)
    if reading == "date-or-duration":
        return answer_key.dates(text) | answer_key.durations(text)
    return set()


def _same(answer: set, gold: set) -> bool:
    """Whether an answer key is a gold key (a date without its day matches that month)."""
    for mine in answer:
        for theirs in gold:
            if mine == theirs:
                return True
            if (
                isinstance(mine, str)
                and isinstance(theirs, str)
                and (mine.startswith(theirs) or theirs.startswith(mine))
            ):
                return True
    return False


def _parties_named(question: BankQuestion, line: str) -> bool:
    names = answer_key.party_names(list(question.gold_texts))
    distinct = [n for n in names if not any(n != m and n in m for m in names)]
    said = answer_key.name_key(line)
    named = {n for n in distinct if n and n in said}
    named |= {m for m in distinct for n in names if n in said and n in m and n != m}
    return bool(distinct) and len(named) >= min(2, len(distinct))


def grade_value(question: BankQuestion, shown: Shown) -> Outcome:
    if question.gold == "not stated":
        return "wrong" if shown.states_value else "right"
    if not shown.states_value or not shown.source_spans:
        return "wrong"
    if question.reading == "parties":
        return "right" if _parties_named(question, shown.line) else "wrong"
    gold_text = " ".join(question.gold_texts)
    gold = _keys(question.reading, gold_text)
    said = _keys(question.reading, shown.line)
    if question.reading == "law":
        allowed = answer_key.places(gold_text) | {"united states"}
        named = answer_key.places(shown.line)
        return "right" if gold and _same(named, gold) and named <= allowed else "wrong"
    if gold:
        return "right" if _same(said, gold) else "wrong"
    # a condition or a reference: its clause cited, and no value of the kind made up
    return "right" if _overlaps(shown.source_spans, question.gold_spans) and not said else "wrong"


def grade(question: BankQuestion, shown: Shown | None) -> Outcome:
    """The outcome of ``shown`` (None: no short answer at all, counted wrong) on ``question``."""
    if question.kind == "open":
        return "ungraded"
    if shown is None:
        return "wrong"
    verdict = shown.verdict.strip().lower()
    if verdict == "unclear" or (question.kind != "value" and verdict in ABSTAINED):
        return "abstained"
    if question.kind == "yes/no":
        said = "no" if verdict == "not addressed" else verdict
        return "right" if said == question.gold else "wrong"
    if question.kind == "verdict":
        return "right" if verdict == question.gold else "wrong"
    if question.kind == "verdict+value":
        said = "no" if verdict == "not addressed" else verdict
        if said != question.gold:
            return "wrong"
        if question.gold == "no":
            return "wrong" if shown.states_value else "right"
        return grade_value(question, shown)
    return grade_value(question, shown)


def evidence_recall(gold: Sequence[Span], cited: Sequence[Span]) -> tuple[int, int]:
    """(gold spans overlapped by a cited span, gold spans)."""
    return sum(_overlaps(cited, [g]) for g in gold), len(gold)
