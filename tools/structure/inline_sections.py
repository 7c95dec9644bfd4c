"""Section starts inside run-together text: split a block where a numbered section begins mid-line.

Contracts filed on EDGAR often reach us as plain text with a whole page on one line:
"... obligations. 10. Limitation of Liability. IN NO EVENT ..." or "1. TERMS OF AGREEMENT 1.1
Commencement This agreement commences ...". Every line-based reader sees one paragraph there, and
the sections it holds are lost. This step finds the numbers that start a section inside a block
and cuts the block there, before the blocks are analysed.

A number inside a block starts a section only when all of these hold (rule
:func:`inline_starts`):

- it stands where a heading stands: after a sentence end ("obligations. 10.") or a bracketed
  placeholder ("Section 3. [Reserved] Section 4."), or, for a
  multi-level or keyword number, right after the short heading of the section it follows
  ("1. TERMS OF AGREEMENT 1.1", "ARTICLE I GENERAL UNDERTAKING Section 1.01");
- it reads as a section label ("10.", "10.5", "Section 4.10", "ARTICLE IV") followed by a
  capitalised word or a quoted term, never by a lowercase word ("1.5 million", "Section 2 shall"),
  or it ends the block (its heading is printed on the next line: "... provision. ARTICLE 3");
- it is not a reference ("Section 2. The ...", "No. 2. ..."): the word before it is not a
  referring word;
- it is not in a table of contents flattened onto one line ("1.0 DEFINITIONS 3 2.0 SCOPE 8 ...");
- it continues the document's numbering (:func:`continues`): the next number at some level
  (10.4 then 10.5 or 11), a first sub-number (10 then 10.1), or a restart at 1. A "2.2" amid
  section 10 is a cross-reference printed at a sentence start, not a heading.

The same step cuts a section's block where its first list item runs on after its heading ("13.
Miscellaneous. (a) Notices. ...") when the list's second item starts a later block
(:func:`run_in_first_item`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from clausewise.core.domain import Block
from tools.structure.labels import Label, bare_number_before_capitals, parse_heading_number, parse_label

#: How many recent section numbers the next one may continue (its ancestors and their siblings).
_CONTEXT = 8
#: A heading run-on: at most this many words between a label and the sub-number that follows it.
_HEADING_WORDS = 14

_SENTENCE_END = re.compile(r"(?:[.:;!?][\"”’)\]*]*|:-)\s+$")  # ":-" opens a list in British drafting
#: rule "a bracketed placeholder ends its section": "Section 3. [Reserved] Section 4. General
#: Provisions.", "7.2 [Redacted - Commercially Sensitive] 7.3 ...": a section whose whole text is
#: a placeholder ends at its closing bracket, as a sentence ends at its full stop
_PLACEHOLDER_END = re.compile(r"\[[A-Z][^\]\n]{0,40}\]\s+$")
_CAPITAL_WORD_END = re.compile(r"(?:^|\s)[A-Z][A-Za-z&'’,-]*[A-Za-z)][\"”]?\s+$")
_REFERRING_WORD = re.compile(
    r"\b(?:sections?|articles?|clauses?|paragraphs?|subsections?|schedules?|exhibits?|annex(?:es)?"
    r"|appendix|no|nos|sec|art|para|and|or|to|of|in|under|per|through|with|by|see|this|that|such|said"
    r"|rule|item|form|version|page|pages|chapter|title)\.?\s+$",
    re.IGNORECASE,
)
_CANDIDATE = re.compile(
    r"(?<![\w.,$/-])(?:\d{1,3}(?:\.\d{1,3}){0,4}\.?|(?:ARTICLE|Article|SECTION|Section)\s+[\dIVXLivxl]{1,6}"
    r"(?:\.\d{1,3})*\.?)(?=\s|$)"
)
#: a section's heading or text: capitalised, perhaps quoted or bracketed ("7.2 [Redacted -
#: Commercially Sensitive] 7.3 ...", "Section 9.11  [Governing Law]. Governing Law. ...")
_FOLLOWER = re.compile(r"\s+(?:[-–—:]\s*)?[\"“'‘(\[]?[A-Z]")
#: "DEFINITIONS 3 2.0 SCOPE": a page number between a title and the next entry's number
_CONTENTS_ENTRY = re.compile(
    r"[A-Za-z)]\s+\d{1,3}\s+(?:\d{1,3}(?:\.\d{1,3})*\.?|ARTICLE|Article|SECTION|Section|SCHEDULE|Schedule"
    r"|EXHIBIT|Exhibit)\s"
)
#: this many such entries make a block a table of contents flattened onto one line
_CONTENTS_ENTRIES = 3


def _path(label: Label) -> tuple[int, ...] | None:
    """The section number of a label, if it is a section label (decimal, "Section", "ARTICLE")."""
    reading = label.readings[0]
    if reading.style in {"decimal", "article"}:
        return reading.path
    return None


def continues(previous: Iterable[tuple[int, ...]], path: tuple[int, ...]) -> bool:
    """Whether ``path`` continues the numbering of one of the ``previous`` numbers: the next at
    some level (one number may have been missed: 10.4 then 10.6), a first sub-number (10 then
    10.1, 10.01), the next at a level above followed by first sub-numbers (5.3 then 6.1), or a
    restart at 1 (an exhibit, a list)."""
    if path[0] == 1 and all(p <= 1 for p in path[1:]):
        return True
    for before in previous:
        if path == (*before, 1):
            return True
        for level in range(len(before)):
            for step in (1, 2):
                bumped = (*before[:level], before[level] + step)
                if path[: level + 1] == bumped and all(p <= 1 for p in path[level + 1 :]):
                    return True
    return False


def _capitals_heading_number(rest: str) -> Label | None:
    """ "2 TERM AND RENEWAL 2.1 Term. ...": a bare number before an all-caps heading, read only
    at a sentence start (checked by the caller) since a bare number is otherwise a quantity."""
    return parse_heading_number(rest) if bare_number_before_capitals(rest) else None


def _position_ok(block_text: str, offset: int, path: tuple[int, ...], label: Label, words_since: int) -> bool:
    before = block_text[max(0, offset - 40) : offset]
    if _REFERRING_WORD.search(before):
        return False
    if _SENTENCE_END.search(before) or _PLACEHOLDER_END.search(before):
        return True
    if "." not in label.raw and not label.keyword:
        return False  # a bare number ("2 TERM") only after a sentence end
    heading_like = "." in label.raw.strip().rstrip(".") or bool(label.keyword)  # "1.1", "1.0", "Section 4"
    return heading_like and words_since <= _HEADING_WORDS and bool(_CAPITAL_WORD_END.search(before))


_LAST_SENTENCE_END = re.compile(r".*[.:;!?][\"”’)\]]*\s", re.DOTALL)


def _heading_words(segment: str) -> int:
    """Words since the last sentence end: "... as follows: 1 GRANT" -> 2."""
    m = _LAST_SENTENCE_END.match(segment)
    return len(segment[m.end() if m else 0 :].split())


def inline_starts(text: str, block: Block, context: list[tuple[int, ...]]) -> list[int]:
    """Offsets inside ``block`` (not its start) where a numbered section begins; ``context`` (the
    recent section numbers, innermost last) is read and extended in document order."""
    starts: list[int] = []
    block_text = text[block.start : block.end]
    first = parse_label(block_text.lstrip())
    if first is not None and (path := _path(first)) is not None:
        context.append(path)
    if len(_CONTENTS_ENTRY.findall(block_text)) >= _CONTENTS_ENTRIES:
        return []  # a table of contents: its numbers are entries, not sections
    last_cut = 0
    for m in _CANDIDATE.finditer(block_text, 1):
        offset = m.start()
        rest = block_text[offset:]
        label = parse_label(rest) or _capitals_heading_number(rest)
        if label is None or (path := _path(label)) is None:
            continue
        ends_block = not block_text[offset + len(label.raw) :].strip()  # "... provision. ARTICLE 3" + page
        if not ends_block and not _FOLLOWER.match(block_text, offset + len(label.raw)):
            continue
        words_since = _heading_words(block_text[last_cut:offset])
        if not _position_ok(block_text, offset, path, label, words_since):
            continue
        if not continues(context[-_CONTEXT:], path):
            continue
        starts.append(block.start + offset)
        context.append(path)
        last_cut = offset
    return starts


#: "13. Miscellaneous. (a) Notices. ...": a first list item run on after its section's label, heading
#: or lead-in, with a capitalised or quoted word after it
_FIRST_ITEM = re.compile(r"(?<=\s)(?:\((?:a|A|i|1)\)|(?:a|A|i)[.)])\s+(?=[\"“(]?[A-Z])")
#: how many blocks (an item's further paragraphs, page furniture) may come before the second item
_SECOND_ITEM_REACH = 30


def _first_and_second(first: Label, second: Label) -> bool:
    """ "(a)" then "(b)", "i." then "ii.": the second label continues the first's list."""
    return any(
        one.style == two.style and one.path == (1,) and two.path == (2,)
        for one in first.readings
        for two in second.readings
    )


