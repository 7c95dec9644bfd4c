"""``clausewise eval room``: a data room asked through the service, on loopback, bounded in count
and time.

The room is CUAD development contracts of the question bank's **check** half (the fold no shipped
model was trained on) and the bank's questions for them (yes/no questions on CUAD's provisions
and value questions; every distinct wording asked of every contract). Every cell has a gold
answer, from the contract's own CUAD annotations (the bank's rules: a yes/no question is "yes"
where the provision is annotated; a value question's gold is the annotated text, or "not stated").

Measured:

- **cells**: accuracy with the bank's grader (:func:`clausewise_lab.evals.grading.grade`, as ``eval
  qa --questions bank``), per kind, the abstentions ("unclear"), and the **unsupported cells
  shown**: cells stating yes, partly, no with a quote, or a value whose cited sources are not the
  dataset text at their spans, or do not contain the value (goal 0); the grader and this check
  read the dataset's text, not the product's;
- **throughput**: cells (contracts x questions) per minute through ``POST /v1/rooms`` with the
  local backend (the server's thread), then Celery with 1 and 2 worker processes on a real
  ``redis-server`` (goal: 2 workers >= 1.7x one), each run on the same ingested contracts with
  the stored unit results cleared first, after a warm-up that loads every process's models;
- **time to the first row** over HTTP (the request's own event stream) for each backend;
- **peak memory** (VmHWM) of each worker process;
- **wide**: ``wide`` contracts x 1 question on the 2 workers (goal: 100 within 10 minutes),
  the check half's contracts and then the tune half's.

Everything runs on 127.0.0.1 and stops by itself: bounded counts, a time limit per run (a run
over it is cancelled and reported as such).
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from clausewise.core.config import Settings, with_overrides
from clausewise.core.progress import NoProgress, Progress
from clausewise.core.room import MAX_QUESTIONS, RoomCell
from clausewise.runtime import ModelHub, Runtime
from clausewise.service.state import default_runtime
from clausewise_lab.evals.bank import BankQuestion, _cuad, build_bank, sample
from clausewise_lab.evals.data import document_ids
from clausewise_lab.evals.grading import Shown, grade
from clausewise_lab.evals.processes import (
    RedisServer,
    WorkerProcess,
    celery_flags,
    celery_jobs,
    started_workers,
)
from clausewise_lab.evals.serve_bench import LoopbackServer
from clausewise_lab.evals.shares import outcome_figures

GOALS = {
    "unsupported_cells_shown": 0,
    "speedup_2_workers": 1.7,
    "wide_seconds": 600.0,
}
TENANT = "room-bench"
WARM_QUESTION = "Which law governs the agreement?"
WIDE_QUESTION = "Which law governs the agreement?"
Contract = tuple[str, str, dict[str, list[tuple[str, tuple[int, int]]]]]


# --- the room and its gold -------------------------------------------------------------------------


def room_questions(
    bank: Sequence[BankQuestion], titles: set[str], limit: int, seed: int
) -> list[BankQuestion]:
    """The distinct wordings the bank asks of the contracts ``titles`` (its yes/no and value
    questions), each once, in a stable order; at most ``limit`` (0: all), chosen as the bank's
    own sampler chooses (shared among the kinds, round-robin over the categories)."""
    found: dict[str, BankQuestion] = {}
    for question in bank:
        if question.contract in titles and question.kind in ("yes/no", "value"):
            found.setdefault(question.question, question)
    distinct = sorted(found.values(), key=lambda q: (q.kind, q.category, q.phrasing))
    return sample(distinct, limit, seed) if limit else distinct


def gold_question(asked: BankQuestion, contract: Contract) -> BankQuestion:
    """``asked`` as a bank question on ``contract``, its gold from the contract's annotations."""
    title, _, answers = contract
    spans = answers.get(asked.category, [])
    present, absent = ("yes", "no") if asked.kind == "yes/no" else ("stated", "not stated")
    gold = present if spans else absent
    return BankQuestion(
        id=f"room:{asked.kind}:{asked.category}:{asked.phrasing}:{title}",
        kind=asked.kind,
        source="cuad",
        contract=title,
        question=asked.question,
        gold=gold,
        category=asked.category,
        phrasing=asked.phrasing,
        reading=asked.reading,
        gold_texts=tuple(t for t, _ in spans),
        gold_spans=tuple(s for _, s in spans),
    )


