"""A Word file's tracked changes and comments: its two texts and where each change is in both.

The file a lawyer gets back in a negotiation is the other side's Word document with tracked
changes. Word keeps two texts in one body: the text as before (what was sent) and as proposed
(their insertions in, their deletions out). Read as one text it is neither version, so the body is
read once as each (:func:`tools.parsing.docx.body_lines`), and every change is placed in both:
where its words are, a span holding them; in the other text, the empty span where they would be.

Word writes one change as several elements (one per run, one for the paragraph mark, one per
table row), so elements of one kind by one author at one time that touch in both texts are one
change, as Word's review pane shows them. A move (``w:moveFrom`` / ``w:moveTo`` under one name)
is one change with its old place in the text as before and its new place in the text as proposed.
Changes in headers, footers and notes are listed with their words but no span: those parts are not
read as the contract's text.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docx.oxml.ns import qn
from lxml import etree

from clausewise.core.domain import Span, TextVersion, TrackedChange, TrackedText, WordComment
from tools.parsing.docx import DELETED, FORMATTING, INSERTED, BodyLine, body_lines

_MOVES = {qn("w:moveFrom"), qn("w:moveTo")}
_CHANGES = (*INSERTED, *DELETED, *FORMATTING)
#: Formatting changes of tables and sections: a file holding one is read as one with tracked
#: changes, though none of its words changes (nothing of them is listed).
_OTHER_FORMATTING = (qn("w:tblPrChange"), qn("w:trPrChange"), qn("w:tcPrChange"), qn("w:sectPrChange"))
_RANGE_NAMES = {
    qn("w:moveFromRangeStart"): qn("w:moveFrom"),
    qn("w:moveToRangeStart"): qn("w:moveTo"),
}
_PART_KINDS = frozenset({"header", "footer", "footnotes", "endnotes"})
_COMMENTS = "comments"


def has_tracked_content(document: Any) -> bool:
    """Whether the body holds any tracked change or comment mark, or a header, footer or note a
    tracked change (a file without them is read as it always was, with nothing more to place)."""
    body = document.element.body
    wanted = (*_CHANGES, *_OTHER_FORMATTING, qn("w:commentRangeStart"), qn("w:commentReference"))
    if next(body.iter(*wanted), None) is not None:
        return True
    return any(next(root.iter(*INSERTED, *DELETED), None) is not None for _, root in _other_parts(document))


@dataclass
class _Placed:
    """Where each change element and comment mark is in one text: the spans of its characters
    (merged into one range) and, for an element absent from that text, its point."""

    text: str
    spans: dict[Any, list[int]] = field(default_factory=dict)
    points: dict[Any, int] = field(default_factory=dict)

    def cover(self, element: Any, start: int, end: int) -> None:
        span = self.spans.setdefault(element, [start, end])
        span[0], span[1] = min(span[0], start), max(span[1], end)

    @property
    def end(self) -> Span:
        """The text's end: where a change sits that nothing after it in the body anchors (a table
        row inserted at the very end, read as before)."""
        return (len(self.text), len(self.text))

    def where(self, element: Any) -> Span | None:
        """The element's span; else the point where it sits; else, for a change whose words are
        all in changes absent from this text (an insertion deleted again), the first such point;
        else its nearest enclosing change's point."""
        if element in self.spans:
            start, end = self.spans[element]
            return (start, end)
        if element in self.points:
            return (self.points[element], self.points[element])
        for inner in element.iter():
            if inner in self.points:
                return (self.points[inner], self.points[inner])
        current = element.getparent()
        while current is not None:
            if current in self.spans:
                return (self.spans[current][0], self.spans[current][0])
            if current in self.points:
                return (self.points[current], self.points[current])
            current = current.getparent()
        return None


def _kept(raw: str) -> tuple[str, list[int]]:
    """``raw`` with spaces collapsed as a line is (``" ".join(raw.split())``), and for every raw
    index (and its end) the index in the collapsed text where that character is or would be."""
    at = [0] * (len(raw) + 1)
    out: list[str] = []
    position = 0
    index = 0
    for word in raw.split():
        found = raw.index(word, index)
        for gap in range(index, found):
            at[gap] = position  # spaces before the word: the collapsed space (or the line's start)
        if out:
            out.append(" ")
            position += 1
        for offset in range(len(word)):
            at[found + offset] = position + offset
        out.append(word)
        position += len(word)
        index = found + len(word)
    for gap in range(index, len(raw) + 1):
        at[gap] = position
    return "".join(out), at


