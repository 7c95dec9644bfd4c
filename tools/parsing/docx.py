"""Word (.docx) contracts, including automatic numbering.

Word stores list numbers ("1.1", "(a)") as numbering definitions, not as text. A contract read
without them loses its whole structure, so we replay the numbering: per list instance and level,
count paragraphs and render the level's text pattern ("%1.%2") with its number format.
"""

from __future__ import annotations

import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docx import Document
from docx.opc.exceptions import PackageNotFoundError
from docx.oxml.ns import qn
from lxml import etree

from clausewise.core.domain import TextVersion
from clausewise.core.errors import CorruptDocument, FileTooLarge, TooSlowToRead
from tools.structure.labels import int_to_roman


def _number(value: str | None, default: int) -> int:
    """A numbering attribute as a number; a value Word would not write falls back to its default
    (a malformed file is read as far as it can be, never a 500)."""
    return int(value) if value is not None and value.strip().isdigit() else default


@dataclass
class _Level:
    start: int = 1
    fmt: str = "decimal"
    text: str = "%1."


@dataclass
class _Numbering:
    """Numbering definitions (abstract lists, instances) and the running counters."""

    abstract_levels: dict[str, dict[int, _Level]] = field(default_factory=dict)
    num_to_abstract: dict[str, str] = field(default_factory=dict)
    start_overrides: dict[tuple[str, int], int] = field(default_factory=dict)
    counters: dict[str, dict[int, int]] = field(default_factory=dict)

    @classmethod
    def from_document(cls, document: object) -> _Numbering:
        numbering = cls()
        try:
            root = document.part.numbering_part.element  # type: ignore[attr-defined]
        except (KeyError, NotImplementedError):
            return numbering
        for abstract in root.findall(qn("w:abstractNum")):
            levels: dict[int, _Level] = {}
            for lvl in abstract.findall(qn("w:lvl")):
                level = _Level()
                if (start := lvl.find(qn("w:start"))) is not None:
                    level.start = _number(start.get(qn("w:val")), 1)
                if (fmt := lvl.find(qn("w:numFmt"))) is not None:
                    level.fmt = fmt.get(qn("w:val"), "decimal")
                if (text := lvl.find(qn("w:lvlText"))) is not None:
                    level.text = text.get(qn("w:val"), "")
                levels[_number(lvl.get(qn("w:ilvl")), 0)] = level
            numbering.abstract_levels[abstract.get(qn("w:abstractNumId"))] = levels
        for num in root.findall(qn("w:num")):
            num_id = num.get(qn("w:numId"))
            ref = num.find(qn("w:abstractNumId"))
            if ref is not None:
                numbering.num_to_abstract[num_id] = ref.get(qn("w:val"))
            for override in num.findall(qn("w:lvlOverride")):
                start = override.find(qn("w:startOverride"))
                if start is not None:
                    key = (num_id, _number(override.get(qn("w:ilvl")), 0))
                    numbering.start_overrides[key] = _number(start.get(qn("w:val")), 1)
        return numbering

    def label(self, num_id: str, ilvl: int) -> str:
        """Advance the counter of (list, level) and render the label Word would show."""
        levels = self.abstract_levels.get(self.num_to_abstract.get(num_id, ""), {})
        if ilvl not in levels:
            return ""
        counters = self.counters.setdefault(num_id, {})
        start = self.start_overrides.get((num_id, ilvl), levels[ilvl].start)
        counters[ilvl] = counters.get(ilvl, start - 1) + 1
        for deeper in [k for k in counters if k > ilvl]:
            del counters[deeper]
        level = levels[ilvl]
        if level.fmt == "bullet":
            return "\u2022"
        if level.fmt == "none":
            return ""
        rendered = level.text
        for k in range(ilvl + 1):
            value = counters.get(k, self.start_overrides.get((num_id, k), levels.get(k, _Level()).start))
            fmt = levels.get(k, _Level()).fmt
            rendered = rendered.replace(f"%{k + 1}", _format_number(value, fmt))
        return rendered


