"""Redlines made in the contract's own Word file: the formatting outside the changes kept run by
run, numbering left to Word, the document reading as the contract with the changes rejected and
as the edited contract with them accepted (read here with this file's own reader), what cannot
be placed falling back to a DOCX of the text, and the real playbook review of a Word contract
opened by LibreOffice with its changes."""

from __future__ import annotations

import io
import re
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from docx import Document
from docx.shared import Pt
from lxml import etree
from openpyxl import load_workbook

from clausewise.core.errors import HiddenText
from clausewise_lab.evals.abuse_families import active_parts, active_word_file
from tools.exports import rows_xlsx
from tools.parsing.word_file import parse_docx_file
from tools.playbook.redlines import Edit, apply_edits, insertion
from tools.redline_export import redline_export
from tools.tracked_original_docx import NotPlaceable, tracked_original_docx

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
WHEN = datetime(2026, 11, 29, 9, 0, tzinfo=UTC)


def _word_file(text_file: str, folder: Path) -> Path:
    """The example contract as a Word file a firm would send: headings bold, every paragraph in
    runs that alternate italic every three words, 11 pt Garamond throughout."""
    document = Document()
    for line in (EXAMPLES / text_file).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        paragraph = document.add_paragraph()
        words = line.split(" ")
        for number in range(0, len(words), 3):
            piece = " ".join(words[number : number + 3]) + (" " if number + 3 < len(words) else "")
            run = paragraph.add_run(piece)
            run.italic = (number // 3) % 2 == 1
            run.bold = line.isupper()
            run.font.size = Pt(11)
            run.font.name = "Garamond"
    path = folder / (Path(text_file).stem + ".docx")
    document.save(path)
    return path


def _body(data: bytes) -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(data)) as docx:
        return etree.fromstring(docx.read("word/document.xml"))


def _styled(body: etree._Element, accept: bool) -> list[list[tuple[str, bool]]]:
    """Paragraphs as (character, italic) pairs with every change accepted or rejected: a
    paragraph whose mark is struck (accepted) or inserted (rejected) joins the next."""
    out: list[list[tuple[str, bool]]] = []
    carried: list[tuple[str, bool]] = []
    for paragraph in body.iter(f"{W}p"):
        mark = paragraph.find(f"{W}pPr/{W}rPr")
        chars = list(carried)
        for node in paragraph.iter(f"{W}t", f"{W}delText"):
            change = node.getparent().getparent()
            inserted, deleted = change.tag == f"{W}ins", node.tag == f"{W}delText"
            if (accept and deleted) or (not accept and inserted):
                continue
            italic = node.getparent().find(f"{W}rPr/{W}i") is not None
            chars.extend((c, italic) for c in node.text or "")
        joins = mark is not None and mark.find(f"{W}del" if accept else f"{W}ins") is not None
        if joins:
            carried = chars
            continue
        carried = []
        if "".join(c for c, _ in chars).strip():
            out.append(chars)
    return out


def _lines(paragraphs: list[list[tuple[str, bool]]]) -> list[str]:
    return [" ".join("".join(c for c, _ in p).split()) for p in paragraphs]


def _edits(text: str) -> list[Edit]:
    """A value rewritten, a sentence struck, a whole paragraph struck and a clause inserted."""
    value = re.search(r"\b(thirty|sixty|ninety|twelve|three) \((\d+)\)", text)
    assert value is not None
    law = text.index("governed by")
    law_end = text.index("\n", law)
    sentence = re.search(r"(?<=\. )[A-Z][^.\n]{20,}\.(?=\s)", text[law_end:])
    assert sentence is not None
    paragraph_start = text.index("\n", law_end + sentence.end()) + 1
    paragraph_end = text.index("\n", paragraph_start)
    return [
        Edit(value.start(), value.end(), "one hundred (100)"),
        Edit(law_end + sentence.start() - 1, law_end + sentence.end(), ""),
        Edit(paragraph_start, paragraph_end, ""),
        insertion(law_end, "The Supplier shall maintain insurance with reputable insurers."),
    ]


