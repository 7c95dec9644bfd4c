"""Provision-review results as JSON, CSV and Markdown: one row per contract and provision."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.reviewer import ProvisionResult

Rows = Sequence[tuple[str, "ProvisionResult"]]
FORMATS = ("json", "csv", "md")
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


def to_json(rows: Rows) -> str:
    return json.dumps(
        {"results": [{"contract": contract, **r.model_dump(mode="json")} for contract, r in rows]},
        indent=2,
        ensure_ascii=False,
    )


def to_csv(rows: Rows) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for contract, r in rows:
        writer.writerow(
            [
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
        )
    return buffer.getvalue()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def to_markdown(rows: Rows) -> str:
    lines = [
        "# Provision review",
        "",
        "| contract | provision | present | answer | clauses | pages |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {contract} | {r.name} | {'yes' if r.present else 'no'} | {_cell(r.answer or '-')} "
        f"| {clauses(r) or '-'} | {pages(r) or '-'} |"
        for contract, r in rows
    ]
    for contract, r in rows:
        if not r.present:
            continue
        lines += ["", f"## {contract} / {r.name}", ""]
        lines += [f'- {e.node_id}, p. {", ".join(map(str, e.pages))}: "{_cell(e.quote)}"' for e in r.spans]
        if r.answer and r.answer_evidence:
            where = r.answer_evidence
            lines += [f'- Answer: {_cell(r.answer)} ("{_cell(where.quote)}", {where.node_id})']
    return "\n".join(lines) + "\n"


def render(fmt: str, rows: Rows) -> str:
    return {"json": to_json, "csv": to_csv, "md": to_markdown}[fmt](rows)
