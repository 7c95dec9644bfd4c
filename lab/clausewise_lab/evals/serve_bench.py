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
5. Faults (:func:`fault_run`): the hostile-client probes of :mod:`clausewise_lab.evals.hostile_probes`
   at ``fault_concurrency`` while streamed asks run for the tenant they target: probes tried,
   unexpected statuses, responses that leak a server path or another tenant's names, and the
   contract versions and citations lost (goal 0 each).

Every streamed ask records the time to its first event and to its ``answer`` event (the decided
short answer, sent before the report is written).

Retrieval, the real asks and the memory figure are measured on ``clausewise serve`` started as a
user starts it, in its own process on 127.0.0.1 and a free port, so its peak counts the service
and nothing of the benchmark's own work (ingest, the in-process comparison runs). The scripted
asks and the fault run need a scripted model inside the server, so they run on the app under
uvicorn in a thread of this process (the fault run on a data folder of its own, with keys).
"""

from __future__ import annotations

import asyncio
import json
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
from clausewise.retrieval import SpanSearch
from clausewise.runtime import ModelHub, Runtime
from clausewise.service.app import create_app
from clausewise.service.keys import KeyStore
from clausewise.service.state import RuntimeFactory
from clausewise_lab import EXAMPLES, REPO
from clausewise_lab.evals import hostile_probes as hostile
from clausewise_lab.evals.instruments import scripted_runtimes
from clausewise_lab.evals.processes import ServeProcess, ended_job

GOALS = {
    "errors": 0,
    "first_event_seconds": 1.0,
    "retrieval_overhead": 0.10,
    "memory_ratio": 1.2,
    "unexpected_statuses": 0,
    "leaks": 0,
    "lost": 0,
}

#: The fault run's time bound (setup, probes and asks; the probes not started by then are skipped).
FAULT_SECONDS = 600.0
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


class _Tally:
    """What the fault run found, counted from many threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.tried = self.requests = self.unexpected = self.leaks = 0
        self.findings: list[dict[str, Any]] = []

    def record(self, kind: str, probe: str, sent: hostile.Sent | None, problem: str) -> None:
        with self.lock:
            if len(self.findings) < 50:
                self.findings.append(
                    {
                        "kind": kind,
                        "probe": probe,
                        "request": sent.request if sent else "",
                        "status": sent.status if sent else None,
                        "problem": problem,
                        "body": sent.text[:400] if sent else "",
                    }
                )


def _streamed_text(client: httpx.Client, contract: str, question: str, turns: int) -> tuple[str, str, bool]:
    """A streamed ask read to its end: (job id, the stream's text, whether it gave its result)."""
    body = {"question": question, "stream": True, "turns": turns}
    with client.stream("POST", f"/v1/contracts/{contract}/ask", json=body) as response:
        text = "".join(response.iter_text())
        return (
            response.headers.get("x-job-id", ""),
            text,
            response.status_code == 200 and ("event: result" in text),
        )


def _holdings(client: httpx.Client, reports: list[dict[str, Any]], thread: str) -> dict[str, Any]:
    """What the owner holds, as the API serves it: the contract's versions and each one's text,
    the text at each cited span (in the version the report read), the thread's messages."""
    contract = hostile.CONTRACT
    detail = client.get(f"/v1/contracts/{contract}")
    versions = detail.json().get("versions", []) if detail.status_code == 200 else []
    texts = {}
    for version in versions:
        shown = client.get(f"/v1/contracts/{contract}/text", params={"version": version["version"]})
        texts[version["version"]] = shown.json()["text"] if shown.status_code == 200 else None
    cited = []
    for report in reports:
        version = report["metadata"]["contract_version"]
        for source in report["sources"]:
            start, end = source["span"]
            shown = client.get(
                f"/v1/contracts/{contract}/text", params={"version": version, "start": start, "end": end}
            )
            cited.append(shown.json()["text"] if shown.status_code == 200 else None)
    messages = client.get(f"/v1/threads/{thread}")
    return {
        "versions": [json.dumps(v, sort_keys=True) for v in versions],
        "texts": texts,
        "cited": cited,
        "messages": len(messages.json()["messages"]) if messages.status_code == 200 else -1,
    }


def _lost(before: dict[str, Any], after: dict[str, Any], reports: list[dict[str, Any]]) -> dict[str, int]:
    """What the owner no longer holds: versions gone or changed, texts changed, citations whose
    span no longer holds its quote (exact ones) or its earlier words, a thread's messages."""
    quotes = [(s["quote"], s.get("exact", True)) for r in reports for s in r["sources"]]
    citations = 0
    for (quote, exact), earlier, now in zip(quotes, before["cited"], after["cited"], strict=True):
        if now is None or now != earlier or (exact and now != quote):
            citations += 1
    return {
        "versions": len(set(before["versions"]) - set(after["versions"])),
        "texts": sum(after["texts"].get(v) != text for v, text in before["texts"].items()),
        "citations": citations,
        "thread_messages": int(after["messages"] < before["messages"]),
    }


