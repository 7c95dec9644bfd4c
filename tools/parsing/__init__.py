"""Turn a contract file into a :class:`~clausewise.core.domain.ParsedDocument`.

One entry point, :func:`parse_document`, checks the file (size, type, readability) and dispatches
to the reader for its type. Every refusal is a typed :class:`~clausewise.core.errors.InputError`.
"""

from __future__ import annotations

from pathlib import Path

from clausewise.core.config import ParsingSettings
from clausewise.core.domain import FileType, ParsedDocument
from clausewise.core.errors import FileTooLarge
from tools.parsing.detect import check_size, detect_file_type


def parse_document(path: Path, settings: ParsingSettings) -> ParsedDocument:
    """Parse any supported contract file (PDF, page image, DOCX, TXT, Markdown, HTML)."""
    path = Path(path)
    check_size(path, settings.max_file_mb)
    file_type = detect_file_type(path)
    if file_type in (FileType.PDF, FileType.IMAGE):
        from tools.parsing.pdf import parse_pdf_file

        document = parse_pdf_file(path, settings, file_type)
    elif file_type == FileType.DOCX:
        from tools.parsing.word_file import parse_docx_file

        document = parse_docx_file(
            path, settings.max_unpacked_mb, settings.max_parse_seconds, settings.tracked_changes
        )
    elif file_type == FileType.HTML:
        from tools.parsing.html import parse_html_file

        document = parse_html_file(path)
    else:
        from tools.parsing.text import parse_text_file

        document = parse_text_file(path, file_type)
    if len(document.text) > settings.max_chars:
        raise FileTooLarge(
            f"the text is {len(document.text):,} characters, over the {settings.max_chars:,} limit",
            hint="split the document or raise parsing.max_chars (--parsing.max-chars)",
            path=path,
        )
    return document


def check_document(path: Path, settings: ParsingSettings) -> FileType:
    """The refusals of :func:`parse_document` that cost little, for a caller that must answer at
    once (an upload): size, type, a PDF that does not open, is encrypted, empty or too long, and,
    for the formats that parse in milliseconds (DOCX, HTML, text), the whole parse. Scanned
    pages are not read: OCR is the ingest's job."""
    path = Path(path)
    check_size(path, settings.max_file_mb)
    file_type = detect_file_type(path)
    if file_type in (FileType.PDF, FileType.IMAGE):
        from tools.parsing.pdf import open_pdf

        open_pdf(path, settings.max_pages).close()
    else:
        parse_document(path, settings)
    return file_type


__all__ = ["check_document", "parse_document"]
