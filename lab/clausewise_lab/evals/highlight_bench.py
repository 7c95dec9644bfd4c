"""``clausewise eval highlight``: are citations shown exactly where their words are?

1. Geometry, on the 30 real CUAD PDFs: every gold clause of their CUAD annotations, located in
   our text of the PDF, highlighted as the viewer draws it (:func:`tools.highlight.highlight`):
   - coverage: the share of the span's characters whose word boxes lie inside a drawn
     rectangle (goal >= 99%);
   - outside: the share of the drawn area outside the span's words, the spaces between the
     words of a line counted as theirs (goal < 2%).
   The sources of an ``eval qa`` results file (``--qa``) are measured the same way when their
   contract has page geometry; sources on text documents are highlighted character by character
   and counted apart.
2. Page images: the time to render each page of those PDFs at screen resolution (p95, goal <
   300 ms).
3. In a browser (Debian's chromium driven by Playwright, when installed): the time from clicking
   Ask to the first streamed step on screen, against a server on loopback with instant replies
   (p95, goal < 1 s).
"""

from __future__ import annotations

import itertools
import json
import statistics
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from clausewise.core.config import Settings, with_overrides
from clausewise.core.domain import ParsedDocument, Span
from clausewise.core.progress import NoProgress, Progress
from clausewise_lab import EXAMPLES
from clausewise_lab.evals.data import cuad_documents, cuad_pdfs
from tools.citations import QuoteVerifier
from tools.highlight import highlight, same_line
from tools.parsing import parse_document
from tools.rendering import page_png

GOALS = {"coverage": 0.99, "outside": 0.02, "page_render_p95_ms": 300.0, "first_step_p95_seconds": 1.0}
CHROMIUM = Path("/usr/bin/chromium")
#: Debian's chromium headless, offline: no sandbox (containers), no GPU, no calls home.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
_GRID = 0.25  # points: the resolution at which drawn areas are compared


def inside(box: tuple, rects: list[tuple], tolerance: float = 0.01) -> bool:
    """Whether ``box`` lies within one of ``rects`` (x0, y0, x1, y1), give or take ``tolerance``."""
    return any(
        r[0] - tolerance <= box[0]
        and r[1] - tolerance <= box[1]
        and box[2] <= r[2] + tolerance
        and box[3] <= r[3] + tolerance
        for r in rects
    )


def _words_region(boxes: list[tuple]) -> list[tuple]:
    """The span's words on one page, with the space between consecutive words of a line."""
    region = list(boxes)
    for a, b in itertools.pairwise(boxes):
        if same_line(a, b) and b[0] > a[2]:
            region.append((a[2], max(a[1], b[1]), b[0], min(a[3], b[3])))
    return region


def _outside_area(rect: tuple, region: list[tuple]) -> tuple[float, float]:
    """(drawn area, drawn area outside ``region``), measured on a fine grid."""
    xs = np.arange(rect[0] + _GRID / 2, rect[2], _GRID)
    ys = np.arange(rect[1] + _GRID / 2, rect[3], _GRID)
    if not len(xs) or not len(ys):
        return 0.0, 0.0
    gx, gy = np.meshgrid(xs, ys)
    covered = np.zeros(gx.shape, dtype=bool)
    for x0, y0, x1, y1 in region:
        covered |= (gx >= x0) & (gx <= x1) & (gy >= y0) & (gy <= y1)
    cell = _GRID * _GRID
    return gx.size * cell, float((~covered).sum()) * cell


def measure_span(document: ParsedDocument, span: Span) -> dict[str, float] | None:
    """Characters covered and area drawn outside the words, for one span (None without boxes)."""
    words = document.words
    if words is None or not len(words):
        return None
    drawn = {page.page: page.rects for page in highlight(document, span)}
    chars = covered_chars = 0
    by_page: dict[int, list[tuple]] = defaultdict(list)
    lo = int(np.searchsorted(np.asarray(words.end), span[0], side="right"))
    for i in range(lo, len(words)):
        if words.start[i] >= span[1]:
            break
        box = (words.x0[i], words.y0[i], words.x1[i], words.y1[i])
        count = min(words.end[i], span[1]) - max(words.start[i], span[0])
        chars += count
        covered_chars += count if inside(box, drawn.get(words.page[i], [])) else 0
        by_page[words.page[i]].append(box)
    area = outside = 0.0
    for page, rects in drawn.items():
        region = _words_region(by_page.get(page, []))
        for rect in rects:
            a, o = _outside_area(rect, region)
            area, outside = area + a, outside + o
    return {"chars": chars, "covered": covered_chars, "area": area, "outside": outside}


def _summary(rows: list[dict[str, float]]) -> dict[str, Any]:
    chars = sum(r["chars"] for r in rows)
    area = sum(r["area"] for r in rows)
    return {
        "spans": len(rows),
        "coverage": round(sum(r["covered"] for r in rows) / chars, 5) if chars else None,
        "outside": round(sum(r["outside"] for r in rows) / area, 5) if area else None,
        "worst_span_coverage": round(
            min((r["covered"] / r["chars"] for r in rows if r["chars"]), default=1.0), 4
        ),
    }


