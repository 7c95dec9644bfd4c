"""``clausewise eval scale``: data-room throughput with the local backend and on Celery workers.

For each backend (the server's own thread; Celery with 1 and with 2 worker processes on this
machine, each process given its share of the cores), a fresh data folder receives the same data
room through ``POST /v1/batches``: ContractNLI documents as text, each ingested and then checked
against the NDA suite (NLI classifier) or reviewed against CUAD's provisions. A warm-up batch of
other documents loads every process's models first, so the figures are steady-state throughput.

Reported: contracts per minute for check and review per backend, the speed-up of 2 workers over
1 (goal >= 1.7x on a 2-core machine), the queue's overhead per unit (the 1-worker time over the
local time, less one; goal < 5% of a check) and a projection for 1,000 and 10,000 contracts on N
machines. Everything runs on 127.0.0.1 (a real ``redis-server`` on an ephemeral port) and stops
by itself: bounded contract counts, a time limit per batch.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from clausewise.core.config import Settings, with_overrides
from clausewise.core.progress import NoProgress, Progress
from clausewise.runtime import ModelHub
from clausewise.service.state import default_runtime
from clausewise_lab.evals.data import require
from clausewise_lab.evals.processes import (
    RedisServer,
    WorkerProcess,
    celery_flags,
    celery_jobs,
    ended_job,
    started_workers,
)
from clausewise_lab.evals.serve_bench import LoopbackServer

GOALS = {"speedup_2_workers": 1.7, "queue_overhead": 0.05}
BATCH_SECONDS = 3600.0
KINDS = {"check": {"kind": "check", "suite": "nda"}, "review": {"kind": "review", "provisions": "cuad"}}


def data_room(
    bench_data: Path, folder: Path, count: int, skip: int = 0, *, shortest: bool = False
) -> list[Path]:
    """``count`` ContractNLI dev documents (after the first ``skip``) written as text files; with
    ``shortest``, the shortest ones (a test that proves how a batch is shared, not how long
    documents are read, spends a third of the time on them)."""
    source = require(bench_data / "contractnli" / "dev.json")
    documents = json.loads(source.read_text(encoding="utf-8"))["documents"]
    if shortest:
        documents = sorted(documents, key=lambda document: (len(document["text"]), document["id"]))
    documents = documents[skip : skip + count]
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for document in documents:
        path = folder / f"cnli-{document['id']}.txt"
        path.write_text(document["text"], encoding="utf-8")
        files.append(path)
    return files


def run_batch(url: str, files: list[Path], form: dict[str, str]) -> tuple[float, dict[str, Any]]:
    """Submit ``files`` as one batch and wait for it: (seconds, the finished job)."""
    started = time.perf_counter()
    with httpx.Client(base_url=url, timeout=300) as client:
        handles = [("files", (path.name, path.read_bytes())) for path in files]
        response = client.post("/v1/batches", data=form, files=handles)
        response.raise_for_status()
        job_id = response.json()["id"]
        job = ended_job(client, job_id, time.monotonic() + BATCH_SECONDS, poll=0.25)
        return time.perf_counter() - started, job


def _backend(
    name: str,
    settings: Settings,
    workers: int,
    rooms: dict[str, tuple[list[Path], list[Path]]],
    workdir: Path,
    redis: RedisServer | None,
    progress: Progress,
    threads: int = 0,
) -> dict[str, Any]:
    """One backend: a fresh data folder, the warm-up, then each kind's timed batch; ``threads``
    is the cores of each model process (the server's, or each worker's; 0: the machine's cores
    shared between the workers)."""
    data_dir = workdir / name
    overrides: dict[str, Any] = {
        "paths": {"data_dir": str(data_dir)},
        "models": {"llm": {"threads": threads}},
    }
    processes: list[WorkerProcess] = []
    if redis is not None:
        worker_threads = threads or max(1, (os.cpu_count() or 1) // workers)
        flags = [*celery_flags(data_dir, redis.url), "--structure.knowledge-graph", "false"]
        flags += ["--models.llm.threads", str(worker_threads)]
        processes = started_workers(flags, workdir, name, workers, worker_threads)
        overrides["jobs"] = celery_jobs(redis.url)
    try:
        hub = ModelHub(threads=threads if redis is None else 0)
        with LoopbackServer(with_overrides(settings, overrides), default_runtime, hub) as url:
            figures: dict[str, Any] = {"workers": workers, "threads_per_process": threads or None}
            for kind, (warm, timed) in rooms.items():
                progress.item(f"{name}: {kind} warm-up")
                run_batch(url, warm, KINDS[kind])
                progress.item(f"{name}: {kind} of {len(timed)} contracts")
                seconds, job = run_batch(url, timed, KINDS[kind])
                rows = (job.get("result") or {}).get("rows", [])
                figures[kind] = {
                    "contracts": len(timed),
                    "seconds": round(seconds, 2),
                    "contracts_per_minute": round(len(timed) / seconds * 60, 3),
                    "status": job["status"],
                    "rows": len(rows),
                    "row_errors": sum(1 for row in rows if row.get("error")),
                }
            if processes:
                figures["worker_peak_rss_mb"] = [process.peak_rss_mb() for process in processes]
            return figures
    finally:
        for process in processes:
            process.stop()


def projection(per_minute_one_machine: float, speedup: float) -> list[dict[str, Any]]:
    """Hours for 1,000 and 10,000 contracts on N machines like this one, each running one worker
    process per core, assuming machines add throughput as this machine's second worker did
    (``speedup`` over one process, per extra process: the measured efficiency)."""
    efficiency = max(0.0, min(1.0, speedup / 2))
    rows = []
    for machines in (1, 2, 4, 8, 16):
        rate = per_minute_one_machine * (1 + (machines - 1) * efficiency) * 60  # contracts per hour
        rows.append(
            {
                "machines": machines,
                "contracts_per_hour": round(rate, 1),
                "hours_for_1000": round(1000 / rate, 1) if rate else None,
                "hours_for_10000": round(10_000 / rate, 1) if rate else None,
            }
        )
    return rows


def run(
    settings: Settings,
    bench_data: Path,
    *,
    check_contracts: int = 12,
    review_contracts: int = 4,
    threads: int = 0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Every backend on the same data room. ``threads`` pins each model process (the local
    server's and each worker's) to that many cores: with 1, one worker is one core, as in a
    deployment of one worker process per core, and the local backend is measured on one core
    too, so the queue's overhead is compared like for like; 0 lets one worker use every core."""
    progress = progress or NoProgress()
    settings = with_overrides(settings, {"structure": {"knowledge_graph": False}})
    with tempfile.TemporaryDirectory(prefix="clausewise-scale-") as temp:
        workdir = Path(temp)
        files = data_room(bench_data, workdir / "room", 2 + check_contracts + 2 + review_contracts)
        rooms = {
            "check": (files[:2], files[2 : 2 + check_contracts]),
            "review": (files[2 + check_contracts : 4 + check_contracts], files[4 + check_contracts :]),
        }
        if not review_contracts:
            del rooms["review"]
        results: dict[str, Any] = {
            "benchmark": "scale",
            "goals": GOALS,
            "data": str(bench_data),
            "documents": "ContractNLI dev, as text",
            "backends": {},
        }
        results["threads_per_process"] = threads or None
        results["backends"]["local"] = _backend("local", settings, 1, rooms, workdir, None, progress, threads)
        redis = RedisServer(workdir / "redis").start()
        try:
            for workers in (1, 2):
                name = f"celery-{workers}"
                results["backends"][name] = _backend(
                    name, settings, workers, rooms, workdir, redis, progress, threads
                )
        finally:
            redis.stop()
    backends = results["backends"]
    for kind in rooms:
        one, two = backends["celery-1"][kind], backends["celery-2"][kind]
        local = backends["local"][kind]
        results[f"{kind}_speedup_2_workers"] = round(
            two["contracts_per_minute"] / one["contracts_per_minute"], 3
        )
        results[f"{kind}_queue_overhead"] = round(one["seconds"] / local["seconds"] - 1, 4)
    results["projection"] = {
        kind: projection(
            backends["celery-2"][kind]["contracts_per_minute"], results[f"{kind}_speedup_2_workers"]
        )
        for kind in rooms
    }
    return results
