"""What the renderers of batch results share: rows of ``(contract id, result)`` written as JSON,
CSV or Markdown. The hypothesis-check and provision-review renderers supply their own columns."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from clausewise.core.domain import EvidenceSpan
from tools.spreadsheet_cells import csv_row

FORMATS = ("json", "csv", "md")
ResultT = TypeVar("ResultT", bound=BaseModel)
#: A batch of results: ``(contract id, result)`` pairs, one per contract and key.
Rows = Sequence[tuple[str, ResultT]]


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


def md_table_head(columns: Sequence[str]) -> list[str]:
    """The first two lines of a Markdown table: its column names, then the line under them."""
    return ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]


def rows_to_markdown(
    title: str,
    columns: Sequence[str],
    rows: Rows[ResultT],
    table_cells: Callable[[str, ResultT], Sequence[str]],
    details: Callable[[str, ResultT], list[str]],
) -> str:
    """A batch as Markdown: ``title``, a table of a line per result (``table_cells``: its cells,
    safe in a cell), then each result's ``details`` (its evidence), in the same order."""
    lines = [f"# {title}", "", *md_table_head(columns)]
    lines += ["| " + " | ".join(table_cells(contract, r)) + " |" for contract, r in rows]
    for contract, r in rows:
        lines += details(contract, r)
    return "\n".join(lines) + "\n"


def md_evidence(e: EvidenceSpan) -> str:
    return f'- {e.node_id}, p. {", ".join(map(str, e.pages))}: "{md_cell(e.quote)}"'


def render_rows(
    fmt: str,
    rows: Rows[ResultT],
    columns: Sequence[str],
    cells: Callable[[str, ResultT], Iterable[str]],
    markdown: Callable[[Rows[ResultT]], str],
) -> str:
    """``rows`` in the format asked for: JSON and CSV are the same for every kind of result (the
    CSV with the kind's ``columns`` and ``cells``); Markdown is the kind's own (``markdown``)."""
    if fmt == "json":
        return rows_to_json(rows)
    if fmt == "csv":
        return rows_to_csv(rows, columns, cells)
    return markdown(rows)
