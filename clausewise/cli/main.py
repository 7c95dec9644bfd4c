"""The ``clausewise`` command line.

Global options pick the configuration (``--preset``, ``--config``, ``--tenant``, ``--data-dir``
and any ``--section.field VALUE``); subcommands live in sibling modules. Errors the user can fix
are printed as one line and exit with the error's code; bugs keep their traceback.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from clausewise.core.config import Settings, deep_merge, load_settings
from clausewise.core.errors import ClausewiseError

app = typer.Typer(
    name="clausewise",
    help="Offline, cited question answering over long legal contracts.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    add_completion=False,
)
console = Console(highlight=False)
error_console = Console(stderr=True, highlight=False)


@dataclass
class AppState:
    """What the root options decided; commands build their runtime from it."""

    overrides: dict[str, Any] = field(default_factory=dict)
    preset: str | None = None
    config_file: Path | None = None

    def settings(self, tenant: str | None = None) -> Settings:
        extra = {"paths": {"tenant": tenant}} if tenant else {}
        return load_settings(self.preset, self.config_file, deep_merge(self.overrides, extra))

    def runtime(self, tenant: str | None = None):
        from clausewise.runtime import Runtime

        return Runtime(self.settings(tenant))


def state_of(ctx: typer.Context) -> AppState:
    return ctx.ensure_object(AppState)


@app.callback()
def main(
    ctx: typer.Context,
    preset: str | None = typer.Option(None, "--preset", help="Named preset (default, fast, thorough)."),
    config: Path | None = typer.Option(None, "--config", help="TOML settings file.", dir_okay=False),
    tenant: str | None = typer.Option(None, "--tenant", help="Tenant whose contracts to use."),
    data_dir: Path | None = typer.Option(None, "--data-dir", help="Where indexes and caches live."),
) -> None:
    """Offline, cited question answering over long legal contracts.

    Any setting can be given as [bold]--section.field VALUE[/bold] (see `clausewise config show`).
    """
    state = state_of(ctx)
    state.preset = preset
    state.config_file = config
    paths: dict[str, Any] = {}
    if tenant:
        paths["tenant"] = tenant
    if data_dir:
        paths["data_dir"] = str(data_dir)
    if paths:
        state.overrides = deep_merge(state.overrides, {"paths": paths})
    state.settings()  # validate the configuration before any command runs


def _register_commands() -> None:
    from clausewise.cli import (
        ask_cmd,
        check_cmd,
        config_cmd,
        contracts,
        evals,
        exemplars_cmd,
        ingest,
        models_cmd,
        review_cmd,
        train_cmd,
    )

    ingest.register(app)
    ask_cmd.register(app)
    check_cmd.register(app)
    review_cmd.register(app)
    exemplars_cmd.register(app)
    contracts.register(app)
    models_cmd.register(app)
    config_cmd.register(app)
    evals.register(app)
    train_cmd.register(app)


def run(argv: list[str] | None = None) -> None:
    """Entry point of the ``clausewise`` script."""
    from clausewise.cli.overrides import split_overrides

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        args, overrides = split_overrides(args)
        _register_commands()
        app(args=args, obj=AppState(overrides=overrides), prog_name="clausewise")
    except ClausewiseError as error:
        error_console.print(f"[bold red]error:[/bold red] {error}", soft_wrap=True)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        error_console.print("[yellow]interrupted[/yellow]: nothing was published for unfinished work")
        sys.exit(130)


if __name__ == "__main__":
    run()
