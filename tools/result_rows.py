"""What the renderers of batch results share: rows of ``(contract id, result)`` written as JSON,
CSV or Markdown. The hypothesis-check and provision-review renderers supply their own columns."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from clausewise.core.domain import EvidenceSpan
from tools.spreadsheet_cells import csv_row

FORMATS = ("json", "csv", "md")


def rows_to_json(rows: Sequence[tuple[str, BaseModel]]) -> str:
    return json.dumps(
        {"results": [{"contract": contract, **r.model_dump(mode="json")} for contract, r in rows]},
        indent=2,
        ensure_ascii=False,
    )


def rows_to_csv(
    rows: Sequence[tuple[str, Any]], columns: Sequence[str], cells: Callable[[str, Any], Iterable[str]]
) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(columns)
    for contract, result in rows:
        writer.writerow(csv_row(cells(contract, result)))
    return buffer.getvalue()


def md_cell(text: str) -> str:
    """Text safe inside a Markdown table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def md_evidence(e: EvidenceSpan) -> str:
    return f'- {e.node_id}, p. {", ".join(map(str, e.pages))}: "{md_cell(e.quote)}"'
