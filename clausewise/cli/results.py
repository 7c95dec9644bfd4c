"""What the commands share on the command line: the output convention, the contracts of a folder,
and writing a results file whole or not at all.

One convention for every command that takes ``--format``:

- ``--format F``: the result, in F, on standard output and nothing else there (progress, tables
  and notes go to standard error), so it can be piped, whether or not ``--out`` is given;
- ``--out FILE``: the result written to FILE, in ``--format`` or else the file's suffix, whole or
  not at all; a binary format (xlsx) goes only to a file;
- neither: the human view (progress, tables, Markdown) on standard output.
"""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console

from clausewise.cli.app import console, error_console
from clausewise.core.errors import ConfigError
from tools.result_rows import FORMATS


@dataclass(frozen=True)
class Output:
    """Where a command's result and its human view go (see the module)."""

    fmt: str  # the chosen format
    given: bool  # --format was given: the result goes to standard output
    out: Path | None = None

    @classmethod
    def of(cls, fmt: str | None, out: Path | None, default: str, allowed: tuple[str, ...]) -> Output:
        """``--format``, else ``--out``'s suffix, else ``default``; refused unless ``allowed``."""
        chosen = (fmt or (out.suffix.lstrip(".") if out is not None and out.suffix else default)).lower()
        chosen = "md" if chosen == "markdown" else chosen
        if chosen not in allowed:
            raise typer.BadParameter(f"use one of {', '.join(allowed)}", param_hint="--format")
        return cls(chosen, fmt is not None, out)

    @property
    def view(self) -> Console:
        """Where progress, tables and notes go: standard error when the result takes stdout."""
        return error_console if self.given else console

    def result(self, data: str | bytes, what: str = "Results") -> None:
        """Write the result to ``--out`` and, with ``--format``, print it to standard output."""
        if self.out is not None:
            write_atomic(self.out, data)
            self.view.print(f"{what} written to [bold]{self.out}[/bold] ({self.fmt})")
        if self.given and isinstance(data, str):
            typer.echo(data.rstrip("\n"))


def output_format(fmt: str | None, out: Path | None) -> Output:
    """The output of a check or a review: json, csv or md (default json)."""
    return Output.of(fmt, out, "json", FORMATS)


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
