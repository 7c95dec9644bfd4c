"""``clausewise config show``: the effective settings, with the flag and variable for each."""

from __future__ import annotations

import json
from typing import Any

import typer
from rich.table import Table

from clausewise.cli.app import console, state_of
from clausewise.cli.overrides import setting_keys
from clausewise.core.config import ENV_PREFIX, available_presets

config_app = typer.Typer(help="Inspect the configuration.", no_args_is_help=True)


def _value_at(data: dict[str, Any], key: str) -> Any:
    for part in key.split("."):
        data = data[part]
    return data


@config_app.command("show")
def show(ctx: typer.Context, as_json: bool = typer.Option(False, "--json", help="Print JSON.")) -> None:
    """Show every setting's effective value, CLI flag and environment variable."""
    settings = state_of(ctx).settings()
    values = settings.model_dump(mode="json")
    if as_json:
        console.print_json(json.dumps(values))
        return
    table = Table(
        title=f"Effective settings (preset {settings.preset}; presets: {', '.join(available_presets())})"
    )
    table.add_column("flag", style="bold cyan", no_wrap=True)
    table.add_column("value", overflow="fold")
    table.add_column("environment variable", style="dim")
    table.add_column("meaning", overflow="fold")
    for key, info in setting_keys():
        env = ENV_PREFIX + key.replace(".", "__").upper()
        table.add_row(
            "--" + key.replace("_", "-"), json.dumps(_value_at(values, key)), env, info.description or ""
        )
    console.print(table)


def register(app: typer.Typer) -> None:
    app.add_typer(config_app, name="config")
