"""``clausewise eval serve``: the service under load, on loopback only, bounded in count and time.

1. Retrieval: ``requests`` searches at ``concurrency`` over HTTP (``GET /v1/contracts/{id}/search``),
   then the same searches through the Python interface in-process at the same concurrency, and
   each way one at a time: errors, p50/p95 latency, and the service's overhead over the Python
   API on the same work (goal < 10%).
2. Questions with scripted replies (the model's time taken out, so what is left is the
   service's): ``asks`` streamed asks at once: errors, time to the first streamed event (goal < 1
   s), time to the report.
3. Questions with the real embedded model: ``real_asks`` streamed asks at once (queued: one model
   per process).
4. Memory: the peak resident size of the server process against one process answering one
   question with the Python API (goal < 1.2x: the models are loaded once, whatever the load).

Every streamed ask records the time to its first event and to its ``answer`` event (the decided
short answer, sent before the report is written).

Retrieval, the real asks and the memory figure are measured on ``clausewise serve`` started as a
user starts it, in its own process on 127.0.0.1 and a free port, so its peak counts the service
and nothing of the benchmark's own work (ingest, the in-process comparison runs). The scripted
asks need a scripted model inside the server, so they run on the app under uvicorn in a thread
of this process.
"""

from __future__ import annotations

import asyncio
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from clausewise.core.config import Settings, with_overrides
from clausewise.core.progress import NoProgress, Progress
from clausewise.evals.instruments import scripted_runtimes
from clausewise.evals.processes import free_port
from clausewise.retrieval import SpanSearch
from clausewise.runtime import ModelHub, Runtime
from clausewise.service.app import create_app
from clausewise.service.state import RuntimeFactory

GOALS = {"errors": 0, "first_event_seconds": 1.0, "retrieval_overhead": 0.10, "memory_ratio": 1.2}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUESTIONS = (
    "Which law governs the agreement?",
    "How long do the confidentiality obligations last?",
    "May the Receiving Party disclose information to its advisers?",
    "What must happen to documents when the agreement ends?",
    "Is there a non-solicitation clause?",
    "Can either party assign the agreement?",
    "Which courts have jurisdiction?",
    "What are the exceptions to confidentiality?",
    "Does the agreement grant any licence?",
    "How are notices given?",
)


class ServeProcess:
    """``clausewise serve`` in its own process on 127.0.0.1 and a free port, the embedded stack."""

    def __init__(self, settings: Settings, log: Path) -> None:
        self.port = free_port()
        self.command = [sys.executable, "-m", "clausewise.cli.main"]
        self.command += ["--data-dir", str(settings.paths.data_dir)]
        self.command += ["--models.llm.embedded-model", settings.models.llm.embedded_model]
        self.command += ["serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.log = log
        self.process: subprocess.Popen | None = None

    def __enter__(self) -> ServeProcess:
        with self.log.open("wb") as sink:
            self.process = subprocess.Popen(self.command, stdout=sink, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"clausewise serve exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError(f"clausewise serve did not answer on {self.url} within 120 s")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def peak_mb(self) -> float:
        """The process's peak resident size so far (``VmHWM``), read before it stops."""
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)  # kilobytes
        raise RuntimeError("no VmHWM in /proc: peak memory is measured on Linux only")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


class LoopbackServer:
    """The app under uvicorn in a thread of this process (for scripted model replies)."""

    def __init__(self, settings: Settings, factory: RuntimeFactory, hub: ModelHub) -> None:
        app = create_app(settings, runtime_factory=factory, hub=hub)  # models shared: loaded once
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the benchmark server did not start")
            time.sleep(0.05)
        return f"http://127.0.0.1:{self.server.servers[0].sockets[0].getsockname()[1]}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(60)


def _percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "n": 0}
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 4),
        "p95": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 4),
        "n": len(ordered),
    }


def _timed(work: list[Any], call: Any, concurrency: int) -> tuple[float, list[float], int]:
    """Run ``call`` on every item with ``concurrency`` threads: wall seconds, latencies, errors."""
    latencies: list[float] = []
    errors = 0

    def one(item: Any) -> None:
        nonlocal errors
        started = time.perf_counter()
        try:
            call(item)
        except (httpx.HTTPError, RuntimeError, ValueError):
            errors += 1
            return
        latencies.append(time.perf_counter() - started)

    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        list(pool.map(one, work))
    return time.perf_counter() - began, latencies, errors


def retrieval_load(
    url: str, runtime: Runtime, contract: str, requests: int, concurrency: int
) -> dict[str, Any]:
    queries = [QUESTIONS[i % len(QUESTIONS)] for i in range(requests)]
    with httpx.Client(base_url=url, timeout=120) as client:

        def over_http(query: str) -> None:
            response = client.get(f"/v1/contracts/{contract}/search", params={"q": query, "k": 10})
            if response.status_code != 200:
                raise RuntimeError(response.text)

        def in_process(query: str) -> None:
            with SpanSearch(runtime, contract) as search:
                search.passages(query, 10)

        in_process(queries[0])  # both ways start warm: models loaded, index in the page cache
        over_http(queries[0])
        results: dict[str, Any] = {}
        for name, concurrent in (("concurrent", concurrency), ("one_at_a_time", 1)):
            count = requests if concurrent > 1 else min(requests, 50)
            http_wall, http_latency, http_errors = _timed(queries[:count], over_http, concurrent)
            api_wall, api_latency, api_errors = _timed(queries[:count], in_process, concurrent)
            results[name] = {
                "requests": count,
                "concurrency": concurrent,
                "errors": http_errors + api_errors,
                "http_seconds": round(http_wall, 2),
                "python_api_seconds": round(api_wall, 2),
                "http_latency": _percentiles(http_latency),
                "python_api_latency": _percentiles(api_latency),
                "overhead": round(http_wall / api_wall - 1, 4) if api_wall else None,
            }
    return results