def _place(lines: Sequence[BodyLine]) -> _Placed:
    """The text the lines make (one line each, as the parser joins them) and every change's place."""
    texts: list[str] = []
    placed = _Placed("")
    offset = 0
    for number, line in enumerate(lines):
        text, at = _kept(line.raw)
        if not text:
            continue
        shift = len(line.label) + 1 if line.label else 0
        if line.label_changes:
            for element in line.label_changes:
                placed.cover(element, offset, offset + at[shift])
        if line.tagged is not None:
            for start, end, changes in line.tagged.tagged:
                low, high = offset + at[start + shift], offset + at[end + shift]
                if start + shift < len(at) - 1 and high == low:
                    continue  # spaces that collapsed into the space before
                for element in changes:
                    placed.cover(element, low, max(high, low))
            for raw_at, element in line.tagged.points:  # before the text: before the label too
                placed.points.setdefault(element, offset + (at[raw_at + shift] if raw_at else 0))
        if line.end_changes and number + 1 < len(lines):
            for element in line.end_changes:
                placed.cover(element, offset + len(text), offset + len(text) + 1)
        texts.append(text)
        offset += len(text) + 1
    placed.text = "\n".join(texts)
    return placed


def _kind(element: Any) -> str:
    if element.tag in _MOVES:
        return "move"
    if element.tag in INSERTED:
        return "insert"
    if element.tag in DELETED:
        return "delete"
    return "formatting"


def _move_names(body: Any) -> dict[Any, str]:
    """Each ``w:moveFrom`` / ``w:moveTo`` element and the name of the move range it lies in (the
    name pairs a move's old place with its new one)."""
    names: dict[Any, str] = {}
    current: dict[str, str] = {}
    ends = {qn("w:moveFromRangeEnd"): qn("w:moveFrom"), qn("w:moveToRangeEnd"): qn("w:moveTo")}
    for element in body.iter(*_RANGE_NAMES, *ends, *_MOVES):
        if element.tag in _RANGE_NAMES:
            current[_RANGE_NAMES[element.tag]] = element.get(qn("w:name"), "")
        elif element.tag in ends:
            current.pop(ends[element.tag], None)
        elif element.tag in current:
            names[element] = current[element.tag]
    return names


@dataclass
class _Change:
    kind: str
    author: str
    date: str | None
    spans: dict[TextVersion, Span | None]
    move: str = ""
    elements: list[Any] = field(default_factory=list)
    departure: Span | None = None

    def touches(self, other: _Change) -> bool:
        """Same kind, author and time, touching or overlapping in both texts (one change Word
        wrote as several elements)."""
        if (self.kind, self.author, self.date, self.move) != (
            other.kind,
            other.author,
            other.date,
            other.move,
        ):
            return False
        for version in ("proposed", "before"):
            mine, theirs = self.spans[version], other.spans[version]  # type: ignore[index]
            if mine is None or theirs is None or theirs[0] > mine[1] or mine[0] > theirs[1]:
                return False
        return True

    def absorb(self, other: _Change) -> None:
        self.elements.extend(other.elements)
        for version in ("proposed", "before"):
            mine, theirs = self.spans[version], other.spans[version]  # type: ignore[index]
            assert mine is not None and theirs is not None
            self.spans[version] = (min(mine[0], theirs[0]), max(mine[1], theirs[1]))  # type: ignore[index]


def _body_changes(document: Any, placed: dict[TextVersion, _Placed]) -> list[_Change]:
    """The body's changes in the file's order, elements of one change merged."""
    body = document.element.body
    names = _move_names(body)
    changes: list[_Change] = []
    for element in body.iter(*_CHANGES):
        change = _Change(
            _kind(element),
            element.get(qn("w:author"), ""),
            element.get(qn("w:date")),
            {version: placed[version].where(element) or placed[version].end for version in placed},
            names.get(element, ""),
            [element],
        )
        if changes and changes[-1].touches(change):
            changes[-1].absorb(change)
        else:
            changes.append(change)
    return _paired_moves(changes)


def _paired_moves(changes: list[_Change]) -> list[_Change]:
    """A move's old place (in the text as before) and new place (as proposed) as one change."""
    arrivals: dict[str, _Change] = {}
    for change in changes:
        if change.kind == "move" and change.move and _holds_words(change, "proposed"):
            arrivals.setdefault(change.move, change)
    paired: set[str] = set()
    for change in changes:
        name = change.move
        if (
            change.kind == "move"
            and name in arrivals
            and name not in paired
            and _holds_words(change, "before")
        ):
            change.departure = change.spans["proposed"]
            change.spans["proposed"] = arrivals[name].spans["proposed"]
            change.elements.extend(arrivals[name].elements)
            paired.add(name)
    return [c for c in changes if not (c.move in paired and arrivals.get(c.move) is c)]


def _holds_words(change: _Change, version: TextVersion) -> bool:
    span = change.spans[version]
    return span is not None and span[1] > span[0]


def _other_parts(document: Any) -> Iterable[tuple[str, Any]]:
    """(kind, root element) of the file's headers, footers and notes."""
    for rel in document.part.rels.values():
        if rel.is_external:
            continue
        kind = rel.reltype.rsplit("/", 1)[-1]
        if kind not in _PART_KINDS:
            continue
        yield kind, _root(rel.target_part)


def _root(part: Any) -> Any:
    element = getattr(part, "element", None)
    if element is not None:
        return element
    return etree.fromstring(part.blob, parser=etree.XMLParser(resolve_entities=False, no_network=True))