def shown_of_cell(cell: RoomCell) -> Shown:
    """What the grader sees of a cell: its verdict word (none for a value), its line, whether it
    states a value, and the spans of the sources it cites."""
    return Shown(
        verdict="" if cell.answer == "value" else cell.answer,
        line=cell.line,
        states_value=cell.answer == "value",
        source_spans=[s.span for s in cell.sources if s.number in cell.cited],
    )


def _flat(text: str) -> str:
    return " ".join(text.lower().split())


def _words(text: str) -> list[str]:
    """Letters and digits only: parties are named with their defined terms and joined with
    "and", so their words, not their punctuation, must be in the sources ("Newegg Inc.
    ("Newegg")" from "Newegg Inc. ("Newegg"), a Delaware corporation")."""
    return re.findall(r"[a-z0-9]+", text.lower())


def unsupported(cell: RoomCell, text: str) -> str:
    """Why a cell shows what its cited sources do not support ("" when they do), read against
    the dataset's own text: an answer that asserts something (yes, partly, a value, a "no" with a
    quote) must cite sources that are the text at their spans, and a value must be in one of them."""
    cited = [s for s in cell.sources if s.number in cell.cited]
    if cell.answer in ("unclear", "not addressed") or (cell.answer == "no" and not cited):
        return ""
    if not cited:
        return "asserts without a cited source"
    for source in cited:
        if _flat(text[source.span[0] : source.span[1]]) != _flat(source.quote):
            return f"source [{source.number}] is not the text at {source.span}"
    if cell.answer == "value":
        quotes = " ".join(_flat(s.quote) for s in cited)
        if _flat(cell.value) not in quotes and not (
            cell.value_type == "party" and set(_words(cell.value)) <= set(_words(quotes))
        ):
            return "the value is not in its cited sources"
    return ""


def grade_cells(
    rows: Sequence[dict[str, Any]], asked: dict[str, BankQuestion], contracts: dict[str, Contract]
) -> list[dict[str, Any]]:
    """Every cell of a room's rows graded: (contract, question, kind, gold, answer, outcome, why
    unsupported)."""
    graded = []
    for row in rows:
        if not row.get("result"):
            graded.append({"contract": row["contract_id"], "error": row.get("error")})
            continue
        cell = RoomCell.model_validate(row["result"])
        contract = contracts[row["contract_id"]]
        question = gold_question(asked[cell.question], contract)
        graded.append(
            {
                "contract": row["contract_id"],
                "question": cell.question,
                "kind": question.kind,
                "category": question.category,
                "gold": question.gold,
                "answer": cell.answer,
                "line": cell.line,
                "decided_by": cell.decided_by,
                "outcome": grade(question, shown_of_cell(cell)),
                "unsupported": unsupported(cell, contract[1]),
                "seconds": cell.seconds,
            }
        )
    return graded


def accuracy(graded: Sequence[dict[str, Any]]) -> dict[str, Any]:
    return outcome_figures(Counter(g["outcome"] for g in graded if "outcome" in g), count_name="cells")


def cell_figures(graded: Sequence[dict[str, Any]]) -> dict[str, Any]:
    cells = [g for g in graded if "outcome" in g]
    shown = [g for g in cells if g["unsupported"]]
    seconds = sorted(g["seconds"] for g in cells)
    return {
        "all": accuracy(cells),
        "yes_no": accuracy([g for g in cells if g["kind"] == "yes/no"]),
        "value": accuracy([g for g in cells if g["kind"] == "value"]),
        "answers": dict(Counter(g["answer"] for g in cells)),
        "decided_by": dict(Counter(g["decided_by"] for g in cells)),
        "decide_seconds_by_decider": {
            who: round(statistics.fmean(g["seconds"] for g in cells if g["decided_by"] == who), 3)
            for who in sorted({g["decided_by"] for g in cells})
        },
        "unsupported_cells_shown": len(shown),
        "unsupported_examples": shown[:10],
        "errors": sum(1 for g in graded if "error" in g),
        "decide_seconds_per_cell": {
            "mean": round(statistics.fmean(seconds), 3) if seconds else None,
            "p95": seconds[min(len(seconds) - 1, int(len(seconds) * 0.95))] if seconds else None,
        },
    }


