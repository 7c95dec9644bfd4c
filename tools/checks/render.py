"""Hypothesis-check results as JSON, CSV and Markdown (the terminal tables live in the CLI).

Every renderer takes ``(contract id, result)`` pairs, so one contract and a batch over a folder
of contracts come out in the same shape: one row per contract and hypothesis.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.checker import CheckResult

Rows = Sequence[tuple[str, "CheckResult"]]
FORMATS = ("json", "csv", "md")
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
                r.topic,
                r.hypothesis,
                r.label,
                f"{r.confidence:.2f}",
                evidence_ref(r),
                " | ".join(e.quote for e in r.evidence),
                r.rationale,
            ]
        )
    return buffer.getvalue()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def to_markdown(rows: Rows) -> str:
    lines = [
        "# Hypothesis checks",
        "",
        "| contract | key | hypothesis | label | confidence | evidence |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {contract} | {r.key} | {_cell(r.hypothesis)} | {r.label} | {r.confidence:.2f} "
        f"| {_cell(evidence_ref(r)) or '-'} |"
        for contract, r in rows
    ]
    for contract, r in rows:
        lines += ["", f"## {contract} / {r.key}: {r.label}", "", _cell(r.hypothesis), ""]
        lines += [f"Rationale: {_cell(r.rationale)}"]
        lines += [f'- {e.node_id}, p. {", ".join(map(str, e.pages))}: "{_cell(e.quote)}"' for e in r.evidence]
        if r.report:
            lines += ["", r.report]
    return "\n".join(lines) + "\n"


def render(fmt: str, rows: Rows) -> str:
    return {"json": to_json, "csv": to_csv, "md": to_markdown}[fmt](rows)
