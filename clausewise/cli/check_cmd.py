"""``clausewise check``: hypotheses (a built-in suite, a playbook, or ad hoc) checked against one
contract: Entailment, Contradiction or NotMentioned, with verified evidence."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from clausewise.cli.main import console, state_of

if TYPE_CHECKING:
    from agents.checker import CheckResult

_STYLE = {"Entailment": "green", "Contradiction": "red", "NotMentioned": "yellow"}


def _table(contract: str, results: list[CheckResult]) -> Table:
    table = Table(title=f"Hypothesis checks: {contract}", show_lines=True)
    for column in ("key", "hypothesis", "label", "conf.", "evidence"):
        table.add_column(column, overflow="fold")
    for r in results:
        evidence = "\n".join(
            f"{e.node_id} p.{','.join(map(str, e.pages))}: {e.quote[:160]}{'…' if len(e.quote) > 160 else ''}"
            for e in r.evidence
        )
        table.add_row(
            r.key,
            r.hypothesis,
            f"[{_STYLE[r.label]}]{r.label}[/]",
            f"{r.confidence:.2f}",
            evidence or "-",
        )
    return table


def check(
    ctx: typer.Context,
    contract: str = typer.Argument(..., help="Contract id or ingested file."),
    hypothesis: list[str] = typer.Option(None, "--hypothesis", help="A hypothesis to check (repeatable)."),
    suite: str | None = typer.Option(None, "--suite", help="A built-in suite (nda) or a YAML playbook."),
    report: bool = typer.Option(
        False, "--report", help="Also write the Interrogator's full report per hypothesis."
    ),
    fmt: str | None = typer.Option(
        None, "--format", help="json, csv or md (default: from --out, else json)."
    ),
    out: Path | None = typer.Option(None, "--out", help="Write the results to this file."),
    tenant: str | None = typer.Option(None, "--tenant", help="Tenant whose contracts to use."),
) -> None:
    """Check hypotheses against a contract: Entailment / Contradiction / NotMentioned with evidence."""
    from clausewise.api import Clausewise
    from tools.checks.render import FORMATS, render
    from tools.checks.suites import Suite, adhoc_suite, load_suite

    if not hypothesis and suite is None:
        raise typer.BadParameter("give --hypothesis TEXT (repeatable) or --suite nda|FILE.yaml")
    chosen_format = fmt or (out.suffix.lstrip(".").lower() if out is not None else "json")
    chosen_format = "md" if chosen_format == "markdown" else chosen_format
    if chosen_format not in FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--format")
    parts: list[Suite] = []
    if suite is not None:
        parts.append(load_suite(suite))
    if hypothesis:
        parts.append(adhoc_suite(hypothesis))
    combined = Suite(
        name="+".join(p.name for p in parts), hypotheses=[h for p in parts for h in p.hypotheses]
    )
    api = Clausewise(runtime=state_of(ctx).runtime(tenant))
    results: list[CheckResult] = []
    with console.status("Loading the models and the contract...") as status:
        for number, result in enumerate(api.check(contract, combined, report=report), start=1):
            results.append(result)
            console.print(
                f"[{number}/{len(combined.hypotheses)}] {result.key}: "
                f"[{_STYLE[result.label]}]{result.label}[/] ({result.confidence:.2f}, {result.seconds:.1f} s)"
            )
            status.update(
                f"Checking {min(number + 1, len(combined.hypotheses))} of {len(combined.hypotheses)}..."
            )
    console.print(_table(contract, results))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render(chosen_format, contract, results), encoding="utf-8")
        console.print(f"Results written to [bold]{out}[/bold] ({chosen_format})")


def register(app: typer.Typer) -> None:
    app.command("check")(check)
