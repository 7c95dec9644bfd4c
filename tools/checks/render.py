"""Hypothesis-check results as JSON, CSV and Markdown (the terminal table lives in the CLI)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.checker import CheckResult

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


def _evidence_ref(result: CheckResult) -> str:
    return "; ".join(
        f"{e.node_id} (p. {', '.join(map(str, e.pages))}; chars {e.span[0]}-{e.span[1]})"
        for e in result.evidence
    )


def to_json(contract: str, results: Sequence[CheckResult]) -> str:
    return json.dumps(
        {"contract": contract, "results": [r.model_dump(mode="json") for r in results]},
        indent=2,
        ensure_ascii=False,
    )


def to_csv(contract: str, results: Sequence[CheckResult]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for r in results:
        writer.writerow(
            [
                contract,
                r.key,
                r.topic,
                r.hypothesis,
                r.label,
                f"{r.confidence:.2f}",
                _evidence_ref(r),
                " | ".join(e.quote for e in r.evidence),
                r.rationale,
            ]
        )
    return buffer.getvalue()


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def to_markdown(contract: str, results: Sequence[CheckResult]) -> str:
    lines = [
        f"# Hypothesis checks: {contract}",
        "",
        "| key | hypothesis | label | confidence | evidence |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.key} | {_cell(r.hypothesis)} | {r.label} | {r.confidence:.2f} "
        f"| {_cell(_evidence_ref(r)) or '-'} |"
        for r in results
    ]
    for r in results:
        lines += [
            "",
            f"## {r.key}: {r.label}",
            "",
            _cell(r.hypothesis),
            "",
            f"Rationale: {_cell(r.rationale)}",
        ]
        lines += [f'- {e.node_id}, p. {", ".join(map(str, e.pages))}: "{_cell(e.quote)}"' for e in r.evidence]
        if r.report:
            lines += ["", r.report]
    return "\n".join(lines) + "\n"


def render(fmt: str, contract: str, results: Sequence[CheckResult]) -> str:
    return {"json": to_json, "csv": to_csv, "md": to_markdown}[fmt](contract, results)
