"""Provision-review results as JSON, CSV and Markdown: one row per contract and provision."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.result_rows import FORMATS, Rows, md_cell, md_evidence, render_rows, rows_to_markdown

if TYPE_CHECKING:
    from clausewise.core.results import ProvisionResult

__all__ = ["CSV_COLUMNS", "FORMATS", "csv_cells", "render"]
CSV_COLUMNS = (
    "contract",
    "key",
    "provision",
    "present",
    "confidence",
    "answer",
    "clauses",
    "pages",
    "quotes",
)


def clauses(result: ProvisionResult) -> str:
    return ", ".join(dict.fromkeys(e.node_id for e in result.spans))


def pages(result: ProvisionResult) -> str:
    return ", ".join(str(p) for p in sorted({p for e in result.spans for p in e.pages}))


def csv_cells(contract: str, r: ProvisionResult) -> list[str]:
    return [
        contract,
        r.key,
        r.name,
        "yes" if r.present else "no",
        f"{r.confidence:.2f}",
        r.answer or "",
        clauses(r),
        pages(r),
        " | ".join(e.quote for e in r.spans),
    ]


def _table_cells(contract: str, r: ProvisionResult) -> list[str]:
    present = "yes" if r.present else "no"
    return [contract, r.name, present, md_cell(r.answer or "-"), clauses(r) or "-", pages(r) or "-"]


def _details(contract: str, r: ProvisionResult) -> list[str]:
    """The clauses of a present provision and the value read from them; nothing for an absent one."""
    if not r.present:
        return []
    lines = ["", f"## {contract} / {r.name}", ""]
    lines += [md_evidence(e) for e in r.spans]
    if r.answer and r.answer_evidence:
        where = r.answer_evidence
        lines += [f'- Answer: {md_cell(r.answer)} ("{md_cell(where.quote)}", {where.node_id})']
    return lines


def to_markdown(rows: Rows[ProvisionResult]) -> str:
    columns = ("contract", "provision", "present", "answer", "clauses", "pages")
    return rows_to_markdown("Provision review", columns, rows, _table_cells, _details)


def render(fmt: str, rows: Rows[ProvisionResult]) -> str:
    return render_rows(fmt, rows, CSV_COLUMNS, csv_cells, to_markdown)
