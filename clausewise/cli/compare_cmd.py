"""``clausewise compare A B`` and ``clausewise changes CONTRACT``: two texts of a contract clause
by clause, and the other side's Word file with tracked changes read as a negotiation round."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from clausewise.cli.app import state_of
from clausewise.cli.options import OUT, TENANT, format_option, playbook_option
from clausewise.cli.results import Output
from clausewise.core.comparison import KIND_WORDS, Comparison, TextReference

if TYPE_CHECKING:
    from clausewise.api import Clausewise

_FORMATS = ("json", "md")


def _reference(value: str) -> TextReference:
    try:
        return TextReference.parse(value)
    except ValueError as error:
        raise typer.BadParameter(str(error)) from error


def _table(comparison: Comparison) -> Table:
    from tools.comparison_render import change_clause, change_line

    table = Table(title=f"{comparison.before_name} -> {comparison.after_name}", show_lines=True)
    for column in ("#", "change", "clause", "words", "by"):
        table.add_column(column, overflow="fold")
    for number, change in enumerate(comparison.changes, start=1):
        table.add_row(
            str(number),
            KIND_WORDS[change.kind],
            change_clause(change),
            change_line(change).replace("[", "\\["),
            ", ".join(change.authors),
        )
    return table


def _show(output: Output, comparison: Comparison) -> None:
    """The comparison for a reader: its counts, then its changes as a table."""
    from tools.comparison_render import comparison_summary

    output.view.print(comparison_summary(comparison))
    if comparison.changes:
        output.view.print(_table(comparison))


def _session(
    ctx: typer.Context, fmt: str | None, out: Path | None, tenant: str | None
) -> tuple[Output, Clausewise]:
    """The command's output (json or md, default md) and the API on the tenant's runtime."""
    from clausewise.api import Clausewise

    return Output.of(fmt, out, "md", _FORMATS), Clausewise(runtime=state_of(ctx).runtime(tenant))


def compare(
    ctx: typer.Context,
    before: str = typer.Argument(
        ...,
        help="The text before: ID, ID@VERSION, ID@before (a Word file's text before its tracked changes).",
    ),
    after: str = typer.Argument(..., help="The text after: ID, ID@VERSION, ID@proposed."),
    fmt: str | None = format_option("json or md"),
    out: Path | None = OUT,
    tenant: str | None = TENANT,
) -> None:
    """Compare two texts clause by clause: values changed, words in or out, clauses added, struck, moved."""
    from tools.comparison_render import comparison_markdown

    output, api = _session(ctx, fmt, out, tenant)
    comparison = api.compare(_reference(before), _reference(after))
    _show(output, comparison)
    output.result(
        comparison.model_dump_json(indent=2) if output.fmt == "json" else comparison_markdown(comparison)
    )


def changes(
    ctx: typer.Context,
    contract: str = typer.Argument(..., help="A contract ingested from a Word file with tracked changes."),
    version: int | None = typer.Option(None, "--version", help="Its version (default: the live one)."),
    playbook: str | None = playbook_option(
        None,
        "Hold the round against a playbook, each position decided before and as proposed, those the "
        "changes made worse first",
    ),
    reply: Path | None = typer.Option(
        None,
        "--reply",
        help="With --playbook: write our answer to OUT.docx, their file with their changes kept and ours "
        "added (their changes that made a position worse rejected, each with a Word comment).",
    ),
    author: str = typer.Option("Clausewise", "--author", help="The author our tracked changes carry."),
    fmt: str | None = format_option("json or md"),
    out: Path | None = OUT,
    tenant: str | None = TENANT,
) -> None:
    """The other side's tracked changes: by author, with comments, clause by clause (before -> proposed)."""
    from tools.comparison_render import round_markdown

    output, api = _session(ctx, fmt, out, tenant)
    if reply is not None and playbook is None:
        raise typer.BadParameter("--reply answers the round against a playbook: give --playbook too")
    if playbook is not None:
        _assess(output, api, contract, version, playbook, (reply, author))
        return
    found = api.word_round(contract, version=version)
    authors = ", ".join(f"{author} ({count})" for author, count in found.authors.items())
    output.view.print(
        f"[bold]{found.contract_id}[/bold] version {found.version}: {len(found.revisions)} tracked change(s) "
        f"by {authors or 'no named author'}, {len(found.comments)} comment(s); read as {found.read_as}"
    )
    for comment in found.comments:
        output.view.print(f"  comment by {comment.author}: {comment.text}")
    _show(output, found.comparison)
    output.result(found.model_dump_json(indent=2) if output.fmt == "json" else round_markdown(found))


def _assess(
    output: Output,
    api: Clausewise,
    contract: str,
    version: int | None,
    playbook: str,
    reply: tuple[Path | None, str],
) -> None:
    """The round against a playbook: the positions (worse first), then the changes none covers;
    with a reply file, our answer written there."""
    from clausewise.cli.results import write_atomic
    from tools.comparison_render import assessment_markdown
    from tools.playbook.positions import load_positions

    target, author = reply
    with output.view.status("Deciding each position on both texts..."):
        if target is None:
            assessed = api.assess_round(contract, load_positions(playbook), version=version)
        else:
            answered = api.reply_to_round(contract, load_positions(playbook), author=author, version=version)
            assessed = answered.assessment
            write_atomic(target, answered.data)
            output.view.print(
                f"Reply written to [bold]{target}[/bold]: {len(answered.rejected)} of their change(s) "
                f"rejected as tracked changes by {author} ({len(answered.offered)} with our fallback in "
                "their place), each with a comment"
            )
    table = Table(title=f"{assessed.round.contract_id} against {assessed.playbook}", show_lines=True)
    for column in ("position", "risk", "before", "as proposed", "changes"):
        table.add_column(column, overflow="fold")
    for position in assessed.positions:
        style = {"worse": "red", "better": "green", "unclear": "yellow"}.get(position.movement, "")
        table.add_row(
            f"[{style}]{position.clause}[/]" if style else position.clause,
            position.risk,
            position.before.verdict.replace("_", " "),
            position.after.verdict.replace("_", " ")
            + (f" (we can offer {position.offer.inserted})" if position.offer else ""),
            " ".join(f"[{n}]" for n in position.changes),
        )
    output.view.print(table)
    _show(output, assessed.round.comparison)
    if assessed.not_covered:
        output.view.print("Covered by no position: " + " ".join(f"[{n}]" for n in assessed.not_covered))
    output.result(
        assessed.model_dump_json(indent=2) if output.fmt == "json" else assessment_markdown(assessed)
    )


def register(app: typer.Typer) -> None:
    app.command("compare")(compare)
    app.command("changes")(changes)