@pytest.mark.parametrize("name", ["supply-agreement.txt", "mutual-nda.txt"])
def test_the_word_file_keeps_its_formatting_and_reads_as_the_contract_or_the_edit(name, tmp_path):
    path = _word_file(name, tmp_path)
    text = parse_docx_file(path).text
    edits = _edits(text)
    data = tracked_original_docx(path.read_bytes(), text, edits, author="Counsel", when=WHEN).data
    before = _styled(_body(path.read_bytes()), accept=False)
    assert _styled(_body(data), accept=False) == before  # every character and its italics kept
    wanted = [" ".join(t.split()) for t in apply_edits(text, edits).split("\n") if t.strip()]
    assert _lines(_styled(_body(data), accept=True)) == wanted
    body = _body(data)
    changes = body.findall(f".//{W}ins") + body.findall(f".//{W}del")
    assert changes and all(c.get(f"{W}author") == "Counsel" for c in changes)
    assert len({c.get(f"{W}id") for c in changes}) == len(changes)
    inserted = [r for r in body.iter(f"{W}r") if r.getparent().tag == f"{W}ins"]
    assert all(r.find(f"{W}rPr/{W}sz").get(f"{W}val") == "22" for r in inserted)  # 11 pt, as around it
    assert "Garamond" in etree.tostring(inserted[0]).decode()


def test_word_numbers_the_new_clause_and_renumbers_after_a_struck_one(tmp_path):
    document = Document()
    document.add_paragraph("SERVICES AGREEMENT")
    clauses = [
        "The Provider shall perform the Services with reasonable skill and care.",
        "Either Party may terminate this Agreement on thirty (30) days' written notice.",
        "The Provider may not assign this Agreement without consent.",
        "This Agreement is governed by the laws of England and Wales.",
    ]
    for clause in clauses:
        document.add_paragraph(clause, style="List Number")
    path = tmp_path / "numbered.docx"
    document.save(path)
    text = parse_docx_file(path).text
    assert text.split("\n")[2].startswith("2. Either Party")  # Word's numbers are read
    struck = text.index("3. The Provider")
    after = text.index("4. This Agreement")
    edits = [
        Edit(struck, after - 1, ""),
        insertion(len(text), "5. The Provider shall keep the Customer's data confidential."),
    ]
    data = tracked_original_docx(path.read_bytes(), text, edits, author="Counsel", when=WHEN).data
    body = _body(data)
    paragraphs = list(body.iter(f"{W}p"))
    new = paragraphs[-1]
    assert new.find(f"{W}pPr/{W}pStyle").get(f"{W}val") == "ListNumber"
    assert "".join(new.itertext()).startswith("The Provider shall keep")  # Word gives it its number
    struck_paragraph = paragraphs[3]
    assert struck_paragraph.find(f"{W}pPr/{W}rPr/{W}del") is not None  # accepting removes it whole
    accepted = _lines(_styled(body, accept=True))
    assert accepted == ["SERVICES AGREEMENT", *clauses[:2], clauses[3], edits[1].insert.strip()[3:]]
    assert _lines(_styled(body, accept=False)) == ["SERVICES AGREEMENT", *clauses]


def test_what_a_word_file_cannot_take_falls_back_to_the_text(tmp_path):
    document = Document()
    document.add_paragraph("PRICE SCHEDULE")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "Fee"
    table.rows[0].cells[1].text = "USD 10,000 per month"
    document.add_paragraph("Fees are payable within thirty (30) days of invoice.")
    path = tmp_path / "schedule.docx"
    document.save(path)
    text = parse_docx_file(path).text
    in_table = text.index("10,000")
    with pytest.raises(NotPlaceable, match="table"):
        tracked_original_docx(
            path.read_bytes(), text, [Edit(in_table, in_table + 6, "12,000")], author="C", when=WHEN
        )
    made = redline_export(
        text, [Edit(in_table, in_table + 6, "12,000")], original=path, author="C", when=WHEN
    )
    assert made.base == "text" and "table" in made.reason
    days = text.index("thirty (30)")
    made = redline_export(text, [Edit(days, days + 11, "sixty (60)")], original=path, author="C", when=WHEN)
    assert made.base == "original"
    with pytest.raises(NotPlaceable, match="does not read as the contract"):
        tracked_original_docx(path.read_bytes(), text + " more", [], author="C", when=WHEN)


