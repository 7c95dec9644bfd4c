"""What ``check`` and ``review`` share on the command line: the output format, the contracts of a
folder, and writing the results file."""

from __future__ import annotations

from pathlib import Path

import typer

from clausewise.cli.app import console
from clausewise.core.errors import ConfigError
from tools.result_rows import FORMATS


def output_format(fmt: str | None, out: Path | None) -> str:
    """``--format``, else the suffix of ``--out``, else JSON; refused unless json, csv or md."""
    chosen = fmt or (out.suffix.lstrip(".").lower() if out is not None else "json")
    chosen = "md" if chosen == "markdown" else chosen
    if chosen not in FORMATS:
        raise typer.BadParameter(f"use one of {', '.join(FORMATS)}", param_hint="--format")
    return chosen


def folder_files(folder: Path) -> list[Path]:
    """The contract files of a folder (recursively), refused when there are none."""
    from clausewise.cli.ingest import expand

    files = expand([folder])
    if not files:
        raise ConfigError(f"{folder}: no contract files inside", hint="pass PDF, DOCX, TXT, MD or HTML files")
    return files


def write_output(out: Path, text: str, fmt: str) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    console.print(f"Results written to [bold]{out}[/bold] ({fmt})")