# --- running a room through the service ------------------------------------------------------------


def ask_room(url: str, contracts: list[str], questions: list[str], limit_seconds: float) -> dict[str, Any]:
    """One room over HTTP, followed on the request's own event stream: seconds to the first row
    and to the result, the rows; cancelled (the stream closed) past ``limit_seconds``."""
    body = {"contracts": contracts, "questions": questions, "stream": True, "cancel_on_disconnect": True}
    started = time.perf_counter()
    first_row: float | None = None
    rows: list[dict[str, Any]] = []
    result: dict[str, Any] | None = None
    status = "timed out"
    timeout = httpx.Timeout(30.0, read=min(limit_seconds, 300.0))
    with (
        httpx.Client(base_url=url, timeout=timeout) as client,
        client.stream("POST", "/v1/rooms", json=body) as response,
    ):
        if response.status_code != 200:
            raise RuntimeError(f"POST /v1/rooms answered {response.status_code}: {response.read()[:500]!r}")
        name = ""
        for line in response.iter_lines():
            if time.perf_counter() - started > limit_seconds:
                break  # closing the stream cancels the job (cancel_on_disconnect)
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                if name == "row":
                    first_row = first_row if first_row is not None else time.perf_counter() - started
                    rows.append(json.loads(line[5:]))
                elif name == "result":
                    result, status = json.loads(line[5:]), "done"
                    break
                elif name in ("failed", "cancelled"):
                    status = name
                    break
    seconds = time.perf_counter() - started
    cells = sum(1 for row in rows if row.get("result"))
    return {
        "status": status,
        "contracts": len(contracts),
        "questions": len(questions),
        "cells": cells,
        "seconds": round(seconds, 2),
        "cells_per_minute": round(cells / seconds * 60, 2) if seconds else None,
        "first_row_seconds": round(first_row, 3) if first_row is not None else None,
        "rows": (result or {}).get("rows", rows),
    }