def _format_number(value: int, fmt: str) -> str:
    if fmt == "lowerLetter":
        return chr(96 + (value - 1) % 26 + 1) * ((value - 1) // 26 + 1)
    if fmt == "upperLetter":
        return chr(64 + (value - 1) % 26 + 1) * ((value - 1) // 26 + 1)
    if fmt == "lowerRoman":
        return int_to_roman(value)
    if fmt == "upperRoman":
        return int_to_roman(value).upper()
    if fmt == "decimalZero":
        return f"{value:02d}"
    return str(value)


class _Styles:
    """The document's paragraph styles by id, each with its chain of base styles, resolved once:
    python-docx resolves a paragraph's style by scanning every style of the document, three
    times per paragraph here, which made a 10,000-paragraph file take 30 s to read."""

    def __init__(self, document: Any) -> None:
        self.by_id: dict[str, Any] = {}
        self.default: Any = None
        try:
            styles = document.part.styles.element
        except (KeyError, NotImplementedError):
            return
        for style in styles.findall(qn("w:style")):
            if style.get(qn("w:type"), "paragraph") != "paragraph":
                continue
            self.by_id[style.get(qn("w:styleId"), "")] = style
            if style.get(qn("w:default")) in ("1", "true", "on"):
                self.default = style
        self._chains: dict[str, list[Any]] = {}

    def chain(self, paragraph: Any) -> list[Any]:
        """The paragraph's style, then the styles it is based on (the default style when it
        names none, or one the document does not have)."""
        properties = paragraph.pPr
        wanted = properties.pStyle.val if properties is not None and properties.pStyle is not None else ""
        if wanted not in self._chains:
            style = self.by_id.get(wanted, self.default)
            chain: list[Any] = []
            while style is not None and all(style is not seen for seen in chain):
                chain.append(style)
                based = style.find(qn("w:basedOn"))
                style = self.by_id.get(based.get(qn("w:val"), "")) if based is not None else None
            self._chains[wanted] = chain
        return self._chains[wanted]

    def name(self, paragraph: Any) -> str:
        chain = self.chain(paragraph)
        named = chain[0].find(qn("w:name")) if chain else None
        return (named.get(qn("w:val"), "") if named is not None else "").lower()


def _num_properties(paragraph: Any, styles: _Styles) -> tuple[str, int] | None:
    """(numId, ilvl) from the paragraph (its ``w:p``) or, failing that, from its style chain."""
    candidates = [paragraph.pPr, *(style.find(qn("w:pPr")) for style in styles.chain(paragraph))]
    for ppr in candidates:
        num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
        if num_pr is None:
            continue
        num_id_element = num_pr.find(qn("w:numId"))
        if num_id_element is None:
            continue
        num_id = num_id_element.get(qn("w:val"), "")
        if num_id == "0":
            return None  # numbering explicitly removed
        ilvl_element = num_pr.find(qn("w:ilvl"))
        return num_id, _number(ilvl_element.get(qn("w:val")) if ilvl_element is not None else None, 0)
    return None


_RUN, _TEXT, _DELETED_TEXT, _BREAK = qn("w:r"), qn("w:t"), qn("w:delText"), qn("w:br")
#: Elements inside a paragraph whose runs Word shows as the paragraph's text: links, simple
#: fields (their result), smart tags, custom XML and content controls (their content).
_RUN_HOLDERS = frozenset(
    {
        qn("w:hyperlink"),
        qn("w:fldSimple"),
        qn("w:smartTag"),
        qn("w:customXml"),
        qn("w:sdt"),
        qn("w:sdtContent"),
    }
)
#: Elements of the body that hold paragraphs and tables Word shows in place (content controls,
#: custom XML).
_BLOCK_HOLDERS = frozenset({qn("w:sdt"), qn("w:sdtContent"), qn("w:customXml")})
#: Run children read as a fixed character (python-docx's ``CT_R.text``); w:t and w:br aside.
_FIXED = {qn("w:tab"): "\t", qn("w:ptab"): "\t", qn("w:cr"): "\n", qn("w:noBreakHyphen"): "-"}
_OFF = ("0", "false", "off")
#: Tracked changes whose content is in the text as proposed only (an insertion; the new place of
#: moved text) and in the text as before only (a deletion; the old place of moved text).
INSERTED = frozenset({qn("w:ins"), qn("w:moveTo")})
DELETED = frozenset({qn("w:del"), qn("w:moveFrom")})
#: Tracked changes of a run's or a paragraph's formatting (their words are in both texts).
FORMATTING = frozenset({qn("w:rPrChange"), qn("w:pPrChange")})
#: Where a comment is anchored: the start and end of its range, and its reference mark.
COMMENT_MARKS = frozenset({qn("w:commentRangeStart"), qn("w:commentRangeEnd"), qn("w:commentReference")})


def shown_in(change: Any, view: TextVersion) -> bool:
    """Whether the content of a tracked change (``w:ins``, ``w:del``, ``w:moveTo``, ``w:moveFrom``)
    is in the file's text as ``view``."""
    return change.tag not in (DELETED if view == "proposed" else INSERTED)


def mark_change(element: Any) -> Any | None:
    """The tracked change of a paragraph's mark (in ``w:pPr/w:rPr``) or of a table row (in
    ``w:trPr``), if it has one: an inserted mark splits a paragraph in two, a deleted one joins it
    to the next."""
    properties = element.find(qn("w:pPr") if element.tag == qn("w:p") else qn("w:trPr"))
    if properties is None:
        return None
    holder = properties.find(qn("w:rPr")) if element.tag == qn("w:p") else properties
    if holder is None:
        return None
    return next((child for child in holder if child.tag in INSERTED | DELETED), None)


def _items(
    holder: Any, view: TextVersion, enclosing: tuple[Any, ...]
) -> Iterator[tuple[Any, tuple[Any, ...]]]:
    """The runs of a paragraph (or of part of one) that are in ``view``'s text, each with the
    tracked changes enclosing it; a change whose content is not in that text, and a comment's
    range mark, come as themselves with ``None`` (a point in the text)."""
    for child in holder:
        if child.tag == _RUN:
            yield child, enclosing
        elif child.tag in INSERTED or child.tag in DELETED:
            if shown_in(child, view):
                yield from _items(child, view, (*enclosing, child))
            else:
                yield child, None  # type: ignore[misc]
        elif child.tag in _RUN_HOLDERS:
            yield from _items(child, view, enclosing)
        elif child.tag in COMMENT_MARKS:
            yield child, None  # type: ignore[misc]


def paragraph_runs(paragraph: Any, view: TextVersion = "proposed") -> Iterator[Any]:
    """The ``w:r`` of a ``w:p`` that Word shows as its text as ``view``, in order: its own runs and
    those inside links, simple fields (the field's result), smart tags, custom XML, content
    controls and the tracked changes whose content is in that text. A complex field's instruction
    is in ``w:instrText``, which no text reader takes, so its result reads as the text Word shows."""
    for element, enclosing in _items(paragraph, view, ()):
        if enclosing is not None:
            yield element


def run_pieces(run: Any) -> Iterator[tuple[Any, str]]:
    """Each text-bearing child of a ``w:r`` and the text python-docx reads for it (a deleted run's
    words are in ``w:delText``). Walked by hand: python-docx's XPath per paragraph grows with the
    document (a 100,000-paragraph file took minutes)."""
    for child in run:
        if child.tag == _TEXT or child.tag == _DELETED_TEXT:
            yield child, child.text or ""
        elif child.tag == _BREAK:
            yield child, "\n" if child.get(qn("w:type"), "textWrapping") == "textWrapping" else ""
        elif child.tag in _FIXED:
            yield child, _FIXED[child.tag]


@dataclass
class TaggedText:
    """Text read from Word with, for each piece inside tracked changes, the changes holding it
    (``tagged``: raw start, end and the change elements) and the points where a change absent
    from this text, or a comment's mark, sits (``points``: raw index and element). A file without
    revisions reads as plain text: nothing tagged."""

    text: str = ""
    tagged: list[tuple[int, int, tuple[Any, ...]]] = field(default_factory=list)
    points: list[tuple[int, Any]] = field(default_factory=list)

    def add(self, piece: str, changes: tuple[Any, ...] = ()) -> None:
        if changes and piece:
            self.tagged.append((len(self.text), len(self.text) + len(piece), changes))
        self.text += piece

    def point(self, element: Any) -> None:
        self.points.append((len(self.text), element))

    def extend(self, other: TaggedText) -> None:
        shift = len(self.text)
        self.tagged.extend((start + shift, end + shift, changes) for start, end, changes in other.tagged)
        self.points.extend((at + shift, element) for at, element in other.points)
        self.text += other.text


def _run_formatting(run: Any) -> tuple[Any, ...]:
    change = run.find(f"{qn('w:rPr')}/{qn('w:rPrChange')}")
    return (change,) if change is not None else ()


def tagged_paragraph(paragraph: Any, view: TextVersion) -> TaggedText:
    """A ``w:p``'s text as ``view`` (as python-docx's ``Paragraph.text`` reads it when the file has
    no tracked changes), with its tracked changes and comment marks placed in it."""
    tagged = TaggedText()
    paragraph_change = paragraph.find(f"{qn('w:pPr')}/{qn('w:pPrChange')}")
    around = (paragraph_change,) if paragraph_change is not None else ()
    for element, enclosing in _items(paragraph, view, ()):
        if enclosing is None:
            tagged.point(element)
            continue
        changes = (*around, *enclosing, *_run_formatting(element))
        for child in element:
            if child.tag in COMMENT_MARKS:
                tagged.point(child)
        for _, piece in run_pieces(element):
            tagged.add(piece, changes)
    return tagged


def _bold(run: Any) -> bool:
    """Whether a run is bold by its own formatting (python-docx's ``run.bold`` is True)."""
    mark = run.find(f"{qn('w:rPr')}/{qn('w:b')}")
    return mark is not None and mark.get(qn("w:val"), "true").lower() not in _OFF


def _is_heading(paragraph: Any, styles: _Styles) -> tuple[bool, float]:
    name = styles.name(paragraph)
    if name.startswith("heading") or name == "title":
        digits = "".join(ch for ch in name if ch.isdigit())
        return True, 24.0 - 2 * int(digits or 0)
    runs = [r for r in paragraph if r.tag == _RUN and "".join(p for _, p in run_pieces(r)).strip()]
    return bool(runs) and all(_bold(r) for r in runs), 0.0


@dataclass(frozen=True)
class BodyLine:
    """One line of the contract's text as Word's body holds it: a paragraph (``element`` is its
    ``w:p``, ``label`` the number Word shows before it) or a table row (``element`` its ``w:tr``,
    ``text`` its cells joined). ``text`` is as python-docx reads it, before spaces are collapsed;
    the line of the contract is :attr:`line`. The parser and the tracked-changes writer both walk
    the body through here, so an offset into the contract finds its place in the Word file.

    In a file with tracked changes, ``tagged`` places them in ``text``; ``label_changes`` hold the
    label when the paragraph's mark is itself inserted or deleted (the whole numbered paragraph is
    new or struck) and ``end_changes`` the line's end (its paragraph mark or table row)."""

    element: Any
    label: str
    text: str
    bold: bool = False
    size: float = 0.0
    indent: float = 0.0
    tagged: TaggedText | None = None
    label_changes: tuple[Any, ...] = ()
    end_changes: tuple[Any, ...] = ()

    @property
    def is_row(self) -> bool:
        return self.element.tag == qn("w:tr")

    @property
    def line(self) -> str:
        return " ".join(self.raw.split())

    @property
    def raw(self) -> str:
        """The label, a space and the text, before spaces are collapsed into :attr:`line`."""
        return f"{self.label} {self.text}" if self.label else self.text


#: What makes a paragraph's text more than spaces (``CT_R.text`` reads tabs and breaks as spaces).
_VISIBLE = (f".//{qn('w:t')}", f".//{qn('w:noBreakHyphen')}", f".//{qn('w:delText')}")


def body_lines(
    document: Any, deadline: float | None = None, view: TextVersion = "proposed"
) -> Iterator[BodyLine]:
    """The body's lines of the text as ``view`` in reading order, empty ones left out (numbering
    replayed as it goes); past ``deadline`` (``time.monotonic()``) the read stops with
    :class:`TooSlowToRead`. A paragraph whose mark is not in that text (deleted when proposed,
    inserted when before) joins the next one, as Word shows it; a table row not in it is left out."""
    from docx.table import Table

    numbering = _Numbering.from_document(document)
    styles = _Styles(document)
    joining = TaggedText()  # paragraphs whose mark is not in this text, and points between lines
    for number, child in enumerate(_blocks(document.element.body)):
        if deadline is not None and number % 1000 == 0 and time.monotonic() > deadline:
            raise TooSlowToRead(
                f"the Word file's body was still being read after {number:,} paragraphs",
                hint="open it in Word and check it is the contract (a real one reads in under a "
                "second), or raise parsing.max_parse_seconds",
            )
        if child.tag in COMMENT_MARKS:
            joining.point(child)
            continue
        if child.tag == qn("w:p"):
            if not joining.text and (len(child) == 0 or all(child.find(path) is None for path in _VISIBLE)):
                continue  # empty: no need to read it (a padded file has hundreds of thousands)
            change = mark_change(child)
            tagged = tagged_paragraph(child, view)
            if change is not None and not shown_in(change, view):
                joining.extend(tagged)
                joining.point(change)
                continue
            if joining.text or joining.points:
                joining.extend(tagged)
                tagged, joining = joining, TaggedText()
            if not tagged.text.strip():
                for _, element in tagged.points:  # kept for the next line
                    joining.point(element)
                continue
            heading, size = _is_heading(child, styles)
            label = ""
            if (props := _num_properties(child, styles)) is not None:
                label = numbering.label(*props)
            indent = float(props[1] * 20) if props else 0.0
            marks = (change,) if change is not None else ()
            yield BodyLine(
                child,
                label,
                tagged.text,
                bold=heading,
                size=size,
                indent=indent,
                tagged=tagged if tagged.tagged or tagged.points else None,
                label_changes=marks,
                end_changes=marks,
            )
        elif child.tag == qn("w:tbl"):
            for row in Table(child, document).rows:
                change = mark_change(row._tr)
                if change is not None and not shown_in(change, view):
                    joining.point(change)
                    continue
                line = _row_line(row, view, (change,) if change is not None else (), joining)
                if line is not None:
                    joining = TaggedText()
                    yield line
    if joining.text.strip():
        yield BodyLine(document.element.body, "", joining.text, tagged=joining)


def _row_line(row: Any, view: TextVersion, changes: tuple[Any, ...], before: TaggedText) -> BodyLine | None:
    """A table row as one line: its cells' texts joined by " | " (a merged cell once), the points
    met ``before`` it first; None when its cells are empty."""
    tagged = TaggedText()
    tagged.extend(before)
    seen: list[str] = []
    for cell in row.cells:
        text = _cell_tagged(cell._tc, view)
        value = " ".join(text.text.split())
        if not value or (seen and seen[-1] == value):  # merged cells repeat
            continue
        if seen:
            tagged.add(" | ")
        seen.append(value)
        if changes:
            text.tagged = [(0, len(text.text), changes), *text.tagged]
        tagged.extend(text)
    if not seen:
        return None
    return BodyLine(
        row._tr,
        "",
        tagged.text,
        tagged=tagged if tagged.tagged or tagged.points else None,
        end_changes=changes,
    )


def _blocks(holder: Any) -> Iterator[Any]:
    """The paragraphs and tables of the body in reading order, those inside content controls
    and custom XML included."""
    for child in holder.iterchildren():
        if child.tag in _BLOCK_HOLDERS:
            yield from _blocks(child)
        else:
            yield child


def _cell_tagged(cell: Any, view: TextVersion) -> TaggedText:
    """A table cell's text as ``view``: its paragraphs, one a line (a paragraph whose mark is not
    in that text runs on into the next)."""
    tagged = TaggedText()
    joined = True
    for paragraph in _blocks(cell):
        if paragraph.tag != qn("w:p"):
            continue
        if not joined:
            tagged.add("\n")
        tagged.extend(tagged_paragraph(paragraph, view))
        change = mark_change(paragraph)
        joined = change is not None and not shown_in(change, view)
        if joined:
            tagged.point(change)
    return tagged


def _check_unpacked(path: Path, max_mb: float) -> None:
    """Refuse a Word file whose XML unpacks to more than ``max_mb`` (a zip bomb: a few kilobytes
    that inflate to gigabytes in memory) before any of it is read."""
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(i.file_size for i in archive.infolist() if i.filename.endswith(".xml"))
    except zipfile.BadZipFile:
        return  # python-docx says why, below
    if unpacked > max_mb * 1024 * 1024:
        raise FileTooLarge(
            f"the Word file's text unpacks to {unpacked / 1024 / 1024:,.0f} MB, over the {max_mb:g} MB "
            "allowed",
            hint="check it is the contract, or raise parsing.max_unpacked_mb",
            path=path,
        )


def open_docx(path: Path, max_unpacked_mb: float | None = None) -> Any:
    """The Word file as python-docx reads it; a file that is not one is a clear error."""
    if max_unpacked_mb is not None:
        _check_unpacked(path, max_unpacked_mb)
    try:
        return Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, etree.XMLSyntaxError) as exc:
        raise CorruptDocument(
            f"the Word file could not be opened ({exc.__class__.__name__})",
            hint="open it in Word or LibreOffice and save it as .docx again",
            path=path,
        ) from exc