@pytest.mark.parametrize("name", ["supply-agreement.txt", "mutual-nda.txt"])
def test_what_the_word_file_could_run_or_fetch_is_left_out_of_its_redline(name, tmp_path):
    clauses = [
        line.strip() for line in (EXAMPLES / name).read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    path = tmp_path / "active.docx"
    path.write_bytes(active_word_file(clauses))
    text = parse_docx_file(path).text
    assert "Included text." in text and "Simple text." in text  # the fields' results are read
    edits = _edits(text)
    made = redline_export(text, edits, original=path, author="Counsel", when=WHEN)
    assert made.base == "original" and active_parts(made.data) == []
    assert {"macros (vbaProject.bin)", "the setting that updates fields on opening"} <= set(made.removed)
    assert any(item.startswith("fields that fetch") and item.endswith("x2") for item in made.removed)
    assert {"links to outside the file (image)", "links to outside the file (hyperlink)"} <= set(made.removed)
    assert "links to outside the file (attachedTemplate)" in made.removed
    rejected = _lines(_styled(_body(made.data), accept=False))
    assert rejected == text.split("\n")  # nothing the contract says went with them
    kept = redline_export(text, edits, original=path, author="Counsel", when=WHEN, keep_active=True)
    assert kept.removed == () and "word/vbaProject.bin" in zipfile.ZipFile(io.BytesIO(kept.data)).namelist()


def test_text_word_shows_from_outside_the_body_is_never_redlined_in_place(tmp_path):
    path = tmp_path / "hidden.docx"
    path.write_bytes(active_word_file(["1. The Supplier shall deliver the Goods."], hidden=True))
    with pytest.raises(HiddenText, match="altChunk"):
        parse_docx_file(path)
    with pytest.raises(NotPlaceable, match="not in its body"):
        tracked_original_docx(
            path.read_bytes(), "1. The Supplier shall deliver the Goods.", [], author="C", when=WHEN
        )


@pytest.mark.parametrize("name", ["supply-agreement.txt", "services-agreement.txt"])
def test_control_characters_in_a_title_an_author_or_a_quote_never_break_an_export(name):
    text = "\x01\x02\x1b[31mTITLE\n" + (EXAMPLES / name).read_text(encoding="utf-8")
    start = text.index("\n", 40) + 1
    made = redline_export(
        text, [Edit(start, start + 5, "\x07new")], original=None, author="\x01x", when=WHEN, title=text[:16]
    )
    body = _body(made.data)
    assert body.find(f".//{W}ins").get(f"{W}author") == "\ufffdx"
    assert "\ufffd\ufffd\ufffd[31mTITLE" in "".join(body.itertext())  # same length: spans still hold
    sheet = rows_xlsx("rows", ["quote"], [[text[:30]], ["=1+1\x00"]])
    assert load_workbook(io.BytesIO(sheet)).active["A3"].value == "=1+1\ufffd"


@pytest.fixture(scope="module")
def reviewed_word_contract(tmp_path_factory: pytest.TempPathFactory, hub):
    """The supply agreement as a Word file, reviewed against the commercial playbook with the
    real embedded deciders."""
    from clausewise.api import Clausewise
    from clausewise.core.config import load_settings
    from clausewise.core.results import PlaybookSummary
    from clausewise.runtime import Runtime
    from tools.playbook.positions import load_positions

    folder = tmp_path_factory.mktemp("word-review")
    settings = load_settings(overrides={"paths": {"data_dir": str(folder / "data")}})
    api = Clausewise(runtime=Runtime(settings, hub=hub))
    path = _word_file("supply-agreement.txt", folder)
    contract = api.ingest(path).contract_id
    items = list(api.playbook_review(contract, load_positions("playbook-commercial")))
    assert isinstance(items[-1], PlaybookSummary)
    return api, contract, path, items[:-1]


def test_a_word_contract_is_redlined_in_its_own_file_and_libreoffice_shows_the_changes(
    reviewed_word_contract, tmp_path
):
    import shutil

    from tests.test_playbook import as_odt

    api, contract, path, reviews = reviewed_word_contract
    made = api.redline_docx(contract, reviews, author="Counsel", when=WHEN)
    assert made.base == "original", made.reason
    with_edits = [r for r in reviews if r.redline]
    assert len(with_edits) >= 3
    assert _styled(_body(made.data), accept=False) == _styled(_body(path.read_bytes()), accept=False)
    assert "twelve (12) months" in " ".join(_lines(_styled(_body(made.data), accept=True)))
    office = shutil.which("soffice")
    if office is None:
        pytest.skip("LibreOffice is not installed (apt-get install libreoffice-writer-nogui)")
    odt = as_odt(office, made.data, tmp_path)
    with zipfile.ZipFile(odt) as opened:
        content = opened.read("content.xml").decode("utf-8")
    assert len(re.findall("<text:changed-region", content)) >= len(with_edits)
    assert "Garamond" in odt_styles(odt)


def odt_styles(path: Path) -> str:
    with zipfile.ZipFile(path) as odt:
        return odt.read("content.xml").decode("utf-8") + odt.read("styles.xml").decode("utf-8")
