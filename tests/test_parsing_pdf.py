"""The PDF text-layer path: normalized text, page map, word boxes, furniture, hyphens, columns."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from clausewise.core.config import ParsingSettings, StructureSettings
from clausewise_lab.evals.ingest_bench import word_accuracy
from tests.tree_checks import assert_tree_invariants
from tools.parsing import parse_document
from tools.rendering import text_to_pdf
from tools.structure.tree_builder import build_tree

TEXT_ONLY = ParsingSettings(ocr="off")


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text)


def test_example_pdf_round_trips_its_text(nda_text: str) -> None:
    document = parse_document(Path("examples/mutual-nda.pdf"), TEXT_ONLY)
    assert document.file_type == "pdf"
    assert _words(document.text) == _words(nda_text)
    assert [p.number for p in document.pages] == list(range(1, len(document.pages) + 1))
    assert all(p.source == "text" for p in document.pages)
    # the page map is contiguous and every word box points at its own text
    assert document.pages[0].start == 0 and document.pages[-1].end == len(document.text)
    for a, b in zip(document.pages, document.pages[1:], strict=False):
        assert a.end == b.start
    assert document.words is not None and len(document.words) > 1000
    for i in range(0, len(document.words), 97):
        start, end = document.words.start[i], document.words.end[i]
        assert document.text[start:end].strip() and " " not in document.text[start:end]
        assert document.page_of(start) == document.words.page[i]


def test_example_pdf_tree_matches_the_text_version(nda_text: str) -> None:
    document = parse_document(Path("examples/mutual-nda.pdf"), TEXT_ONLY)
    tree = build_tree(document, StructureSettings())
    assert_tree_invariants(tree, document.text)
    for node_id in ("Recitals/A", "2.1(b)", "3.1(d)", "4.2", "9.6", "Schedule 1"):
        assert node_id in tree.nodes
    # clause 3.1(d) starts at the top of page 3 in the rendering; (c) runs across the break
    assert tree.node("3.1(c)").pages == [2, 3]


def test_contractnli_documents_render_and_parse_back(bench_data: Path) -> None:
    import json

    documents = json.loads((bench_data / "contractnli" / "dev.json").read_text(encoding="utf-8"))["documents"]
    for document in documents[:5]:
        pdf = Path(f"/tmp/cw-test-{document['id']}.pdf")
        text_to_pdf(document["text"], pdf)
        parsed = parse_document(pdf, TEXT_ONLY)
        assert word_accuracy(document["text"], parsed.text) >= 0.995
        tree = build_tree(parsed, StructureSettings())
        assert_tree_invariants(tree, parsed.text)
        pdf.unlink()


def _pdf_with_running_header(path: Path, pages: int) -> None:
    with pymupdf.open() as document:
        for number in range(1, pages + 1):
            page = document.new_page()
            page.insert_text((72, 40), "ACME CONFIDENTIAL - DRAFT 3", fontsize=9)
            page.insert_text(
                (72, 100), f"{number}. Clause number {number} sets out obligation {number}.", fontsize=11
            )
            page.insert_text((290, 770), f"Page {number} of {pages}", fontsize=9)
        document.save(path)


def test_running_headers_and_page_numbers_are_removed(tmp_path: Path) -> None:
    pdf = tmp_path / "headers.pdf"
    _pdf_with_running_header(pdf, 4)
    document = parse_document(pdf, TEXT_ONLY)
    assert "ACME CONFIDENTIAL" not in document.text
    assert "Page 2 of 4" not in document.text
    assert document.text.splitlines() == [
        f"{n}. Clause number {n} sets out obligation {n}." for n in range(1, 5)
    ]


def test_line_break_hyphens_are_joined_only_when_the_word_exists(tmp_path: Path) -> None:
    pdf = tmp_path / "hyphen.pdf"
    with pymupdf.open() as document:
        page = document.new_page()
        lines = [
            "The Receiving Party shall keep all Confidential Information strictly confi-",
            "dential and shall not disclose any confidential material to third parties, and the non-",
            "disclosure obligations survive termination of this agreement for three years at least.",
        ]
        for i, line in enumerate(lines):
            page.insert_text((72, 100 + 14 * i), line, fontsize=10)
        document.save(pdf)
    text = parse_document(pdf, TEXT_ONLY).text
    assert "strictly confidential and" in text  # "confidential" occurs elsewhere: the hyphen goes
    assert "the non-disclosure obligations" in text  # "nondisclosure" never does: the hyphen stays


def test_two_column_pages_read_left_column_first(tmp_path: Path) -> None:
    pdf = tmp_path / "columns.pdf"
    left = " ".join(f"Left column sentence number {i} about payment terms." for i in range(12))
    right = " ".join(f"Right column sentence number {i} about delivery terms." for i in range(12))
    with pymupdf.open() as document:
        page = document.new_page()
        page.insert_text((72, 60), "TWO COLUMN SUPPLY TERMS", fontsize=12)
        assert page.insert_textbox(pymupdf.Rect(72, 80, 290, 760), left, fontsize=10) >= 0
        assert page.insert_textbox(pymupdf.Rect(320, 80, 540, 760), right, fontsize=10) >= 0
        document.save(pdf)
    text = parse_document(pdf, TEXT_ONLY).text
    assert text.startswith("TWO COLUMN SUPPLY TERMS")
    assert text.index("Left column sentence number 11") < text.index("Right column sentence number 0")
    assert _words(text.split("\n", 1)[1]) == _words(left + " " + right)


@pytest.mark.parametrize(
    "pdf_name",
    ["2ThemartComInc_19990826_10-12G_EX-10.10_6700288_EX-10.10_Co-Branding Agreement_ Agency Agreement.pdf"],
)
def test_real_cuad_pdf_tree(bench_data: Path, pdf_name: str) -> None:
    """A real EDGAR filing, checked by hand: numbered sections, lettered items, Exhibit A."""
    document = parse_document(bench_data / "cuad" / "pdf" / pdf_name, ParsingSettings())
    assert len(document.pages) == 9 and "Source: 2THEMART" not in document.text
    tree = build_tree(document, StructureSettings())
    assert_tree_invariants(tree, document.text)
    assert tree.node("1").title == "DEFINITIONS"
    assert document.text[tree.node("1(c)").start :].startswith('(c) "CUSTOMERS" means')
    assert [c.id for c in tree.children("8.4") if c.kind == "list_item"] == [f"8.4({x})" for x in "abcdefg"]
    assert tree.node("12.12").title == "ENTIRE AGREEMENT"
    assert tree.node("Exhibit A").title == "ESCROW SERVICES DESCRIPTION"
    assert tree.node("8.4").pages == [6]


def test_a_huge_page_is_rendered_within_the_pixel_budget(tmp_path):
    """A 6,000 pt page took about 2 GB to OCR at 300 dpi and a 14,400 pt page's image was a 500:
    both are rendered smaller, their words still mapped to points."""
    import io

    from PIL import Image

    from tools.parsing.ocr import render_page
    from tools.rendering import MAX_PAGE_PIXELS, page_png

    path = tmp_path / "huge.pdf"
    with pymupdf.open() as document:
        for side in (6000, 14400):
            page = document.new_page(width=side, height=side)
            page.insert_text((72, 144), "The Supplier shall deliver the Products.", fontsize=48)
        document.save(path)
    with pymupdf.open(path) as document:
        image, points_per_pixel = render_page(document[0], 300)
        assert image.width * image.height <= MAX_PAGE_PIXELS
        assert abs(image.width * points_per_pixel - 6000) < 2  # words map back to points
        small, _ = render_page(document[0].parent.new_page(width=612, height=792), 300)
        assert small.width == 2550  # a Letter page keeps its 300 dpi
    png = Image.open(io.BytesIO(page_png(path, 2, scale=1.5)))
    assert png.width * png.height <= MAX_PAGE_PIXELS and png.width == png.height


def test_a_page_that_runs_out_of_memory_to_draw_is_a_typed_refusal(tmp_path):
    """MuPDF's own memory error cannot cross from a drawing process to the server (it does not
    pickle): a page whose image cannot get its memory is refused as TooCostlyToDraw. Run in a
    process of its own, its address space limited to what it holds plus 16 MB (the image needs 36)."""
    import subprocess
    import sys

    poster = tmp_path / "poster.pdf"
    with pymupdf.open() as document:
        page = document.new_page(width=14400, height=14400)
        page.insert_text((72, 144), "This Agreement is governed by the laws of England.", fontsize=48)
        document.save(poster)
    script = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "from clausewise.core.errors import TooCostlyToDraw\n"
        "from tools.rendering import page_png\n"
        "size = int(open('/proc/self/status').read().split('VmSize:')[1].split()[0]) * 1024\n"
        "resource.setrlimit(resource.RLIMIT_AS, (size + 16 * 2**20, resource.RLIM_INFINITY))\n"
        "try:\n"
        "    page_png(Path(sys.argv[1]), 1, 1.5)\n"
        "except TooCostlyToDraw as refused:\n"
        "    print('refused:', refused.message)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(poster)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("refused: page 1 needs more memory to draw"), done.stdout
