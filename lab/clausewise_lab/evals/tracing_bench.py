"""``clausewise eval tracing``: what tracing costs on the quick answer and on ingest.

The same work is timed in one process, after a warm-up round (models loaded, caches filled):

- **none**: no tracer provider installed (the default): every span is OpenTelemetry's no-op;
- then the SDK provider that ``tracing.enabled`` installs, batching spans to the OTLP/HTTP
  collector at ``--endpoint`` (give a real one: Phoenix, an OpenTelemetry Collector), its sampler
  switched round by round, so that **off** (nothing recorded) and **on** (every span recorded and
  exported) rounds alternate and drift in the machine's speed falls on both alike; a counting
  processor says how many spans each operation made;
- **the no-op spans' own cost**: the no-op span path timed alone, times the spans an operation
  makes, over the operation's time: what the instrumentation costs with tracing off, which no
  round can show against a build without it.

The overhead is the median "on" round over the median "off" round, less one. A collector on the
same machine takes its share of the cores while the "on" rounds run; that is part of the figure.
Work: every contract ingested again (``force``), and the quick answer of each question of
:data:`QUESTIONS` on each.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.sdk.trace import SpanProcessor
from opentelemetry.sdk.trace.sampling import Decision, Sampler, SamplingResult

from clausewise.api import Clausewise
from clausewise.core.config import with_overrides
from clausewise.core.tracing import install, span

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

TENANT = "eval-tracing"
QUESTIONS = (
    "Which law governs the agreement?",
    "Can either party terminate for convenience?",
    "Is there a cap on liability?",
    "How long does confidentiality last?",
    "Does the agreement renew automatically?",
    "Can the agreement be assigned without consent?",
    "Is there a non-compete?",
    "What is the effective date?",
)


class SpanCounter(SpanProcessor):
    """Counts the spans that end (beside the exporting processor)."""

    def __init__(self) -> None:
        self.ended = 0

    def on_end(self, span: Any) -> None:
        self.ended += 1


class Switch(Sampler):
    """Records every span while ``on``, none while off."""

    def __init__(self) -> None:
        self.on = False

    def should_sample(self, *args: Any, **kwargs: Any) -> SamplingResult:
        return SamplingResult(Decision.RECORD_AND_SAMPLE if self.on else Decision.DROP)

    def get_description(self) -> str:
        return "Switch"


def _timed(work: Callable[[], None]) -> tuple[float, float]:
    """Wall-clock and this process's CPU seconds of ``work`` (the CPU time leaves out a collector
    on the same machine, which takes its share of the cores while the "on" rounds run)."""
    started, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - started, time.process_time() - cpu


def noop_span_seconds(samples: int = 200_000) -> float:
    """Seconds of one no-op span (entered and left, one attribute) with no provider installed."""
    started = time.perf_counter()
    for _ in range(samples):
        with span("noop", {"clausewise.contract": "x"}):
            pass
    return (time.perf_counter() - started) / samples


def run(runtime: Runtime, contracts: Sequence[Path], *, endpoint: str, rounds: int = 5) -> dict[str, Any]:
    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        raise RuntimeError("a tracer provider is already installed: run the benchmark with tracing off")
    from clausewise.runtime import Runtime as RuntimeClass

    settings = with_overrides(runtime.settings, {"paths": {"tenant": TENANT}})
    api = Clausewise(runtime=RuntimeClass(settings, hub=runtime.hub), audit=False)
    ids = [api.ingest(path).contract_id for path in contracts]

    def ingest_all() -> None:
        for path in contracts:
            api.ingest(path, force=True)

    def quick_all() -> None:
        for cid in ids:
            for question in QUESTIONS:
                api.quick(cid, question)

    work = {"ingest": ingest_all, "quick": quick_all}
    for run_once in work.values():  # warm-up: models loaded, caches filled
        run_once()
    noop = noop_span_seconds()
    none = {name: [_timed(run_once) for _ in range(rounds)] for name, run_once in work.items()}
    switch = Switch()
    tracing = with_overrides(settings, {"tracing": {"enabled": True, "endpoint": endpoint}}).tracing
    provider = install(tracing, sampler=switch)
    assert provider is not None
    counter = SpanCounter()
    provider.add_span_processor(counter)
    off: dict[str, list[tuple[float, float]]] = {name: [] for name in work}
    on: dict[str, list[tuple[float, float]]] = {name: [] for name in work}
    spans: dict[str, int] = dict.fromkeys(work, 0)
    for name, run_once in work.items():
        for _ in range(rounds):
            switch.on = False
            off[name].append(_timed(run_once))
            switch.on = True
            before = counter.ended
            on[name].append(_timed(run_once))
            spans[name] += counter.ended - before
            provider.force_flush()  # the batch of this round leaves before the next off round
        spans[name] //= rounds
    provider.shutdown()
    operations = {"ingest": len(contracts), "quick": len(ids) * len(QUESTIONS)}
    results: dict[str, Any] = {
        "benchmark": "tracing",
        "endpoint": endpoint,
        "rounds": rounds,
        "contracts": [p.name for p in contracts],
        "questions": len(QUESTIONS),
        "noop_span_microseconds": round(noop * 1e6, 3),
        "operations": {},
    }
    for name in work:

        def median(rows: list[tuple[float, float]], which: int) -> float:
            return statistics.median(row[which] for row in rows)

        off_s, on_s = median(off[name], 0), median(on[name], 0)
        off_cpu, on_cpu = median(off[name], 1), median(on[name], 1)
        results["operations"][name] = {
            "operations_per_round": operations[name],
            "none_seconds_per_round": round(median(none[name], 0), 3),
            "off_seconds_per_round": round(off_s, 3),
            "on_seconds_per_round": round(on_s, 3),
            "overhead_on": round(on_s / off_s - 1, 4),
            "none_cpu_seconds_per_round": round(median(none[name], 1), 3),
            "off_cpu_seconds_per_round": round(off_cpu, 3),
            "on_cpu_seconds_per_round": round(on_cpu, 3),
            "overhead_on_cpu": round(on_cpu / off_cpu - 1, 4),
            "spans_per_operation": round(spans[name] / operations[name], 1),
            "overhead_off_noop_spans": round(noop * spans[name] / off_s, 6),
            "rounds_seconds_and_cpu": {
                "none": [[round(a, 3), round(b, 3)] for a, b in none[name]],
                "off": [[round(a, 3), round(b, 3)] for a, b in off[name]],
                "on": [[round(a, 3), round(b, 3)] for a, b in on[name]],
            },
        }
    return results