def _words(element: Any) -> str:
    pieces = (node.text or "" for node in element.iter(qn("w:t"), qn("w:delText")))
    return " ".join("".join(pieces).split())


def _part_changes(document: Any) -> list[TrackedChange]:
    """Changes in headers, footers and notes: kind, author, words; no span."""
    found: list[TrackedChange] = []
    seen: set[tuple[str, str, str, str | None, str]] = set()
    for kind, root in _other_parts(document):
        for element in root.iter(*INSERTED, *DELETED):
            key = (
                kind,
                _kind(element),
                element.get(qn("w:author"), ""),
                element.get(qn("w:date")),
                _words(element),
            )
            if key[-1] and key not in seen:
                seen.add(key)
                found.append(
                    TrackedChange(id=0, kind=key[1], author=key[2], date=key[3], part=kind, text=key[4])  # type: ignore[arg-type]
                )
    return found


def _comments(document: Any, placed: dict[TextVersion, _Placed]) -> list[WordComment]:
    """Every comment with its author, words and anchored span in each text (a comment with a
    reference mark only is anchored at that point)."""
    roots = [
        _root(rel.target_part)
        for rel in document.part.rels.values()
        if not rel.is_external and rel.reltype.endswith("/" + _COMMENTS)
    ]
    if not roots:
        return []
    body = document.element.body
    marks: dict[tuple[str, str], Any] = {}
    for element in body.iter(qn("w:commentRangeStart"), qn("w:commentRangeEnd"), qn("w:commentReference")):
        marks.setdefault((element.tag, element.get(qn("w:id"), "")), element)
    comments: list[WordComment] = []
    for comment in roots[0].iter(qn("w:comment")):
        number = comment.get(qn("w:id"), "")
        start = marks.get((qn("w:commentRangeStart"), number))
        end = marks.get((qn("w:commentRangeEnd"), number))
        reference = marks.get((qn("w:commentReference"), number))
        spans: dict[str, Span | None] = {}
        for version, where in placed.items():
            low = where.where(start) if start is not None else None
            high = where.where(end) if end is not None else None
            if low is None and reference is not None:
                low = high = where.where(reference)
            spans[version] = (low[0], max(low[0], (high or low)[1])) if low is not None else None
        paragraphs = [" ".join(_words(p).split()) for p in comment.iter(qn("w:p"))]
        comments.append(
            WordComment(
                id=number,
                author=comment.get(qn("w:author"), ""),
                date=comment.get(qn("w:date")),
                text="\n".join(p for p in paragraphs if p),
                before=spans.get("before"),
                proposed=spans.get("proposed"),
            )
        )
    return comments


def _trimmed(text: str, span: Span | None) -> Span | None:
    """A span without the spaces and line ends at its edges (a whole paragraph's change holds its
    paragraph mark: the span is its words)."""
    if span is None or span[1] <= span[0]:
        return span
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else (span[0], span[0])


def tracked_text(
    document: Any, read_as: TextVersion, lines: dict[TextVersion, Sequence[BodyLine]]
) -> TrackedText:
    """The file's other text, its changes and comments, placed in the texts ``lines`` make (one
    list of lines per version, as :func:`tools.parsing.docx.body_lines` reads them)."""
    placed = {version: _place(version_lines) for version, version_lines in lines.items()}
    changes: list[TrackedChange] = []
    for change in _body_changes(document, placed):
        before = _trimmed(placed["before"].text, change.spans["before"])
        proposed = _trimmed(placed["proposed"].text, change.spans["proposed"])
        holding = proposed if proposed is not None and proposed[1] > proposed[0] else before
        text = ""
        if holding is not None:
            source = placed["proposed"].text if holding is proposed else placed["before"].text
            text = source[holding[0] : holding[1]].strip()
        if not text and change.kind != "formatting":  # in neither text: an insertion deleted again
            text = " ".join(" ".join(_words(element) for element in change.elements).split())
        changes.append(
            TrackedChange(
                id=len(changes) + 1,
                kind=change.kind,  # type: ignore[arg-type]
                author=change.author,
                date=change.date,
                text=text,
                before=before,
                proposed=proposed,
                departure=change.departure,
            )
        )
    for change in _part_changes(document):
        changes.append(change.model_copy(update={"id": len(changes) + 1}))
    other: TextVersion = "before" if read_as == "proposed" else "proposed"
    return TrackedText(
        read_as=read_as,
        other_text=placed[other].text,
        changes=[c for c in changes if c.text or c.kind == "formatting"],
        comments=_comments(document, placed),
    )


def change_elements(document: Any) -> dict[int, list[Any]]:
    """The body's elements of each tracked change, by the change's id (as :func:`tracked_text`
    numbers them): what a reply rejects or comments on in the file itself."""
    versions: tuple[TextVersion, ...] = ("proposed", "before")
    placed = {version: _place(list(body_lines(document, None, version))) for version in versions}
    return {number: change.elements for number, change in enumerate(_body_changes(document, placed), start=1)}  # type: ignore[arg-type]
