"""Decide what a file is from its bytes (not only its name) and refuse what we cannot ingest."""

from __future__ import annotations

import zipfile
from pathlib import Path

from clausewise.core.domain import FileType
from clausewise.core.errors import (
    CorruptDocument,
    EmptyDocument,
    EncryptedDocument,
    FileTooLarge,
    UnsupportedFileType,
)

TEXT_SUFFIXES = {".txt", ".text", ""}
MARKDOWN_SUFFIXES = {".md", ".markdown"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp"}

#: Formats we recognise but do not read, with the fix we suggest.
_KNOWN_UNSUPPORTED = {
    b"\xd0\xcf\x11\xe0": "a legacy Word/Office file (.doc); save it as .docx or PDF",
    b"{\\rtf": "an RTF file; save it as .docx, PDF or plain text",
    b"PK\x03\x04": "a ZIP archive; extract the contract first",
}
_IMAGE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*", b"BM")


def check_size(path: Path, max_file_mb: float) -> int:
    """Size in bytes; raises for missing, empty or oversized files."""
    if not path.exists():
        raise UnsupportedFileType("file does not exist", hint="check the path", path=path)
    if not path.is_file():
        raise UnsupportedFileType("not a regular file", hint="pass a file, not a folder", path=path)
    size = path.stat().st_size
    if size == 0:
        raise EmptyDocument("the file is empty (0 bytes)", hint="export the contract again", path=path)
    if size > max_file_mb * 1024 * 1024:
        raise FileTooLarge(
            f"the file is {size / 1024 / 1024:.1f} MB, over the {max_file_mb:g} MB limit",
            hint="split the file or raise parsing.max_file_mb (--parsing.max-file-mb)",
            path=path,
        )
    return size


def detect_file_type(path: Path) -> FileType:
    """File type from magic bytes first, extension second."""
    with path.open("rb") as handle:
        head = handle.read(2048)
    suffix = path.suffix.lower()
    if b"%PDF-" in head[:1024]:
        return FileType.PDF
    if suffix == ".pdf":
        raise CorruptDocument(
            "the file is named .pdf but is not a PDF (no %PDF header)",
            hint="re-export or re-download the PDF",
            path=path,
        )
    if head.startswith(b"PK\x03\x04") and _is_docx(path):
        return FileType.DOCX
    if suffix == ".docx" and head.startswith(b"\xd0\xcf\x11\xe0"):
        # Office wraps password-protected .docx files in an OLE2 container.
        raise EncryptedDocument(
            "the Word file is password-protected",
            hint="open it in Word, remove the password (File > Info > Protect) and save again",
            path=path,
        )
    if suffix == ".docx":
        raise CorruptDocument(
            "the file is named .docx but is not a Word document",
            hint="open it in Word or LibreOffice and save it as .docx again",
            path=path,
        )
    if head.startswith(_IMAGE_MAGIC) and suffix in IMAGE_SUFFIXES:
        return FileType.IMAGE
    for magic, what in _KNOWN_UNSUPPORTED.items():
        if head.startswith(magic):
            raise UnsupportedFileType(f"this is {what.split(';')[0]}", hint=what.split("; ")[1], path=path)
    if suffix in HTML_SUFFIXES or head.lstrip()[:15].lower().startswith((b"<!doctype html", b"<html")):
        return FileType.HTML
    if suffix in MARKDOWN_SUFFIXES:
        return FileType.MARKDOWN
    if suffix in TEXT_SUFFIXES or _looks_like_text(head):
        return FileType.TEXT
    raise UnsupportedFileType(
        f"unsupported file type {suffix or '(no extension)'}",
        hint="use PDF, DOCX, TXT, Markdown, HTML or a scanned page image",
        path=path,
    )


def _is_docx(path: Path) -> bool:
    try:
        with zipfile.ZipFile(path) as archive:
            return "word/document.xml" in archive.namelist()
    except zipfile.BadZipFile:
        return False


def _looks_like_text(head: bytes) -> bool:
    """Cheap test for other extensions (.rst, .text, ...): no NULs outside UTF-16 and mostly printable."""
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")):
        return True
    if b"\x00" in head:
        return False
    printable = sum(32 <= b < 127 or b in (9, 10, 13) or b >= 128 for b in head)
    return printable >= 0.95 * max(len(head), 1)
