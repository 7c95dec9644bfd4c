"""A cell of a data room's grid made from a short answer, saying less rather than wrong.

The decider's short answer already rests on verified spans; the cell checks again what a grid
would show, because a grid is read fast and quoted onwards: every source must be the contract's
own text at its span, a "yes" (or "partly") must rest on at least one such source, and a value
must be found in the sources it cites. An answer that fails becomes "unclear", with its closest
clauses and a note saying why. A "no" may rest on no quote (absence is not quotable: the closest
clauses are shown instead), and so may "not addressed".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from clausewise.core.report import ShortAnswer, Source
from clausewise.core.room import RoomCell
from tools.citations import QuoteVerifier

#: Shown when a question has no short answer (a list or open question).
NEEDS_REPORT = "Unclear: no short answer; this question needs the full report (ask it of this contract)"
_WORD = re.compile(r"[a-z0-9]+")


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def value_in_sources(value: str, value_type: str, quotes: Sequence[str]) -> bool:
    """Whether a value is what its sources say: its words in order in one quote (spacing and case
    aside); for parties, named from several places of the preamble, each of its words in them."""
    if not value.strip() or not quotes:
        return False
    flat = _flat(value)
    if any(flat in _flat(quote) for quote in quotes):
        return True
    if value_type == "party":
        said = set(_WORD.findall(" ".join(quotes).lower()))
        return set(_WORD.findall(value.lower())) <= said
    return False


def _refs(numbers: Sequence[int]) -> str:
    return "".join(f" [{n}]" for n in numbers)


def _less(fields: dict[str, Any], kept: list[Source], why: str) -> RoomCell:
    """An "unclear" cell showing the clauses it kept as the closest ones."""
    numbers = [s.number for s in kept]
    line = "Unclear: the contract does not settle this" + (
        f" (closest clauses:{_refs(numbers)})" if numbers else ""
    )
    return RoomCell(**fields, answer="unclear", line=line, sources=kept, closest=numbers, note=why)


def cell_of(
    key: str,
    question: str,
    short: ShortAnswer | None,
    sources: Sequence[Source],
    verifier: QuoteVerifier,
    seconds: float = 0.0,
) -> RoomCell:
    """The cell of one question on one contract (see the module docstring)."""
    fields: dict[str, Any] = {"key": key, "question": question, "seconds": seconds}
    if short is None:
        why = "a list or open question: the quick answer decides yes/no and value questions"
        return RoomCell(**fields, answer="unclear", line=NEEDS_REPORT, note=why)
    fields.update(decided_by=short.decided_by, provision=short.provision, rationale=short.rationale)
    verified = {s.number: s for s in sources if verifier.is_at(s.quote, s.span)}
    cited = [n for n in short.sources if n in verified]
    closest = [n for n in short.closest if n in verified]
    kept = [verified[n] for n in sorted({*cited, *closest})]
    if len(cited) < len(short.sources):
        return _less(fields, kept, "said less: a source of the answer did not verify")
    if short.verdict == "unclear":
        return _less(fields, kept, "")
    shown = {"sources": kept, "cited": cited, "closest": closest}
    if short.form == "verdict":
        verdict = short.verdict or "not addressed"
        if verdict in ("yes", "partly") and not cited:
            return _less(fields, kept, f"said less: '{verdict}' had no verified source")
        return RoomCell(**fields, **shown, answer=verdict, line=short.text())
    if not short.value:
        line = "Not stated in the contract" + (f" (closest clauses:{_refs(closest)})" if closest else "")
        return RoomCell(**fields, **shown, answer="not addressed", line=line)
    if not value_in_sources(short.value, short.value_type, [verified[n].quote for n in cited]):
        return _less(fields, kept, "said less: the value was not found in its cited sources")
    value = {"value": short.value, "value_type": short.value_type, "normalized": short.normalized}
    return RoomCell(**fields, **shown, **value, answer="value", line=short.text())
