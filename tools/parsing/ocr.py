"""OCR of rendered pages with tesseract (pytesseract), per page, with word confidences.

Tesseract runs as a subprocess, so pages are OCR'd in parallel threads, each tesseract limited to
one OpenMP thread (``OMP_THREAD_LIMIT=1``): on 2 cores that is ~4x faster than the default.
"""

from __future__ import annotations

import os
import shutil
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pymupdf
import pytesseract
from PIL import Image

from clausewise.core.config import ParsingSettings
from clausewise.core.errors import CorruptDocument, OcrUnavailable
from tools.parsing.layout import Line, Word, group_into_lines
from tools.rendering import bounded_zoom

PAGE_TIMEOUT_SECONDS = 180


@dataclass
class OcrPage:
    lines: list[Line]
    confidence: float | None


def tesseract_path() -> str | None:
    return shutil.which(pytesseract.pytesseract.tesseract_cmd)


def require_tesseract(path: Path, pages: int) -> None:
    if tesseract_path() is None:
        raise OcrUnavailable(
            f"{pages} page(s) have no text layer and need OCR, but tesseract is not installed",
            hint="install it (Debian/Ubuntu: apt-get install tesseract-ocr; macOS: brew install "
            "tesseract) or set parsing.ocr=off to skip those pages",
            path=path,
        )


def render_page(page: pymupdf.Page, dpi: int) -> tuple[Image.Image, float]:
    """The page as a grey image at ``dpi`` (lower for a page too large for
    :data:`tools.rendering.MAX_PAGE_PIXELS`), and the points per pixel to map its words back."""
    zoom = bounded_zoom(page, dpi / 72.0)
    pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), colorspace=pymupdf.csGRAY, alpha=False)
    return Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples), 1.0 / zoom


def ocr_image(image: Image.Image, settings: ParsingSettings, scale: float) -> OcrPage:
    """Words of one page image; boxes scaled by ``scale`` back to PDF points."""
    try:
        data = pytesseract.image_to_data(
            image,
            lang=settings.ocr_lang,
            config=f"--psm {settings.ocr_psm}",
            output_type=pytesseract.Output.DICT,
            timeout=PAGE_TIMEOUT_SECONDS,
        )
    except pytesseract.TesseractError as exc:
        raise CorruptDocument(
            f"tesseract failed on a page ({exc.message.strip()[:200]})",
            hint=f"check that the '{settings.ocr_lang}' language data is installed "
            "(apt-get install tesseract-ocr-<lang>)",
        ) from exc
    words: list[Word] = []
    confidences: list[float] = []
    for i, text in enumerate(data["text"]):
        conf = float(data["conf"][i])
        if conf < 0 or not text.strip():
            continue
        x0, y0 = data["left"][i] * scale, data["top"][i] * scale
        x1, y1 = x0 + data["width"][i] * scale, y0 + data["height"][i] * scale
        words.append(Word(text.strip(), x0, y0, x1, y1))
        confidences.append(conf)
    mean = round(sum(confidences) / len(confidences), 1) if confidences else None
    return OcrPage(group_into_lines(words), mean)


def ocr_pages(document: pymupdf.Document, indexes: list[int], settings: ParsingSettings) -> list[OcrPage]:
    """OCR the given 0-based pages, in order. Rendering stays on this thread (pymupdf is not
    thread-safe); tesseract subprocesses run ``ocr_workers`` at a time."""
    os.environ.setdefault("OMP_THREAD_LIMIT", "1")
    window = 2 * settings.ocr_workers  # bounds memory: a page image is at most 12 MB
    results: list[OcrPage] = []
    with ThreadPoolExecutor(max_workers=settings.ocr_workers) as pool:
        pending: deque[Future[OcrPage]] = deque()
        for index in indexes:
            if len(pending) >= window:
                results.append(pending.popleft().result())
            image, scale = render_page(document[index], settings.ocr_dpi)
            pending.append(pool.submit(ocr_image, image, settings, scale))
        results.extend(future.result() for future in pending)
    return results
