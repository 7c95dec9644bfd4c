"""Word (.docx) contracts, including automatic numbering.

Word stores list numbers ("1.1", "(a)") as numbering definitions, not as text. A contract read
without them loses its whole structure, so we replay the numbering: per list instance and level,
count paragraphs and render the level's text pattern ("%1.%2") with its number format.
"""

from __future__ import annotations

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
from clausewise.core.errors import CorruptDocument, EmptyDocument
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


def _num_properties(paragraph: object) -> tuple[str, int] | None:
    """(numId, ilvl) from the paragraph or, failing that, from its style chain."""
    candidates = [paragraph._p.pPr]  # type: ignore[attr-defined]
    style = paragraph.style  # type: ignore[attr-defined]
    while style is not None:
        candidates.append(style.element.pPr)
        style = style.base_style
    for ppr in candidates:
        if ppr is None or ppr.numPr is None:
            continue
        num_pr = ppr.numPr
        if num_pr.numId is None:
            continue
        num_id = str(num_pr.numId.val)
        if num_id == "0":
            return None  # numbering explicitly removed
        ilvl = int(num_pr.ilvl.val) if num_pr.ilvl is not None else 0
        return num_id, ilvl
    return None


def _is_heading(paragraph: object) -> tuple[bool, float]:
    name = (paragraph.style.name or "").lower() if paragraph.style is not None else ""  # type: ignore[attr-defined]
    if name.startswith("heading") or name == "title":
        digits = "".join(ch for ch in name if ch.isdigit())
        return True, 24.0 - 2 * int(digits or 0)
    runs = [r for r in paragraph.runs if r.text.strip()]  # type: ignore[attr-defined]
    return bool(runs) and all(r.bold for r in runs), 0.0


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


def body_lines(document: Any) -> Iterator[BodyLine]:
    """The body's lines in reading order, empty ones left out (numbering replayed as it goes)."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    numbering = _Numbering.from_document(document)
    for child in document.element.body.iterchildren():
        if child.tag == qn("w:p"):
            paragraph = Paragraph(child, document)
            text = paragraph.text
            if not text.strip():
                continue
            heading, size = _is_heading(paragraph)
            label = ""
            if (props := _num_properties(paragraph)) is not None:
                label = numbering.label(*props)
            indent = float(props[1] * 20) if props else 0.0
            yield BodyLine(child, label, text, bold=heading, size=size, indent=indent)
        elif child.tag == qn("w:tbl"):
            for row in Table(child, document).rows:
                cells: list[str] = []
                for cell in row.cells:
                    value = " ".join(cell.text.split())
                    if value and (not cells or cells[-1] != value):  # merged cells repeat
                        cells.append(value)
                if cells:
                    yield BodyLine(row._tr, "", " | ".join(cells))


def open_docx(path: Path) -> Any:
    """The Word file as python-docx reads it; a file that is not one is a clear error."""
    try:
        return Document(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, etree.XMLSyntaxError) as exc:
        raise CorruptDocument(
            f"the Word file could not be opened ({exc.__class__.__name__})",
            hint="open it in Word or LibreOffice and save it as .docx again",
            path=path,
        ) from exc


def parse_docx_file(path: Path) -> ParsedDocument:
    document = open_docx(path)
    parts: list[str] = []
    blocks: list[Block] = []
    offset = 0
    for body_line in body_lines(document):
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
