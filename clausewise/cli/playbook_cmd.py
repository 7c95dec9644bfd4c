"""``clausewise playbook``: each position of the firm's playbook against a contract (meets the
standard, meets a fallback, deviation, missing or refused), with risk, the clause quoted, and
redlines as a DOCX of tracked changes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from clausewise.cli.app import state_of
from clausewise.cli.options import FRESH, OUT, TENANT, format_option, playbook_option
from clausewise.core.config import deep_merge
from clausewise.core.results import PlaybookSummary, PositionReview

if TYPE_CHECKING:
    from rich.console import Console

    from tools.redline_export import RedlineDocx

_COLOURS = {"high": "red", "medium": "yellow", "low": "green"}


def _table(rows: list[tuple[str, PositionReview]], folder: bool) -> Table:
    from tools.playbook.render import clause_ref, verdict_words

    table = Table(title="Playbook review")
    for column in (["contract"] if folder else []) + ["position", "verdict", "risk", "clause", "rationale"]:
        table.add_column(column, overflow="fold")
    for contract, r in rows:
        open_point = r.verdict in ("deviation", "missing")
        risk = f"[{_COLOURS[r.risk]}]{r.risk}[/]" if open_point else f"[dim]{r.risk}[/]"
        cells = [r.position_id, verdict_words(r), risk, clause_ref(r) or "-", r.rationale]
        table.add_row(*(([contract] if folder else []) + cells))
    return table


def playbook(
    ctx: typer.Context,
    target: str = typer.Argument(..., help="Contract id, ingested file, or a folder of contracts."),
    playbook_name: str = playbook_option("playbook-commercial", "The positions to review against"),
    fmt: str | None = format_option("json or md"),
    out: Path | None = OUT,
    redline: Path | None = typer.Option(
        None, "--redline", help="Write the redlines as tracked changes: a DOCX (a folder for a folder)."
    ),
    author: str = typer.Option("Clausewise", "--author", help="The author the tracked changes carry."),
    keep_active: bool = typer.Option(
        False,
        "--keep-active-content",
        help="Keep what the contract's Word file could run or fetch when opened (macros, remote "
        "templates, external links, fields that fetch); by default the redline leaves them out.",
    ),
    fresh: bool = FRESH,
    draft: bool = typer.Option(
        False,
        "--draft",
        help="Have the drafter model propose redlines where the rule-made ones fall short (kept only if "
        "the edited clause, decided again, meets the position); default: quick mode, no language model.",
    ),
    tenant: str | None = TENANT,
) -> None:
    """Review contracts against a playbook: verdict, risk, the clause quoted, and redlines."""
    from clausewise.api import Clausewise
    from clausewise.cli.results import Output, folder_files, write_atomic
    from tools.playbook.positions import load_positions
    from tools.playbook.render import to_json, to_markdown
    from tools.playbook.summary import summarise

    output = Output.of(fmt, out, "json", ("json", "md"))
    view = output.view
    positions = load_positions(playbook_name)
    app_state = state_of(ctx)
    if draft:
        app_state.overrides = deep_merge(app_state.overrides, {"playbook": {"draft": True}})
    api = Clausewise(runtime=app_state.runtime(tenant))
    folder = Path(target).is_dir()
    rows: list[tuple[str, PositionReview]] = []
    versions: dict[str, int | None] = {}
    with view.status("Loading the models and the contract...") as status:
        if folder:
            for item in api.playbook_batch(folder_files(Path(target)), positions, fresh=fresh):
                if item.error:
                    view.print(f"[red]{item.contract_id}[/red]: {item.error}")
                    continue
                rows.append((item.contract_id, item.result))  # type: ignore[arg-type]
                versions[item.contract_id] = item.contract_version
                status.update(f"Reviewed {len(rows)} position(s), {item.contract_id}...")
        else:
            for item in api.playbook_review(target, positions):
                if isinstance(item, PositionReview):
                    rows.append((target, item))
                    status.update(
                        f"Reviewed {len(rows)} of {len(positions.positions)}: {item.position_id}..."
                    )
    view.print(_table(rows, folder))
    contracts = list(dict.fromkeys(contract for contract, _ in rows))
    by_contract = {c: [r for contract, r in rows if contract == c] for c in contracts}
    summaries: dict[str, PlaybookSummary] = {c: summarise(reviews) for c, reviews in by_contract.items()}
    for contract, summary in summaries.items():
        view.print(
            f"{contract + ': ' if folder else ''}overall risk [bold]{summary.overall_risk}[/]; "
            f"{len(summary.high)} high, {len(summary.medium)} medium, {len(summary.low)} low open point(s); "
            f"{len(summary.refused)} refused."
        )
    if output.fmt == "md":
        text = "\n".join(to_markdown(c, by_contract[c], summaries[c]) for c in contracts)
    elif folder:  # one JSON document: a list of the contracts' reviews
        text = "[\n" + ",\n".join(to_json(c, by_contract[c], summaries[c]) for c in contracts) + "\n]"
    else:
        text = to_json(target, by_contract.get(target, []), summaries.get(target, PlaybookSummary()))
    output.result(text)
    if redline is not None:
        for contract in contracts:
            target_file = redline / f"{contract}-redline.docx" if folder else redline
            made = api.redline_docx(
                contract,
                by_contract[contract],
                author=author,
                when=datetime.now(UTC),
                version=versions.get(contract),
                keep_active=keep_active,
            )
            write_atomic(target_file, made.data)
            _said_of_redline(view, target_file, made, by_contract[contract])


def _said_of_redline(
    view: Console, target_file: Path, made: RedlineDocx, reviews: list[PositionReview]
) -> None:
    """What the redline holds and what was left out of it."""
    from tools.playbook.redlines import merged
    from tools.playbook.summary import redline_queue

    kept, left_out = merged(redline_queue(reviews))
    also = f"; left out, as they change words a higher risk's edit changes: {', '.join(left_out)}"
    base = "in the contract's own Word file" if made.base == "original" else f"in its text ({made.reason})"
    view.print(
        f"Redline written to [bold]{target_file}[/bold] ({len(kept)} tracked change(s) {base}"
        f"{also if left_out else ''})"
    )
    if made.removed:
        view.print(
            "Left out of the redline, as it could run or fetch content when opened: "
            + "; ".join(made.removed)
            + " (--keep-active-content keeps it)"
        )


def register(app: typer.Typer) -> None:
    app.command("playbook")(playbook)