@dataclass(frozen=True)
class Streamed:
    """One streamed ask: seconds to its first event, to its ``answer`` event, to its report."""

    first: float | None = None
    answer: float | None = None
    report: float | None = None
    ok: bool = False


async def _streamed_asks(url: str, contract: str, asks: int, turns: int, timeout: float) -> dict[str, Any]:
    """``asks`` streamed questions at once: first-event, answer and report times, errors."""

    async def one(client: httpx.AsyncClient, question: str) -> Streamed:
        started = time.perf_counter()
        first = answer = None
        body = {"question": question, "stream": True, "turns": turns}
        async with client.stream("POST", f"/v1/contracts/{contract}/ask", json=body) as response:
            if response.status_code != 200:
                return Streamed()
            async for line in response.aiter_lines():
                if not line.startswith("event:"):
                    continue
                now = time.perf_counter() - started
                first = now if first is None else first
                event = line[6:].strip()
                if event == "answer" and answer is None:
                    answer = now
                if event == "result":
                    return Streamed(first, answer, now, True)
                if event in ("failed", "cancelled"):
                    return Streamed(first, answer)
        return Streamed(first, answer)

    async with httpx.AsyncClient(base_url=url, timeout=timeout) as client:
        outcomes = await asyncio.gather(
            *(one(client, QUESTIONS[i % len(QUESTIONS)]) for i in range(asks)), return_exceptions=True
        )
    ok = [o for o in outcomes if isinstance(o, Streamed) and o.ok]
    return {
        "asks": asks,
        "errors": asks - len(ok),
        "first_event_seconds": _percentiles([o.first for o in ok if o.first is not None]),
        # the decided short answer: n counts the asks whose stream carried one
        "answer_seconds": _percentiles([o.answer for o in ok if o.answer is not None]),
        "report_seconds": _percentiles([o.report for o in ok if o.report is not None]),
    }


def one_process_peak(settings: Settings, contract: str, turns: int) -> float:
    """Peak memory of one process answering one question with the Python API (the CLI's ``ask``).

    ``ru_maxrss`` of waited children is the largest child's peak; this is the first child the
    benchmark waits for, the server process being still alive when it is measured."""
    command = [sys.executable, "-m", "clausewise.cli.main", "--data-dir", str(settings.paths.data_dir)]
    command += ["--models.llm.embedded-model", settings.models.llm.embedded_model]
    command += ["ask", contract, QUESTIONS[0], "--turns", str(turns), "--format", "json"]
    subprocess.run(command, check=True, capture_output=True, timeout=1800)
    return round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1)  # kilobytes


def run(
    settings: Settings,
    *,
    requests: int = 200,
    concurrency: int = 20,
    asks: int = 5,
    real_asks: int = 2,
    turns: int = 1,
    progress: Progress | None = None,
) -> dict[str, Any]:
    progress = progress or NoProgress()
    with tempfile.TemporaryDirectory() as scratch:
        settings = with_overrides(settings, {"paths": {"data_dir": scratch, "tenant": "default"}})
        hub = ModelHub()
        runtime = Runtime(settings, hub=hub)
        progress.stage("ingesting the examples")
        contract = runtime.archivist().ingest(EXAMPLES / "mutual-nda.txt").contract_id
        results: dict[str, Any] = {"benchmark": "serve", "goals": GOALS, "contract": contract}
        if real_asks:
            progress.stage("one process, one question (the memory baseline)")
            results["one_process_peak_mb"] = one_process_peak(settings, contract, turns)
        with ServeProcess(settings, Path(scratch) / "serve.log") as server:
            progress.stage(f"retrieval: {requests} requests at concurrency {concurrency}")
            results["retrieval"] = retrieval_load(server.url, runtime, contract, requests, concurrency)
            if real_asks:
                progress.stage(f"{real_asks} streamed asks, {settings.models.llm.embedded_model}")
                asked = _streamed_asks(server.url, contract, real_asks, turns, 1800)
                results["real_asks"] = asyncio.run(asked)
                results["real_asks"]["model"] = settings.models.llm.embedded_model
                results["server_peak_mb"] = server.peak_mb()
                results["memory_ratio"] = round(results["server_peak_mb"] / results["one_process_peak_mb"], 3)
        if asks:
            with LoopbackServer(settings, scripted_runtimes(), hub) as url:
                progress.stage(f"{asks} streamed asks, scripted replies")
                results["scripted_asks"] = asyncio.run(_streamed_asks(url, contract, asks, turns, 600))
    return results