def run_in_first_item(text: str, block: Block, following: list[Block]) -> int | None:
    """Where a section's first list item starts inside the section's own block, or None.

    Rule "a list's first item may run on after its heading": "13. Miscellaneous Provisions. (a)
    Notices. ..." then "(b) Entire Agreement. ..." on a line of its own. Left in the section's
    block, "(a)" is text and "(b)" has no sibling to follow, so every later item fell into an
    unnumbered paragraph. The block is cut at "(a)" only when it opens with a section number, the
    item follows a sentence end or the heading (not a referring word: "Section 2 (a)"), and the
    next labelled block is the list's second item."""
    block_text = text[block.start : block.end]
    first = parse_label(block_text.lstrip())
    if first is None or _path(first) is None:
        return None
    body_offset = len(block_text) - len(block_text.lstrip()) + first.end
    m = _FIRST_ITEM.search(block_text, body_offset)
    if m is None:
        return None
    before = block_text[max(0, m.start() - 40) : m.start()]
    heading_run = len(block_text[body_offset : m.start()].split()) <= _HEADING_WORDS
    if _REFERRING_WORD.search(before) or not (_SENTENCE_END.search(before) or heading_run):
        return None
    item = parse_label(block_text[m.start() :])
    if item is None:
        return None
    for later in following[:_SECOND_ITEM_REACH]:
        label = parse_label(text[later.start : later.end].lstrip())
        if label is not None and label.readings[0].style != "bullet":  # "- 9 -" is a page number
            return block.start + m.start() if _first_and_second(item, label) else None
    return None


def _cut(block: Block, text: str, cuts: list[int]) -> list[Block]:
    bounds = [block.start, *cuts, block.end]
    pieces: list[Block] = []
    for index in range(len(bounds) - 1):
        start, end = bounds[index], bounds[index + 1]
        end = start + len(text[start:end].rstrip())
        if end <= start:
            continue
        pieces.append(
            block.model_copy(
                update={"start": start, "end": end, "gap_before": block.gap_before if index == 0 else 0.0}
            )
        )
    return pieces


def split_inline_sections(text: str, blocks: list[Block]) -> list[Block]:
    """The blocks, each cut where a numbered section begins inside it (see module doc), and where
    a section's first list item runs on after its heading (:func:`run_in_first_item`)."""
    context: list[tuple[int, ...]] = []
    sections: list[Block] = []
    for block in blocks:
        sections.extend(_cut(block, text, inline_starts(text, block, context)))
    result: list[Block] = []
    for index, block in enumerate(sections):
        item = run_in_first_item(text, block, sections[index + 1 :])
        result.extend(_cut(block, text, [item]) if item is not None else [block])
    return result
