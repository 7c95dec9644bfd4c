"""A reply Word file read by the benchmark's own readers, for ``clausewise eval changes --reply``:
its body's lines with each author's revisions accepted or rejected (lxml on the file's XML), and
the lines LibreOffice keeps when it opens the file (headless, converted to ODT).

Nothing here is the product's: the reply is written and checked by ``tools/round_reply.py``; the
benchmark reads it again its own way, so a fault the two shared could not hide itself.

Nesting is read as Word applies it: the words inside an insertion (``w:ins``, ``w:moveTo``) stay
when it is accepted, those inside a deletion (``w:del``, ``w:moveFrom``) when it is rejected, and
words inside several revisions (our deletion of their insertion) stay only when every one of them
keeps them. A paragraph mark that does not stay joins its paragraph to the next.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

from lxml import etree

from clausewise_lab.evals.office import converted

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_ODT_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"
_ODT_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_INSERTIONS = {f"{W}ins", f"{W}moveTo"}
_DELETIONS = {f"{W}del", f"{W}moveFrom"}


def _stays(revisions: list[etree._Element], accepted: Callable[[str], bool]) -> bool:
    """Whether words (or a paragraph mark) inside ``revisions`` stay when each author's revisions
    are accepted or rejected as ``accepted`` says."""
    for revision in revisions:
        taken = accepted(revision.get(f"{W}author") or "")
        if (revision.tag in _INSERTIONS and not taken) or (revision.tag in _DELETIONS and taken):
            return False
    return True


def _enclosing(node: etree._Element, paragraph: etree._Element) -> list[etree._Element]:
    found = []
    parent = node.getparent()
    while parent is not None and parent is not paragraph:
        if parent.tag in _INSERTIONS or parent.tag in _DELETIONS:
            found.append(parent)
        parent = parent.getparent()
    return found


def lines_as(data: bytes, accepted: Callable[[str], bool]) -> list[str]:
    """The body's non-blank lines, their words joined by single spaces, with the revisions of each
    author accepted where ``accepted(author)`` and rejected elsewhere."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        body = etree.fromstring(archive.read("word/document.xml"))
    lines: list[str] = []
    current: list[str] = []
    for paragraph in body.iter(f"{W}p"):
        for node in paragraph.iter(f"{W}t", f"{W}delText"):
            if _stays(_enclosing(node, paragraph), accepted):
                current.append(node.text or "")
        mark = paragraph.find(f"{W}pPr/{W}rPr")
        marks = [] if mark is None else [child for child in mark if child.tag in _INSERTIONS | _DELETIONS]
        if _stays(marks, accepted):
            lines.append(" ".join("".join(current).split()))
            current = []
    if current:
        lines.append(" ".join("".join(current).split()))
    return [line for line in lines if line]


def _drop_keeping_tail(element: etree._Element) -> None:
    parent, previous = element.getparent(), element.getprevious()
    if element.tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + element.tail
        else:
            parent.text = (parent.text or "") + element.tail
    parent.remove(element)


def odt_accepted_lines(odt: Path) -> list[str] | None:
    """The lines of an ODT's body as LibreOffice keeps them: the body holds the text with every
    change accepted and lists the deleted text apart (dropped here, with the comments); None when
    it has no text body."""
    with zipfile.ZipFile(odt) as opened:
        root = etree.fromstring(opened.read("content.xml"))
    body = root.find(f"{{{_ODT_OFFICE}}}body/{{{_ODT_OFFICE}}}text")
    if body is None:
        return None
    asides = [*body.iter(f"{{{_ODT_TEXT}}}tracked-changes"), *body.iter(f"{{{_ODT_OFFICE}}}annotation")]
    for aside in asides:
        _drop_keeping_tail(aside)
    lines = [
        " ".join("".join(p.itertext()).split()) for p in body.iter(f"{{{_ODT_TEXT}}}p", f"{{{_ODT_TEXT}}}h")
    ]
    return [line for line in lines if line]


def libreoffice_lines(data: bytes, office: str) -> list[str] | None:
    """The lines LibreOffice keeps in the body when it opens the DOCX ``data`` (``office``: its
    program), converted to ODT (:func:`odt_accepted_lines`); None when it could not open it."""
    with tempfile.TemporaryDirectory() as scratch:
        odt = converted(data, office, Path(scratch), "odt", name="reply")
        return None if odt is None else odt_accepted_lines(odt)
