"""``clausewise eval ...``: benchmarks that print their figures and write JSON results."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from clausewise.cli.app import console, state_of
from clausewise.cli.options import playbook_option
from clausewise.cli.progress import TerminalProgress
from clausewise.core.errors import ConfigError
from clausewise_lab.evals.data import require

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

eval_app = typer.Typer(help="Run benchmarks on data in the layout of ../shared/data.", no_args_is_help=True)

_DATA = typer.Option(
    None, "--data", help="Benchmark data folder (default: paths.bench_data / CLAUSEWISE_BENCH_DATA)."
)
#: The half of a benchmark whose contracts are split by the held-out fold.
_FOLD_HALF = typer.Option(
    "tune", "--half", help="tune (outside the held-out fold) or check (the held-out fold)."
)
#: The presence head of the encoder measurements (eval encoder, eval second-opinion).
_FIT_CONTRACTS = typer.Option(
    0, "--fit-contracts", min=0, help="Fit the head on the first N training contracts only (0 = all)."
)
_VECTORS_DIR = typer.Option(
    None,
    "--work-dir",
    help="Where clause vectors are kept between runs (default: <data_dir>/train/provisions).",
)


def _benchmark(
    ctx: typer.Context, data: Path | None, overrides: dict[str, Any] | None = None
) -> tuple[Runtime, Path]:
    """The runtime a benchmark runs in (its own tenant, evaluation mode, ``overrides`` applied to
    the user's settings) and the data folder it reads, checked to exist."""
    from clausewise.core.config import with_overrides
    from clausewise.runtime import Runtime
    from clausewise_lab.evals import retrieval_bench

    user_settings = state_of(ctx).settings()
    settings = retrieval_bench.benchmark_settings(user_settings)
    if overrides:
        settings = with_overrides(settings, overrides)
    return Runtime(settings, evaluation=True), require(Path(data or user_settings.paths.bench_data))


def _git(*args: str, where: Path | None = None) -> str | None:
    """A git query about the checkout this code runs from (or ``where``); None outside a git
    checkout."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=where or Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            check=False,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def code_state(where: Path | None = None) -> dict[str, Any]:
    """The commit the code runs from and whether its code (Python, prompts, settings) differs from
    it, anywhere in the checkout: git reads pathspecs relative to its working folder (this one),
    so they are anchored at the top."""
    code = (":(top,glob)**/*.py", ":(top)prompts", ":(top,glob)**/*.toml")
    return {
        "commit": _git("rev-parse", "--short", "HEAD", where=where) or None,
        "uncommitted_changes": bool(_git("diff", "HEAD", "--stat", "--", *code, where=where)),
    }


_STARTED = "clausewise.eval.started"
#: The author of the benchmark's replies to a round (theirs are the generator's).
REPLY_AUTHOR = "Our Counsel"


@eval_app.callback()
def _started(ctx: typer.Context) -> None:
    """Note the code a benchmark measures when it starts: a run takes hours, and a commit landed
    meanwhile (modules are imported once, at the start) is not the code that produced its figures."""
    ctx.meta[_STARTED] = {**code_state(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def _environment(started: dict[str, Any]) -> dict[str, Any]:
    environment = {
        **started,
        "cpu_count": os.cpu_count(),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    at_end = code_state()
    if started and at_end != {k: started.get(k) for k in at_end}:
        environment["code_at_end"] = at_end
    return environment


def write_results(ctx: typer.Context, results: dict[str, Any], out: Path) -> None:
    """Write a benchmark's results with the environment it ran in (the commit read at the start)."""
    results["environment"] = _environment(ctx.meta.get(_STARTED) or code_state())
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.partial")
    partial.write_text(json.dumps(results, indent=2), encoding="utf-8")
    partial.replace(out)  # hours of benchmark are not lost to a half-written file
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
    graph: bool = typer.Option(
        False, "--graph", help="Also ingest the real PDFs whole and measure what the knowledge graph costs."
    ),
) -> None:
    """Clause integrity, PDF parsing speed, OCR speed and OCR word accuracy (and the graph's cost)."""
    from clausewise_lab.evals import ingest_bench

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
            graph_runtime=runtime if graph else None,
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
    table = Table(title="Section filing (gold clauses under the section number printed above them)")
    for column in (
        "set",
        "numbered",
        "gold with a number",
        "under its number",
        "in unnumbered paragraphs",
        "(all gold)",
        "(under no number)",
        "breaks / contract",
    ):
        table.add_column(column)
    for name, row in results["section_filing"].items():
        table.add_row(
            name,
            str(row["numbered_contracts"]),
            str(row["with_printed_number"]),
            _mark(row["under_printed_number_share"], goals["under_printed_number_share"], True),
            _mark(row["unnumbered_paragraph_share"], goals["unnumbered_paragraph_share"], False),
            str(row["unnumbered_paragraph_share_all"]),
            str(row["stray_paragraph_share"]),
            str(row["sequence_breaks_per_contract"]),
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
    if "knowledge_graph" in results:
        kg = results["knowledge_graph"]
        console.print(
            f"Knowledge graph ({kg['pdfs']} PDFs, {kg['pages']} pages): {kg['graph_seconds_per_contract']} s "
            f"per contract against {kg['other_ingest_seconds_per_contract']} s for the rest of the ingest "
            f"({kg['graph_share_of_ingest_seconds']:.0%}); {kg['graph_mb_per_contract']} MB of the "
            f"{kg['index_mb_per_contract']} MB index ({kg['graph_share_of_index_bytes']:.0%})"
        )
    write_results(ctx, results, out)


@eval_app.command("llm")
def eval_llm(
    ctx: typer.Context,
    data: Path | None = _DATA,
    model: list[str] = typer.Option(
        None, "--model", help="Embedded model(s) to measure (default: all installed)."
    ),
    limit: int = typer.Option(50, "--limit", help="Structured-output prompts per model."),
    threads: int = typer.Option(0, "--threads", help="CPU threads (0 = all cores)."),
    mode: str = typer.Option(
        "json_schema", "--mode", help="json_schema (constrained), json_object or prompt."
    ),
    out: Path = typer.Option(Path("bench-results/llm.json"), "--out", help="JSON results file."),
) -> None:
    """Embedded models: load time, prefill/decode tokens/s, valid JSON rate, peak memory."""
    from clausewise.core.backends.model_files import EMBEDDED_MODELS, is_installed
    from clausewise_lab.evals import llm_bench

    runtime = state_of(ctx).runtime()
    root = require(Path(data or runtime.settings.paths.bench_data))
    names = model or [m.name for m in EMBEDDED_MODELS.values() if is_installed(m)]
    with console.status(f"measuring {', '.join(names)} (one subprocess each)..."):
        results = llm_bench.run(names, root, runtime.settings.paths.data_dir, limit, threads, mode)
    table = Table(title=f"Embedded language models (structured output: {mode})")
    columns = (
        "model",
        "load s",
        "prefill tok/s",
        "decode tok/s",
        "valid JSON 1st",
        "valid JSON after repair",
        "s/prompt",
        "peak MB",
    )
    for column in columns:
        table.add_column(column)
    goal = llm_bench.GOALS["valid_json_after_repair"]
    for row in results["models"]:
        if "error" in row:
            table.add_row(row["model"], f"[red]failed: {row['error']}[/red]", *[""] * 6)
            continue
        table.add_row(
            row["model"],
            str(row["load_seconds"]),
            str(row["prefill_tokens_per_second"]),
            str(row["decode_tokens_per_second"]),
            str(row["valid_json_first_attempt"]),
            _mark(row["valid_json_after_repair"], goal, True),
            str(row["seconds_per_structured_prompt"]),
            str(row["peak_memory_mb"]),
        )
    console.print(table)
    write_results(ctx, results, out)


@eval_app.command("legalbench-rag")
def eval_legalbench_rag(
    ctx: typer.Context,
    data: Path | None = _DATA,
    limit: int = typer.Option(
        194, "--limit", help="Queries per dataset (194 = LegalBench-RAG-mini; 0 = all)."
    ),
    scope: list[str] = typer.Option(["document", "corpus"], "--scope", help="document and/or corpus."),
    configuration: list[str] = typer.Option(
        None,
        "--config",
        help="Rows to run (default all): bm25, dense, hybrid, hybrid+graph, hybrid+rerank, "
        "hybrid+graph+rerank, hybrid+lexicon, hybrid+lexicon+rerank (the product's search), "
        "hybrid+lexicon+graph+rerank.",
    ),
    dataset: list[str] = typer.Option(None, "--dataset", help="Only these datasets (ALL needs all four)."),
    fold: str = typer.Option(
        "all",
        "--fold",
        help="all, or heldout: only queries on documents the shipped reranker was not trained on.",
    ),
    queries: str = typer.Option(
        "all",
        "--queries",
        help="all, or terms: only questions that name a defined term of their document (a party, "
        '"Confidential Information"), where the knowledge graph should help.',
    ),
    out: Path = typer.Option(Path("bench-results/legalbench-rag.json"), "--out", help="JSON results file."),
) -> None:
    """Character-level precision/recall at k = 1..64 per dataset and ALL, two scopes, ablations."""
    from clausewise_lab.evals import retrieval_bench

    bench, root = _benchmark(ctx, data)
    names = tuple(configuration or [c.name for c in retrieval_bench.CONFIGURATIONS])
    unknown = set(names) - {c.name for c in retrieval_bench.CONFIGURATIONS}
    if unknown:
        raise typer.BadParameter(f"unknown --config {', '.join(sorted(unknown))}")
    if queries not in {"all", "terms"}:
        raise typer.BadParameter("use all or terms", param_hint="--queries")
    with TerminalProgress(console) as progress:
        progress.item("eval legalbench-rag")
        results = retrieval_bench.run(
            bench,
            root,
            limit=limit or None,
            scopes=tuple(scope),
            configurations=names,
            progress=progress,
            datasets=tuple(dataset or retrieval_bench.LEGALBENCH_DATASETS),
            fold=fold,
            queries_kind=queries,
        )
    _print_legalbench(results)
    write_results(ctx, results, out)


def _print_legalbench(results: dict) -> None:
    """One precision and one recall table per scope; ALL rows when all four datasets ran."""
    ks = results["ks"]
    for scope_name, rows in results["scopes"].items():
        for metric in ("precision", "recall"):
            letter = metric[0].upper()
            table = Table(title=f"LegalBench-RAG, {scope_name} scope, {metric} @k (%)")
            table.add_column("retriever")
            table.add_column("dataset")
            for k in ks:
                table.add_column(f"{letter}@{k}", justify="right")
            for name, per_dataset in rows.items():
                for label, values in per_dataset.items():
                    table.add_row(name, label, *(f"{v:.1f}" for v in values[metric]))
            console.print(table)
    latency = results["latency"]
    for name, figures in latency["per_query_ms"].items():
        console.print(f"Retrieval latency, {name}: p50 {figures['p50']} ms, p95 {figures['p95']} ms")
    rerank = latency["rerank_50_seconds"]
    console.print(f"Reranking 50 candidates: p50 {rerank['p50']} s, p95 {rerank['p95']} s")


@eval_app.command("serve")
def eval_serve(
    ctx: typer.Context,
    requests: int = typer.Option(200, "--requests", min=1, max=2000, help="Retrieval requests."),
    concurrency: int = typer.Option(20, "--concurrency", min=1, max=64, help="Retrieval requests at once."),
    asks: int = typer.Option(5, "--asks", min=0, max=20, help="Streamed asks at once, scripted replies."),
    real_asks: int = typer.Option(
        2, "--real-asks", min=0, max=5, help="Streamed asks with the embedded model."
    ),
    turns: int = typer.Option(1, "--turns", min=1, max=3, help="Research turns per ask."),
    fault_probes: int = typer.Option(
        200, "--fault-probes", min=0, max=5000, help="Hostile-client probes of the fault run (0 skips it)."
    ),
    fault_concurrency: int = typer.Option(
        10, "--fault-concurrency", min=1, max=64, help="Fault probes at once."
    ),
    abuse_rounds: int = typer.Option(
        20, "--abuse-rounds", min=0, max=500, help="Requests per abuse family (0 skips them)."
    ),
    out: Path = typer.Option(Path("bench-results/serve.json"), "--out", help="JSON results file."),
) -> None:
    """The service under load on loopback: errors, latency, first streamed event, time to the
    answer, overhead, memory; and a fault run: hostile probes while asks run."""
    from clausewise_lab.evals import serve_bench

    settings = state_of(ctx).settings()
    with TerminalProgress(console) as progress:
        progress.item("eval serve")
        results = serve_bench.run(
            settings,
            requests=requests,
            concurrency=concurrency,
            asks=asks,
            real_asks=real_asks,
            turns=turns,
            fault_probes=fault_probes,
            fault_concurrency=fault_concurrency,
            abuse_rounds=abuse_rounds,
            progress=progress,
        )
    goals = serve_bench.GOALS
    for name, row in results["retrieval"].items():
        http, api = row["http_latency"], row["python_api_latency"]
        overhead = _mark(row["overhead"], goals["retrieval_overhead"], False)
        console.print(
            f"Retrieval, {name} ({row['requests']} at {row['concurrency']}): errors {row['errors']}; "
            f"HTTP p50 {http['p50']} s, p95 {http['p95']} s; Python API p50 {api['p50']} s; "
            f"overhead {overhead}"
        )
    for key in ("scripted_asks", "real_asks"):
        if key in results:
            row = results[key]
            first = _mark(row["first_event_seconds"]["p95"], goals["first_event_seconds"], False)
            report, answer = row["report_seconds"], row["answer_seconds"]
            console.print(
                f"{key.replace('_', ' ').capitalize()} ({row['asks']} at once): errors {row['errors']}; "
                f"first event p95 {first} s; answer event p50 {answer['p50']} s, p95 {answer['p95']} s "
                f"({answer['n']} of {row['asks']}); report p50 {report['p50']} s, p95 {report['p95']} s"
            )
    if "memory_ratio" in results:
        ratio = _mark(results["memory_ratio"], goals["memory_ratio"], False)
        console.print(
            f"Peak memory: server {results['server_peak_mb']} MB, one process "
            f"{results['one_process_peak_mb']} MB (ratio {ratio})"
        )
    if "faults" in results:
        faults = results["faults"]
        marks = {k: _mark(faults[k], goals[k], False) for k in ("unexpected_statuses", "leaks", "lost")}
        console.print(
            f"Faults ({faults['tried']} of {faults['probes']} probes tried, {faults['kinds']} kinds, "
            f"at {faults['concurrency']}; {faults['asks']['asks']} asks meanwhile, errors "
            f"{faults['asks']['errors']}): unexpected statuses {marks['unexpected_statuses']}; leaks "
            f"{marks['leaks']}; lost {marks['lost']} (of {faults['citations_checked']} citations); "
            f"uploads left {faults['uploads_left']}"
        )
        for finding in faults["findings"][:10]:
            console.print(
                f"  {finding['kind']}: {finding['probe']}: {finding['request']} -> {finding['status']}: "
                f"{finding['problem']}"
            )
    if "abuse" in results:
        abuse = results["abuse"]
        console.print(
            f"Abuse families ({abuse['rounds']} each at {abuse['concurrency']}): unexpected statuses "
            f"{abuse['unexpected_statuses']}; leaks {abuse['leaks']}; lost {abuse['lost']}; the other "
            f"tenant's p95 at most {abuse['other_tenant_p95_max']} s; server peak over idle at most "
            f"{abuse['peak_over_idle_max_mb']} MB; largest response "
            f"{abuse['largest_response_bytes']:,} bytes, largest job row "
            f"{abuse['largest_job_row_bytes']:,} bytes"
        )
        for row in abuse["families"]:
            console.print(
                f"  {row['family']}: {row['statuses']} ({row['unexpected']} unexpected, "
                f"{row['leaks']} leaks); other tenant p95 {row['other_p95_s']} s; "
                f"+{row['peak_over_idle_mb']} MB; largest response {row['largest_response_bytes']:,} bytes"
            )
    write_results(ctx, results, out)


@eval_app.command("highlight")
def eval_highlight(
    ctx: typer.Context,
    data: Path | None = _DATA,
    qa: Path | None = typer.Option(
        None, "--qa", help="An eval qa results file whose sources to measure too."
    ),
    limit: int | None = typer.Option(None, "--limit", help="At most this many CUAD PDFs."),
    repeats: int = typer.Option(10, "--repeats", min=0, max=50, help="Clicks on Ask timed in the browser."),
    out: Path = typer.Option(Path("bench-results/highlight.json"), "--out", help="JSON results file."),
) -> None:
    """Highlights: words covered, area outside the words, page render time, first step on screen."""
    from clausewise_lab.evals import highlight_bench

    settings = state_of(ctx).settings()
    root = require(Path(data or settings.paths.bench_data))
    with TerminalProgress(console) as progress:
        progress.item("eval highlight")
        results = highlight_bench.run(
            settings, root, qa_results=qa, limit=limit, repeats=repeats, progress=progress
        )
    goals = highlight_bench.GOALS
    for key in ("cuad_pdf_gold_spans", "qa_sources"):
        if key in results:
            row = results[key]
            console.print(
                f"{key.replace('_', ' ')}: {row['spans']} spans; characters covered "
                f"{_mark(row['coverage'], goals['coverage'], True)}; area outside the words "
                f"{_mark(row['outside'], goals['outside'], False)}"
            )
    render = results["page_render_ms"]
    console.print(
        f"Page images ({render['pages']} pages, scale {render['scale']}): p50 {render['p50']} ms, p95 "
        f"{_mark(render['p95'], goals['page_render_p95_ms'], False)} ms"
    )
    first = results["first_step_seconds"]
    if "skipped" in first:
        console.print(f"First step on screen: skipped ({first['skipped']})")
    else:
        console.print(
            f"First step on screen after clicking Ask ({first['repeats']} clicks): p50 {first['p50']} s, "
            f"p95 {_mark(first['p95'], goals['first_step_p95_seconds'], False)} s"
        )
    write_results(ctx, results, out)


@eval_app.command("scale")
def eval_scale(
    ctx: typer.Context,
    data: Path | None = _DATA,
    check_contracts: int = typer.Option(12, "--check-contracts", min=1, max=200, help="Contracts checked."),
    review_contracts: int = typer.Option(
        4, "--review-contracts", min=0, max=50, help="Contracts reviewed (0: checks only)."
    ),
    threads: int = typer.Option(
        0,
        "--threads",
        min=0,
        max=64,
        help="Cores of each model process, local server and every worker (0: one worker takes all).",
    ),
    out: Path = typer.Option(Path("bench-results/scale.json"), "--out", help="JSON results file."),
) -> None:
    """Data-room throughput: local backend, Celery with 1 and 2 workers (real redis-server, loopback)."""
    from clausewise_lab.evals import scale_bench

    settings = state_of(ctx).settings()
    root = require(Path(data or settings.paths.bench_data))
    with TerminalProgress(console) as progress:
        progress.item("eval scale")
        results = scale_bench.run(
            settings,
            root,
            check_contracts=check_contracts,
            review_contracts=review_contracts,
            threads=threads,
            progress=progress,
        )
    goals = scale_bench.GOALS
    for name, backend in results["backends"].items():
        for kind in ("check", "review"):
            if kind in backend:
                row = backend[kind]
                console.print(
                    f"{name:9} {kind:6} {row['contracts']} contracts in {row['seconds']} s: "
                    f"{row['contracts_per_minute']} contracts/min "
                    f"({row['rows']} rows, {row['row_errors']} errors)"
                )
    for kind in ("check", "review"):
        if f"{kind}_speedup_2_workers" in results:
            speedup = _mark(results[f"{kind}_speedup_2_workers"], goals["speedup_2_workers"], True)
            overhead = results[f"{kind}_queue_overhead"]
            marked = _mark(overhead, goals["queue_overhead"], False) if kind == "check" else overhead
            console.print(f"{kind}: 2 workers over 1 {speedup}x; queue overhead per unit {marked}")
    for row in results["projection"]["check"]:
        console.print(
            f"check on {row['machines']:2} machine(s): {row['contracts_per_hour']} contracts/h; "
            f"1,000 in {row['hours_for_1000']} h, 10,000 in {row['hours_for_10000']} h"
        )
    write_results(ctx, results, out)


@eval_app.command("room")
def eval_room(
    ctx: typer.Context,
    data: Path | None = _DATA,
    contracts: int = typer.Option(50, "--contracts", min=1, max=51, help="Check-half CUAD contracts asked."),
    questions: int = typer.Option(
        0, "--questions", min=0, max=200, help="Question wordings (0: every one the bank asks of them)."
    ),
    wide: int = typer.Option(
        100, "--wide", min=0, max=257, help="Contracts x 1 question on 2 workers (0: skip)."
    ),
    threads: int = typer.Option(1, "--threads", min=0, max=64, help="Cores of each model process."),
    minutes: float = typer.Option(
        60.0, "--minutes", min=0.5, help="Time limit of each run (then cancelled)."
    ),
    out: Path = typer.Option(Path("bench-results/room.json"), "--out", help="JSON results file."),
) -> None:
    """A data room through the service: cell accuracy (the bank's grader), abstentions,
    unsupported cells shown; cells per minute locally and on 1 and 2 Celery workers; time to the
    first row over HTTP; peak memory per worker (real redis-server, loopback)."""
    from clausewise_lab.evals import room_bench

    settings = state_of(ctx).settings()
    root = require(Path(data or settings.paths.bench_data))
    with TerminalProgress(console) as progress:
        progress.item("eval room")
        results = room_bench.run(
            settings,
            root,
            contracts=contracts,
            questions=questions,
            wide=wide,
            threads=threads,
            minutes=minutes,
            progress=progress,
        )
    cells, goals = results["cells"], room_bench.GOALS
    every, yes_no, value = cells["all"], cells["yes_no"], cells["value"]
    console.print(
        f"{results['contracts']} contracts x {len(results['questions'])} questions "
        f"{results['question_kinds']}: {every['cells']} cells, accuracy {every['accuracy']} "
        f"(committed {every['committed_accuracy']}), abstained {every['abstention_rate']}; "
        f"yes/no {yes_no['accuracy']} ({yes_no['right']}/{yes_no['cells']}), "
        f"values {value['accuracy']} ({value['right']}/{value['cells']}); unsupported cells shown "
        f"{_mark(cells['unsupported_cells_shown'], goals['unsupported_cells_shown'], False)}; "
        f"decided by {cells['decided_by']}"
    )
    for name, run in results["throughput"].items():
        peaks = f", worker peak RSS {run['worker_peak_rss_mb']} MB" if "worker_peak_rss_mb" in run else ""
        differing = (
            f", {run['cells_differing_from_local']} cells differ from local"
            if "cells_differing_from_local" in run
            else ""
        )
        console.print(
            f"{name:9} {run['status']}: {run['cells']} cells in {run['seconds']} s = "
            f"{run['cells_per_minute']} cells/min; first row after {run['first_row_seconds']} s"
            f"{peaks}{differing}"
        )
    if "speedup_2_workers" in results:
        speedup = _mark(results["speedup_2_workers"], goals["speedup_2_workers"], True)
        console.print(f"2 workers over 1: {speedup}x")
    if "wide" in results:
        wide_run = results["wide"]
        console.print(
            f"{wide_run['contracts']} contracts x 1 question on 2 workers: {wide_run['status']} in "
            f"{_mark(wide_run['seconds'], goals['wide_seconds'], False)} s "
            f"(first row {wide_run['first_row_seconds']} s)"
        )
    write_results(ctx, results, out)


@eval_app.command("acord")
def eval_acord(
    ctx: typer.Context,
    data: Path | None = _DATA,
    qrels: str = typer.Option("valid.tsv", "--qrels", help="Qrels file in acord/qrels/."),
    pool: str = typer.Option(
        "judged",
        "--pool",
        help="judged: each query ranks its judged clauses (as the ACORD paper); corpus: all clauses.",
    ),
    out: Path = typer.Option(Path("bench-results/acord.json"), "--out", help="JSON results file."),
) -> None:
    """NDCG@5, NDCG@10 and 3/4/5-star precision@5 on ACORD."""
    from clausewise_lab.evals import acord_bench

    runtime = state_of(ctx).runtime()
    root = require(Path(data or runtime.settings.paths.bench_data))
    with TerminalProgress(console) as progress:
        progress.item("eval acord")
        results = acord_bench.run(runtime, root, qrels, pool=pool, progress=progress)
    table = Table(
        title=f"ACORD ({qrels}, {results['queries']} queries, {pool} pool of {results['corpus']} clauses)"
    )
    for column in ("retriever", "NDCG@5", "NDCG@10", "P@5 3-star", "P@5 4-star", "P@5 5-star"):
        table.add_column(column)
    for row, metrics in results["rows"].items():
        table.add_row(
            row,
            _mark(metrics["ndcg@5"], acord_bench.GOALS["ndcg@5"], True),
            str(metrics["ndcg@10"]),
            str(metrics["p@5_3star"]),
            str(metrics["p@5_4star"]),
            str(metrics["p@5_5star"]),
        )
    console.print(table)
    if results["reranker_by_grade"]:
        by_grade = ", ".join(
            f"{grade}: {row['mean_probability']} ({row['candidates']})"
            for grade, row in results["reranker_by_grade"].items()
        )
        console.print(f"Reranker mean probability by grade (candidates): {by_grade}")
    write_results(ctx, results, out)


@eval_app.command("encoder")
def eval_encoder(
    ctx: typer.Context,
    data: Path | None = _DATA,
    fit_contracts: int = _FIT_CONTRACTS,
    work_dir: Path | None = _VECTORS_DIR,
    ngram_weight: float = typer.Option(
        3.0, "--ngram-weight", help="Length of the head's word features beside the vector (0: vectors only)."
    ),
    out: Path = typer.Option(Path("bench-results/encoder.json"), "--out", help="JSON results file."),
) -> None:
    """The presence decider on the embedder's vectors (select one with --models.embedding.*), scored
    on the calibration quarter of the tune half: macro F1, bands at 5%, calibrated answers at 0.9."""
    from clausewise_lab.train.encoder_eval import fit_on_calibration, presence_on_calibration

    runtime = state_of(ctx).runtime()
    root = require(Path(data or runtime.settings.paths.bench_data))
    quarter = fit_on_calibration(
        root,
        runtime.embedder,
        work_dir or runtime.settings.paths.data_dir / "train" / "provisions",
        log=lambda message: console.print(message, markup=False, highlight=False),
        fit_contracts=fit_contracts or None,
        ngram_weight=ngram_weight,
    )
    results = presence_on_calibration(quarter, runtime.embedder.model_id, ngram_weight)
    bands, level = results["bands_5pct"], results["calibrated_0.9"]
    console.print(
        f"{results['embedder']}: macro F1 {results['macro_f1']} (at 0.5: {results['macro_f1_at_0.5']}), "
        f"clause AUC {results['clause_auc_macro']}; bands 5%: right of committed "
        f"{bands['right_of_committed']}, unclear {bands['unclear']}; calibrated 0.9: "
        f"{level['right_of_committed']}, unclear {level['unclear']} "
        f"({results['scored_contracts']} calibration contracts, head fitted on {results['fitted_contracts']})"
    )
    write_results(ctx, results, out)


@eval_app.command("changes")
def eval_changes(
    ctx: typer.Context,
    data: Path | None = _DATA,
    half: str = _FOLD_HALF,
    contracts: int = typer.Option(30, "--contracts", min=1, help="How many contracts to edit and read."),
    seed: int = typer.Option(7, "--seed", help="Seed of the edits."),
    min_similarity: float | None = typer.Option(
        None, "--min-similarity", help="Compare with this similarity rule instead of the product's."
    ),
    playbook: str | None = playbook_option(
        None,
        "Also hold each round against a playbook, timed (the text not read ingested, every position decided)",
    ),
    verdicts: bool = typer.Option(
        False,
        "--verdicts",
        help="Aim the edits at the CUAD benchmark playbook's clauses, hold each round against it and score "
        "each position's verdict before and as proposed against CUAD's annotations carried through the edits",
    ),
    reply: bool = typer.Option(
        False,
        "--reply",
        help="Also answer each round held against a playbook (--playbook or --verdicts) and read the "
        "reply back with the benchmark's own readers and LibreOffice",
    ),
    out: Path | None = typer.Option(
        None, "--out", help="JSON results file (default: bench-results/changes-HALF.json)."
    ),
) -> None:
    """Tracked changes read and compared: Word files built from CUAD contracts by a negotiation
    round's edits (a value, a struck, an inserted and a moved clause, words in and out, a format
    change and a comment), scored against the edits: both texts exact, change precision and recall,
    change type; with --verdicts, the positions' verdicts after the change."""
    import tempfile

    from clausewise_lab.evals import changes_bench
    from clausewise_lab.evals.office import office_program
    from clausewise_lab.evals.playbook_bench import bench_playbook
    from tools.clause_compare import MIN_SIMILARITY, compare_texts
    from tools.parsing.word_file import parse_docx_file
    from tools.playbook.positions import load_positions
    from tools.structure.tree_builder import build_tree

    if half not in ("tune", "check"):
        raise typer.BadParameter("tune or check", param_hint="--half")
    settings = state_of(ctx).settings()
    root = require(Path(data or settings.paths.bench_data))
    similarity = MIN_SIMILARITY if min_similarity is None else min_similarity
    if verdicts and playbook:
        raise typer.BadParameter(
            "--verdicts holds the rounds against the benchmark's own playbook", param_hint="--playbook"
        )
    held = bench_playbook() if verdicts else load_positions(playbook) if playbook else None
    if reply and held is None:
        raise typer.BadParameter("a reply answers a round held against a playbook", param_hint="--reply")

    def compare(document: Any) -> Any:
        before = document.as_version("before")
        proposed = document.as_version("proposed")
        return compare_texts(
            (before.text, build_tree(before, settings.structure)),
            (proposed.text, build_tree(proposed, settings.structure)),
            min_similarity=similarity,
        )

    with tempfile.TemporaryDirectory() as folder:
        results = changes_bench.run(
            root,
            half,
            contracts,
            seed,
            read=parse_docx_file,
            compare=compare,
            folder=Path(folder),
            log=lambda message: console.print(message, markup=False, highlight=False),
            assess=_round_assessor(state_of(ctx).runtime(), held, Path(folder), reply) if held else None,
            verdicts=held if verdicts else None,
            office=office_program() if reply else None,
        )
    results["min_similarity"] = similarity
    results["playbook"] = held.name if held else None
    if results["verdicts"]:
        after, moved = results["verdicts"]["after"], results["verdicts"]["after_moved"]
        console.print(
            f"verdicts as proposed: right of committed {after['accuracy']}, refused {after['refused_share']} "
            f"({after['scored']} scored); of the {moved['scored']} the round moved: {moved['accuracy']}, "
            f"refused {moved['refused_share']}; before: {results['verdicts']['before']['accuracy']}, refused "
            f"{results['verdicts']['before']['refused_share']}"
        )
    if results["replies"]:
        replies = results["replies"]
        console.print(
            f"replies: {replies['replies']}, answered {replies['answered']}; opened by python-docx "
            f"{replies['opened_python_docx']}, LibreOffice {replies['opened_libreoffice']}; every change "
            f"accepted as intended {replies['accept_all_intended']} (LibreOffice "
            f"{replies['libreoffice_intended']}); ours rejected as theirs {replies['reject_ours_theirs']}; "
            f"all rejected as before {replies['reject_all_before']}; edits rejected "
            f"{replies['rejected_edits']}, offered {replies['offered_edits']}"
        )
    if results["assessment"]:
        slowest = results["assessment"]["slowest_up_to_50_pages"] or {}
        console.print(
            f"held against {results['playbook']}: median {results['assessment']['seconds_median']} s; "
            f"slowest up to 50 pages {slowest.get('seconds')} s ({slowest.get('pages')} pages)"
        )
    console.print(
        f"{results['contracts']} contracts ({half}): texts exact {results['texts_exact']}, precision "
        f"{results['precision']}, recall {results['recall']}, type right {results['type_right']}; "
        f"missed {results['missed_by_kind']}, false {results['false_by_kind']}, "
        f"wrong type {results['wrong_type']}"
    )
    write_results(ctx, results, out or Path(f"bench-results/changes-{half}.json"))


def _round_assessor(runtime: Any, positions: Any, folder: Path, reply: bool = False) -> Any:
    """Each round's Word file ingested into a data folder of the benchmark's own (the models of
    ``runtime`` shared), then held against the playbook ``positions`` by the API, timed; with
    ``reply``, also answered by the API (the reply's bytes and the spans of the changes it rejected
    and offered for, or the error that stopped it)."""
    from clausewise.api import Clausewise
    from clausewise.core.config import with_overrides
    from clausewise.runtime import Runtime
    from tools.round_reply import NotAnswerable

    def answered(assessed: Any) -> dict[str, Any]:
        try:
            done = api.answer_round(assessed, author=REPLY_AUTHOR)
        except NotAnswerable as error:
            return {"error": str(error)}
        changes = {change.id: (change.before, change.proposed) for change in assessed.round.revisions}
        return {
            "data": done.data,
            "author": REPLY_AUTHOR,
            "rejected": [changes[number] for number in done.rejected if number in changes],
            "offered": [changes[number] for number in done.offered if number in changes],
        }

    settings = with_overrides(runtime.settings, {"paths": {"data_dir": str(folder / "data")}})
    api = Clausewise(runtime=Runtime(settings, hub=runtime.hub), audit=False)

    def assess(path: Path) -> dict[str, Any]:
        contract = api.ingest(path).contract_id
        started = time.perf_counter()
        assessed = api.assess_round(contract, positions)
        return {
            "seconds": round(time.perf_counter() - started, 2),
            "positions": len(assessed.positions),
            "worse": sum(p.movement == "worse" for p in assessed.positions),
            "offers": sum(p.offer is not None for p in assessed.positions),
            "verdicts": {
                p.position_id: [[p.before.verdict, p.before.fallback], [p.after.verdict, p.after.fallback]]
                for p in assessed.positions
            },
            **({"reply": answered(assessed)} if reply else {}),
        }

    return assess


@eval_app.command("parties")
def eval_parties(
    ctx: typer.Context,
    data: Path | None = _DATA,
    half: str = _FOLD_HALF,
    out: Path | None = typer.Option(
        None, "--out", help="JSON results file (default: bench-results/parties-HALF.json)."
    ),
) -> None:
    """Whose side a clause is on: which party each hand-labelled CUAD clause of the commercial
    playbook's categories binds and benefits, and which party is the customer, as the product
    reads them."""
    from clausewise_lab.evals import parties_bench
    from tools.party_roles import clause_roles, contract_parties

    if half not in ("tune", "check"):
        raise typer.BadParameter("tune or check", param_hint="--half")
    root = require(Path(data or state_of(ctx).settings().paths.bench_data))
    results = parties_bench.run(
        root,
        half,
        parties_of=contract_parties,
        roles_of=clause_roles,
        side_of=lambda party: party.side,
        label_of=lambda party: party.label,
    )
    console.print(
        f"{results['clauses']} clauses of {results['contracts']} contracts ({half}): binds right "
        f"{results['binds_right']}, benefits right {results['benefits_right']}, both right "
        f"{results['both_right']}; read as binding one party alone {results['binds_one_read']}, right "
        f"{results['binds_one_precision']}; parties found {results['parties_found']}, sides right of those "
        f"found {results['sides_right_of_found']} (of those given a side {results['sides_told_right']})"
    )
    write_results(ctx, results, out or Path(f"bench-results/parties-{half}.json"))


@eval_app.command("qa")
def eval_qa(
    ctx: typer.Context,
    data: Path | None = _DATA,
    limit: int = typer.Option(10, "--limit", help="Questions (40 for a headline figure)."),
    questions: str = typer.Option(
        "mixed",
        "--questions",
        help="bank: the question bank (yes/no questions on CUAD's 41 provisions, values, ContractNLI "
        "verdicts, LegalBench-RAG) beside a one-call RAG baseline, graded right or wrong; open-bank: "
        "a lawyer's everyday open questions (payment, obligations, termination, ...) with hand-checked "
        "gold clauses (answer present, gold-clause recall per kind); mixed: half LegalBench-RAG "
        "queries, half ContractNLI (evidence recall, citations, contradicted claims).",
    ),
    half: str = typer.Option(
        "check", "--half", help="bank: the check half (contracts no shipped model was trained on) or tune."
    ),
    quick: bool = typer.Option(False, "--quick", help="bank: the decider's short answers only, no report."),
    kinds: str = typer.Option(
        "",
        "--kinds",
        help="bank: only these kinds of question, comma-separated (yes/no,value,verdict,open); open-bank: "
        "also its topics (payment,obligations,termination,...).",
    ),
    contracts: int = typer.Option(
        0,
        "--contracts",
        min=0,
        help="bank: only the questions on the first N contracts of the half, in the bank's order "
        "(bounds the ingestion; 0 = all).",
    ),
    baseline: bool = typer.Option(
        True, "--baseline/--no-baseline", help="bank: also answer with the one-call RAG baseline."
    ),
    turns: int | None = typer.Option(
        None, "--turns", help="Research turns (default interrogation.max_turns)."
    ),
    seed: int = typer.Option(7, "--seed", help="Which questions."),
    minutes: float = typer.Option(
        0.0,
        "--minutes",
        min=0.0,
        help="bank: stop asking after this many minutes and report the questions answered so far "
        "(0 = no bound).",
    ),
    out: Path = typer.Option(Path("bench-results/qa.json"), "--out", help="JSON results file."),
) -> None:
    """The whole Q&A graph: right answers (the bank, beside a baseline), contradicted and
    unsupported claims, citation validity, evidence recall, turns, calls, tokens, seconds; every
    answer in the JSON."""
    from clausewise_lab.evals import qa_bench

    if questions in ("bank", "open-bank"):
        _eval_bank(
            ctx,
            data,
            questions=questions,
            limit=limit,
            half=half,
            quick=quick,
            kinds=[k.strip() for k in kinds.split(",") if k.strip()],
            contracts=contracts,
            baseline=baseline,
            turns=turns,
            seed=seed,
            minutes=minutes,
            out=out,
        )
        return
    if questions not in qa_bench.QUESTION_SETS:
        raise ConfigError(
            f"unknown question set {questions!r}", hint=f"use one of {', '.join(qa_bench.QUESTION_SETS)}"
        )
    bench, root = _benchmark(ctx, data)
    with TerminalProgress(console) as progress:
        progress.item("eval qa")
        results = qa_bench.run(
            bench,
            root,
            limit=limit,
            turns=turns,
            seed=seed,
            progress=progress,
        )
    goals = qa_bench.GOALS
    console.print(
        f"Contradicted claims shown "
        f"{_mark(results['contradicted_claims_shown'], goals['contradicted_claims_shown'], False)} "
        f"(repaired {results['repaired_claims']}, removed {results['removed_claims']})"
    )
    console.print(
        f"{results['questions']} questions with {', '.join(results['models'])}: citation validity "
        f"{_mark(results['citation_validity'], goals['citation_validity'], True)}, evidence recall "
        f"{_mark(results['evidence_recall'], goals['evidence_recall'], True)} "
        f"(gold spans shown to the answerer {results['evidence_shown']}, cited when shown "
        f"{results['cited_when_shown']}), {results['mean_turns']} turns, "
        f"{results['mean_llm_calls']} model calls, {results['mean_tokens']} tokens, "
        f"{_mark(results['seconds_per_question_mean'], goals['seconds_per_question'], False)} s per question "
        f"(max {results['seconds_per_question_max']})"
    )
    write_results(ctx, results, out)


def _accuracy_cells(figures: dict[str, Any]) -> list[str]:
    yes_no, value, verdict = figures["yes_no"], figures["value"], figures.get("verdict") or {}
    return [
        f"{yes_no['accuracy']} ({yes_no['right']}/{yes_no['n']})",
        str(yes_no["committed_accuracy"]),
        str(yes_no["abstention_rate"]),
        f"{value['accuracy']} ({value['right']}/{value['n']})",
        f"{verdict.get('accuracy')} / {verdict.get('contradiction_f1')}",
        str(figures["open_evidence_recall"]),
        str(figures["seconds_per_question"].get("p50")),
        str(figures["seconds_per_question"].get("mean")),
    ]


def _eval_bank(
    ctx: typer.Context,
    data: Path | None,
    *,
    questions: str = "bank",
    limit: int,
    half: str,
    quick: bool,
    kinds: list[str],
    contracts: int,
    baseline: bool,
    turns: int | None,
    seed: int,
    minutes: float,
    out: Path,
) -> None:
    from clausewise_lab.evals import bank_bench
    from clausewise_lab.evals.bank import KINDS

    if half not in ("check", "tune"):
        raise ConfigError(f"unknown half {half!r}", hint="use check or tune")
    known = list(KINDS)
    if questions == "open-bank":  # the open-question bank's topics (payment, obligations, ...) too
        from clausewise_lab.evals.open_bank import open_kinds

        known += [kind.name for kind in open_kinds()]
    unknown = sorted(set(kinds) - set(known))
    if unknown:
        raise ConfigError(f"unknown kind of question {', '.join(unknown)}", hint=f"use {', '.join(known)}")
    # its own tenant, ingesting as the user's settings do (no knowledge graph unless retrieval uses it)
    bench, root = _benchmark(
        ctx, data, {"paths": {"tenant": "qa-bank"}, "structure": {"knowledge_graph": None}}
    )
    with TerminalProgress(console) as progress:
        progress.item(f"eval qa --questions {questions}")
        results = bank_bench.run(
            bench,
            root,
            half=half,
            limit=limit or None,
            seed=seed,
            quick=quick,
            kinds=kinds or None,
            contracts=contracts or None,
            baseline=baseline,
            turns=turns,
            minutes=minutes or None,
            progress=progress,
            questions=questions,
        )
    if results.get("unasked"):
        console.print(
            f"Stopped after {minutes:g} minutes: {results['questions']} questions answered, "
            f"{results['unasked']} not asked"
        )
    table = Table(
        "answers",
        "yes/no accuracy",
        "yes/no committed",
        "yes/no abstained",
        "value accuracy",
        "verdict accuracy / contradiction F1",
        "open: evidence recall",
        "s p50",
        "s mean",
    )
    table.add_row("Clausewise" + (" (decider only)" if quick else ""), *_accuracy_cells(results["product"]))
    if "baseline" in results:
        table.add_row("one-call RAG baseline", *_accuracy_cells(results["baseline"]))
    console.print(table)
    if questions == "open-bank":
        _print_open_by_kind(results)
    product, goals = results["product"], bank_bench.GOALS
    yes_no = product["yes_no"]
    committed = _mark(yes_no["committed_accuracy"], goals["yes_no_committed_accuracy"], True)
    abstained = _mark(yes_no["abstention_rate"], goals["yes_no_abstention_rate"], False)
    overall = _mark(yes_no["accuracy"], goals["yes_no_accuracy"], True)
    values = _mark(product["value"]["accuracy"], goals["value_accuracy"], True)
    console.print(
        f"{results['questions']} questions on the {half} half {results['by_kind']}; yes/no: committed "
        f"{committed}, abstained {abstained}, overall {overall}; values {values}; decided by "
        f"{product['decided_by']}"
    )
    both = product["verdict_value"]
    if both["n"]:
        console.print(
            f"Verdict and value asked together: {both['n']} questions, right {both['accuracy']} (committed "
            f"{both['committed_accuracy']}, abstained {both['abstention_rate']}); gold-yes answered yes with "
            f"a value {both['yes_with_a_value']}"
        )
    missed = product.get("gold_yes_not_yes_gold_in_first_three") or {}
    if missed.get("n"):
        console.print(
            f"Gold-yes questions not answered yes: {missed['n']}, the gold clause among the first three "
            f"sources {missed['share']}"
        )
    _print_by_category(product)
    if "claims_shown" in product:
        unsupported = _mark(
            product["unsupported_claims_shown_rate"], goals["unsupported_claims_shown_rate"], False
        )
        contradicted = _mark(product["contradicted_claims_shown"], goals["contradicted_claims_shown"], False)
        validity = _mark(product["citation_validity"], goals["citation_validity"], True)
        console.print(
            f"Report: {product['claims_shown']} claims shown, unsupported {unsupported}, contradicted "
            f"{contradicted}, removed {product['claims_removed']}; citation validity {validity}; "
            f"{product['mean_turns']} turns, {product['mean_llm_calls']} calls, "
            f"{product['mean_tokens']} tokens; quick answer = final short answer "
            f"{product['quick_equals_final']}"
        )
    to_answer = product.get("seconds_to_answer") or {}
    console.print(
        f"Time to the short answer: p50 {to_answer.get('p50')} s, p95 {to_answer.get('p95')} s; "
        f"whole question p50 {product['seconds_per_question'].get('p50')} s"
    )
    write_results(ctx, results, out)


def _print_open_by_kind(results: dict) -> None:
    """Open questions per kind: how many, the share answered, gold-clause recall (and the
    baseline's)."""
    product, baseline = results["product"], results.get("baseline") or {}
    columns = ["kind", "n", "answered", "gold-clause recall"]
    if baseline:
        columns += ["baseline answered", "baseline recall"]
    table = Table(*columns, title="Open questions by kind")
    kinds = product.get("open_by_category", {})
    for kind, mine in kinds.items():
        cells = [kind, str(mine["n"]), str(mine["answered"]), str(mine["evidence_recall"])]
        if baseline:
            theirs = baseline.get("open_by_category", {}).get(kind, {})
            cells += [str(theirs.get("answered")), str(theirs.get("evidence_recall"))]
        table.add_row(*cells)
    if kinds:
        console.print(table)
    console.print(
        f"Open questions: answered {product['open_answered']}, gold-clause recall "
        f"{product['open_evidence_recall']}"
    )


def _print_by_category(product: dict) -> None:
    """Yes/no and value figures per CUAD category (the bank's categories)."""
    table = Table("category", "yes/no n", "committed", "abstained", "value n", "value right")
    yes_no, values = product.get("yes_no_by_category", {}), product.get("value_by_category", {})
    for category in sorted(set(yes_no) | set(values)):
        asked, valued = yes_no.get(category, {}), values.get(category, {})
        table.add_row(
            category,
            str(asked.get("n", "")),
            str(asked.get("committed_accuracy", "")),
            str(asked.get("abstention_rate", "")),
            str(valued.get("n", "")),
            str(valued.get("accuracy", "")),
        )
    if yes_no or values:
        console.print(table)


@eval_app.command("routing")
def eval_routing(
    ctx: typer.Context,
    half: str = typer.Option(
        "check", "--half", help="check (read for figures), tune (what the router is fitted on) or both."
    ),
    out: Path = typer.Option(Path("bench-results/routing.json"), "--out", help="JSON results file."),
) -> None:
    """Routing of questions in anyone's words to the decider trained for them: right provision,
    wrong provision, none; questions outside the catalogue matched; per register."""
    from clausewise_lab.evals import routing_bench

    halves = {"check": ("check",), "tune": ("tune",), "both": ("tune", "check")}.get(half)
    if halves is None:
        raise ConfigError(f"unknown half {half!r}", hint="use check, tune or both")
    runtime = state_of(ctx).runtime()
    router = runtime.hub.router(runtime.settings)
    results = routing_bench.run(lambda text: routing_bench.routed_by(router, text), halves)
    goals = routing_bench.GOALS
    for name, found in results["halves"].items():
        figures = found["figures"]
        catalogue, outside = figures["catalogue"], figures["outside"]
        table = Table("register", "n", "right", "wrong", "none", title=f"Routing, {name} half")
        for register, row in figures["by_register"].items():
            shares = (str(row[f"{k}_share"]) for k in ("right", "wrong", "none"))
            table.add_row(register, str(row["n"]), *shares)
        console.print(table)
        console.print(
            f"{name} half: {catalogue['n']} catalogue questions, right "
            f"{_mark(catalogue['right_share'], goals['right'], True)}, wrong "
            f"{_mark(catalogue['wrong_share'], goals['wrong'], False)}, none {catalogue['none_share']}; "
            f"{outside['n']} outside the catalogue matched "
            f"{_mark(outside['matched_share'], goals['outside_matched'], False)}; qualified routed away "
            f"{figures['qualified_routed_away']['none_share']} of {figures['qualified_routed_away']['n']}; "
            f"seconds p50 {figures['seconds']['p50']} / p95 {figures['seconds']['p95']}"
        )
        way = figures["way_round"]
        console.print(
            f"{name} half: of {way['n']} yes/no questions sent to their provision, taken the right way "
            f"round {way['right']}, the wrong way {way['wrong']}, unsure {way['unsure']}"
        )
        asked = figures["ask_back"]
        console.print(
            f"{name} half, asked back: of {asked['unrouted']} catalogue questions routed nowhere, "
            f"{asked['unrouted_offered']} offered a choice, {asked['unrouted_provision_offered']} with "
            f"their provision among it; outside questions offered one {asked['outside']['share']}, "
            f"qualified ones {asked['qualified']['share']}"
        )
    results["router"] = type(router).__name__
    write_results(ctx, results, out)


@eval_app.command("support")
def eval_support(
    ctx: typer.Context,
    data: Path | None = _DATA,
    half: str = typer.Option("tune", "--half", help="CUAD contracts of the tune or the check half."),
    contracts: int = typer.Option(
        60, "--contracts", help="Contracts sampled (a pair of each kind per provision)."
    ),
    seed: int = typer.Option(3, "--seed", help="Which contracts and sentences."),
    out: Path = typer.Option(Path("bench-results/support.json"), "--out", help="JSON results file."),
) -> None:
    """How far the NLI classifier's entailment marks a sentence that supports a provision claim:
    precision and recall per threshold (what decision.support_at is chosen from)."""
    from clausewise_lab.evals import support_bench

    if half not in ("check", "tune"):
        raise ConfigError(f"unknown half {half!r}", hint="use check or tune")
    bench, root = _benchmark(ctx, data)
    results = support_bench.run(bench, root, half=half, contracts=contracts, seed=seed)
    table = Table("P(Entailment) at least", "precision", "recall", "supported / unsupported accepted")
    for row in results["thresholds"]:
        table.add_row(
            str(row["threshold"]),
            str(row["precision"]),
            str(row["recall"]),
            f"{row['supported_accepted']} / {row['unsupported_accepted']}",
        )
    console.print(table)
    console.print(
        f"{results['pairs']} pairs on the {half} half; decision.support_at = {results['support_at']}"
    )
    write_results(ctx, results, out)


@eval_app.command("qa-evidence")
def eval_qa_evidence(
    ctx: typer.Context,
    data: Path | None = _DATA,
    limit: int = typer.Option(
        40, "--limit", help="Questions (half LegalBench-RAG queries, half ContractNLI)."
    ),
    seed: int = typer.Option(7, "--seed", help="Which questions (eval qa uses seed 7)."),
    out: Path = typer.Option(Path("bench-results/qa-evidence.json"), "--out", help="JSON results file."),
) -> None:
    """Gold spans among the passages the answerer reads, inside their excerpts, and cited by
    attribution (no LLM)."""
    from clausewise_lab.evals import qa_evidence_bench

    bench, root = _benchmark(ctx, data)
    with TerminalProgress(console) as progress:
        progress.item("eval qa-evidence")
        results = qa_evidence_bench.run(bench, root, limit=limit, seed=seed, progress=progress)
    columns = {
        "gold_spans": "gold spans",
        "in_passages": "in the passages",
        "in_excerpts": "in the excerpts shown",
        "in_attributed": "cited by attribution",
        "attributed_per_question": "attributed / question",
        "attribution_precision": "attribution precision",
        "in_reach": "shown or attributed",
    }
    table = Table("questions", *columns.values())
    for name, summary in [*results["by_source"].items(), ("all", results)]:
        table.add_row(name, *(str(summary[key]) for key in columns))
    console.print(table)
    console.print(
        f"{results['questions']} questions, {results['evidence_passages']} passages of at most "
        f"{results['passage_chars']} characters per question"
    )
    write_results(ctx, results, out)


@eval_app.command("contractnli")
def eval_contractnli(
    ctx: typer.Context,
    data: Path | None = _DATA,
    file: str = typer.Option("dev.json", "--file", help="ContractNLI file in <data>/contractnli/."),
    limit: int | None = typer.Option(None, "--limit", help="At most this many documents."),
    fold: str = typer.Option(
        "all", "--fold", help="all, or heldout: only documents the shipped reranker and NLI model never saw."
    ),
    calibrate: bool = typer.Option(
        False,
        "--calibrate",
        help="Sweep the label thresholds (NLI: contradiction_at x entailment_at; LLM: not_mentioned_below, "
        "asking the judge for every hypothesis).",
    ),
    out: Path = typer.Option(Path("bench-results/contractnli.json"), "--out", help="JSON results file."),
) -> None:
    """Hypothesis checks: accuracy, F1 per class, macro/weighted F1, evidence recall/precision, speed."""
    from clausewise_lab.evals import contractnli_bench

    if fold not in {"all", "heldout"}:
        raise typer.BadParameter("use all or heldout", param_hint="--fold")
    judge = state_of(ctx).settings().checks.judge
    calibrating_llm = calibrate and judge == "llm"
    bench, root = _benchmark(ctx, data, {"checks": {"not_mentioned_below": 0.0}} if calibrating_llm else None)
    with TerminalProgress(console) as progress:
        progress.item("eval contractnli")
        results = contractnli_bench.run(
            bench, root, file_name=file, limit=limit, fold=fold, calibrate=calibrate, progress=progress
        )
    _print_contractnli(results)
    write_results(ctx, results, out)


def _print_contractnli(results: dict[str, Any]) -> None:
    from clausewise.core.results import LABELS

    labels, goals = results["labels"], results["goals"]
    table = Table(
        title=f"ContractNLI {results['file']}: {results['hypotheses']} hypotheses, "
        f"{results['documents']} documents"
    )
    for column in ("gold \\ predicted", *LABELS, "precision", "recall", "F1", "support"):
        table.add_column(column)
    for gold in LABELS:
        row = labels["per_class"][gold]
        table.add_row(
            gold,
            *(str(labels["confusion"][gold][p]) for p in LABELS),
            str(row["precision"]),
            str(row["recall"]),
            str(row["f1"]),
            str(row["support"]),
        )
    console.print(table)
    console.print(
        f"accuracy {_mark(labels['accuracy'], goals['accuracy'], True)}, contradiction F1 "
        f"{_mark(labels['per_class']['Contradiction']['f1'], goals['contradiction_f1'], True)}, macro F1 "
        f"{labels['macro_f1']}, weighted F1 {labels['weighted_f1']}; evidence recall "
        f"{results['evidence_recall']}, precision {results['evidence_precision']}; "
        f"{_mark(results['seconds_per_hypothesis'], goals['seconds_per_hypothesis'], False)} s/hypothesis "
        f"(judge {results['judge']}, {results['thresholds']})"
    )
    sweep = results.get("sweep")
    if isinstance(sweep, list):
        best = sorted(sweep, key=lambda r: (-r["accuracy"], -r["contradiction_f1"]))[:8]
        for row in best:
            console.print(f"  {row}")
    elif sweep:
        for threshold, figures in sweep.items():
            console.print(f"  not_mentioned_below {threshold}: {figures}")


@eval_app.command("playbook")
def eval_playbook(
    ctx: typer.Context,
    data: Path | None = _DATA,
    half: str = typer.Option(
        "tune", "--half", help="tune or check (split by contract, as the question bank)."
    ),
    limit: int | None = typer.Option(None, "--limit", help="At most this many contracts."),
    redecide: bool = typer.Option(
        True, "--redecide/--no-redecide", help="Ingest each redlined contract and review it again."
    ),
    out: Path = typer.Option(Path("bench-results/playbook.json"), "--out", help="JSON results file."),
    pdf: list[Path] = typer.Option(
        [], "--pdf", help="Instead: time ingesting and reviewing these PDFs (fifteen positions).", exists=True
    ),
) -> None:
    """Playbook review on CUAD: verdict accuracy and refusals per position type, citations, redlines."""
    from clausewise_lab.evals import playbook_bench

    if half not in {"tune", "check"}:
        raise typer.BadParameter("use tune or check", param_hint="--half")
    bench, root = _benchmark(ctx, data)
    if pdf:
        timed = playbook_bench.timed_pdfs(bench, pdf)
        for row in timed["pdfs"]:
            console.print(
                f"{row['file']}: {row['pages']} pages; ingest {row['ingest_seconds']} s; review of "
                f"{row['positions']} positions ({timed['mode']} mode) {row['review_seconds']} s"
            )
        write_results(ctx, timed, out)
        return
    with TerminalProgress(console) as progress:
        progress.item("eval playbook")
        results = playbook_bench.run(
            bench, root, half=half, limit=limit, redecide=redecide, progress=progress
        )  # type: ignore[arg-type]
    goals = playbook_bench.GOALS
    table = Table(title=f"Playbook review, {results['half']} half: {results['contracts']} contracts")
    for column in ("position type", "scored", "committed", "accuracy", "refused share"):
        table.add_column(column)
    for name, figures in [("all", results), *results["per_type"].items()]:
        table.add_row(
            name,
            str(figures["scored"]),
            str(figures["committed"]),
            _mark(figures["accuracy"], goals["accuracy"], True),
            _mark(figures["refused_share"], goals["refused_share"], False),
        )
    console.print(table)
    red = results["redlines"]
    longest = results["longest"] or {}
    console.print(
        f"citation validity {_mark(results['citation_validity'], goals['citation_validity'], True)}; "
        f"redline DOCX: python-docx opened {red['docx_opened_python_docx']}/{red['documents']}, "
        f"LibreOffice {red['docx_opened_libreoffice'] if red['libreoffice_installed'] else 'not installed'}; "
        "rejected text "
        f"identical {red['rejected_text_identical']}/{red['documents']}; tracked changes match the edits "
        f"{red['changes_match_edits']}/{red['documents']}; redlined positions meeting the position when "
        f"reviewed again {red['redecided_meets']}/{red['redlined_positions']} "
        f"({_mark(red['redecided_meets_share'], goals['redecided_meets'], True)}); seconds per review p50 "
        f"{results['seconds_per_review_p50']}, max {results['seconds_per_review_max']}; the longest contract "
        f"({longest.get('characters')} characters) in {longest.get('seconds')} s"
    )
    write_results(ctx, results, out)


@eval_app.command("cuad")
def eval_cuad(
    ctx: typer.Context,
    data: Path | None = _DATA,
    file: str = typer.Option("cuad_dev.json", "--file", help="CUAD file in <data>/cuad/."),
    limit: int | None = typer.Option(None, "--limit", help="At most this many contracts."),
    skip: int = typer.Option(
        0, "--skip", help="Leave out the first N contracts of the fold (e.g. those calibrated on)."
    ),
    fold: str = typer.Option(
        "all", "--fold", help="all, or heldout: only contracts the shipped reranker was not trained on."
    ),
    calibrate: bool = typer.Option(
        False,
        "--calibrate",
        help="Skip value extraction; sweep the presence threshold (global and per category).",
    ),
    out: Path = typer.Option(Path("bench-results/cuad.json"), "--out", help="JSON results file."),
) -> None:
    """Provision review: presence P/R/F1 per category and macro, span overlap, answer accuracy, speed."""
    from clausewise_lab.evals import cuad_bench

    if fold not in {"all", "heldout"}:
        raise typer.BadParameter("use all or heldout", param_hint="--fold")
    bench, root = _benchmark(ctx, data, {"review": {"extract_answers": False}} if calibrate else None)
    with TerminalProgress(console) as progress:
        progress.item("eval cuad")
        results = cuad_bench.run(
            bench,
            root,
            file_name=file,
            limit=limit,
            skip=skip,
            fold=fold,
            calibrate=calibrate,
            progress=progress,
        )
    table = Table(
        title=f"CUAD {results['file']} ({results['fold']}): {results['contracts']} contracts, presence"
    )
    for column in ("category", "precision", "recall", "F1", "support"):
        table.add_column(column)
    for category, figures in results["presence"]["per_category"].items():
        table.add_row(category, *(str(figures[k]) for k in ("precision", "recall", "f1", "support")))
    console.print(table)
    goals = cuad_bench.GOALS
    console.print(
        f"presence macro F1 {_mark(results['presence']['macro_f1'], goals['presence_macro_f1'], True)}; span "
        f"recall {results['span_recall']}, precision {results['span_precision']}; answer accuracy "
        f"{results['answer_accuracy']} ({results['answers_scored']} values); "
        f"{_mark(results['seconds_per_contract'], goals['seconds_per_contract'], False)} s per contract"
    )
    if calibrate:
        console.print(f"global threshold sweep (macro F1): {results['sweep']}")
        console.print(
            f"per-category thresholds: macro F1 {results['macro_f1_at_per_category_thresholds']}: "
            f"{results['per_category_thresholds']}"
        )
    write_results(ctx, results, out)


@eval_app.command("tracing")
def eval_tracing(
    ctx: typer.Context,
    endpoint: str = typer.Option(
        ...,
        "--endpoint",
        help="A running OTLP/HTTP collector's traces URL (Phoenix: http://127.0.0.1:6006/v1/traces).",
    ),
    contract: list[Path] = typer.Option(
        [], "--contract", help="Contracts to ingest and ask (default: the example contracts).", exists=True
    ),
    rounds: int = typer.Option(5, "--rounds", min=1, help="Timed rounds of each: no provider, off, on."),
    out: Path = typer.Option(Path("bench-results/tracing.json"), "--out", help="JSON results file."),
) -> None:
    """What tracing costs: the quick answer and ingest timed with tracing off (no provider) and
    on (spans batched to the collector at --endpoint), and what the no-op spans cost when off."""
    from clausewise_lab.evals import tracing_bench

    examples = Path("examples")
    contracts = contract or [
        examples / name
        for name in (
            "mutual-nda.txt",
            "services-agreement.txt",
            "supply-agreement.txt",
            "services-agreement.pdf",
        )
        if (examples / name).exists()
    ]
    if not contracts:
        raise ConfigError("no contracts to measure", hint="pass --contract FILE (or run from the repository)")
    results = tracing_bench.run(state_of(ctx).runtime(), contracts, endpoint=endpoint, rounds=rounds)
    table = Table(
        "work",
        "per round",
        "none / off / on s",
        "overhead on",
        "CPU s",
        "CPU overhead on",
        "spans / op",
        "no-op spans off",
    )
    for name, row in results["operations"].items():
        table.add_row(
            name,
            str(row["operations_per_round"]),
            f"{row['none_seconds_per_round']} / {row['off_seconds_per_round']} / "
            f"{row['on_seconds_per_round']}",
            _mark(row["overhead_on"], 0.05, False),
            f"{row['none_cpu_seconds_per_round']} / {row['off_cpu_seconds_per_round']} / "
            f"{row['on_cpu_seconds_per_round']}",
            _mark(row["overhead_on_cpu"], 0.05, False),
            str(row["spans_per_operation"]),
            str(row["overhead_off_noop_spans"]),
        )
    console.print(table)
    console.print(f"a no-op span costs {results['noop_span_microseconds']} microseconds")
    write_results(ctx, results, out)


@eval_app.command("gate")
def eval_gate(
    ctx: typer.Context,
    data: Path | None = _DATA,
    layer: list[str] = typer.Option([], "--layer", help="Only these layers (default: all)."),
    baseline: Path | None = typer.Option(
        None, "--baseline", help="Baseline file (default: the committed one)."
    ),
    update_baseline: bool = typer.Option(
        False, "--update-baseline", help="Write the measured figures over the baseline (a deliberate commit)."
    ),
    out: Path = typer.Option(Path("bench-results/gate.json"), "--out", help="JSON results file."),
) -> None:
    """The per-layer evaluation gate: clause filing, retrieval, routing, decision, citations and
    support on a small fixed sample of the tune half, compared with the committed baseline. Exits
    1 naming each layer whose figure fell beyond its tolerance."""
    from clausewise.runtime import Runtime
    from clausewise_lab.evals import gate

    unknown = sorted(set(layer) - set(gate.LAYERS))
    if unknown:
        raise ConfigError(f"unknown layer {', '.join(unknown)}", hint=f"use {', '.join(gate.LAYERS)}")
    settings = state_of(ctx).settings()
    root = require(Path(data or settings.paths.bench_data))
    path = baseline or gate.BASELINE
    expected = gate.load_baseline(path)
    with TerminalProgress(console) as progress:
        progress.item("eval gate")
        results = gate.measure(Runtime(settings, evaluation=True), root, layer or gate.LAYERS, progress)
    found = gate.regressions(results["layers"], expected)
    table = Table("layer", "figure", "measured", "baseline", "tolerance", "", title="Evaluation gate")
    failing = {(r.layer, r.figure) for r in found}
    for name, figures in results["layers"].items():
        for figure, value in figures.items():
            spec = expected["layers"].get(name, {}).get(figure, {})
            mark = "[red]regressed[/red]" if (name, figure) in failing else "ok"
            table.add_row(name, figure, str(value), str(spec.get("value")), str(spec.get("tolerance")), mark)
    console.print(table)
    console.print(
        f"seconds per layer: {results['seconds']}; total {round(sum(results['seconds'].values()), 1)}"
    )
    results["regressions"] = [r.describe() for r in found]
    results["baseline"] = str(path)
    write_results(ctx, results, out)
    if update_baseline:
        if found:
            console.print("[yellow]baseline updated over regressions: say why in the commit[/yellow]")
        path.write_text(gate.baseline_json(gate.updated_baseline(results["layers"], expected)))
        console.print(f"baseline written: {path}")
        return
    if found:
        for regression in found:
            console.print(f"[red]regression[/red] {regression.describe()}")
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(eval_app, name="eval")


@eval_app.command("lookup-decoding")
def eval_lookup_decoding(
    ctx: typer.Context,
    out: Path = typer.Option(Path("bench-results/lookup-decoding.json"), "--out", help="JSON results file."),
) -> None:
    """Generated tokens per second of the writer's restatements with and without speculative
    decoding (prompt lookup, the 0.5B model as a draft), each design its own llama.cpp server."""
    from clausewise.core.backends.llm import gguf_file
    from clausewise_lab.evals.lookup_decoding import lookup_decoding

    runtime = state_of(ctx).runtime()
    llm = runtime.settings.models.llm
    model = gguf_file(llm.model_copy(update={"backend": "embedded"}), runtime.models_dir)
    small = llm.model_copy(update={"backend": "embedded", "embedded_model": "qwen2.5-coder-0.5b"})
    draft = gguf_file(small, runtime.models_dir)
    threads = llm.threads or (os.cpu_count() or 1)
    results = lookup_decoding(model, draft, threads, log=lambda m: console.print(m, markup=False))
    table = Table("design", "tokens/s (median)", "over without", "accepted / drafted", title="Restatements")
    for row in results["designs"]:
        table.add_row(
            row["design"],
            str(row["tokens_per_second_median"]),
            f"{row['speed_over_without']}x",
            f"{row['accepted']} / {row['drafted']}",
        )
    console.print(table)
    write_results(ctx, results, out)


@eval_app.command("second-opinion")
def eval_second_opinion(
    ctx: typer.Context,
    data: Path | None = _DATA,
    pairs: int = typer.Option(
        150, "--pairs", min=1, help="How many (contract, category) pairs inside the band to ask."
    ),
    clauses: int = typer.Option(
        2, "--clauses", min=1, max=4, help="Clauses the model reads, the head's first."
    ),
    level: float | None = typer.Option(
        None, "--level", help="The decider's level (default: decision.presence_confident_at)."
    ),
    seed: int = typer.Option(13, "--seed", help="Seed of the sample and of the wordings."),
    fit_contracts: int = _FIT_CONTRACTS,
    work_dir: Path | None = _VECTORS_DIR,
    out: Path = typer.Option(Path("bench-results/second-opinion.json"), "--out", help="JSON results file."),
) -> None:
    """The model's own yes/no inside the presence classifier's band, on the calibration quarter of the
    tune half: AUC of each probability, the blend's decisions out of fold, seconds per call."""
    from clausewise_lab.train.second_opinion_eval import second_opinion_on_calibration

    runtime = state_of(ctx).runtime()
    settings = runtime.settings
    root = require(Path(data or settings.paths.bench_data))
    results = second_opinion_on_calibration(
        root,
        runtime.embedder,
        runtime.chat_model("judge"),
        work_dir or settings.paths.data_dir / "train" / "provisions",
        log=lambda message: console.print(message, markup=False, highlight=False),
        level=level or settings.decision.presence_confident_at,
        pairs=pairs,
        clauses=clauses,
        seed=seed,
        fit_contracts=fit_contracts or None,
    )
    oof = results.get("out_of_fold")
    if oof:
        console.print(
            f"inside the band ({results['pairs_inside_band']} of {results['pairs_total']} pairs), "
            f"{results['answered']} asked: AUC classifier {results['auc_classifier']}, model "
            f"{results['auc_model']}, blend {results['auc_blend']}; the blend commits {oof['committed']} "
            f"({oof['committed_share']}), right of committed {oof['right_of_committed']} "
            f"(gold yes {results['by_gold']['yes']['right']}/{results['by_gold']['yes']['committed']}, "
            f"no {results['by_gold']['no']['right']}/{results['by_gold']['no']['committed']}); "
            f"seconds per call {results['seconds_per_call']}"
        )
    else:
        console.print(results.get("note", "no figures"))
    write_results(ctx, results, out)


@eval_app.command("open-sections")
def eval_open_sections(
    ctx: typer.Context,
    data: Path | None = _DATA,
    half: str = _FOLD_HALF,
    k: int = typer.Option(8, "--k", min=1, help="Passages retrieval returns per question."),
    out: Path = typer.Option(Path("bench-results/open-sections.json"), "--out", help="JSON results file."),
) -> None:
    """Gold clauses of the open-question bank reached by retrieval's passages, by the sections whose
    titles name the question's subject, and by either."""
    from clausewise_lab.evals.open_sections import sections_beside_retrieval

    runtime = state_of(ctx).runtime()
    root = require(Path(data or runtime.settings.paths.bench_data))
    results = sections_beside_retrieval(runtime, root, half, k)
    columns = ("gold", "retrieval", "sections", "either", "planned", "plan_alone")
    title = f"Open questions, {half} half (planned: retrieval and the plan; plan_alone: what a turn cites)"
    table = Table("kind", *columns, title=title)
    for kind, found in results["counts"].items():
        table.add_row(kind, *(str(found[name]) for name in columns))
    console.print(table)
    write_results(ctx, results, out)
