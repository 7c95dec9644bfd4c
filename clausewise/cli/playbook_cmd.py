"""``clausewise playbook``: each position of the firm's playbook against a contract (meets the
standard, meets a fallback, deviation, missing or refused), with risk, the clause quoted, and
redlines as a DOCX of tracked changes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import typer
from rich.table import Table

from clausewise.cli.app import console, state_of
from clausewise.core.results import PlaybookSummary, PositionReview

_COLOURS = {"high": "red", "medium": "yellow", "low": "green"}


def _table(reviews: list[PositionReview]) -> Table:
    from tools.playbook.render import clause_ref, verdict_words

    table = Table(title="Playbook review")
    for column in ("position", "verdict", "risk", "clause", "rationale"):
        table.add_column(column, overflow="fold")
    for r in reviews:
        open_point = r.verdict in ("deviation", "missing")
        risk = f"[{_COLOURS[r.risk]}]{r.risk}[/]" if open_point else f"[dim]{r.risk}[/]"
        table.add_row(r.position_id, verdict_words(r), risk, clause_ref(r) or "-", r.rationale)
    return table


def playbook(
    ctx: typer.Context,
    target: str = typer.Argument(..., help="Contract id or ingested file."),
    playbook_name: str = typer.Option(
        "playbook-commercial",
        "--playbook",
        help="A built-in playbook (playbook-commercial, playbook-nda) or a YAML file.",
    ),
    fmt: str | None = typer.Option(None, "--format", help="json or md (default: --out's suffix, else json)."),
    out: Path | None = typer.Option(None, "--out", help="Write the review to this file."),
    redline: Path | None = typer.Option(
        None, "--redline", help="Write the redlines to this DOCX (tracked changes)."
    ),
    author: str = typer.Option("Clausewise", "--author", help="The author the tracked changes carry."),
    tenant: str | None = typer.Option(None, "--tenant", help="Tenant whose contracts to use."),
) -> None:
    """Review a contract against a playbook: verdict, risk, the clause quoted, and redlines."""
    from clausewise.api import Clausewise
    from clausewise.cli.results import write_output
    from tools.playbook.positions import load_positions
    from tools.playbook.render import to_json, to_markdown

    chosen = fmt or (out.suffix.lstrip(".").lower() if out is not None else "json")
    chosen = "md" if chosen == "markdown" else chosen
    if chosen not in ("json", "md"):
        raise typer.BadParameter("use json or md", param_hint="--format")
    positions = load_positions(playbook_name)
    api = Clausewise(runtime=state_of(ctx).runtime(tenant))
    reviews: list[PositionReview] = []
    summary = PlaybookSummary()
    total = len(positions.positions)
    with console.status("Loading the models and the contract...") as status:
        for item in api.playbook_review(target, positions):
            if isinstance(item, PlaybookSummary):
                summary = item
                continue
            reviews.append(item)
            status.update(f"Reviewed {len(reviews)} of {total}: {item.position_id}...")
    console.print(_table(reviews))
    console.print(
        f"Overall risk: [bold]{summary.overall_risk}[/]; "
        f"{len(summary.high)} high, {len(summary.medium)} medium, {len(summary.low)} low open point(s); "
        f"{len(summary.refused)} refused."
    )
    if out is not None:
        render = to_json if chosen == "json" else to_markdown
        write_output(out, render(target, reviews, summary), chosen)
    if redline is not None:
        data = api.redline_docx(target, reviews, author=author, when=datetime.now(UTC))
        redline.parent.mkdir(parents=True, exist_ok=True)
        redline.write_bytes(data)
        edits = sum(len(r.redline.edits) for r in reviews if r.redline)
        console.print(f"Redline written to [bold]{redline}[/bold] ({edits} tracked change(s))")


def register(app: typer.Typer) -> None:
    app.command("playbook")(playbook)
