"""The OCR path: scanned and mixed PDFs, confidences, and the clear error without tesseract."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from clausewise.core.config import ParsingSettings, StructureSettings
from clausewise.core.errors import EmptyDocument, OcrUnavailable
from clausewise_lab.evals.ingest_bench import word_accuracy
from tools.parsing import ocr, parse_document
from tools.rendering import rasterize_pdf, text_to_pdf
from tools.structure.tree_builder import build_tree

pytestmark = pytest.mark.ocr


def test_scanned_example_is_read_by_ocr(tesseract: str, nda_text: str) -> None:
    document = parse_document(Path("examples/mutual-nda-scanned.pdf"), ParsingSettings())
    assert [p.source for p in document.pages] == ["ocr"] * 4
    assert all(p.ocr_confidence is not None and p.ocr_confidence > 80 for p in document.pages)
    assert word_accuracy(nda_text, document.text) >= 0.98
    tree = build_tree(document, StructureSettings())
    for node_id in ("Recitals/A", "2.1(b)", "3.1(d)", "4.2", "9.1", "Schedule 1"):
        assert node_id in tree.nodes, node_id
    # word boxes come back in PDF points, on the right page
    assert document.words is not None
    assert max(document.words.x1) <= document.pages[0].width + 1


def test_mixed_pdf_only_ocrs_pages_without_text(tesseract: str, tmp_path: Path, msa_text: str) -> None:
    text_pdf = tmp_path / "msa.pdf"
    text_to_pdf(msa_text, text_pdf)
    scan = tmp_path / "scan.pdf"
    rasterize_pdf(text_pdf, scan, dpi=250, pages=2)
    mixed = tmp_path / "mixed.pdf"
    with pymupdf.open(text_pdf) as digital, pymupdf.open(scan) as scanned, pymupdf.open() as out:
        out.insert_pdf(scanned, from_page=1, to_page=1)  # page 2 of the contract, as an image
        out.insert_pdf(digital, from_page=2, to_page=2)  # page 3, with its text layer
        out.save(mixed)
    document = parse_document(mixed, ParsingSettings())
    assert [p.source for p in document.pages] == ["ocr", "text"]
    assert document.pages[0].ocr_confidence is not None and document.pages[1].ocr_confidence is None


def test_forced_ocr_reads_text_pages_too(tesseract: str) -> None:
    document = parse_document(Path("examples/mutual-nda.pdf"), ParsingSettings(ocr="force", ocr_dpi=200))
    assert {p.source for p in document.pages} == {"ocr"}
    assert "Confidential Information" in document.text


def test_missing_tesseract_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ocr, "tesseract_path", lambda: None)
    with pytest.raises(OcrUnavailable) as raised:
        parse_document(Path("examples/mutual-nda-scanned.pdf"), ParsingSettings())
    message = str(raised.value)
    assert "mutual-nda-scanned.pdf" in message and "apt-get install tesseract-ocr" in message
    assert "parsing.ocr=off" in message


def test_ocr_off_skips_scanned_pages_with_a_warning() -> None:
    with pytest.raises(EmptyDocument, match="no text could be read"):
        parse_document(Path("examples/mutual-nda-scanned.pdf"), ParsingSettings(ocr="off"))
