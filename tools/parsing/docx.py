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

from clausewise.core.domain import Block, FileType, PageInfo, ParsedDocument
from clausewise.core.errors import CorruptDocument, EmptyDocument, FileTooLarge, HiddenText, TooSlowToRead
from tools.structure.labels import int_to_roman
from tools.word_active_content import hidden_content


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


_RUN, _TEXT, _BREAK = qn("w:r"), qn("w:t"), qn("w:br")
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


def paragraph_runs(paragraph: Any) -> Iterator[Any]:
    """The ``w:r`` of a ``w:p`` that Word shows as its text, in order: its own runs and those
    inside links, simple fields (the field's result), smart tags, custom XML and content
    controls (runs inside tracked insertions are not the paragraph's text yet). A complex
    field's instruction is in ``w:instrText``, which no text reader takes, so its result reads
    as the text Word shows."""
    for child in paragraph:
        if child.tag == _RUN:
            yield child
        elif child.tag in _RUN_HOLDERS:
            yield from paragraph_runs(child)


def run_pieces(run: Any) -> Iterator[tuple[Any, str]]:
    """Each text-bearing child of a ``w:r`` and the text python-docx reads for it. Walked by
    hand: python-docx's XPath per paragraph grows with the document (a 100,000-paragraph file
    took minutes)."""
    for child in run:
        if child.tag == _TEXT:
            yield child, child.text or ""
        elif child.tag == _BREAK:
            yield child, "\n" if child.get(qn("w:type"), "textWrapping") == "textWrapping" else ""
        elif child.tag in _FIXED:
            yield child, _FIXED[child.tag]


def paragraph_text(paragraph: Any) -> str:
    """A ``w:p``'s text exactly as python-docx's ``Paragraph.text`` reads it."""
    return "".join(piece for run in paragraph_runs(paragraph) for _, piece in run_pieces(run))


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
    the body through here, so an offset into the contract finds its place in the Word file."""

    element: Any
    label: str
    text: str
    bold: bool = False
    size: float = 0.0
    indent: float = 0.0

    @property
    def is_row(self) -> bool:
        return self.element.tag == qn("w:tr")

    @property
    def line(self) -> str:
        return " ".join((f"{self.label} {self.text}" if self.label else self.text).split())


#: What makes a paragraph's text more than spaces (``CT_R.text`` reads tabs and breaks as spaces).
_VISIBLE = (f".//{qn('w:t')}", f".//{qn('w:noBreakHyphen')}")


def body_lines(document: Any, deadline: float | None = None) -> Iterator[BodyLine]:
    """The body's lines in reading order, empty ones left out (numbering replayed as it goes);
    past ``deadline`` (``time.monotonic()``) the read stops with :class:`TooSlowToRead`."""
    from docx.table import Table

    numbering = _Numbering.from_document(document)
    styles = _Styles(document)
    for number, child in enumerate(_blocks(document.element.body)):
        if deadline is not None and number % 1000 == 0 and time.monotonic() > deadline:
            raise TooSlowToRead(
                f"the Word file's body was still being read after {number:,} paragraphs",
                hint="open it in Word and check it is the contract (a real one reads in under a "
                "second), or raise parsing.max_parse_seconds",
            )
        if child.tag == qn("w:p"):
            if len(child) == 0 or all(child.find(path) is None for path in _VISIBLE):
                continue  # empty: no need to read it (a padded file has hundreds of thousands)
            text = paragraph_text(child)
            if not text.strip():
                continue
            heading, size = _is_heading(child, styles)
            label = ""
            if (props := _num_properties(child, styles)) is not None:
                label = numbering.label(*props)
            indent = float(props[1] * 20) if props else 0.0
            yield BodyLine(child, label, text, bold=heading, size=size, indent=indent)
        elif child.tag == qn("w:tbl"):
            for row in Table(child, document).rows:
                cells: list[str] = []
                for cell in row.cells:
                    value = " ".join(_cell_text(cell._tc).split())
                    if value and (not cells or cells[-1] != value):  # merged cells repeat
                        cells.append(value)
                if cells:
                    yield BodyLine(row._tr, "", " | ".join(cells))


def _blocks(holder: Any) -> Iterator[Any]:
    """The paragraphs and tables of the body in reading order, those inside content controls
    and custom XML included."""
    for child in holder.iterchildren():
        if child.tag in _BLOCK_HOLDERS:
            yield from _blocks(child)
        else:
            yield child


def _cell_text(cell: Any) -> str:
    """A table cell's text (its paragraphs, each as :func:`paragraph_text` reads it)."""
    return "\n".join(paragraph_text(p) for p in _blocks(cell) if p.tag == qn("w:p"))


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


def parse_docx_file(
    path: Path, max_unpacked_mb: float | None = None, max_seconds: float | None = None
) -> ParsedDocument:
    """The contract's text and blocks; a file over ``max_unpacked_mb`` unpacked, or whose body
    takes over ``max_seconds`` to read, is refused (:class:`FileTooLarge`)."""
    deadline = time.monotonic() + max_seconds if max_seconds is not None else None
    document = open_docx(path, max_unpacked_mb)
    hidden = hidden_content(document)
    if hidden:
        raise HiddenText(
            "the Word file shows text that is not in its body, which would not be read: " + "; ".join(hidden),
            hint="open it in Word and save it as a new .docx (Word then writes that text into the "
            "document), and ingest that file",
            path=path,
        )
    parts: list[str] = []
    blocks: list[Block] = []
    offset = 0
    try:
        lines = list(body_lines(document, deadline))
    except TooSlowToRead as error:
        error.path = path
        raise
    for body_line in lines:
        text = body_line.line
        if not text:
            continue
        blocks.append(
            Block(
                start=offset,
                end=offset + len(text),
                bold=body_line.bold,
                font_size=body_line.size,
                x0=body_line.indent,
            )
        )
        parts.append(text)
        offset += len(text) + 1
    if not parts:
        raise EmptyDocument("the Word file has no text", hint="check the export", path=path)
    text = "\n".join(parts)
    return ParsedDocument(
        source_name=path.name,
        file_type=FileType.DOCX,
        text=text,
        pages=[PageInfo(number=1, start=0, end=len(text))],
        blocks=blocks,
    )
