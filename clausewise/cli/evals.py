"""``clausewise eval ...``: benchmarks that print their figures and write JSON results."""

from __future__ import annotations

import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from clausewise.cli.main import console, state_of
from clausewise.cli.progress import TerminalProgress
from clausewise.evals.data import require

eval_app = typer.Typer(help="Run benchmarks on data in the layout of ../shared/data.", no_args_is_help=True)

_DATA = typer.Option(
    None, "--data", help="Benchmark data folder (default: paths.bench_data / CLAUSEWISE_BENCH_DATA)."
)


def _environment() -> dict[str, Any]:
    return {
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def write_results(results: dict[str, Any], out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    results["environment"] = _environment()
    out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    console.print(f"Results written to [bold]{out}[/bold]")


def _mark(value: float | None, goal: float, higher_is_better: bool) -> str:
    if value is None:
        return "-"
    ok = value >= goal if higher_is_better else value <= goal
    return f"[green]{value}[/green]" if ok else f"[red]{value}[/red]"


@eval_app.command("ingest")
def eval_ingest(
    ctx: typer.Context,
    data: Path | None = _DATA,
    out: Path = typer.Option(Path("bench-results/ingest.json"), "--out", help="JSON results file."),
    limit: int | None = typer.Option(None, "--limit", help="At most this many documents per dataset."),
    ocr_pages: int = typer.Option(20, "--ocr-pages", help="Pages to OCR for the OCR figures (0 skips)."),
    embed_pages: int = typer.Option(100, "--embed-pages", help="Pages whose chunks are embedded for timing."),
) -> None:
    """Clause integrity, PDF parsing speed, OCR speed and OCR word accuracy."""
    from clausewise.evals import ingest_bench

    runtime = state_of(ctx).runtime()
    root = require(Path(data or runtime.settings.paths.bench_data))
    with TerminalProgress(console) as progress:
        progress.item("eval ingest")
        results = ingest_bench.run(
            runtime.settings,
            root,
            runtime.embedder if embed_pages else None,
            limit=limit,
            ocr_pages=ocr_pages,
            embed_pages=embed_pages,
            progress=progress,
        )
    goals = ingest_bench.GOALS
    table = Table(title="Clause integrity (smallest node containing each gold span)")
    for column in ("dataset", "documents", "spans", "non-root share", "median node/span"):
        table.add_column(column)
    for name, row in results["integrity"].items():
        table.add_row(
            name,
            str(row.get("documents", "")),
            str(row["spans"]),
            _mark(row["non_root_share"], goals["non_root_share"], True),
            _mark(row["median_node_to_span_ratio"], goals["median_node_to_span_ratio"], False),
        )
    console.print(table)
    speed = results["pdf_speed"]
    seconds = speed["parse_seconds"] + speed["structure_and_chunk_seconds"]
    console.print(
        f"Text PDFs: {speed['pages']} pages in {seconds:.1f}s "
        f"= {speed['pages_per_second']} pages/s, "
        f"{_mark(speed['seconds_per_50_pages'], goals['seconds_per_50_pages'], False)} s per 50 pages"
    )
    if "embedding" in speed:
        emb = speed["embedding"]
        console.print(
            f"Embedding ({emb['model']}): {emb['chunks_per_second']} chunks/s, "
            f"{emb['seconds_per_50_pages']} s per 50 pages"
        )
    ocr = results["ocr"]
    if "skipped" in ocr:
        console.print(f"OCR: skipped ({ocr['skipped']})")
    else:
        console.print(
            f"OCR ({ocr['pages']} pages, {ocr['dpi']} dpi, psm {ocr['psm']}): "
            f"{_mark(ocr['seconds_per_page'], goals['ocr_seconds_per_page'], False)} s/page, word accuracy "
            f"{_mark(ocr['word_accuracy'], goals['ocr_word_accuracy'], True)}"
        )
    write_results(results, out)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")
