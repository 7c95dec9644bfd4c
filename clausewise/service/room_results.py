"""A data room job's result, and the grid a page builds from several of them.

A room job's rows are the batch rows its units sent (``contract_id``, the cell as ``result``, or
the ``error`` of a contract that could not be answered); its result adds the questions in column
order, the grid (contracts down, questions across) and the roll-up, so a client that only wants
the table need not rebuild it. A page that adds one question at a time runs one job per question;
:func:`merge` puts their rows back into one grid for its exports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clausewise.core.room import RoomCell
from tools.room.render import Row, grid, render
from tools.room.rollup import rollup


def cells_of(rows: Sequence[dict[str, Any]]) -> list[Row]:
    """Batch rows as the renderers' rows: (contract id, cell or None, error)."""
    return [
        (
            row["contract_id"],
            RoomCell.model_validate(row["result"]) if row.get("result") else None,
            row.get("error") or "",
        )
        for row in rows
    ]


def room_result(questions: Sequence[Sequence[str]], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The result of a room job: its questions, rows, grid and roll-up."""
    asked = [(key, question) for key, question in questions]
    cells = cells_of(rows)
    errors = list(dict.fromkeys(contract for contract, cell, _ in cells if cell is None))
    return {
        "kind": "room",
        "questions": [{"key": key, "question": question} for key, question in asked],
        "rows": rows,
        "grid": grid(asked, cells),
        "rollup": rollup(asked, [(c, cell) for c, cell, _ in cells], errors).model_dump(mode="json"),
    }


def merge(results: Sequence[dict[str, Any]]) -> tuple[list[tuple[str, str]], list[Row]]:
    """Several room results as one grid: their questions in order, each once; a cell answered
    twice (the same question and contract in two jobs) shown once, from the later job."""
    questions: dict[str, str] = {}
    cells: dict[tuple[str, str], Row] = {}
    for result in results:
        for asked in result["questions"]:
            questions.setdefault(asked["key"], asked["question"])
        for row in cells_of(result["rows"]):
            contract, cell, _ = row
            cells[(contract, cell.key if cell is not None else "")] = row
    return list(questions.items()), list(cells.values())


def export(results: Sequence[dict[str, Any]], fmt: str) -> str | bytes:
    """One grid from room results, with its roll-up, as Markdown, CSV, JSON or XLSX (bytes)."""
    questions, rows = merge(results)
    errors = list(dict.fromkeys(contract for contract, cell, _ in rows if cell is None))
    summary = rollup(questions, [(c, cell) for c, cell, _ in rows], errors)
    return render(fmt, questions, rows, summary)