def cuad_pdf_spans(
    root: Path, settings: Settings, limit: int | None, progress: Progress
) -> tuple[dict, list[float]]:
    """Geometry of every gold clause of the CUAD PDFs, and the render time of every page."""
    gold = {d.name: d for d in cuad_documents(root)}
    rows: list[dict[str, float]] = []
    located = missing = 0
    render_ms: list[float] = []
    pdfs = cuad_pdfs(root)[:limit] if limit else cuad_pdfs(root)
    progress.stage("CUAD PDFs: highlights and page images", total=len(pdfs))
    for pdf in pdfs:
        document = parse_document(pdf, settings.parsing)
        verifier = QuoteVerifier(document.text)
        entry = gold.get(pdf.stem)
        for start, end in entry.spans if entry else []:
            answer = entry.text[start:end].strip()
            found = verifier.verify(answer) if len(answer) >= 3 else None
            if found is None:
                missing += 1
                continue
            located += 1
            measured = measure_span(document, found.span)
            if measured is not None and measured["chars"]:
                rows.append(measured)
        for number in range(1, len(document.pages) + 1):
            started = time.perf_counter()
            page_png(pdf, number, 1.5)
            render_ms.append(1000 * (time.perf_counter() - started))
        progress.advance()
    return {
        "pdfs": len(pdfs),
        "gold_spans_located": located,
        "gold_spans_not_found": missing,
        **_summary(rows),
    }, render_ms


def qa_sources(results_file: Path, settings: Settings) -> dict[str, Any]:
    """The sources of an ``eval qa`` results file, on the contracts the benchmark ingested."""
    from indexes.store import ContractStore

    payload = json.loads(results_file.read_text(encoding="utf-8"))
    store = ContractStore(with_overrides(settings, {"paths": {"tenant": payload.get("tenant", "qa")}}))
    rows, text_only = [], 0
    for row in payload.get("rows", []):
        report = row.get("report")
        if not report:
            continue
        index = store.open(row["contract"])
        for source in report["sources"]:
            measured = measure_span(index.document, tuple(source["span"]))
            if measured is None:
                text_only += 1
            elif measured["chars"]:
                rows.append(measured)
        index.close()
    return {"sources_on_text_documents": text_only, **_summary(rows)}


def first_step_seconds(settings: Settings, repeats: int, progress: Progress) -> dict[str, Any]:
    """Click Ask, wait for the first step on screen, ``repeats`` times, in Debian's chromium."""
    if not CHROMIUM.is_file():
        return {"skipped": "chromium is not installed (apt-get install chromium)"}
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"skipped": "playwright is not installed (pip install -e '.[dev]')"}
    from clausewise.runtime import ModelHub, Runtime
    from clausewise_lab.evals.instruments import scripted_runtimes
    from clausewise_lab.evals.serve_bench import LoopbackServer

    progress.stage(f"browser: clicking Ask {repeats} times")
    times: list[float] = []
    with tempfile.TemporaryDirectory() as scratch:
        local = with_overrides(settings, {"paths": {"data_dir": scratch, "tenant": "default"}})
        Runtime(local).archivist().ingest(EXAMPLES / "mutual-nda.pdf")
        with LoopbackServer(local, scripted_runtimes(), ModelHub()) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url + "/")
            page.wait_for_selector("html[data-ready]")
            page.click('#contracts tr[data-contract="mutual-nda"] button:text("Open")')
            page.wait_for_selector("#viewer .page")
            for _ in range(repeats):
                page.fill("#question", "Which law governs this agreement?")
                elapsed = page.evaluate(
                    """() => new Promise((resolve) => {
                      const steps = document.querySelector('#steps');
                      const started = performance.now();
                      const seen = new MutationObserver(() => {
                        if (!steps.children.length) return;
                        seen.disconnect();
                        resolve((performance.now() - started) / 1000);
                      });
                      seen.observe(steps, { childList: true });
                      document.querySelector('#ask-button').click();
                    })"""
                )
                times.append(float(elapsed))
                page.wait_for_selector("#report .sources li, #report p.hint", timeout=120_000)
            browser.close()
    ordered = sorted(times)
    return {
        "repeats": len(times),
        "p50": round(statistics.median(ordered), 3),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3),
    }


def run(
    settings: Settings,
    root: Path,
    *,
    qa_results: Path | None = None,
    limit: int | None = None,
    repeats: int = 10,
    progress: Progress | None = None,
) -> dict[str, Any]:
    progress = progress or NoProgress()
    cuad, render_ms = cuad_pdf_spans(root, settings, limit, progress)
    ordered = sorted(render_ms)
    results: dict[str, Any] = {
        "benchmark": "highlight",
        "goals": GOALS,
        "cuad_pdf_gold_spans": cuad,
        "page_render_ms": {
            "pages": len(ordered),
            "p50": round(statistics.median(ordered), 1) if ordered else None,
            "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1) if ordered else None,
            "scale": 1.5,
        },
    }
    if qa_results is not None:
        results["qa_sources"] = qa_sources(qa_results, settings)
    results["first_step_seconds"] = (
        first_step_seconds(settings, repeats, progress) if repeats else {"skipped": "--repeats 0"}
    )
    return results
