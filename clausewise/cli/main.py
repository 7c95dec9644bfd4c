"""The ``clausewise`` command line: the entry point that registers every command and turns errors
into one line each.

Global options pick the configuration (``--preset``, ``--config``, ``--tenant``, ``--data-dir``
and any ``--section.field VALUE``); subcommands live in sibling modules. Errors the user can fix
are printed as one line and exit with the error's code; bugs keep their traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib.metadata import entry_points

import typer

from clausewise.cli.app import AppState, app, error_console
from clausewise.core.errors import ClausewiseError, ConfigError

#: The entry-point group through which other packages add commands: the lab (``lab/``) adds
#: ``eval`` (the benchmarks) and ``train`` (the training pipelines). The product imports none of
#: them; a user without the lab gets a clear error for those commands instead of "no such command".
COMMANDS_GROUP = "clausewise.commands"
LAB_COMMANDS = ("eval", "train")


def _register_commands(target: typer.Typer) -> None:
    """Register the product's commands on ``target``, then those other installed packages add,
    and a stand-in for each lab command the lab did not add. Once per process: the app is built
    once, however often :func:`run` is called (tests call it many times)."""
    if target.registered_commands:
        return
    from clausewise.cli import (
        ask_cmd,
        audit_cmd,
        check_cmd,
        compare_cmd,
        config_cmd,
        contracts,
        exemplars_cmd,
        ingest,
        models_cmd,
        playbook_cmd,
        review_cmd,
        serve_cmd,
        worker_cmd,
    )

    ingest.register(target)
    audit_cmd.register(target)
    ask_cmd.register(target)
    check_cmd.register(target)
    compare_cmd.register(target)
    review_cmd.register(target)
    playbook_cmd.register(target)
    exemplars_cmd.register(target)
    contracts.register(target)
    models_cmd.register(target)
    config_cmd.register(target)
    serve_cmd.register(target)
    worker_cmd.register(target)
    added: set[str] = set()
    for entry in entry_points(group=COMMANDS_GROUP):
        entry.load()(target)
        added.add(entry.name)
    stand_in_for_the_lab(target, added)


def _lab_stub(command: str) -> Callable[[], None]:
    """A stand-in for a lab command when the lab is not installed: it says how to install it."""

    def stub() -> None:
        raise ConfigError(
            f"`clausewise {command}` comes with the lab (the benchmarks and the training pipelines), "
            "which is not installed",
            hint="install it from a checkout of the repository: pip install -e ./lab "
            "(make setup-test does), then run the command again",
        )

    stub.__doc__ = f"Not installed: `clausewise {command}` comes with the lab (pip install -e ./lab)."
    return stub


def stand_in_for_the_lab(target: typer.Typer, added: set[str]) -> None:
    """A hidden stand-in on ``target`` for each lab command not in ``added``."""
    for command in LAB_COMMANDS:
        if command not in added:
            target.command(
                command,
                hidden=True,
                context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
            )(_lab_stub(command))


def run(argv: list[str] | None = None) -> None:
    """Entry point of the ``clausewise`` script."""
    from clausewise.cli.overrides import split_overrides

    args = list(sys.argv[1:] if argv is None else argv)
    try:
        args, overrides = split_overrides(args)
        _register_commands(app)
        app(args=args, obj=AppState(overrides=overrides), prog_name="clausewise")
    except ClausewiseError as error:
        error_console.print(f"[bold red]error:[/bold red] {error}", soft_wrap=True)
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        error_console.print("[yellow]interrupted[/yellow]: nothing was published for unfinished work")
        sys.exit(130)


if __name__ == "__main__":
    run()
