"""The gold verdicts of a negotiation round's positions: CUAD's annotations carried through the
round's edits, for ``clausewise eval changes --verdicts``.

A round (:mod:`clausewise_lab.evals.changes_bench`) edits a CUAD contract line by line: a line struck,
a line moved, a value or a few words rewritten inside a line, another contract's annotated clause
inserted. Each annotation of the contract is located in those lines (its pieces: line, first and
last column) and carried through the edits, so that the text as proposed has annotations too:

- a piece in a struck line is gone; an annotation all of whose pieces are struck is gone, one
  partly struck leaves its category undetermined (CUAD would have to be asked again);
- a piece in a line edited inside (a value, words in or out) takes the edit when it holds the
  edited region whole, is unchanged when apart from it, and leaves its category undetermined when
  the edit straddles its edge;
- a moved line's pieces are unchanged (a move changes no text);
- the inserted clause brings the categories of the donor's annotations that lie inside it (an
  annotation only partly inside leaves its category undetermined).

The gold verdict on each text is then read from its annotations by the playbook benchmark's own
rules (:func:`clausewise_lab.evals.playbook_bench.gold_verdict`), never the product's.

To make the round touch the positions, :func:`preferences` aims its edits at the playbook's
clauses: the struck line among those holding a whole annotation of a position's category, the value
rewritten in such a line where one states a value, the inserted clause among the donors'
annotations of a position's category.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

#: An annotation's place in the round's lines: (line, first column, column after the last).
Piece = tuple[int, int, int]
#: A donor annotation may be inserted when it has this many words (as the round's donors).
DONOR_WORDS = (12, 80)


@dataclass
class LineMap:
    """A text's collapsed lines (one per non-blank line, its words joined by single spaces, as the
    round writes them) and where each word of the text went."""

    lines: list[str]
    #: (raw start, raw end, line, column) of each word, in text order
    words: list[tuple[int, int, int, int]]

    def pieces(self, span: tuple[int, int]) -> list[Piece]:
        """The columns of ``span`` in each line it reaches (words partly inside are cut)."""
        start, end = span
        found: dict[int, list[int]] = {}
        for raw_start, raw_end, line, column in self.words:
            if raw_end <= start or raw_start >= end:
                continue
            first = column + max(0, start - raw_start)
            last = column + min(raw_end, end) - raw_start
            if line in found:
                found[line][1] = last
            else:
                found[line] = [first, last]
        return [(line, first, last) for line, (first, last) in sorted(found.items())]


def line_map(text: str) -> LineMap:
    """The collapsed lines of ``text`` with each word's place (the round's ``_collapsed_lines``,
    written again here so that the benchmark's gold never depends on the generator's helper)."""
    lines: list[str] = []
    words: list[tuple[int, int, int, int]] = []
    offset = 0
    for raw in text.splitlines(keepends=True):
        found = [(m.start(), m.end()) for m in re.finditer(r"\S+", raw)]
        if raw.strip() and found:
            column = 0
            parts = []
            for start, end in found:
                words.append((offset + start, offset + end, len(lines), column))
                parts.append(raw[start:end])
                column += end - start + 1
            lines.append(" ".join(parts))
        offset += len(raw)
    return LineMap(lines, words)


@dataclass
class Preferences:
    """Where a round aims its edits: lines to strike, lines whose value to rewrite, clauses to
    insert (each used when one of its candidates is free, else the round picks as usual)."""

    struck: set[int] = field(default_factory=set)
    valued: set[int] = field(default_factory=set)
    donor_clauses: list[str] = field(default_factory=list)


@dataclass
class Annotated:
    """A contract's text, its lines, and its annotations located in them (category -> pieces of each
    annotation)."""

    name: str
    text: str
    lines: LineMap
    annotations: dict[str, list[list[Piece]]]


def annotated(name: str, text: str, answers: dict[str, list[tuple[str, tuple[int, int]]]]) -> Annotated:
    """``answers`` (category -> [(text, span)], as CUAD's) located in the text's lines."""
    lines = line_map(text)
    return Annotated(
        name,
        text,
        lines,
        {category: [lines.pieces(span) for _, span in found] for category, found in answers.items() if found},
    )


def _piece_text(lines: Sequence[str], pieces: Iterable[Piece]) -> str:
    return " ".join(lines[line][first:last] for line, first, last in pieces)


def donor_categories(donors: Sequence[Annotated]) -> dict[str, tuple[set[str], set[str]]]:
    """Each insertable donor annotation's text -> (the categories of the donor's annotations inside
    it, those only partly inside), over every donor."""
    found: dict[str, tuple[set[str], set[str]]] = {}
    for donor in donors:
        located = [
            (category, pieces) for category, spans in donor.annotations.items() for pieces in spans if pieces
        ]
        for category, pieces in located:
            if len(pieces) != 1:
                continue
            clause = _piece_text(donor.lines.lines, pieces)
            if not DONOR_WORDS[0] <= len(clause.split()) <= DONOR_WORDS[1]:
                continue
            inside, partly = found.setdefault(clause, (set(), set()))
            (line, first, last) = pieces[0]
            for other, other_pieces in located:
                if all(p[0] == line and first <= p[1] and p[2] <= last for p in other_pieces):
                    inside.add(other)
                elif any(p[0] == line and p[1] < last and first < p[2] for p in other_pieces):
                    partly.add(other)
            inside.add(category)
    return {clause: (inside, partly - inside) for clause, (inside, partly) in found.items()}


def preferences(contract: Annotated, donors: Sequence[Annotated], categories: set[str]) -> Preferences:
    """Edits aimed at ``categories``: lines holding a whole annotation of one (struck, or their value
    rewritten), and the donors' annotations of one (inserted), other contracts' only."""
    holding = {
        pieces[0][0]
        for category in categories
        for pieces in contract.annotations.get(category, [])
        if len(pieces) == 1
    }
    clauses = donor_categories([d for d in donors if d.name != contract.name])
    return Preferences(
        struck=holding,
        valued=holding,
        donor_clauses=sorted(clause for clause, (inside, _) in clauses.items() if inside & categories),
    )


@dataclass
class LineEdit:
    """What a round did to one line of the text before: struck, or the columns ``start`` to ``end``
    replaced by ``new``."""

    struck: bool = False
    start: int = 0
    end: int = 0
    new: str = ""


def common_ends(before: Sequence[Any], after: Sequence[Any]) -> tuple[int, int]:
    """How many items the two sequences share at their head, and then at their tail."""
    head = 0
    while head < min(len(before), len(after)) and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < min(len(before), len(after)) - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    return head, tail


def line_edit(before: str, after: str) -> LineEdit:
    """The one region in which ``after`` differs from ``before`` (their common head and tail kept)."""
    head, tail = common_ends(before, after)
    return LineEdit(start=head, end=len(before) - tail, new=after[head : len(after) - tail])


def carried(lines: Sequence[str], pieces: Sequence[Piece], edits: dict[int, LineEdit]) -> str | None:
    """The annotation's text as proposed: '' when struck whole, None when the edits leave it
    undetermined (partly struck, or an edit across its edge)."""
    kept: list[str] = []
    struck = 0
    for line, first, last in pieces:
        edit = edits.get(line)
        text = lines[line][first:last]
        if edit is None:
            kept.append(text)
        elif edit.struck:
            struck += 1
        elif edit.end <= first or edit.start >= last:
            kept.append(text)
        elif first <= edit.start and edit.end <= last:
            kept.append(lines[line][first : edit.start] + edit.new + lines[line][edit.end : last])
        else:
            return None
    if struck:
        return "" if struck == len(pieces) else None
    return " ".join(kept)


@dataclass
class RoundAnnotations:
    """Each category's annotation texts before and as proposed (None: undetermined as proposed)."""

    before: dict[str, list[str]]
    after: dict[str, list[str] | None]


def round_annotations(
    contract: Annotated,
    edits: dict[int, LineEdit],
    inserted: str | None,
    donors: dict[str, tuple[set[str], set[str]]],
) -> RoundAnnotations:
    """The contract's annotations carried through ``edits`` (by line of the text before), with the
    inserted clause's categories (from ``donors``, see :func:`donor_categories`) added."""
    lines = contract.lines.lines
    before = {
        category: [_piece_text(lines, pieces) for pieces in spans]
        for category, spans in contract.annotations.items()
    }
    after: dict[str, list[str] | None] = defaultdict(list)
    for category, spans in contract.annotations.items():
        texts: list[str] | None = []
        for pieces in spans:
            text = carried(lines, pieces, edits)
            if text is None:
                texts = None
                break
            if text:
                texts.append(text)
        after[category] = texts
    if inserted is not None:
        inside, partly = donors.get(inserted, (set(), set()))
        for category in inside:
            found = after[category]
            if found is not None:
                found.append(inserted)
        for category in partly:
            after[category] = None
    return RoundAnnotations(before, dict(after))
