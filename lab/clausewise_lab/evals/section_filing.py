"""Are gold clauses filed under the section number printed above them? (``eval ingest``)

"Gold spans whose smallest node is not the root" cannot tell a clause filed under "10.5" from one
filed as "2.2/p4(ii)/s14" after the tree lost sections 3 to 10. These measures can:

- **under printed number**: of the gold clauses with a section number printed above them (read by
  :mod:`clausewise_lab.evals.printed_numbers`, which shares no code with the tree builder), the share
  whose smallest tree node has that number in its id path ("10.5", "10.5(a)/s2",
  "Article IV/4.10"); the id is what a lawyer checks a citation against;
- **in unnumbered paragraphs**: the share whose smallest node's id has an unnumbered paragraph
  step ("8.2/p14/s2"), among gold clauses with a printed number and among all gold clauses of
  contracts that number their sections; and the part of it under no numbered step at all
  ("Signatures/p61", "p19": a lost number), unlike "10.5/p2", the second paragraph of 10.5;
- **sequence breaks**: per contract, numbered nodes whose number does not follow the previous one
  in document order (10.4 then 2.2), the sign of sections filed under the wrong parent.

PDFs: the CUAD gold offsets point into CUAD's own text of the contract, so each gold clause is
found again in the PDF's text (letters and digits compared, whitespace and punctuation ignored).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from clausewise.core.domain import ClauseNode, ClauseTree, Span
from clausewise_lab.evals.printed_numbers import PrintedNumber, number_above, printed_numbers, roman_value
from clausewise_lab.evals.shares import share

_PARAGRAPH_STEP = re.compile(r"^p\d+(?:\(|$)")
_DECIMAL_ID = re.compile(r"^(\d{1,3}(?:\.(?:\d{1,3}|[A-Z]))*)\.?$")
_ARTICLE_ID = re.compile(r"^(?:Article|Part|Chapter)\s+(\w+)$", re.IGNORECASE)
_ROMAN_ID = re.compile(r"^[IVXL]{1,7}$")  # "XVII": a section numbered in roman numerals
#: a contract "numbers its sections" when this many section numbers are printed in its body
NUMBERED_CONTRACT = 3


def id_numbers(node_id: str) -> list[tuple[str, ...]]:
    """The numbers named by the steps of a node id: "Article IV/4.10(a)/s2" -> [("4",), ("4", "10")],
    "XVII(A)" -> [("17",)].

    Lists and sentence leaves ("(a)", "s2", "p3") name no section number; a duplicate's "~2" is
    dropped."""
    numbers: list[tuple[str, ...]] = []
    for step in node_id.split("/"):
        step = re.sub(r"~\d+$", "", step)
        step = re.sub(r"(?:\([^)]*\))+$", "", step).strip()
        if m := _DECIMAL_ID.match(step):
            numbers.append(tuple(p if p.isalpha() else str(int(p)) for p in m.group(1).split(".")))
        elif m := _ARTICLE_ID.match(step):
            token = m.group(1)
            value = int(token) if token.isdigit() else roman_value(token)
            if value:
                numbers.append((str(value),))
        elif _ROMAN_ID.match(step) and (value := roman_value(step)):
            numbers.append((str(value),))
    return numbers


def filed_under(tree: ClauseTree, node: ClauseNode, number: PrintedNumber) -> bool:
    """Whether ``node`` or one of its ancestors has ``number`` as a step of its id."""
    chain = [node, *tree.ancestors(node.id)] if node.id != tree.root_id else []
    return any(number.path in id_numbers(n.id) for n in chain)


def in_unnumbered_paragraph(node_id: str) -> bool:
    """An id with a step "p<n>": the clause sits in a paragraph that has no number of its own."""
    return any(_PARAGRAPH_STEP.match(step) for step in node_id.split("/"))


def in_stray_paragraph(node_id: str) -> bool:
    """An unnumbered paragraph under no numbered step ("Preamble/p3", "Signatures/p61", "p19"):
    what a lost section number looks like, unlike "10.5/p2", the second paragraph of 10.5."""
    for step in node_id.split("/"):
        if id_numbers(step):
            return False
        if _PARAGRAPH_STEP.match(step):
            return True
    return False


_FIRST = {"0", "1", "A", "a"}


def _follows(previous: tuple[str, ...], current: tuple[str, ...]) -> bool:
    """10.4 -> 10.5, 11, 11.1, 10.4.1; anything -> 1, 1.1; "2.0" counts as 2 ("2.0" -> 2.1)."""
    if len(previous) == 2 and previous[1] == "0":
        previous = previous[:1]
    if current in {(*previous, "1"), (*previous, "0")} or all(p in _FIRST for p in current):
        return True
    for level, part in enumerate(previous):
        bumped = part.isdigit() and current[: level + 1] == (*previous[:level], str(int(part) + 1))
        if bumped and all(p in _FIRST for p in current[level + 1 :]):
            return True
    return False


def sequence_breaks(tree: ClauseTree) -> list[tuple[str, str]]:
    """Pairs of numbered nodes (not the list items under them: "II(C)"), in document order inside
    each region (body, each schedule), whose second number does not follow the first or one of
    the numbers above the first ("IX/p1(C)/3" then "X" follows IX): a next number at some level,
    a first sub-number, or a restart at 1 are the only ways a numbering goes on."""
    breaks: list[tuple[str, str]] = []
    previous: dict[str, tuple[str, list[tuple[str, ...]]]] = {}
    for node in tree.walk():
        if node.id == tree.root_id:
            continue
        own_step = re.sub(r"~\d+$", "", node.id.split("/")[-1])
        numbers = id_numbers(own_step)
        if not numbers or own_step.endswith(")"):
            continue  # "II(C)", "10.5(a)": a list item, whose own label is not a section number
        steps = node.id.split("/")
        region = steps[0] if len(steps) > 1 and not id_numbers(steps[0]) else ""
        current = numbers[-1]
        if region in previous:
            last_id, chain = previous[region]
            if current != chain[-1] and not any(_follows(last, current) for last in chain):
                breaks.append((last_id, node.id))
        previous[region] = (node.id, id_numbers(node.id))
    return breaks


@dataclass
class FilingTally:
    """Counts over a set of contracts."""

    contracts: int = 0
    numbered_contracts: int = 0
    gold: int = 0
    gold_numbered_contracts: int = 0
    with_number: int = 0
    under_number: int = 0
    paragraph_numbered: int = 0  # among clauses with a printed number
    paragraph_all: int = 0  # among all clauses of contracts that number their sections
    stray_numbered: int = 0  # among clauses with a printed number, in a paragraph under no number
    breaks: int = 0
    misses: list[dict[str, Any]] = field(default_factory=list)

    def add(self, name: str, text: str, tree: ClauseTree, spans: list[Span], keep_misses: int) -> None:
        numbers = printed_numbers(text)
        numbered = sum(n.kind != "reset" for n in numbers) >= NUMBERED_CONTRACT
        self.contracts += 1
        self.numbered_contracts += numbered
        self.breaks += len(sequence_breaks(tree)) if numbered else 0
        for span in spans:
            start, end = _trimmed(text, span)
            if end <= start:
                continue
            self.gold += 1
            node = tree.smallest_containing((start, end))
            paragraph = in_unnumbered_paragraph(node.id)
            if numbered:
                self.gold_numbered_contracts += 1
                self.paragraph_all += paragraph
            number = number_above(numbers, start, end)
            if number is None:
                continue
            self.with_number += 1
            self.paragraph_numbered += paragraph
            self.stray_numbered += in_stray_paragraph(node.id)
            if filed_under(tree, node, number):
                self.under_number += 1
            elif len(self.misses) < keep_misses:
                self.misses.append(
                    {
                        "contract": name,
                        "printed": number.label,
                        "node": node.id,
                        "clause": text[start : start + 80],
                    }
                )

    def result(self) -> dict[str, Any]:
        return {
            "contracts": self.contracts,
            "numbered_contracts": self.numbered_contracts,
            "gold_clauses": self.gold,
            "with_printed_number": self.with_number,
            "under_printed_number_share": share(self.under_number, self.with_number),
            "unnumbered_paragraph_share": share(self.paragraph_numbered, self.with_number),
            "unnumbered_paragraph_share_all": share(self.paragraph_all, self.gold_numbered_contracts),
            "stray_paragraph_share": share(self.stray_numbered, self.with_number),
            "sequence_breaks_per_contract": round(self.breaks / max(self.numbered_contracts, 1), 2),
            "misses": self.misses,
        }


def _trimmed(text: str, span: Span) -> Span:
    segment = text[span[0] : span[1]]
    return span[0] + len(segment) - len(segment.lstrip()), span[1] - (len(segment) - len(segment.rstrip()))


# --- gold clauses found again in a PDF's text ------------------------------------------------------


def _normalized(text: str) -> tuple[str, list[int]]:
    """Lowercased letters and digits of ``text`` and the offset of each in ``text``."""
    chars: list[str] = []
    offsets: list[int] = []
    for i, ch in enumerate(text):
        for folded in unicodedata.normalize("NFKC", ch).lower():
            if folded.isalnum():
                chars.append(folded)
                offsets.append(i)
    return "".join(chars), offsets


def align_spans(source: str, spans: list[Span], target: str) -> list[Span | None]:
    """Each span of ``source`` found again in ``target`` by its letters and digits (the occurrence
    nearest the same relative place when there are several; by its first and last 40 when the
    whole differs); None when not found."""
    haystack, offsets = _normalized(target)
    aligned: list[Span | None] = []
    for span in spans:
        needle, _ = _normalized(source[span[0] : span[1]])
        if len(needle) < 8:
            aligned.append(None)
            continue
        expected = len(haystack) * span[0] / max(len(source), 1)
        found = _find_nearest(haystack, needle, expected)
        if found is not None:
            aligned.append((offsets[found], offsets[found + len(needle) - 1] + 1))
            continue
        head, tail = needle[:40], needle[-40:]
        first = _find_nearest(haystack, head, expected)
        last = haystack.find(tail, first) if first is not None else -1
        if first is None or last < 0 or last + len(tail) - first > 1.5 * len(needle) + 40:
            aligned.append(None)
            continue
        aligned.append((offsets[first], offsets[last + len(tail) - 1] + 1))
    return aligned


def _find_nearest(haystack: str, needle: str, expected: float) -> int | None:
    best: int | None = None
    position = haystack.find(needle)
    while position >= 0:
        if best is None or abs(position - expected) < abs(best - expected):
            best = position
        position = haystack.find(needle, position + 1)
    return best
