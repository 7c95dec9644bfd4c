"""``clausewise ingest PATH...``: files or folders into the tenant's indexes."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer

from clausewise.cli.app import console, error_console, state_of
from clausewise.cli.progress import TerminalProgress
from clausewise.core.config import deep_merge
from clausewise.core.errors import ClausewiseError, ConfigError


class TrackedText(StrEnum):
    """Which text of a Word file with tracked changes is the contract."""

    proposed = "proposed"
    before = "before"


SUPPORTED = {
    ".pdf",
    ".docx",
    ".txt",
    ".md",
    ".markdown",
    ".html",
    ".htm",
    ".png",
    ".jpg",
    ".jpeg",
    ".tif",
    ".tiff",
}


def expand(paths: list[Path]) -> list[Path]:
    """Files as given; folders expanded (recursively) to the supported files inside, sorted."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and p.suffix.lower() in SUPPORTED and not p.name.startswith(".")
                )
            )
        else:
            files.append(path)
    return files


def ingest(
    ctx: typer.Context,
    paths: list[Path] = typer.Argument(..., help="Contract files or folders of contracts."),
    tenant: str | None = typer.Option(None, "--tenant", help="Tenant to ingest into."),
    force: bool = typer.Option(
        False, "--force", help="Rebuild even if the content is unchanged (a new version either way)."
    ),
    new_version: bool = typer.Option(
        False,
        "--new-version",
        help="A file whose bytes differ from its contract's is that contract's next version "
        "(without it, it is refused: the old version and what cites it are kept).",
    ),
    contract_id: str | None = typer.Option(None, "--id", help="Contract id (one file only)."),
    text: TrackedText | None = typer.Option(
        None,
        "--text",
        help="For a Word file with tracked changes: read it as proposed (their insertions in, their "
        "deletions out; the default) or as before (the text they were sent). Same as "
        "--parsing.tracked-changes.",
    ),
) -> None:
    """Ingest contracts: parse, build the clause tree and write the indexes."""
    files = expand(paths)
    if not files:
        raise ConfigError(
            "no contract files found in the given paths", hint="pass PDF, DOCX, TXT, MD or HTML files"
        )
    if contract_id and len(files) > 1:
        raise ConfigError(
            "--id names one contract but several files were given", hint="ingest them one by one"
        )
    from clausewise.api import Clausewise

    state = state_of(ctx)
    if text is not None:
        state.overrides = deep_merge(state.overrides, {"parsing": {"tracked_changes": text.value}})
    runtime = state.runtime(tenant)
    archivist = runtime.archivist()
    audit = Clausewise(runtime=runtime).audit
    failures: list[ClausewiseError] = []
    with TerminalProgress(console) as progress:
        for path in files:
            progress.item(path.name)
            try:
                result = archivist.ingest(
                    path, contract_id=contract_id, force=force, progress=progress, new_version=new_version
                )
            except ClausewiseError as error:
                failures.append(error)
                error_console.print(
                    f"[red]✗[/red] {error if error.path else f'{path.name}: {error}'}", soft_wrap=True
                )
                continue
            m = result.manifest
            if result.status == "unchanged":
                console.print(
                    f"[dim]=[/dim] [bold]{m.contract_id}[/bold] unchanged (already ingested as version "
                    f"{m.version}; --force rebuilds)"
                )
                continue
            audit("new_version" if m.version > 1 else "ingest", m.contract_id, version=m.version)
            # write_seconds holds the writing of every index, the knowledge graph's included
            seconds = sum(v for k, v in m.timings.items() if k != "graph") + result.write_seconds
            ocr = f", {len(m.ocr_pages)} OCR'd" if m.ocr_pages else ""
            version = f" version {m.version}" if m.version > 1 else ""
            console.print(
                f"[green]✓[/green] [bold]{m.contract_id}[/bold]{version} ({m.file_name}): "
                f"{m.pages} page(s){ocr}, "
                f"{m.counts['nodes']} nodes, {m.counts['definitions']} definitions, "
                f"{m.counts['chunks']} chunks, {m.structure} structure, {seconds:.1f}s"
            )
            for warning in m.warnings:
                console.print(f"  [yellow]warning:[/yellow] {warning}")
    if failures:
        raise typer.Exit(code=failures[0].exit_code)


def register(app: typer.Typer) -> None:
    app.command()(ingest)
