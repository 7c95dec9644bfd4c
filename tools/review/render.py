"""Provision-review results as JSON, CSV and Markdown: one row per contract and provision."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tools.result_rows import FORMATS, md_cell, md_evidence, rows_to_csv, rows_to_json

if TYPE_CHECKING:
    from clausewise.core.results import ProvisionResult

Rows = Sequence[tuple[str, "ProvisionResult"]]
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


def to_markdown(rows: Rows) -> str:
    lines = [
        "# Provision review",
        "",
        "| contract | provision | present | answer | clauses | pages |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {contract} | {r.name} | {'yes' if r.present else 'no'} | {md_cell(r.answer or '-')} "
        f"| {clauses(r) or '-'} | {pages(r) or '-'} |"
        for contract, r in rows
    ]
    for contract, r in rows:
        if not r.present:
            continue
        lines += ["", f"## {contract} / {r.name}", ""]
        lines += [md_evidence(e) for e in r.spans]
        if r.answer and r.answer_evidence:
            where = r.answer_evidence
            lines += [f'- Answer: {md_cell(r.answer)} ("{md_cell(where.quote)}", {where.node_id})']
    return "\n".join(lines) + "\n"


def render(fmt: str, rows: Rows) -> str:
    if fmt == "json":
        return rows_to_json(rows)
    if fmt == "csv":
        return rows_to_csv(rows, CSV_COLUMNS, csv_cells)
    return to_markdown(rows)
