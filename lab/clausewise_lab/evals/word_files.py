"""Word files with tracked changes written as Word writes them, for the tests and the
tracked-changes benchmark: paragraphs built of plain pieces and changes (``w:ins``, ``w:del`` with
``w:delText``, ``w:moveFrom`` / ``w:moveTo`` inside named move ranges, ``w:rPrChange``), paragraph
marks and table rows inserted or deleted, comments anchored on a range, and a change in the header."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape

from docx import Document
from docx.oxml import parse_xml
from docx.oxml.ns import nsdecls

DATE = "2026-11-30T10:00:00Z"


@dataclass(frozen=True)
class Change:
    """A piece of a paragraph inside a tracked change: ``kind`` is ins, del, moveFrom, moveTo or
    format (bold, with the old formatting recorded); ``move`` names a move's range."""

    kind: str
    author: str
    text: str
    move: str = ""
    deleted_by: str = ""  # an insertion deleted again by this author (in neither text)


@dataclass(frozen=True)
class Comment:
    """A piece of a paragraph with a comment anchored on it."""

    author: str
    text: str
    remark: str


@dataclass
class Para:
    pieces: list[str | Change | Comment]
    style: str | None = None
    mark: Change | None = None  # the paragraph mark inserted or deleted (kind ins or del; text unused)


@dataclass
class Row:
    cells: list[str]
    change: Change | None = None  # the row inserted or deleted


@dataclass
class WordFile:
    paragraphs: list[Para]
    rows: list[Row] = field(default_factory=list)
    header_change: Change | None = None


def _run(text: str, deleted: bool = False) -> str:
    tag = "w:delText" if deleted else "w:t"
    return f'<w:r><{tag} xml:space="preserve">{escape(text)}</{tag}></w:r>'


class _Ids:
    def __init__(self) -> None:
        self._next = itertools.count(100)

    def __call__(self) -> int:
        return next(self._next)


def _attributes(ids: _Ids, author: str) -> str:
    return f'w:id="{ids()}" w:author="{escape(author)}" w:date="{DATE}"'


def _change_xml(change: Change, ids: _Ids) -> str:
    if change.kind == "format":
        return (
            f"<w:r><w:rPr><w:b/><w:rPrChange {_attributes(ids, change.author)}><w:rPr/></w:rPrChange>"
            f'</w:rPr><w:t xml:space="preserve">{escape(change.text)}</w:t></w:r>'
        )
    deleted = change.kind in ("del", "moveFrom") or bool(change.deleted_by)
    inner = _run(change.text, deleted)
    if change.deleted_by:
        inner = f"<w:del {_attributes(ids, change.deleted_by)}>{inner}</w:del>"
    body = f"<w:{change.kind} {_attributes(ids, change.author)}>{inner}</w:{change.kind}>"
    if change.kind in ("moveFrom", "moveTo"):
        number = ids()
        who = f'w:author="{escape(change.author)}" w:date="{DATE}"'
        start = f'<w:{change.kind}RangeStart w:id="{number}" w:name="{change.move}" {who}/>'
        return f'{start}{body}<w:{change.kind}RangeEnd w:id="{number}"/>'
    return body


def _paragraph_xml(para: Para, ids: _Ids, comments: list[tuple[int, Comment]]) -> str:
    parts: list[str] = []
    for piece in para.pieces:
        if isinstance(piece, str):
            parts.append(_run(piece))
        elif isinstance(piece, Change):
            parts.append(_change_xml(piece, ids))
        else:
            number = len(comments)
            comments.append((number, piece))
            parts.append(
                f'<w:commentRangeStart w:id="{number}"/>{_run(piece.text)}'
                f'<w:commentRangeEnd w:id="{number}"/>'
                f'<w:r><w:commentReference w:id="{number}"/></w:r>'
            )
    return "".join(parts)


def _comments_part(document: Document, comments: list[tuple[int, Comment]]) -> None:
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    body = "".join(
        f'<w:comment w:id="{number}" w:author="{escape(c.author)}" w:date="{DATE}" w:initials="X">'
        f"<w:p><w:r><w:t>{escape(c.remark)}</w:t></w:r></w:p></w:comment>"
        for number, c in comments
    )
    declaration = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
    xml = f"{declaration}<w:comments {nsdecls('w')}>{body}</w:comments>"
    content_type = "application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml"
    part = Part(PackURI("/word/comments.xml"), content_type, xml.encode(), document.part.package)
    document.part.relate_to(part, RT.COMMENTS)


def write_word_file(path: Path, spec: WordFile) -> Path:
    """Write ``spec`` as a .docx at ``path``."""
    document = Document()
    ids = _Ids()
    comments: list[tuple[int, Comment]] = []
    for para in spec.paragraphs:
        paragraph = document.add_paragraph(style=para.style)
        element = paragraph._p
        if para.mark is not None:
            properties = element.get_or_add_pPr()
            properties.append(
                parse_xml(
                    f"<w:rPr {nsdecls('w')}>"
                    f"<w:{para.mark.kind} {_attributes(ids, para.mark.author)}/></w:rPr>"
                )
            )
        fragment = parse_xml(f"<w:p {nsdecls('w')}>{_paragraph_xml(para, ids, comments)}</w:p>")
        for child in list(fragment):
            element.append(child)
    if spec.rows:
        table = document.add_table(rows=0, cols=len(spec.rows[0].cells))
        for row_spec in spec.rows:
            row = table.add_row()
            if row_spec.change is not None:
                row._tr.insert(
                    0,
                    parse_xml(
                        f"<w:trPr {nsdecls('w')}>"
                        f"<w:{row_spec.change.kind} {_attributes(ids, row_spec.change.author)}/></w:trPr>"
                    ),
                )
            for cell, value in zip(row.cells, row_spec.cells, strict=True):
                paragraph = cell.paragraphs[0]._p
                if row_spec.change is not None:
                    piece = Change(row_spec.change.kind, row_spec.change.author, value)
                    paragraph.append(parse_xml(f"<w:p {nsdecls('w')}>{_change_xml(piece, ids)}</w:p>")[0])
                else:
                    paragraph.append(parse_xml(f"<w:p {nsdecls('w')}>{_run(value)}</w:p>")[0])
    if spec.header_change is not None:
        header = document.sections[0].header.paragraphs[0]._p
        header.append(parse_xml(f"<w:p {nsdecls('w')}>{_change_xml(spec.header_change, ids)}</w:p>")[0])
    if comments:
        _comments_part(document, comments)
    document.save(str(path))
    return path
