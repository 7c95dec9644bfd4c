"""The ``clausewise`` command line: the entry point that registers every command and turns errors
into one line each.

Global options pick the configuration (``--preset``, ``--config``, ``--tenant``, ``--data-dir``
and any ``--section.field VALUE``); subcommands live in sibling modules. Errors the user can fix
are printed as one line and exit with the error's code; bugs keep their traceback.
"""

from __future__ import annotations

import sys

from clausewise.cli.app import AppState, app, error_console
from clausewise.core.errors import ClausewiseError


def _register_commands() -> None:
    from clausewise.cli import (
        ask_cmd,
        audit_cmd,
        check_cmd,
        config_cmd,
        contracts,
        evals,
        exemplars_cmd,
        ingest,
        models_cmd,
        playbook_cmd,
        review_cmd,
        serve_cmd,
        train_cmd,
        worker_cmd,
    )

    ingest.register(app)
    audit_cmd.register(app)
    ask_cmd.register(app)
    check_cmd.register(app)
    review_cmd.register(app)
    playbook_cmd.register(app)
    exemplars_cmd.register(app)
    contracts.register(app)
    models_cmd.register(app)
    config_cmd.register(app)
    evals.register(app)
    serve_cmd.register(app)
    train_cmd.register(app)
    worker_cmd.register(app)


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
