"""The lead-in a list item is read under: "Upon termination of the Agreement:" above "(iii)
Customer will promptly cease use of the Services".

Rule "a list item is read under its lead-in": an item cited alone says what its lead-in makes
it depend on only through the lead-in. The obligations plan cited "(iii) Customer will promptly
cease use of the Services and the Auction Platform;", whose lead-in is "(c) Upon termination of
the Agreement:"; the writer restated it "Customer agrees to promptly cease use of the Services",
a duty the contract imposes only on termination, and the quote alone would have said the same.
The checks read the item's condition from its lead-in (rule "a restatement keeps its
qualifiers"), and a quoted item is shown after its lead-in. The writer is shown the item alone:
shown the lead-in too, it copied it into its sentences ("After '...:' '(c) ...'").
"""

from __future__ import annotations

import re

from clausewise.core.domain import Span

#: A list item's marker at the start of a quote: "(iii)", "(c)", "b)", "ii.".
_MARKER = re.compile(r"^\s*\(?(?:[a-z]{1,2}|[ivxl]{1,6}|\d{1,2})\)\s+|^\s*(?:[a-z]|[ivxl]{1,6})\.\s+", re.I)
#: An item's marker just before a quote that leaves it out ("(iii) |Customer will ...").
_MARKER_BEFORE = re.compile(r"(?:^|(?<=\s))\(?(?:[a-z]{1,2}|[ivxl]{1,6}|\d{1,2})\)\s+$", re.I)
#: A clause's number opening the lead-in's sentence ("5.1 This Agreement can be terminated").
_NUMBER = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")
#: How far before an item its lead-in's colon may be (the items before it in between).
LEAD_IN_REACH = 1500
#: Longest lead-in shown, in characters.
LEAD_IN_CHARS = 300
#: Where the lead-in's sentence begins: a paragraph, a sentence's end, or a semicolon.
_SENTENCE_START = re.compile(r"(?:\n\s*\n|[.;]\s+)")


def lead_in_of(text: str, span: Span) -> str | None:
    """The lead-in (ending on its colon) of the list item at ``span``, if its quote opens with an
    item's marker and the text between the lead-in's colon and it is items of the same list."""
    start = span[0]
    marked = _MARKER_BEFORE.search(text, max(0, start - 12), start)
    if not (_MARKER.match(text[start : start + 12]) or marked):
        return None
    start = marked.start() if marked else start
    window = text[max(0, start - LEAD_IN_REACH) : start]
    colon = window.rfind(":")
    if colon < 0:
        return None
    between = window[colon + 1 :]
    if between.strip() and not _MARKER.match(between):
        return None  # the colon ends something else: a definition, a heading, another list
    if "\n\n" in between.strip() and not all(
        _MARKER.match(paragraph) for paragraph in between.strip().split("\n\n") if paragraph.strip()
    ):
        return None
    before = window[:colon]
    starts = [m.end() for m in _SENTENCE_START.finditer(before)]
    lead = before[starts[-1] if starts else 0 :]
    lead = _NUMBER.sub("", _MARKER.sub("", lead, count=1), count=1)
    lead = " ".join(lead.split())
    if not lead or len(lead) > LEAD_IN_CHARS:
        return None
    return f"{lead}:"
