"""DOCX (with Word's automatic numbering), HTML and text encodings."""

from __future__ import annotations

from pathlib import Path

import docx
import pytest

from clausewise.core.config import ParsingSettings, StructureSettings
from clausewise.core.domain import FileType
from clausewise.core.errors import UndecodableText
from clausewise_lab.evals.abuse_families import word_file_with
from tests.tree_checks import assert_tree_invariants
from tools.parsing import parse_document
from tools.parsing.word_file import parse_docx_file
from tools.structure.tree_builder import build_tree

SETTINGS = ParsingSettings()


def test_docx_numbering_is_replayed_into_the_text(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_heading("SUPPLY AGREEMENT", level=0)
    document.add_paragraph("This Supply Agreement is made between Acme Ltd and Beta LLC.")
    for clause in (
        "Delivery. The Supplier shall deliver the Goods.",
        "Payment. The Buyer shall pay within 30 days.",
        "Termination. Either party may terminate on notice.",
    ):
        document.add_paragraph(clause, style="List Number")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Item", "Price"
    table.cell(1, 0).text, table.cell(1, 1).text = "Widget", "USD 10"
    path = tmp_path / "supply.docx"
    document.save(path)
    parsed = parse_document(path, SETTINGS)
    assert parsed.file_type == FileType.DOCX
    lines = parsed.text.splitlines()
    assert lines[0] == "SUPPLY AGREEMENT"
    assert (
        lines[2].startswith("1. Delivery.")
        and lines[3].startswith("2. Payment.")
        and lines[4].startswith("3.")
    )
    assert "Widget | USD 10" in lines
    tree = build_tree(parsed, StructureSettings())
    assert tree.node("2").title == "Payment"
    assert_tree_invariants(tree, parsed.text)


def test_html_blocks_lists_and_entities(tmp_path: Path) -> None:
    path = tmp_path / "terms.html"
    path.write_text(
        "<html><head><style>p{color:red}</style><script>alert(1)</script></head><body>"
        "<h1>Terms &amp; Conditions</h1><p>These terms apply.</p>"
        "<ol><li>Orders are binding.</li><li>Prices exclude VAT.</li></ol>"
        "<table><tr><td>Fee</td><td>&euro;5</td></tr></table></body></html>",
        encoding="utf-8",
    )
    parsed = parse_document(path, SETTINGS)
    assert parsed.text.splitlines() == [
        "Terms & Conditions",
        "These terms apply.",
        "1. Orders are binding.",
        "2. Prices exclude VAT.",
        "Fee | €5",
    ]
    assert parsed.blocks[0].bold


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1", "utf-16", "utf-8-sig"])
def test_text_encodings_are_detected(tmp_path: Path, encoding: str) -> None:
    text = "1. The Licensee shall pay €1,000 to the Licensor’s account in Zürich.\n2. Café rules apply.\n"
    if encoding == "latin-1":
        text = text.replace("€", "EUR").replace("’", "'")
    path = tmp_path / f"contract-{encoding}.txt"
    path.write_bytes(text.encode(encoding))
    parsed = parse_document(path, SETTINGS)
    assert parsed.text.lstrip("\ufeff") == text


def test_text_offsets_are_the_files_own(bench_data: Path) -> None:
    """LegalBench-RAG spans index the file as Python reads it; parsing must not shift them."""
    corpus = bench_data / "legalbenchrag" / "corpus"
    for path in sorted((corpus / "maud").glob("*.txt"))[:3] + sorted((corpus / "cuad").glob("*.txt"))[:3]:
        assert parse_document(path, SETTINGS).text == path.read_text(encoding="utf-8")


def test_binary_data_with_a_text_name_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "contract.txt"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(UndecodableText) as raised:
        parse_document(path, SETTINGS)
    assert "contract.txt" in str(raised.value)


def test_docx_text_word_shows_in_content_controls_fields_and_tags_is_read(tmp_path: Path) -> None:
    """Word shows the content of content controls (a template's filled-in blanks), the results of
    simple fields and smart-tagged words as the paragraph's text; python-docx's own reader
    drops them, and a contract read without them said "a fee of  per month"."""
    body = (
        b"<w:p><w:r><w:t>1. Fees.</w:t></w:r></w:p>"
        b'<w:p><w:r><w:t xml:space="preserve">The Customer pays a fee of </w:t></w:r>'
        b"<w:sdt><w:sdtPr/><w:sdtContent><w:r><w:t>USD 5,000</w:t></w:r></w:sdtContent></w:sdt>"
        b'<w:r><w:t xml:space="preserve"> per month to </w:t></w:r>'
        b'<w:smartTag w:uri="urn:x" w:element="company"><w:r><w:t>Acme Ltd</w:t></w:r></w:smartTag>'
        b"<w:r><w:t>.</w:t></w:r></w:p>"
        b"<w:sdt><w:sdtPr/><w:sdtContent><w:p><w:r><w:t>2. Term. Two years.</w:t></w:r></w:p>"
        b"</w:sdtContent></w:sdt>"
        b'<w:p><w:r><w:t xml:space="preserve">Dated </w:t></w:r><w:fldSimple w:instr=" DATE ">'
        b"<w:r><w:t>1 March 2026</w:t></w:r></w:fldSimple></w:p>"
    )
    path = tmp_path / "controls.docx"
    path.write_bytes(word_file_with(body))
    assert parse_docx_file(path).text.split("\n") == [
        "1. Fees.",
        "The Customer pays a fee of USD 5,000 per month to Acme Ltd.",
        "2. Term. Two years.",
        "Dated 1 March 2026",
    ]
