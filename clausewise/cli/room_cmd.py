"""``clausewise ask`` over a data room: several contracts (a folder, or ``--all``) or several
questions, each question answered on each contract by the quick answer, a row per contract as
each finishes, resumable like ``check`` and ``review``; the grid with its roll-up, written as
Markdown, CSV, JSON or Excel; and, for the cells a lawyer selects (``--report``), the full report.

Which arguments are contracts and which are questions: :mod:`clausewise.cli.room_args`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from clausewise.cli.results import Output, write_atomic
from clausewise.cli.room_args import RoomArguments
from clausewise.core.errors import ConfigError, ContractNotFound
from clausewise.core.room import RoomCell, room_questions
from tools.room.render import FORMATS, Row, render
from tools.room.rollup import Rollup, rollup

if TYPE_CHECKING:
    from clausewise.api import BatchItem, Clausewise

_STYLE = {
    "yes": "green",
    "no": "red",
    "partly": "yellow",
    "value": "cyan",
    "not addressed": "yellow",
    "unclear": "magenta",
}
_SELECTOR = re.compile(r"^(?P<contract>[^:]+?)(?::(?P<number>\d+))?$")


@dataclass(frozen=True)
class Selector:
    """Cells chosen for a full report: a contract ("*": every one) and a question number (None:
    every question)."""

    contract: str
    number: int | None

    def takes(self, contract: str, number: int) -> bool:
        return self.contract in ("*", contract) and self.number in (None, number)


def selectors(texts: Iterable[str], questions: int) -> list[Selector]:
    """``--report`` values: ``CONTRACT:N`` (the Nth question), ``CONTRACT`` (all) or ``*:N``."""
    chosen = []
    for text in texts:
        found = _SELECTOR.match(text.strip())
        if found is None:
            raise typer.BadParameter(f"{text!r}: use CONTRACT:N, CONTRACT or *:N", param_hint="--report")
        number = int(found.group("number")) if found.group("number") else None
        if number is not None and not 1 <= number <= questions:
            raise typer.BadParameter(f"{text!r}: question {number} of {questions}", param_hint="--report")
        chosen.append(Selector(found.group("contract"), number))
    return chosen


def room_output(fmt: str | None, out: Path | None) -> Output:
    """``--format``, else the suffix of ``--out``, else Markdown; refused unless md, csv, json or
    xlsx (an Excel grid only to a file)."""
    output = Output.of(fmt, out, "md", FORMATS)
    if output.fmt == "xlsx" and out is None:
        raise typer.BadParameter("an Excel grid needs --out FILE.xlsx", param_hint="--format")
    return output


def sources_of(api: Clausewise, split: RoomArguments) -> list[Path | str]:
    """What the grid runs on: the tenant's contracts (``--all``), or each argument as a contract
    id, a file, or a folder's contract files; each once."""
    from clausewise.cli.results import folder_files

    store = api.runtime.store
    if split.every_contract:
        found: list[Path | str] = [m.contract_id for m in store.manifests()]
        if not found:
            raise ContractNotFound(
                f"tenant {store.tenant!r} has no contracts yet", hint="clausewise ingest FILE_OR_FOLDER"
            )
        return found
    sources: list[Path | str] = []
    for argument in split.contracts:
        path = Path(argument)
        if path.is_dir():
            sources += folder_files(path)
        elif path.is_file():
            sources.append(path.resolve())
        else:
            sources.append(store.resolve(argument))
    return list(dict.fromkeys(sources))


def _by_contract(items: Iterable[BatchItem]) -> Iterator[list[BatchItem]]:
    """Batch items grouped by contract, each group as soon as its contract is done."""
    group: list[BatchItem] = []
    for item in items:
        if group and item.contract_id != group[0].contract_id:
            yield group
            group = []
        group.append(item)
    if group:
        yield group


def _cell_text(cell: RoomCell, rich: bool = True) -> str:
    shown = escape(cell.shown())
    return f"[{_STYLE[cell.answer]}]{shown}[/]" if rich else cell.shown()


def _grid_table(questions: list[tuple[str, str]], rows: list[Row]) -> Table:
    table = Table(title="Data room (Q1... as listed above)", show_lines=True)
    table.add_column("contract", overflow="fold")
    for number in range(1, len(questions) + 1):
        table.add_column(f"Q{number}", overflow="fold")
    cells = {(c, cell.key): cell for c, cell, _ in rows if cell is not None}
    errors = {c: e for c, cell, e in rows if cell is None}
    for contract in dict.fromkeys(c for c, _, _ in rows):
        if contract in errors:
            table.add_row(
                escape(contract), f"[red]error: {escape(errors[contract])}[/]", *[""] * (len(questions) - 1)
            )
            continue
        found = [cells.get((contract, key)) for key, _ in questions]
        table.add_row(escape(contract), *(_cell_text(c) if c else "…" for c in found))
    return table


