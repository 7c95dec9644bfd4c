"""``clausewise exemplars seed``: the ContractNLI development evidence added to the exemplar
library. Benchmark data enters the library only through here."""

from __future__ import annotations

from pathlib import Path

import typer

from clausewise.cli.app import console, state_of
from clausewise.cli.exemplars_cmd import exemplars_app
from clausewise_lab.evals.data import require
from clausewise_lab.evals.exemplars import contractnli_exemplars


def seed(
    ctx: typer.Context, data: Path | None = typer.Option(None, "--data", help="Benchmark data folder.")
) -> None:
    """Add the ContractNLI development evidence as examples."""
    runtime = state_of(ctx).runtime()
    root = require(Path(data or runtime.settings.paths.bench_data))
    with console.status("embedding the examples..."):
        added = runtime.exemplars.add(contractnli_exemplars(root))
    console.print(f"Added {added} ContractNLI examples ({len(runtime.exemplars.examples())} in the library).")


def register(_app: typer.Typer) -> None:
    """Add ``seed`` to the product's ``exemplars`` commands."""
    exemplars_app.command("seed")(seed)
