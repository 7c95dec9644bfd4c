"""A deterministic sentence splitter for contract prose that returns exact character spans.

Contract text is full of periods that do not end sentences ("Inc.", "U.S.", "Section 2.3",
"e.g.", "No. 5"); a wrong split cuts a clause in two, so the rules lean towards not splitting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from clausewise.core.domain import ClauseNode, ClauseTree, Span

_ABBREVIATIONS = {
    "inc",
    "co",
    "corp",
    "ltd",
    "llc",
    "l.l.c",
    "l.p",
    "lp",
    "plc",
    "n.a",
    "s.a",
    "b.v",
    "n.v",
    "gmbh",
    "ag",
    "no",
    "nos",
    "sec",
    "secs",
    "art",
    "arts",
    "para",
    "paras",
    "cl",
    "sch",
    "ex",
    "mr",
    "mrs",
    "ms",
    "dr",
    "prof",
    "st",
    "jr",
    "sr",
    "e.g",
    "i.e",
    "etc",
    "viz",
    "cf",
    "vs",
    "v",
    "u.s",
    "u.s.a",
    "u.k",
    "e.u",
    "approx",
    "dept",
    "est",
    "fig",
    "vol",
    "pp",
    "p",
    "ch",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
    "mon",
    "tue",
    "wed",
    "thu",
    "fri",
    "sat",
    "sun",
    "a.m",
    "p.m",
    "ave",
    "blvd",
    "rd",
    "ste",
    "cal",
    "del",
    "n.y",
    "civ",
    "stat",
    "ann",
    "bros",
    "assn",
    "intl",
    "govt",
}
# A candidate boundary: terminal punctuation, optional closing quotes/brackets, whitespace, then
# something that can start a sentence (capital, digit, opening quote/bracket).
_BOUNDARY = re.compile(r"([.?!])([\"”’')\]]*)(\s+)(?=[\"“‘(\[]?[A-Z0-9])")
_TOKEN_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


def _is_abbreviation(text: str, dot_index: int) -> bool:
    match = _TOKEN_BEFORE.search(text, 0, dot_index)
    if not match:
        return False
    token = match.group(1).lower().rstrip(".")
    if token in _ABBREVIATIONS:
        return True
    return len(token) == 1 and token.isalpha()  # initials: "J. Smith", "A. ..."


def sentence_spans(text: str, start: int = 0, end: int | None = None, min_chars: int = 25) -> list[Span]:
    """Sentences of ``text[start:end]`` as absolute spans, whitespace-trimmed.

    Fragments shorter than ``min_chars`` are merged into their neighbour so that a stray "(a)" or
    "Yes." never becomes a node of its own.
    """
    end = len(text) if end is None else end
    segment = text[start:end]
    cuts: list[int] = []
    for m in _BOUNDARY.finditer(segment):
        dot = m.start(1)
        if m.group(1) == "." and _is_abbreviation(segment, dot):
            continue
        if m.group(1) == "." and dot > 0 and segment[dot - 1].isdigit():
            # "Section 2." followed by a capital is ambiguous; a number right before the dot and a
            # digit right after ("2. 3") is a list, not a sentence end
            following = segment[m.end() : m.end() + 1]
            if following.isdigit():
                continue
        cuts.append(m.end(2))
    pieces: list[Span] = []
    cursor = 0
    for cut in [*cuts, len(segment)]:
        piece = segment[cursor:cut]
        stripped = piece.strip()
        if stripped:
            lead = len(piece) - len(piece.lstrip())
            pieces.append((start + cursor + lead, start + cursor + lead + len(stripped)))
        cursor = cut
    merged: list[Span] = []
    for span in pieces:
        if merged and (span[1] - span[0] < min_chars or merged[-1][1] - merged[-1][0] < min_chars):
            merged[-1] = (merged[-1][0], span[1])
        else:
            merged.append(span)
    return merged


#: A sentence longer than this that runs a list inline ("...; (c) to make ...; (d) to deliver to
#: Client, upon termination ...") is read item by item (rule "an inline list is read by item").
LIST_SENTENCE_CHARS = 600
#: Where an inline list's next item starts: after a semicolon, a marker "(d)", "(iv)", "d)".
_NEXT_ITEM = re.compile(r";\s+(?:(?:and|or)\s+)?(?=\(?(?:[a-z]|[ivx]{1,4}|\d{1,2})\)\s)")


def list_items(text: str, span: Span) -> list[Span]:
    """``span`` cut before each item of the list it runs inline when it is longer than
    :data:`LIST_SENTENCE_CHARS` (rule "an inline list is read by item": a service agreement's
    2,600-character run of a CRO's duties (a) to (e) was one "sentence", too long to cite, and its
    item "to deliver to Client, upon termination ..., all materials" was never read); else
    ``span`` alone."""
    start, end = span
    if end - start <= LIST_SENTENCE_CHARS:
        return [span]
    cuts = [m.end() for m in _NEXT_ITEM.finditer(text, start, end)]
    items = []
    for a, b in pairwise([start, *cuts, end]):
        piece = text[a:b]
        if piece.strip():  # an item's span is its words: no white space after its semicolon
            lead = len(piece) - len(piece.lstrip())
            items.append((a + lead, a + lead + len(piece.strip())))
    return items


def sentences_within(text: str, units: Sequence[Span] = ()) -> list[Span]:
    """Sentences of ``text`` split inside each of ``units`` (a clause tree's own texts,
    :func:`clause_bodies`), so none runs across a clause's end, a long one's inline list by item
    (:func:`list_items`); the whole text's sentences when no units are given."""
    if not units:
        return sentence_spans(text)
    return [
        item
        for start, end in units
        for span in sentence_spans(text, start, end)
        for item in list_items(text, span)
    ]


