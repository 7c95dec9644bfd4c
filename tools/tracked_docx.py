"""A DOCX of a contract's text with real tracked changes (``w:ins`` / ``w:del``, with author and
date), which Word and LibreOffice open as changes to accept or reject.

Rejecting every change gives back the contract's text exactly (paragraph by paragraph, one
paragraph per line of the text); accepting every change gives the edited text. A line break
inside an inserted text is an inserted paragraph mark, one inside a deleted text a deleted mark,
so accepting or rejecting also joins or splits the paragraphs as it should.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Literal

from docx import Document
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from tools.playbook.redlines import Edit
from tools.xml_text import xml_safe

Kind = Literal["same", "ins", "del"]


def segments(text: str, edits: Sequence[Edit]) -> list[tuple[Kind, str]]:
    """The text as runs of unchanged, deleted and inserted text, in reading order."""
    out: list[tuple[Kind, str]] = []
    at = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < at:
            raise ValueError(f"edits overlap at offset {edit.start}")
        out.append(("same", text[at : edit.start]))
        out.append(("del", text[edit.start : edit.end]))
        out.append(("ins", edit.insert))
        at = edit.end
    out.append(("same", text[at:]))
    return [(kind, piece) for kind, piece in out if piece]


def _paragraphs(pieces: list[tuple[Kind, str]]) -> Iterator[tuple[list[tuple[Kind, str]], Kind]]:
    """Paragraphs as (their runs, how their closing mark changed): a mark is the line break that
    ends the paragraph, tracked like the text it belongs to."""
    runs: list[tuple[Kind, str]] = []
    for kind, piece in pieces:
        lines = piece.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        for number, line in enumerate(lines):
            if line:
                runs.append((kind, line))
            if number < len(lines) - 1:
                yield runs, kind
                runs = []
    yield runs, "same"


class RevisionMarks:
    """Revision attributes: a unique id per change (from ``first_id``, after any the document
    already uses), one author and one date for the export; every element made is kept in
    :attr:`made`, so a writer can tell its own changes from the document's."""

    def __init__(self, author: str, when: datetime, first_id: int = 1) -> None:
        self.author = xml_safe(author)
        self.date = when.strftime("%Y-%m-%dT%H:%M:%SZ")
        self.next_id = first_id
        self.made: list[OxmlElement] = []

    def element(self, tag: str) -> OxmlElement:
        element = OxmlElement(tag)
        element.set(qn("w:id"), str(self.next_id))
        element.set(qn("w:author"), self.author)
        element.set(qn("w:date"), self.date)
        self.next_id += 1
        self.made.append(element)
        return element


def text_run(kind: Kind, text: str) -> OxmlElement:
    """A ``w:r`` holding ``text`` (as ``w:delText`` for a deletion), characters XML cannot hold
    replaced."""
    run = OxmlElement("w:r")
    body = OxmlElement("w:delText" if kind == "del" else "w:t")
    body.set(qn("xml:space"), "preserve")
    body.text = xml_safe(text)
    run.append(body)
    return run


def tracked_docx(text: str, edits: Sequence[Edit], *, author: str, when: datetime, title: str = "") -> bytes:
    """The DOCX bytes of ``text`` with ``edits`` as tracked changes by ``author`` at ``when``."""
    document = Document()
    if title:
        document.core_properties.title = xml_safe(title)
    body = document.element.body
    section = body[-1]  # python-docx's template ends the body with its section properties
    marks = RevisionMarks(author, when)
    for runs, mark in _paragraphs(segments(text, edits)):
        paragraph = OxmlElement("w:p")
        if mark != "same":
            properties, run_properties = OxmlElement("w:pPr"), OxmlElement("w:rPr")
            run_properties.append(marks.element("w:ins" if mark == "ins" else "w:del"))
            properties.append(run_properties)
            paragraph.append(properties)
        for kind, piece in runs:
            if kind == "same":
                paragraph.append(text_run(kind, piece))
                continue
            change = marks.element(f"w:{kind}")
            change.append(text_run(kind, piece))
            paragraph.append(change)
        section.addprevious(paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()
