"""PDF contracts (and page images) with pymupdf; pages without a usable text layer go to OCR.

Each page is read from its text layer when it has one; otherwise (or when OCR is forced) it is
rendered and read by tesseract, so scanned, born-digital and mixed PDFs all work.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from clausewise.core.config import ParsingSettings
from clausewise.core.domain import FileType, ParsedDocument
from clausewise.core.errors import CorruptDocument, EmptyDocument, EncryptedDocument, FileTooLarge
from tools.parsing import ocr
from tools.parsing.layout import (
    Line,
    PageLines,
    Word,
    assemble,
    group_into_lines,
    reading_order,
    remove_page_furniture,
)

_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
_BOLD_FLAG = 16


def open_pdf(path: Path, max_pages: int) -> pymupdf.Document:
    """Open a PDF or image, refusing corrupt, encrypted, empty or oversized documents."""
    try:
        document = pymupdf.open(path)
    except (pymupdf.FileDataError, pymupdf.EmptyFileError, RuntimeError, ValueError) as exc:
        # the library names the file by its full path: the message names it by its name only
        reason = str(exc).replace(str(path.resolve()), path.name).replace(str(path), path.name)
        raise CorruptDocument(
            f"the file could not be read as a PDF/image ({reason})",
            hint="re-export or re-download it; if it opens elsewhere, print it to a new PDF",
            path=path,
        ) from exc
    if document.needs_pass and not document.authenticate(""):
        document.close()
        raise EncryptedDocument(
            "the PDF is password-protected",
            hint="remove the password (e.g. `qpdf --decrypt --password=... in.pdf out.pdf`) and ingest again",
            path=path,
        )
    if document.page_count == 0:
        document.close()
        raise EmptyDocument("the PDF has no pages", hint="check the export", path=path)
    if document.page_count > max_pages:
        count = document.page_count
        document.close()
        raise FileTooLarge(
            f"the PDF has {count} pages, over the {max_pages}-page limit",
            hint="split it or raise parsing.max_pages (--parsing.max-pages)",
            path=path,
        )
    return document


def text_layer_lines(page: pymupdf.Page) -> list[Line]:
    """Visual lines of a page's text layer, each word with its box, bold flag and font size."""
    textpage = page.get_textpage(flags=_TEXT_FLAGS)
    styles: dict[tuple[int, int], tuple[bool, float]] = {}
    for b, block in enumerate(page.get_text("dict", textpage=textpage)["blocks"]):
        for li, line in enumerate(block.get("lines", [])):
            spans = [s for s in line["spans"] if s["text"].strip()]
            if spans:
                bold = all(s["flags"] & _BOLD_FLAG or "bold" in s["font"].lower() for s in spans)
                styles[(b, li)] = (bold, max(s["size"] for s in spans))
    words: list[Word] = []
    word_style: dict[int, tuple[bool, float]] = {}
    for x0, y0, x1, y1, text, block_no, line_no, _ in page.get_text("words", textpage=textpage):
        if not text.strip():
            continue
        word = Word(text, x0, y0, x1, y1)
        word_style[id(word)] = styles.get((block_no, line_no), (False, 0.0))
        words.append(word)
    lines = group_into_lines(words)
    for line in lines:
        flags = [word_style[id(w)] for w in line.words]
        line.bold = all(bold for bold, _ in flags)
        line.size = max(size for _, size in flags)
    return lines


def _usable(lines: list[Line], min_chars: int) -> bool:
    text = "".join(line.text for line in lines)
    visible = sum(not ch.isspace() for ch in text)
    garbage = text.count("\ufffd") + text.count("(cid:")
    return visible >= min_chars and garbage <= 0.1 * max(visible, 1)


def parse_pdf_file(path: Path, settings: ParsingSettings, file_type: FileType) -> ParsedDocument:
    document = open_pdf(path, settings.max_pages)
    warnings: list[str] = []
    try:
        pages: list[PageLines] = []
        needs_ocr: list[int] = []
        for index, page in enumerate(document):
            lines = [] if settings.ocr == "force" else text_layer_lines(page)
            page_lines = PageLines(index + 1, page.rect.width, page.rect.height)
            if settings.ocr == "force" or not _usable(lines, settings.min_text_chars_per_page):
                needs_ocr.append(index)
                if settings.ocr == "off" and lines:
                    page_lines.lines = lines  # keep what little text there is
            else:
                page_lines.lines = lines
            pages.append(page_lines)
        if needs_ocr and settings.ocr != "off":
            ocr.require_tesseract(path, len(needs_ocr))
            results = ocr.ocr_pages(document, needs_ocr, settings)
            for index, result in zip(needs_ocr, results, strict=True):
                pages[index].lines = result.lines
                pages[index].source = "ocr"
                pages[index].ocr_confidence = result.confidence
        elif needs_ocr:
            warnings.append(
                f"{len(needs_ocr)} page(s) without a text layer were not OCR'd (parsing.ocr=off): "
                + ", ".join(str(i + 1) for i in needs_ocr[:20])
            )
    finally:
        document.close()
    for page in pages:
        page.lines, extents = reading_order(page.lines, page.width)
        page.column_left = [e[0] for e in extents]
        page.column_right = [e[1] for e in extents]
    if settings.remove_headers_footers:
        remove_page_furniture(pages)
    assembled = assemble(pages)
    if not assembled.text.strip():
        raise EmptyDocument(
            "no text could be read from any page",
            hint="if it is a scan, enable OCR (parsing.ocr=auto) and install tesseract",
            path=path,
        )
    low_confidence = [
        p.number for p in assembled.pages if p.ocr_confidence is not None and p.ocr_confidence < 60
    ]
    if low_confidence:
        warnings.append(f"low OCR confidence on page(s) {low_confidence[:20]}: check quotes from them")
    return ParsedDocument(
        source_name=path.name,
        file_type=file_type,
        text=assembled.text,
        pages=assembled.pages,
        blocks=assembled.blocks,
        words=assembled.words,
        warnings=warnings,
    )
