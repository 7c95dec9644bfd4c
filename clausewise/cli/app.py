"""The ``clausewise`` Typer app and what every command shares: the consoles, the root options and
the state they decide (settings layers, tenant), from which a command builds its runtime.

Command modules import this module and register themselves on :data:`app`; :mod:`.main` imports
the command modules. Nothing here imports a command, so the CLI has no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console

from clausewise.core.config import Settings, deep_merge, load_settings
from clausewise.core.logs import configure_logging
from clausewise.core.tracing import install as install_tracing

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

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

    def runtime(self, tenant: str | None = None) -> Runtime:
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
    verbose: int = typer.Option(
        0, "--verbose", "-v", count=True, help="Log what the system does (-v), in detail (-vv), to stderr."
    ),
    log_json: bool = typer.Option(False, "--log-json", help="Log records as JSON lines (for a collector)."),
) -> None:
    """Offline, cited question answering over long legal contracts.

    Any setting can be given as [bold]--section.field VALUE[/bold] (see `clausewise config show`).
    """
    configure_logging(verbose, json_lines=log_json)
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
    settings = state.settings()  # validate the configuration before any command runs
    provider = install_tracing(settings.tracing)  # spans exported while the command runs (off by default)
    if provider is not None:
        ctx.call_on_close(provider.shutdown)  # sends the spans still batched