def clause_bodies(text: str, tree: ClauseTree) -> list[Span]:
    """The own texts of ``tree``'s nodes (lead-in or sentence), in document order, without the
    label and title they open with ("2.1 Supply. The Supplier shall ..." -> "The Supplier shall
    ..."): units no sentence crosses, so none runs on into the next clause's heading ("... in US
    dollars. 3.3 Late delivery."), and none carries its own (read within the whole own text, the
    short heading joined the sentence after it, and a restatement opened "2.1 Supply. The
    Supplier shall manufacture ..."). A node whose own text is its heading alone has no body."""
    bodies = []
    run_on_to = -1  # the end of a lead-in read with its items; their nodes are read with it
    for node in tree.walk():
        if node.id == tree.root_id or node.own_end <= node.start or node.start < run_on_to:
            continue
        own = text[node.start : node.own_end]
        label = rf"{re.escape(node.label)}[.):]?\s*" if node.label else ""
        title = rf"{re.escape(node.title)}\s*[.:\-–—]?\s*" if node.title else ""
        heading = re.match(rf"\s*{label}{title}", own, re.IGNORECASE) if label or title else None
        start = node.start + (heading.end() if heading else 0)
        body = text[start : node.own_end]
        if not body.strip():
            continue
        end = node.own_end
        items_end = node.end if node.end > node.own_end else _items_after(tree, node)
        if _runs_on_into_its_items(body, node.own_end, items_end):
            end = run_on_to = items_end
        bodies.append((start, start + len(text[start:end].rstrip())))
    return bodies


def _items_after(tree: ClauseTree, node: ClauseNode) -> int:
    """Where the items that follow ``node`` in its parent end, when ``node`` is an unnumbered
    sentence of its clause and every node after it there is numbered ("3.1/s2" "Developer agrees
    that it will not at any time" before "3.1(i)" and "3.1(ii)"); else ``node``'s own end."""
    if node.label or node.parent is None:
        return node.own_end
    siblings = tree.children(node.parent)
    after = siblings[[s.id for s in siblings].index(node.id) + 1 :]
    return after[-1].end if after and all(s.label for s in after) else node.own_end


#: Where a sentence may end: a lead-in that ends elsewhere stops mid-sentence.
_SENTENCE_END = tuple('.;:?!"”)')


def _runs_on_into_its_items(own: str, own_end: int, end: int) -> bool:
    """Rule "a lead-in that stops mid-sentence runs on into its items": a clause whose own text
    ends with no stop before its sub-items ("On termination ..., Distributor will immediately"
    before "(a) cease to engage ... and (b) cease representing ...") is one sentence with them,
    read whole when it is short enough to cite (:data:`LIST_SENTENCE_CHARS`). Read alone, the
    lead-in was quoted as an answer that ends on "will immediately". A sentence of its clause
    followed by numbered nodes only runs on into them too (:func:`_items_after`): "Developer agrees
    that it will not at any time", the clause's second sentence before its "(i)" and "(ii)", was
    planned alone and restated as it stood."""
    stripped = own.rstrip()
    return (
        end > own_end
        and bool(stripped)
        and not stripped.endswith(_SENTENCE_END)
        and (end - own_end + len(stripped) <= LIST_SENTENCE_CHARS)
    )
