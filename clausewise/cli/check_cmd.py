"""``clausewise check``: hypotheses (a built-in suite, a playbook, or ad hoc) checked against one
contract or a folder of contracts: Entailment, Contradiction or NotMentioned, with verified
evidence. A folder run is resumable: interrupted, it picks up where it stopped."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from clausewise.cli.app import state_of
from clausewise.cli.options import FRESH, OUT, TENANT, format_option

if TYPE_CHECKING:
    from clausewise.core.results import CheckResult
    from tools.checks.suites import Suite

_STYLE = {"Entailment": "green", "Contradiction": "red", "NotMentioned": "yellow"}
_SHORT = {"Entailment": "E", "Contradiction": "C", "NotMentioned": "NM"}


def _label(result: CheckResult) -> str:
    return f"[{_STYLE[result.label]}]{result.label}[/]"


def _table(rows: list[tuple[str, CheckResult]]) -> Table:
    table = Table(title="Hypothesis checks", show_lines=True)
    for column in ("contract", "key", "hypothesis", "label", "conf.", "evidence"):
        table.add_column(column, overflow="fold")
    for contract, r in rows:
        evidence = "\n".join(
            f"{e.node_id} p.{','.join(map(str, e.pages))}: {e.quote[:160]}{'…' if len(e.quote) > 160 else ''}"
            for e in r.evidence
        )
        table.add_row(contract, r.key, r.hypothesis, _label(r), f"{r.confidence:.2f}", evidence or "-")
    return table


def _matrix(rows: list[tuple[str, CheckResult]], suite: Suite) -> Table:
    """A batch at a glance: contracts down, hypotheses across (E / C / NM)."""
    table = Table(title="Hypothesis checks (E entailment, C contradiction, NM not mentioned)")
    table.add_column("contract")
    keys = [h.key for h in suite.hypotheses]
    for key in keys:
        table.add_column(key, justify="center")
    by_contract: dict[str, dict[str, CheckResult]] = {}
    for contract, r in rows:
        by_contract.setdefault(contract, {})[r.key] = r
    for contract, results in by_contract.items():
        cells = [
            f"[{_STYLE[results[k].label]}]{_SHORT[results[k].label]}[/]" if k in results else "" for k in keys
        ]
        table.add_row(contract, *cells)
    return table


def _suite(hypotheses: list[str] | None, suite: str | None) -> Suite:
    from tools.checks.suites import Suite, adhoc_suite, load_suite

    if not hypotheses and suite is None:
        raise typer.BadParameter("give --hypothesis TEXT (repeatable) or --suite nda|FILE.yaml")
    parts = ([load_suite(suite)] if suite is not None else []) + (
        [adhoc_suite(hypotheses)] if hypotheses else []
    )
    return Suite(name="+".join(p.name for p in parts), hypotheses=[h for p in parts for h in p.hypotheses])


def check(
    ctx: typer.Context,
    target: str = typer.Argument(..., help="Contract id, ingested file, or a folder of contracts."),
    hypothesis: list[str] = typer.Option(None, "--hypothesis", help="A hypothesis to check (repeatable)."),
    suite: str | None = typer.Option(None, "--suite", help="A built-in suite (nda) or a YAML playbook."),
    report: bool = typer.Option(False, "--report", help="Add the Interrogator's full report to each result."),
    fmt: str | None = format_option("json, csv or md"),
    out: Path | None = OUT,
    fresh: bool = FRESH,
    tenant: str | None = TENANT,
) -> None:
    """Check hypotheses against a contract or a folder: Entailment / Contradiction / NotMentioned."""
    from clausewise.api import Clausewise
    from clausewise.cli.results import folder_files, output_format
    from tools.checks.render import render

    output = output_format(fmt, out)
    view = output.view
    combined = _suite(hypothesis, suite)
    total = len(combined.hypotheses)
    api = Clausewise(runtime=state_of(ctx).runtime(tenant))
    rows: list[tuple[str, CheckResult]] = []
    folder = Path(target)
    with view.status("Loading the models and the contract...") as status:
        if folder.is_dir():
            files = folder_files(folder)
            total *= len(files)
            items = api.check_batch(files, combined, report=report, fresh=fresh)
            for number, item in enumerate(items, start=1):
                rows.append((item.contract_id, item.result))
                note = "from the previous run" if item.resumed else f"{item.result.seconds:.1f} s"
                view.print(
                    f"[{number}/{total}] {item.contract_id} {item.result.key}: {_label(item.result)} ({note})"
                )
                status.update(f"Checking {min(number + 1, total)} of {total}...")
        else:
            for number, result in enumerate(api.check(target, combined, report=report), start=1):
                rows.append((target, result))
                view.print(
                    f"[{number}/{total}] {result.key}: {_label(result)} "
                    f"({result.confidence:.2f}, {result.seconds:.1f} s)"
                )
                status.update(f"Checking {min(number + 1, total)} of {total}...")
    view.print(_matrix(rows, combined) if folder.is_dir() else _table(rows))
    output.result(render(output.fmt, rows))


def register(app: typer.Typer) -> None:
    app.command("check")(check)
