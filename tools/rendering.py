"""Render contract text to PDF pages and to page images ("scans"), and a contract's pages to
images for the viewer.

Text to PDF and rasterizing are used by the tests and the ingest benchmark to exercise the PDF
and OCR paths with real contract text whose ground truth we know, and to build the scanned copies
of the example contracts.
"""

from __future__ import annotations

import html
from pathlib import Path

import pymupdf

from clausewise.core.errors import CorruptDocument, TooCostlyToDraw

LETTER = pymupdf.paper_rect("letter")
_CSS = "p {font-family: serif; font-size: 11pt; margin-bottom: 6pt; text-align: left;} h1 {font-size: 13pt;}"


def _indent_points(line: str) -> int:
    """6 pt per leading space, capped: a too-wide margin makes pymupdf's Story place nothing."""
    return min(6 * (len(line) - len(line.lstrip())), 72)


def text_to_pdf(text: str, path: Path, margin: float = 72.0, css: str = _CSS) -> int:
    """Lay out ``text`` on Letter pages, one paragraph per non-empty line (leading spaces become
    indentation); returns the page count."""
    lines = [line.expandtabs(4).rstrip() for line in text.splitlines() if line.strip()]
    body = "".join(
        f'<p style="margin-left: {_indent_points(line)}pt">{html.escape(line.strip())}</p>' for line in lines
    )
    story = pymupdf.Story(html=body, user_css=css)
    return write_story(story, pymupdf.DocumentWriter(str(path)), LETTER, margin)


def write_story(
    story: pymupdf.Story, writer: pymupdf.DocumentWriter, page: pymupdf.Rect, margin: float
) -> int:
    """Lay ``story`` out on as many ``page``-sized pages as it fills, ``margin`` points inside each
    edge, and close ``writer``; returns the page count."""
    frame = pymupdf.Rect(page.x0 + margin, page.y0 + margin, page.x1 - margin, page.y1 - margin)
    pages = 0
    more = True
    while more:
        device = writer.begin_page(page)
        more, _ = story.place(frame)
        story.draw(device)
        writer.end_page()
        pages += 1
    writer.close()
    return pages


#: The most pixels one page image may have (the viewer's and OCR's): 12 million is a Legal page at
#: 300 dpi; a page drawn 6,000 points wide is rendered smaller instead of taking gigabytes.
MAX_PAGE_PIXELS = 12_000_000


def bounded_zoom(page: pymupdf.Page, zoom: float, max_pixels: int = MAX_PAGE_PIXELS) -> float:
    """``zoom`` (pixels per point), lowered as needed so the page's image stays within
    ``max_pixels``."""
    area = max(page.rect.width * page.rect.height, 1.0)
    return min(zoom, (0.99 * max_pixels / area) ** 0.5)  # (pixel sides are rounded up)


def page_png(path: Path, number: int, scale: float = 1.5) -> bytes:
    """Page ``number`` (1-based) of a PDF or image file as PNG, ``scale`` pixels per point (less
    for a page too large for :data:`MAX_PAGE_PIXELS`): what a viewer shows under a citation's
    highlight (the highlights are placed in fractions of the page, so any scale fits them).

    MuPDF's own errors become typed ones (they cannot cross a process boundary as they are):
    memory it could not get, :class:`TooCostlyToDraw`; a page it cannot draw, :class:`CorruptDocument`.
    """
    try:
        with pymupdf.open(path) as document:
            page = document[number - 1]
            zoom = bounded_zoom(page, scale)
            return page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False).tobytes("png")
    except (MemoryError, pymupdf.mupdf.FzErrorSystem):
        raise TooCostlyToDraw(
            f"page {number} needs more memory to draw than is allowed",
            hint="show its text, or ask for a smaller scale",
        ) from None
    except pymupdf.mupdf.FzErrorBase:  # (MuPDF's message may name the file: not shown)
        raise CorruptDocument(f"page {number} cannot be drawn", hint="show its text") from None


def rasterize_pdf(source: Path, target: Path, dpi: int = 200, pages: int | None = None) -> int:
    """Turn a PDF into an image-only PDF (what a scanner produces); returns the page count."""
    with pymupdf.open(source) as document, pymupdf.open() as scanned:
        for index, page in enumerate(document):
            if pages is not None and index >= pages:
                break
            pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
            out = scanned.new_page(width=page.rect.width, height=page.rect.height)
            out.insert_image(out.rect, pixmap=pixmap)
        scanned.save(str(target), garbage=3, deflate=True)
        return scanned.page_count