def question_columns(questions: Sequence[str], most: int = MAX_QUESTIONS) -> list[list[str]]:
    """The questions cut into rooms of at most ``most`` (the service's limit per room), as even as
    can be: 145 wordings are asked as rooms of 49, 48 and 48 questions, one after the other, as a
    user with a longer checklist does."""
    if not questions:
        return []
    rooms = -(-len(questions) // most)
    size, extra = divmod(len(questions), rooms)
    cut: list[list[str]] = []
    start = 0
    for n in range(rooms):
        end = start + size + (n < extra)
        cut.append(list(questions[start:end]))
        start = end
    return cut


def ask_rooms(url: str, contracts: list[str], questions: list[str], limit_seconds: float) -> dict[str, Any]:
    """All ``questions`` over ``contracts``, as one room per :func:`question_columns` slice, in
    turn; one time limit over them all. Cells per minute count every room's time; the first row is
    the first room's."""
    started = time.perf_counter()
    columns = question_columns(questions)
    runs: list[dict[str, Any]] = []
    for column in columns:
        left = limit_seconds - (time.perf_counter() - started)
        if left <= 0:
            break
        runs.append(ask_room(url, contracts, column, left))
        if runs[-1]["status"] != "done":
            break
    seconds = time.perf_counter() - started
    cells = sum(run["cells"] for run in runs)
    status = runs[-1]["status"] if runs else "done"  # only the last room can be unfinished
    if status == "done" and len(runs) < len(columns):
        status = "timed out"  # the limit passed between two rooms
    return {
        "status": status,
        "rooms": len(runs),
        "contracts": len(contracts),
        "questions": len(questions),
        "cells": cells,
        "seconds": round(seconds, 2),
        "cells_per_minute": round(cells / seconds * 60, 2) if seconds else None,
        "first_row_seconds": runs[0]["first_row_seconds"] if runs else None,
        "rows": [row for run in runs for row in run["rows"]],
    }


def _clear_stored(data_dir: Path) -> None:
    """Forget the stored unit results of rooms, so the next run works out every cell anew."""
    shutil.rmtree(data_dir / "tenants" / TENANT / "results" / "room", ignore_errors=True)


def _worker_flags(settings: Settings, data_dir: Path, redis: RedisServer, threads: int) -> list[str]:
    """The flags that make a worker decide as the server would: the data folder and Redis, the
    ingest settings the contracts were built with, the model and when it decides."""
    return [
        *celery_flags(data_dir, redis.url),
        "--structure.knowledge-graph",
        "false",
        "--decision.model-decides",
        str(settings.decision.model_decides).lower(),
        "--decision.model-breaks-ties",
        str(settings.decision.model_breaks_ties).lower(),
        "--models.llm.embedded-model",
        settings.models.llm.embedded_model,
        "--models.llm.threads",
        str(threads),
    ]


def _same(rows: Sequence[dict[str, Any]], reference: Sequence[dict[str, Any]]) -> int:
    """Cells that differ from the reference run's (answer, value, line, sources)."""

    def cells(of: Sequence[dict[str, Any]]) -> dict[tuple[str, str], Any]:
        return {
            (row["contract_id"], row["result"]["key"]): (
                row["result"]["answer"],
                row["result"]["value"],
                row["result"]["line"],
                [tuple(s["span"]) for s in row["result"]["sources"]],
            )
            for row in of
            if row.get("result")
        }

    mine, theirs = cells(rows), cells(reference)
    return sum(1 for key in set(mine) | set(theirs) if mine.get(key) != theirs.get(key))


def _cpu(redis: RedisServer | None, workers: Sequence[WorkerProcess]) -> dict[str, float]:
    """CPU seconds used so far by this process (the service and the benchmark's client; the
    models too on the local backend), by redis-server and by the workers: where the cores went
    during a timed room, to tell whether the service and Redis crowd out the workers."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "service_and_client": own.ru_utime + own.ru_stime,
        "redis": redis.cpu_seconds() if redis is not None else 0.0,
        "workers": sum(worker.cpu_seconds() for worker in workers),
    }


def _backend(
    name: str,
    settings: Settings,
    workers: int,
    room: tuple[list[str], list[str]],
    warm: list[str],
    data_dir: Path,
    workdir: Path,
    redis: RedisServer | None,
    threads: int,
    limit_seconds: float,
    wide: list[str],
    progress: Progress,
) -> dict[str, Any]:
    """One backend: its workers started, the warm-up, the timed room (and the wide room)."""
    overrides: dict[str, Any] = {"models": {"llm": {"threads": threads}}}
    processes: list[WorkerProcess] = []
    if redis is not None:
        flags = _worker_flags(settings, data_dir, redis, threads)
        processes = started_workers(flags, workdir, name, workers, threads)
        overrides["jobs"] = celery_jobs(redis.url)
    try:
        hub = ModelHub(threads=threads if redis is None else 0)
        with LoopbackServer(with_overrides(settings, overrides), default_runtime, hub) as url:
            progress.stage(f"{name}: warm-up")
            ask_room(url, warm, [WARM_QUESTION], limit_seconds)
            _clear_stored(data_dir)
            contracts, questions = room
            progress.stage(f"{name}: {len(contracts)} contracts x {len(questions)} questions")
            before = _cpu(redis, processes)
            figures = {"workers": workers, **ask_rooms(url, contracts, questions, limit_seconds)}
            figures["cpu_seconds"] = {k: round(v - before[k], 1) for k, v in _cpu(redis, processes).items()}
            if wide:
                _clear_stored(data_dir)
                progress.stage(f"{name}: {len(wide)} contracts x 1 question")
                figures["wide"] = {
                    k: v
                    for k, v in ask_room(url, wide, [WIDE_QUESTION], limit_seconds).items()
                    if k != "rows"
                }
            if processes:
                figures["worker_peak_rss_mb"] = [process.peak_rss_mb() for process in processes]
            return figures
    finally:
        for process in processes:
            process.stop()


def run(
    settings: Settings,
    bench_data: Path,
    *,
    contracts: int = 50,
    questions: int = 0,
    wide: int = 100,
    threads: int = 1,
    minutes: float = 60.0,
    seed: int = 7,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The data room benchmark (see the module docstring). ``contracts`` of the check half
    (at most its 51), ``questions`` wordings (0: all the bank asks of them), ``wide`` contracts
    for the one-question run on 2 workers (0: skip), ``threads`` cores per model process,
    ``minutes`` the time limit of each run."""
    progress = progress or NoProgress()
    threads = threads or max(1, (os.cpu_count() or 1) // 2)
    check = sorted(_cuad(bench_data, "check"), key=lambda c: c[0])
    bank = [q for q in build_bank(bench_data, "check").questions if q.source == "cuad"]
    asked_titles = {q.contract for q in bank}
    chosen = [c for c in check if c[0] in asked_titles][:contracts]
    asked = room_questions(bank, {c[0] for c in chosen}, questions, seed)
    extra = sorted(_cuad(bench_data, "tune"), key=lambda c: c[0])
    wide_contracts = (chosen + extra)[:wide] if wide else []
    settings = with_overrides(
        settings, {"paths": {"tenant": TENANT}, "structure": {"knowledge_graph": False}}
    )
    with tempfile.TemporaryDirectory(prefix="clausewise-room-") as temp:
        workdir = Path(temp)
        data_dir = workdir / "data"
        settings = with_overrides(settings, {"paths": {"data_dir": str(data_dir)}})
        ids = document_ids([c[0] for c in [*chosen, *wide_contracts]], "room")
        by_id = _ingest(settings, {ids[c[0]]: c for c in [*chosen, *wide_contracts]}, workdir, progress)
        room = ([ids[c[0]] for c in chosen], [q.question for q in asked])
        wide_ids = [ids[c[0]] for c in wide_contracts]
        limit = minutes * 60
        backends: dict[str, Any] = {}
        backends["local"] = _backend(
            "local", settings, 0, room, room[0][:2], data_dir, workdir, None, threads, limit, [], progress
        )
        redis = RedisServer(workdir / "redis").start()
        try:
            for workers in (1, 2):
                backends[f"celery-{workers}"] = _backend(
                    f"celery-{workers}",
                    settings,
                    workers,
                    room,
                    room[0][:2],
                    data_dir,
                    workdir,
                    redis,
                    threads,
                    limit,
                    wide_ids if workers == 2 else [],
                    progress,
                )
        finally:
            redis.stop()
    reference = backends["local"]["rows"]
    graded = grade_cells(reference, {q.question: q for q in asked}, by_id)
    results: dict[str, Any] = {
        "benchmark": "room",
        "data": str(bench_data),
        "half": "check",
        "goals": GOALS,
        "contracts": len(chosen),
        "questions": [q.question for q in asked],
        "question_kinds": dict(Counter(q.kind for q in asked)),
        "threads_per_process": threads,
        "minutes_per_run": minutes,
        "model_decides": settings.decision.model_decides,
        "cells": cell_figures(graded),
        "throughput": {
            name: {k: v for k, v in figures.items() if k != "rows"} for name, figures in backends.items()
        },
    }
    for name in ("celery-1", "celery-2"):
        results["throughput"][name]["cells_differing_from_local"] = _same(backends[name]["rows"], reference)
    one, two = backends["celery-1"], backends["celery-2"]
    if one.get("cells_per_minute") and two.get("cells_per_minute"):
        results["speedup_2_workers"] = round(two["cells_per_minute"] / one["cells_per_minute"], 3)
    if "wide" in two:
        results["wide"] = two["wide"]
    results["graded"] = graded
    return results


def _ingest(
    settings: Settings, contracts: dict[str, Contract], workdir: Path, progress: Progress
) -> dict[str, Contract]:
    """Every contract ingested once (as text, so the gold spans index the ingested text), into the
    data folder every backend then reads."""
    from clausewise_lab.evals.data import ingest_text

    runtime = Runtime(settings)
    progress.stage(f"ingesting {len(contracts)} contracts", total=len(contracts))
    scratch = workdir / "texts"
    scratch.mkdir(parents=True, exist_ok=True)
    for cid, (_, text, _) in contracts.items():
        ingest_text(runtime, text, cid, scratch)
        progress.advance()
    return contracts