def fault_run(
    settings: Settings,
    hub: ModelHub,
    data_dir: Path,
    *,
    probes: int = 200,
    concurrency: int = 10,
    asks: int = 5,
    turns: int = 1,
    seconds: float = FAULT_SECONDS,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The hostile-client probes at ``concurrency`` while ``asks`` streams of scripted asks run
    for the tenant they target (each asking again until the probes are done), on the app with
    scripted replies on 127.0.0.1, with two tenants' keys in ``data_dir``. Bounded: ``probes``
    probes, ``seconds`` in all (probes not started by then are skipped, counted as not tried)."""
    progress = progress or NoProgress()
    deadline = time.monotonic() + seconds
    limits = (1 << 20, 1 << 20)  # bodies and files: a megabyte, so the oversized probes are cheap
    settings = with_overrides(
        settings,
        {
            "paths": {"data_dir": str(data_dir), "tenant": "default"},
            "service": {"max_request_mb": limits[0] / (1 << 20)},
            "parsing": {"max_file_mb": limits[1] / (1 << 20)},
        },
    )
    keys = KeyStore.of(settings)
    issued = {"owner": keys.create(hostile.OWNER, "eval serve")[1]}
    issued["other"] = keys.create(hostile.OTHER, "eval serve")[1]
    revoked, issued["revoked"] = keys.create(hostile.OTHER, "eval serve, revoked")
    issued |= {"unknown": "cw_00000000_" + "0" * 43, "garbage": "not-a-key", "none": ""}
    files = {"same": EXAMPLES / "mutual-nda.pdf", "other": EXAMPLES / "mutual-nda.txt"}
    contract = hostile.CONTRACT
    tally = _Tally()
    with LoopbackServer(settings, scripted_runtimes(), hub) as url:
        clients = {
            who: httpx.Client(
                base_url=url, timeout=120, headers={"Authorization": f"Bearer {key}"} if key else {}
            )
            for who, key in issued.items()
        }
        owner = clients["owner"]
        try:
            # before the faults: the owner's contract, a chat thread's report, an answered question
            progress.stage("fault run: the owner's contract, thread and answer")
            upload = owner.post(
                "/v1/contracts",
                files={"file": (files["same"].name, files["same"].read_bytes())},
                data={"contract_id": contract},
            )
            if (
                upload.status_code != 202
                or ended_job(owner, upload.json()["job"]["id"], deadline)["status"] != "done"
            ):
                raise RuntimeError(f"the fault run's contract was not ingested: {upload.text[:500]}")
            thread = owner.post("/v1/threads", json={"contract": contract}).json()["id"]
            said = owner.post(f"/v1/threads/{thread}/messages", json={"content": hostile.QUESTION}).json()
            job, _text, answered = _streamed_text(owner, contract, hostile.QUESTION, turns)
            report = owner.get(f"/v1/jobs/{job}/result").json()
            if not answered or not said.get("report") or not report.get("sources"):
                raise RuntimeError("the fault run's owner got no cited report before the faults")
            reports = [said["report"], report]
            if clients["revoked"].get("/v1/contracts").status_code != 200:
                raise RuntimeError("the key to revoke did not work before it was revoked")
            keys.revoke(revoked.id)
            owned_jobs = [j["id"] for j in owner.get("/v1/jobs", params={"limit": 1000}).json()["jobs"]]
            before = _holdings(owner, reports, thread)
            names = hostile.Names(
                contract=contract,
                thread=thread,
                job=job,
                owner=hostile.OWNER,
                contract_dir=str(data_dir / "tenants" / hostile.OWNER / "contracts" / contract),
                keys_file=str(data_dir / "service" / "keys.sqlite"),
            )
            nobody = names.nobody(data_dir)
            paths = sorted({str(data_dir), str(data_dir.resolve()), str(REPO)})
            foreign = {
                "owner": [hostile.OTHER],
                "other": [hostile.OWNER, contract, thread, *owned_jobs],
            }

            def scored(name: str, problems: list[str], sent: hostile.Sent, key: str) -> bool:
                """Count ``sent``'s problems and leaks; whether it was as expected."""
                shown = hostile.leaks(sent.text, sent.said, paths, foreign.get(key, foreign["other"]))
                with tally.lock:
                    tally.requests += 1
                    tally.unexpected += bool(problems)
                    tally.leaks += bool(shown)
                for problem in problems:
                    tally.record("unexpected", name, sent, problem)
                for leak in shown:
                    tally.record("leak", name, sent, f"shows {leak!r}")
                return not problems

            def compared(name: str, sent: hostile.Sent, twin: hostile.Sent) -> None:
                """A refusal of the owner's thing must read as the refusal of nothing."""
                if (sent.status, hostile.normalized(sent.text, names)) != (
                    twin.status,
                    hostile.normalized(twin.text, nobody),
                ):
                    with tally.lock:
                        tally.leaks += 1
                    tally.record(
                        "leak", name, sent, f"differs from the answer for nothing: {twin.text[:300]}"
                    )

            def one(probe: hostile.Probe) -> None:
                if time.monotonic() > deadline:
                    return
                client = clients[probe.key]
                try:
                    sent = hostile.send(client, probe, names, files=files, limits=limits)
                    twin = (
                        hostile.send(client, probe, nobody, files=files, limits=limits)
                        if probe.twin
                        else None
                    )
                except httpx.HTTPError as error:
                    with tally.lock:
                        tally.tried += 1
                        tally.unexpected += 1
                    tally.record("unexpected", probe.name, None, f"no response: {error!r}")
                    return
                with tally.lock:
                    tally.tried += 1
                ok = scored(probe.name, hostile.problems_of(probe, sent), sent, probe.key)
                if (
                    twin is not None
                    and scored(probe.name, hostile.problems_of(probe, twin), twin, probe.key)
                    and ok
                ):
                    compared(probe.name, sent, twin)

            mcp_sent: list[hostile.Sent] = []

            def mcp_calls() -> None:
                """The MCP tools called by the other tenant on the owner's contract, once each."""
                twins = [p for p in hostile.MCP_PROBES if p.twin]
                try:
                    sent = asyncio.run(hostile.call_mcp(url, issued["other"], hostile.MCP_PROBES, names))
                    against = asyncio.run(hostile.call_mcp(url, issued["other"], twins, nobody))
                except Exception as error:  # noqa: BLE001 - a session that fails is a finding, whatever failed
                    with tally.lock:
                        tally.unexpected += 1
                    tally.record("unexpected", "MCP", None, f"no answer: {error!r}")
                    return
                mcp_sent.extend(sent)
                for probe, answer in zip(hostile.MCP_PROBES, sent, strict=True):
                    ok = scored(probe.name, hostile.mcp_problems_of(probe, answer), answer, "other")
                    if probe.twin:
                        twin = against[twins.index(probe)]
                        if scored(probe.name, hostile.mcp_problems_of(probe, twin), twin, "other") and ok:
                            compared(probe.name, answer, twin)

            probing = threading.Event()
            probing.set()
            asked: list[bool] = []

            def ask_stream(start: int) -> None:
                """Streamed asks by the owner, one after another, until the probes are done."""
                n = start
                while time.monotonic() < deadline:
                    question = QUESTIONS[n % len(QUESTIONS)]
                    try:
                        _job, text, ok = _streamed_text(owner, contract, question, turns)
                    except httpx.HTTPError:
                        text, ok = "", False
                    shown = hostile.leaks(text, "", paths, foreign["owner"])
                    with tally.lock:
                        asked.append(ok)
                        tally.leaks += bool(shown)
                    for leak in shown:
                        tally.record("leak", f"owner's ask: {question}", None, f"shows {leak!r}")
                    n += asks
                    if not probing.is_set():
                        return

            progress.stage(f"fault run: {probes} probes at concurrency {concurrency}, {asks} ask streams")
            began = time.perf_counter()
            streams = [threading.Thread(target=ask_stream, args=(i,), daemon=True) for i in range(asks)]
            for stream in streams:
                stream.start()
            mcp = threading.Thread(target=mcp_calls, daemon=True)
            mcp.start()
            with ThreadPoolExecutor(max_workers=concurrency) as pool:
                list(pool.map(one, hostile.catalog(probes)))
            mcp.join(max(1.0, deadline - time.monotonic()))
            probing.clear()
            probe_seconds = time.perf_counter() - began
            for stream in streams:
                stream.join(max(1.0, deadline - time.monotonic()))
            lost = _lost(before, _holdings(owner, reports, thread), reports)
            uploads = [p for p in (data_dir / "tenants").glob("*/uploads/**/*") if p.is_file()]
        finally:
            for client in clients.values():
                client.close()
    return {
        "probes": probes,
        "kinds": len(hostile.PROBES),
        "concurrency": concurrency,
        "tried": tally.tried,
        "mcp_calls": len(mcp_sent),
        "requests": tally.requests,
        "unexpected_statuses": tally.unexpected,
        "leaks": tally.leaks,
        "lost": sum(lost.values()),
        "lost_detail": lost,
        "citations_checked": len(before["cited"]),
        "asks": {"streams": asks, "asks": len(asked), "errors": asked.count(False)},
        "uploads_left": len(uploads),
        "probe_seconds": round(probe_seconds, 2),
        "findings": tally.findings,
    }


def run(
    settings: Settings,
    *,
    requests: int = 200,
    concurrency: int = 20,
    asks: int = 5,
    real_asks: int = 2,
    turns: int = 1,
    fault_probes: int = 200,
    fault_concurrency: int = 10,
    abuse_rounds: int = 20,
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
        if fault_probes:
            results["faults"] = fault_run(
                settings,
                hub,
                Path(scratch) / "faults",
                probes=fault_probes,
                concurrency=fault_concurrency,
                asks=max(asks, 1),
                turns=turns,
                progress=progress,
            )
        if abuse_rounds:
            from clausewise_lab.evals import abuse_families

            results["abuse"] = abuse_families.run(
                settings, Path(scratch) / "abuse", rounds=abuse_rounds, progress=progress
            )
    return results
