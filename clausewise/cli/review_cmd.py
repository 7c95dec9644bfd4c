"""``clausewise review``: a due-diligence sweep of one contract or a folder (a data room): each
provision present or absent, its clauses and, where it has one, its value, with verified quotes.
A folder run is resumable: interrupted, it picks up where it stopped."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from clausewise.cli.app import state_of
from clausewise.cli.options import FRESH, OUT, TENANT, format_option

if TYPE_CHECKING:
    from clausewise.core.results import ProvisionResult


def _table(rows: list[tuple[str, ProvisionResult]], folder: bool) -> Table:
    from tools.review.render import clauses, pages

    table = Table(title="Provision review", show_lines=False)
    columns = (["contract"] if folder else []) + [
        "provision",
        "present",
        "conf.",
        "answer",
        "clauses",
        "pages",
    ]
    for column in columns:
        table.add_column(column, overflow="fold")
    for contract, r in rows:
        present = "[green]yes[/]" if r.present else "[dim]no[/]"
        cells = [r.name, present, f"{r.confidence:.2f}", r.answer or "-", clauses(r) or "-", pages(r) or "-"]
        table.add_row(*(([contract] if folder else []) + cells))
    return table


def review(
    ctx: typer.Context,
    target: str = typer.Argument(..., help="Contract id, ingested file, or a folder of contracts."),
    provisions: str = typer.Option("cuad", "--provisions", help="A built-in list (cuad) or a YAML file."),
    fmt: str | None = format_option("json, csv or md"),
    out: Path | None = OUT,
    fresh: bool = FRESH,
    tenant: str | None = TENANT,
) -> None:
    """Review provisions (CUAD's 41 by default): present or absent, clauses, values, quotes."""
    from clausewise.api import Clausewise
    from clausewise.cli.results import folder_files, output_format
    from tools.review.provisions import load_provisions
    from tools.review.render import render

    output = output_format(fmt, out)
    view = output.view
    provision_list = load_provisions(provisions)
    api = Clausewise(runtime=state_of(ctx).runtime(tenant))
    rows: list[tuple[str, ProvisionResult]] = []
    folder = Path(target)
    total = len(provision_list.provisions)
    with view.status("Loading the models and the contract...") as status:
        if folder.is_dir():
            files = folder_files(folder)
            total *= len(files)
            for number, item in enumerate(api.review_batch(files, provision_list, fresh=fresh), start=1):
                rows.append((item.contract_id, item.result))  # type: ignore[arg-type]
                status.update(f"Reviewed {number} of {total} ({item.contract_id})...")
        else:
            for number, result in enumerate(api.review(target, provision_list), start=1):
                rows.append((target, result))
                status.update(f"Reviewed {number} of {total}: {result.name}...")
    view.print(_table(rows, folder.is_dir()))
    present = sum(r.present for _, r in rows)
    view.print(
        f"{present} of {len(rows)} provision(s) present; absence means no clause reached the threshold."
    )
    output.result(render(output.fmt, rows))


def register(app: typer.Typer) -> None:
    app.command("review")(review)
