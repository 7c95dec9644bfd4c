"""The options several commands share, declared once so that each reads and says the same
everywhere (the output convention's ``--format`` and ``--out``: :mod:`clausewise.cli.results`)."""

from __future__ import annotations

import typer

#: Whose contracts a command reads (default: the configured tenant, ``paths.tenant``).
TENANT = typer.Option(None, "--tenant", help="Tenant whose contracts to use.")
#: A batch over a folder of contracts resumes from its journal unless asked to start over.
FRESH = typer.Option(False, "--fresh", help="Folder runs: ignore earlier results of this batch.")
#: Where a command's result is written, whole or not at all.
OUT = typer.Option(None, "--out", help="Write the results to this file.")


def format_option(formats: str) -> typer.models.OptionInfo:
    """``--format`` of a command whose results come in ``formats`` (e.g. "json, csv or md")."""
    return typer.Option(
        None, "--format", help=f"{formats}, printed alone on standard output (default: --out's suffix)."
    )


def playbook_option(default: str | None, use: str) -> typer.models.OptionInfo:
    """``--playbook`` of a command that holds contracts against a playbook (``use`` says what it
    does with it): a built-in playbook by name or the user's YAML file."""
    return typer.Option(
        default,
        "--playbook",
        help=f"{use}: a built-in playbook (playbook-commercial, playbook-nda) or a YAML file.",
    )
