"""What the commands share on the command line: the output format, the contracts of a folder, and
writing a results file whole or not at all."""

from __future__ import annotations

import os
import uuid
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


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write a whole file or nothing: a temporary file beside it, flushed, then renamed (a
    command killed mid-write leaves the earlier file, never half of one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
    try:
        with partial.open("wb") as handle:
            handle.write(data.encode("utf-8") if isinstance(data, str) else data)
            handle.flush()
            os.fsync(handle.fileno())
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def write_output(out: Path, text: str, fmt: str) -> None:
    write_atomic(out, text)
    console.print(f"Results written to [bold]{out}[/bold] ({fmt})")
