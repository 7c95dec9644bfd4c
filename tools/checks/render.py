"""Hypothesis-check results as JSON, CSV and Markdown (the terminal tables live in the CLI).

Every renderer takes ``(contract id, result)`` pairs, so one contract and a batch over a folder
of contracts come out in the same shape: one row per contract and hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tools.result_rows import FORMATS, md_cell, md_evidence, rows_to_csv, rows_to_json

if TYPE_CHECKING:
    from clausewise.core.results import CheckResult

Rows = Sequence[tuple[str, "CheckResult"]]
__all__ = ["CSV_COLUMNS", "FORMATS", "csv_cells", "render"]
CSV_COLUMNS = (
    "contract",
    "key",
    "topic",
    "hypothesis",
    "label",
    "confidence",
    "evidence",
    "quotes",
    "rationale",
)


def evidence_ref(result: CheckResult) -> str:
    return "; ".join(
        f"{e.node_id} (p. {', '.join(map(str, e.pages))}; chars {e.span[0]}-{e.span[1]})"
        for e in result.evidence
    )


def csv_cells(contract: str, r: CheckResult) -> list[str]:
    return [
        contract,
        r.key,
        r.topic,
        r.hypothesis,
        r.label,
        f"{r.confidence:.2f}",
        evidence_ref(r),
        " | ".join(e.quote for e in r.evidence),
        r.rationale,
    ]


def to_markdown(rows: Rows) -> str:
    lines = [
        "# Hypothesis checks",
        "",
        "| contract | key | hypothesis | label | confidence | evidence |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {contract} | {r.key} | {md_cell(r.hypothesis)} | {r.label} | {r.confidence:.2f} "
        f"| {md_cell(evidence_ref(r)) or '-'} |"
        for contract, r in rows
    ]
    for contract, r in rows:
        lines += ["", f"## {contract} / {r.key}: {r.label}", "", md_cell(r.hypothesis), ""]
        lines += [f"Rationale: {md_cell(r.rationale)}"]
        lines += [md_evidence(e) for e in r.evidence]
        if r.report:
            lines += ["", r.report]
    return "\n".join(lines) + "\n"


def render(fmt: str, rows: Rows) -> str:
    if fmt == "json":
        return rows_to_json(rows)
    if fmt == "csv":
        return rows_to_csv(rows, CSV_COLUMNS, csv_cells)
    return to_markdown(rows)
