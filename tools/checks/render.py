"""Hypothesis-check results as JSON, CSV and Markdown (the terminal tables live in the CLI).

Every renderer takes ``(contract id, result)`` pairs, so one contract and a batch over a folder
of contracts come out in the same shape: one row per contract and hypothesis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tools.result_rows import FORMATS, Rows, md_cell, md_evidence, render_rows, rows_to_markdown

if TYPE_CHECKING:
    from clausewise.core.results import CheckResult

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


def _table_cells(contract: str, r: CheckResult) -> list[str]:
    cells = [contract, r.key, md_cell(r.hypothesis), r.label, f"{r.confidence:.2f}"]
    return [*cells, md_cell(evidence_ref(r)) or "-"]


def _details(contract: str, r: CheckResult) -> list[str]:
    lines = ["", f"## {contract} / {r.key}: {r.label}", "", md_cell(r.hypothesis), ""]
    lines += [f"Rationale: {md_cell(r.rationale)}"]
    lines += [md_evidence(e) for e in r.evidence]
    return lines + (["", r.report] if r.report else [])


def to_markdown(rows: Rows[CheckResult]) -> str:
    columns = ("contract", "key", "hypothesis", "label", "confidence", "evidence")
    return rows_to_markdown("Hypothesis checks", columns, rows, _table_cells, _details)


def render(fmt: str, rows: Rows[CheckResult]) -> str:
    return render_rows(fmt, rows, CSV_COLUMNS, csv_cells, to_markdown)
