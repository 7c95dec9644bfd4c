"""Documents a lawyer files: a report as DOCX or PDF, a check matrix or review grid as XLSX (CSV
and Markdown live with their renderers). Sources are a numbered list with clause ids, pages,
character spans and the quotes, exactly as verified.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import pymupdf

from clausewise.core.report import Report
from tools.rendering import write_story
from tools.spreadsheet_cells import append_inert
from tools.xml_text import xml_safe

_PDF_CSS = """
body {font-family: serif; font-size: 10.5pt; line-height: 1.35}
h1 {font-size: 16pt; margin-bottom: 6pt}
h2 {font-size: 12pt; margin-top: 12pt; margin-bottom: 4pt}
p, li {margin-bottom: 4pt}
blockquote {margin-left: 12pt; color: #333}
.meta {font-size: 8.5pt; color: #555}
"""


def _pages(pages: Sequence[int]) -> str:
    return f"p. {pages[0]}" if len(pages) == 1 else f"pp. {pages[0]}-{pages[-1]}"


def report_docx(report: Report) -> bytes:
    """The report as a Word document: its sections in order, then the numbered sources (every
    string made safe for XML first: a quote may hold a control character of its contract)."""
    from docx import Document
    from docx.shared import Pt

    safe = xml_safe
    document = Document()
    document.core_properties.title = safe(report.title)
    document.add_heading(safe(report.title), level=0)
    if report.short_answer is not None:
        document.add_heading("Short answer", level=1)
        document.add_paragraph().add_run(safe(report.short_answer.text())).bold = True
        for note in report.short_answer_notes():
            document.add_paragraph(safe(note)).runs[0].italic = True
    sections = (
        ("Summary", [report.summary], False),
        ("Legal reasoning and key findings", report.reasoning or ["(none)"], True),
        ("Preliminary answer", [report.preliminary_answer], False),
        ("Gaps and next questions", report.gaps or ["(none)"], True),
    )
    for heading, items, bulleted in sections:
        document.add_heading(heading, level=1)
        for item in items:
            document.add_paragraph(safe(item), style="List Bullet" if bulleted else None)
    document.add_heading("Sources", level=1)
    if not report.sources:
        document.add_paragraph("(no verified quotations)")
    for source in report.sources:
        paragraph = document.add_paragraph(style="List Number")
        heading = f"{source.node_id} {source.title}".strip()
        paragraph.add_run(safe(f"[{source.number}] {heading}")).bold = True
        paragraph.add_run(f", {_pages(source.pages)}, characters {source.span[0]}-{source.span[1]}: ")
        paragraph.add_run(safe(f"\u201c{source.quote}\u201d")).italic = True
    meta = report.metadata
    footer = document.add_paragraph(
        safe(
            f"{meta.turns_used} of {meta.max_turns} turn(s), stopped: {meta.stopped_because or 'n/a'}; "
            f"{meta.llm_calls} model calls; models: {', '.join(meta.models) or 'n/a'}; "
            f"contract {meta.contract_id}."
        )
    )
    for run in footer.runs:
        run.font.size = Pt(8)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def report_pdf(report: Report) -> bytes:
    """The report as a PDF (laid out by pymupdf from the report's HTML, with print styles)."""
    body = report.to_html().split("<body>", 1)[-1].rsplit("</body>", 1)[0]
    body = body.replace("<footer>", '<p class="meta">').replace("</footer>", "</p>")
    story = pymupdf.Story(html=body, user_css=_PDF_CSS)
    buffer = io.BytesIO()
    write_story(story, pymupdf.DocumentWriter(buffer), pymupdf.paper_rect("a4"), margin=56)
    return buffer.getvalue()


def rows_xlsx(sheet: str, columns: Sequence[str], rows: Sequence[Sequence[str]]) -> bytes:
    """A table as an Excel workbook: a bold, frozen header row, then the rows."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    workbook = Workbook()
    worksheet = workbook.active
    worksheet.title = sheet[:31]
    worksheet.append([xml_safe(c) for c in columns])
    for cell in worksheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        append_inert(worksheet, row)
    worksheet.freeze_panes = "A2"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()