def _print_rollup(view: Console, summary: Rollup) -> None:
    for number, part in enumerate(summary.questions, start=1):
        counts = ", ".join(f"{n} {answer}" for answer, n in part.counts.items() if n)
        view.print(f"[bold]Q{number}[/bold] {part.contracts} contracts: {counts or 'none'}")
        for group in part.values:
            view.print(
                f"  {escape(group.label)} ({len(group.contracts)}): {escape(', '.join(group.contracts))}"
            )
        for outlier in part.outliers:
            said = escape(f"{outlier.contract_id}: {outlier.shown} ({outlier.why})")
            view.print(f"  [yellow]outlier[/yellow] {said}")


def run_room(
    api: Clausewise,
    split: RoomArguments,
    *,
    fmt: str | None,
    out: Path | None,
    fresh: bool,
    reports: list[str],
    reports_dir: Path | None,
    context: str,
    instructions: str,
    turns: int | None,
) -> None:
    """The grid: rows as contracts finish, then the table, the roll-up, the file, the reports."""
    output = room_output(fmt, out)
    view = output.view
    questions = room_questions(split.questions)
    wanted = selectors(reports, len(questions))
    sources = sources_of(api, split)
    for number, (_, question) in enumerate(questions, start=1):
        view.print(f"Q{number}. {escape(question)}")
    rows: list[Row] = []
    with view.status(f"Deciding {len(questions)} question(s) on {len(sources)} contract(s)..."):
        items = api.ask_room(sources, [q for _, q in questions], fresh=fresh)
        for done, group in enumerate(_by_contract(items), start=1):
            contract = group[0].contract_id
            if group[0].error is not None:
                rows.append((contract, None, group[0].error))
                error = escape(group[0].error)
                view.print(f"\\[{done}/{len(sources)}] {escape(contract)}: [red]not read[/]: {error}")
                continue
            cells = {item.result.key: item.result for item in group if isinstance(item.result, RoomCell)}
            rows += [(contract, cells[key], "") for key, _ in questions if key in cells]
            resumed = " (from the previous run)" if all(item.resumed for item in group) else ""
            said = " · ".join(
                f"Q{n} {_cell_text(cells[key])}"
                for n, (key, _) in enumerate(questions, start=1)
                if key in cells
            )
            view.print(f"\\[{done}/{len(sources)}] {escape(contract)}{resumed}: {said}")
    summary = rollup(
        questions, [(c, cell) for c, cell, _ in rows], [c for c, cell, _ in rows if cell is None]
    )
    view.print(_grid_table(questions, rows))
    _print_rollup(view, summary)
    output.result(render(output.fmt, questions, rows, summary), "Grid")
    if wanted:
        _reports(
            api,
            questions,
            rows,
            wanted,
            reports_dir or _reports_folder(out),
            context,
            instructions,
            turns,
            view,
        )


def _reports_folder(out: Path | None) -> Path:
    return out.with_name(f"{out.stem}-reports") if out is not None else Path("room-reports")


def _reports(
    api: Clausewise,
    questions: list[tuple[str, str]],
    rows: list[Row],
    wanted: list[Selector],
    folder: Path,
    context: str,
    instructions: str,
    turns: int | None,
    view: Console,
) -> None:
    """The full report of every selected cell, one Markdown file each."""
    contracts = [c for c, cell, _ in rows if cell is not None]
    unknown = [s.contract for s in wanted if s.contract != "*" and s.contract not in contracts]
    if unknown:
        raise ConfigError(
            f"--report names contracts not in the grid: {', '.join(unknown)}",
            hint=f"use one of: {', '.join(dict.fromkeys(contracts))}",
        )
    for contract in dict.fromkeys(contracts):
        for number, (_, question) in enumerate(questions, start=1):
            if not any(s.takes(contract, number) for s in wanted):
                continue
            with view.status(f"Writing the report of {contract}, Q{number}..."):
                report = api.ask(contract, question, context=context, instructions=instructions, turns=turns)
            path = folder / f"{contract}-q{number}.md"
            write_atomic(path, report.to_markdown())
            view.print(f"Report of {contract}, Q{number}: [bold]{path}[/bold]")
