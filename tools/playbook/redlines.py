"""Redlines: the smallest edits that bring a clause to a playbook position, as offsets into the
contract's text, so everything outside them stays the contract's own words.

- a value that misses the position (a thirty-day notice period, the law of the wrong place) is
  replaced by the position's value, written the way the clause writes numbers ("thirty (30)
  days" becomes "ninety (90) days", "30 days" becomes "90 days");
- a forbidden clause is deleted sentence by sentence (only the sentences that hold it);
- a missing clause is inserted, as the firm's preferred text, after the section it belongs
  beside;
- any other rewrite (the firm's preferred text in place of a clause) is reduced to word-level
  insertions and deletions, so unchanged words are never marked.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from clausewise.core.domain import Span
from tools.values import find_values, number_words


@dataclass(frozen=True)
class Edit:
    """Replace ``text[start:end]`` of the contract with ``insert`` (an insertion when start ==
    end, a deletion when ``insert`` is empty)."""

    start: int
    end: int
    insert: str


def duration_words(target: str, like: str) -> str:
    """``target`` ("90 days") written as ``like`` writes its number: words with the figure in
    brackets, words alone, or figures."""
    count_text, unit = target.split(" ", 1)
    count = int(count_text)
    unit = unit if count != 1 else unit.rstrip("s")
    if re.match(r"^[A-Za-z-]+(?:\s+[A-Za-z-]+)?\s*\(\s*\d+\s*\)", like):
        return f"{number_words(count)} ({count}) {unit}"
    if re.match(r"^[A-Za-z]", like):
        return f"{number_words(count)} {unit}"
    return f"{count} {unit}"


def normalized_duration(words: str) -> str:
    """ "90 days" / "ninety (90) days" -> "90 days" (the form :func:`duration_words` writes)."""
    return find_values(words, ("duration",))[0].normalized


def deletions(sentences: Sequence[Span]) -> list[Edit]:
    """The sentences struck, overlapping ones (a clause and a sub-clause holding the same words)
    struck once."""
    merged: list[list[int]] = []
    for start, end in sorted(set(sentences)):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [Edit(start, end, "") for start, end in merged]


def insertion(at: int, text: str) -> Edit:
    """A new paragraph of ``text`` at offset ``at`` (the end of the section it follows)."""
    return Edit(at, at, "\n\n" + " ".join(text.split()))


#: A plain clause number ("4", "4.3", "12.1.2."): the numbers a new clause is given.
NUMBER_LABEL = r"(?:\d+\.)*\d+\.?"


def next_label(label: str) -> str:
    """The number after a clause's: ``"4.3"`` -> ``"4.4"``, ``"12"`` -> ``"13"``; "" for labels
    that are not plain numbers ("(a)", "Schedule A")."""
    match = re.fullmatch(r"((?:\d+\.)*)(\d+)(\.?)", label.strip())
    if match is None:
        return ""
    return f"{match.group(1)}{int(match.group(2)) + 1}{match.group(3)}"


_NUMBERED_INSERTION = re.compile(rf"^(\n\n)({NUMBER_LABEL})( )")


def _clashes(edit: Edit, kept: Sequence[Edit]) -> bool:
    """Whether ``edit`` changes words a kept edit changes (two insertions at one point do not:
    both new clauses go in, one after the other)."""
    return any(edit.start < other.end and other.start < edit.end for other in kept)


def _renumbered(edit: Edit, kept: Sequence[Edit]) -> Edit:
    """A numbered new clause inserted where another already goes takes the next number."""
    taken = {
        m.group(2)
        for other in kept
        if other.start == other.end == edit.start and (m := _NUMBERED_INSERTION.match(other.insert))
    }
    match = _NUMBERED_INSERTION.match(edit.insert)
    if edit.start != edit.end or match is None or match.group(2) not in taken:
        return edit
    label = match.group(2)
    while label in taken and label:
        label = next_label(label)
    return Edit(edit.start, edit.end, _NUMBERED_INSERTION.sub(rf"\g<1>{label}\g<3>", edit.insert, count=1))


def merged(redlines: Sequence[tuple[str, Sequence[Edit]]]) -> tuple[list[Edit], list[str]]:
    """One set of edits from several positions' redlines, given in priority order: a redline
    whose edits change words that edits already kept change is left out whole (its position
    named in the second list), so a document never carries two changes of the same words."""
    kept: list[Edit] = []
    left_out: list[str] = []
    for position_id, edits in redlines:
        if any(_clashes(edit, kept) for edit in edits):
            left_out.append(position_id)
            continue
        kept.extend(_renumbered(edit, kept) for edit in edits)
    return kept, left_out


_TOKEN = re.compile(r"\s+|[^\s]+")


def word_edits(contract: str, span: Span, new_text: str) -> list[Edit]:
    """``contract[span]`` rewritten as ``new_text``, as word-level edits: unchanged words (and the
    spaces between them) are not marked."""
    old = contract[span[0] : span[1]]
    old_tokens = [(m.start(), m.group(0)) for m in _TOKEN.finditer(old)]
    new_tokens = _TOKEN.findall(new_text)
    matcher = difflib.SequenceMatcher(a=[t for _, t in old_tokens], b=new_tokens, autojunk=False)
    edits = []
    for tag, a0, a1, b0, b1 in matcher.get_opcodes():
        if tag == "equal":
            continue
        start = span[0] + (old_tokens[a0][0] if a0 < len(old_tokens) else len(old))
        end = span[0] + (old_tokens[a1][0] if a1 < len(old_tokens) else len(old))
        edits.append(Edit(start, end, "".join(new_tokens[b0:b1])))
    return edits


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with ``edits`` made (they must not overlap)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for before, after in itertools.pairwise(ordered):
        if after.start < before.end:
            raise ValueError(f"edits overlap at offsets {after.start}..{before.end}")
    out, at = [], 0
    for edit in ordered:
        out += [text[at : edit.start], edit.insert]
        at = edit.end
    out.append(text[at:])
    return "".join(out)
