"""A data room's grid as Markdown, CSV, JSON and Excel: contracts down, questions across, every
cell with its clause ids, and the long form (a line per cell) with the verified quotes and their
character spans; the roll-up under the grid.

A row is ``(contract id, cell, error)``: a cell, or the error of a file that could not be read
(then the cell is None). Questions are ``(key, question)`` in the grid's column order.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from clausewise.core.room import RoomCell
from tools.result_rows import md_cell, rows_to_csv
from tools.room.rollup import Rollup
from tools.spreadsheet_cells import append_inert

Row = tuple[str, RoomCell | None, str]
Questions = Sequence[tuple[str, str]]
FORMATS = ("md", "csv", "json", "xlsx")
CSV_COLUMNS = (
    "contract",
    "question",
    "answer",
    "value",
    "line",
    "clauses",
    "pages",
    "quotes",
    "spans",
    "decided by",
    "note",
)


def _cited(cell: RoomCell) -> list[Any]:
    numbers = cell.cited or cell.closest
    return [s for s in cell.sources if s.number in numbers]


def csv_cells(contract: str, cell: RoomCell | None, error: str = "") -> list[str]:
    """One cell as a line of the long form (a file that could not be read: its error)."""
    if cell is None:
        return [contract, "", "error", "", "", "", "", "", "", "", error]
    cited = _cited(cell)
    return [
        contract,
        cell.question,
        cell.answer,
        cell.value,
        cell.line,
        ", ".join(cell.clauses()),
        ", ".join(str(p) for p in sorted({p for s in cited for p in s.pages})),
        " | ".join(f"[{s.number}] {s.quote}" for s in cited),
        " | ".join(f"[{s.number}] {s.span[0]}-{s.span[1]}" for s in cited),
        cell.decided_by,
        cell.note,
    ]


def contracts_of(rows: Sequence[Row]) -> list[str]:
    return list(dict.fromkeys(contract for contract, _, _ in rows))


def grid(questions: Questions, rows: Sequence[Row]) -> list[dict[str, Any]]:
    """Contracts down, questions across: per contract its error, or its cells in question order
    (answer, the cell as shown, its line, value, clause ids; None where a cell is still to come)."""
    cells: dict[tuple[str, str], RoomCell] = {}
    errors: dict[str, str] = {}
    for contract, cell, error in rows:
        if cell is None:
            errors[contract] = error
        else:
            cells[(contract, cell.key)] = cell
    out = []
    for contract in contracts_of(rows):
        found = [cells.get((contract, key)) for key, _ in questions]
        out.append(
            {
                "contract_id": contract,
                "error": errors.get(contract),
                "cells": [
                    None
                    if c is None
                    else {
                        "answer": c.answer,
                        "shown": c.shown(),
                        "line": c.line,
                        "value": c.value,
                        "clauses": c.clauses(),
                    }
                    for c in found
                ],
            }
        )
    return out


def to_json(questions: Questions, rows: Sequence[Row], summary: Rollup) -> str:
    return json.dumps(
        {
            "questions": [{"key": k, "question": q} for k, q in questions],
            "grid": grid(questions, rows),
            "rollup": summary.model_dump(mode="json"),
            "cells": [
                {"contract": contract, **cell.model_dump(mode="json")}
                if cell
                else {"contract": contract, "error": e}
                for contract, cell, e in rows
            ],
        },
        indent=2,
        ensure_ascii=False,
    )


def rollup_lines(summary: Rollup, numbers: dict[str, int]) -> list[str]:
    """The roll-up as Markdown lines, a block per question (``numbers``: its column number)."""
    lines: list[str] = []
    for part in summary.questions:
        counts = ", ".join(f"{n} {answer}" for answer, n in part.counts.items() if n)
        lines += [
            "",
            f"### Q{numbers.get(part.key, '?')}. {part.question}",
            "",
            f"{part.contracts} contracts: {counts or 'none'}.",
        ]
        for group in part.values:
            wordings = "; ".join(f'"{md_cell(w)}"' for w in group.wordings[:3])
            held = f"({len(group.contracts)}): {', '.join(group.contracts)}"
            lines.append(f"- **{md_cell(group.label)}** {held}; as {wordings}")
        for outlier in part.outliers:
            lines.append(f"- outlier: {outlier.contract_id}, {md_cell(outlier.shown)} ({outlier.why})")
    if summary.errors:
        lines += ["", f"Not read: {', '.join(summary.errors)}."]
    return lines


def to_markdown(questions: Questions, rows: Sequence[Row], summary: Rollup) -> str:
    numbers = {key: n for n, (key, _) in enumerate(questions, start=1)}
    lines = ["# Data room", ""]
    lines += [f"{n}. {question}" for n, (_, question) in enumerate(questions, start=1)]
    lines += ["", "| contract | " + " | ".join(f"Q{n}" for n in numbers.values()) + " |"]
    lines.append("|---|" + "---|" * len(questions))
    for row in grid(questions, rows):
        if row["error"]:
            cells = [f"error: {md_cell(row['error'])}"] + [""] * (len(questions) - 1)
        else:
            cells = ["…" if c is None else md_cell(c["shown"]) for c in row["cells"]]
        lines.append(f"| {row['contract_id']} | " + " | ".join(cells) + " |")
    lines += ["", "## Roll-up", *rollup_lines(summary, numbers), "", "## Sources"]
    for contract, cell, _ in rows:
        if cell is None or not _cited(cell):
            continue
        lines += ["", f"**{contract}, Q{numbers.get(cell.key, '?')}**: {md_cell(cell.line)}"]
        lines += [
            f"- [{s.number}] {s.node_id}, p. {', '.join(map(str, s.pages))}, "
            f'characters {s.span[0]}-{s.span[1]}: "{md_cell(s.quote)}"'
            for s in _cited(cell)
        ]
    return "\n".join(lines) + "\n"


def to_csv(rows: Sequence[Row]) -> str:
    return rows_to_csv([(c, (cell, e)) for c, cell, e in rows], CSV_COLUMNS, lambda c, r: csv_cells(c, *r))


def to_xlsx(questions: Questions, rows: Sequence[Row], summary: Rollup) -> bytes:
    """A workbook of three sheets: the grid (contracts x questions), the cells in long form with
    their quotes, clause ids and spans, and the roll-up."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font

    workbook = Workbook()
    sheets = {
        "grid": (["contract", *(q for _, q in questions)], _grid_rows(questions, rows)),
        "cells": (list(CSV_COLUMNS), [csv_cells(c, cell, e) for c, cell, e in rows]),
        "roll-up": (["question", "answer or value", "contracts", "which"], _rollup_rows(summary)),
    }
    for number, (name, (header, body)) in enumerate(sheets.items()):
        sheet = workbook.active if number == 0 else workbook.create_sheet()
        sheet.title = name
        append_inert(sheet, header)
        for cell in sheet[1]:
            cell.font = Font(bold=True)
            cell.alignment = Alignment(wrap_text=True, vertical="top")
        for line in body:
            append_inert(sheet, line)
        sheet.freeze_panes = "B2" if name == "grid" else "A2"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _grid_rows(questions: Questions, rows: Sequence[Row]) -> list[list[str]]:
    out = []
    for row in grid(questions, rows):
        if row["error"]:
            out.append([row["contract_id"], f"error: {row['error']}"])
        else:
            out.append([row["contract_id"], *("" if c is None else c["shown"] for c in row["cells"])])
    return out


def _rollup_rows(summary: Rollup) -> list[list[str]]:
    out = []
    for part in summary.questions:
        out += [[part.question, answer, str(n), ""] for answer, n in part.counts.items() if n]
        out += [[part.question, g.label, str(len(g.contracts)), ", ".join(g.contracts)] for g in part.values]
        out += [
            [part.question, f"outlier: {o.shown}", "1", f"{o.contract_id} ({o.why})"] for o in part.outliers
        ]
    return out


def render(fmt: str, questions: Questions, rows: Sequence[Row], summary: Rollup) -> str | bytes:
    """The grid in ``fmt`` (md, csv, json or xlsx; xlsx as bytes)."""
    if fmt == "json":
        return to_json(questions, rows, summary)
    if fmt == "csv":
        return to_csv(rows)
    if fmt == "xlsx":
        return to_xlsx(questions, rows, summary)
    return to_markdown(questions, rows, summary)
