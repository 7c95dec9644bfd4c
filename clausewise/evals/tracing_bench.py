"""``clausewise eval tracing``: what tracing costs on the quick answer and on ingest.

The same work is timed three ways in one process, after a warm-up round (models loaded, caches
filled):

- **off**: no tracer provider installed (the default): every span is OpenTelemetry's no-op;
- **on**: the SDK provider that ``tracing.enabled`` installs, batching spans to the OTLP/HTTP
  collector at ``--endpoint`` (give a real one: Phoenix, an OpenTelemetry Collector), with a
  counting processor beside it so the report says how many spans each operation made;
- **the no-op spans' own cost**: the no-op span path timed alone, times the spans an operation
  makes, over the operation's time: what instrumenting the code costs when tracing is off,
  which "off" cannot show against a build without the instrumentation.

Off rounds run before the provider is installed (OpenTelemetry allows one per process), so
rounds are not interleaved; each figure is the median over rounds of the per-round total.
Work: every example contract ingested again (``force``), and the quick answer of each question of
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


def _timed(work: Callable[[], None]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def noop_span_seconds(samples: int = 200_000) -> float:
    """Seconds of one no-op span (entered and left, one attribute) with no provider installed."""
    started = time.perf_counter()
    for _ in range(samples):
        with span("noop", {"clausewise.contract": "x"}):
            pass
    return (time.perf_counter() - started) / samples


def run(runtime: Runtime, contracts: Sequence[Path], *, endpoint: str, rounds: int = 3) -> dict[str, Any]:
    if not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        raise RuntimeError("a tracer provider is already installed: run the benchmark with tracing off")
    from clausewise.runtime import Runtime as RuntimeClass

    settings = with_overrides(runtime.settings, {"paths": {"tenant": TENANT}})
    api = Clausewise(runtime=RuntimeClass(settings, hub=runtime.hub))
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
    off = {name: [_timed(run_once) for _ in range(rounds)] for name, run_once in work.items()}
    provider = install(with_overrides(settings, {"tracing": {"enabled": True, "endpoint": endpoint}}).tracing)
    assert provider is not None
    counter = SpanCounter()
    provider.add_span_processor(counter)
    on: dict[str, list[float]] = {}
    spans: dict[str, int] = {}
    for name, run_once in work.items():
        before = counter.ended
        on[name] = [_timed(run_once) for _ in range(rounds)]
        spans[name] = (counter.ended - before) // rounds
    provider.force_flush()
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
        off_s, on_s = statistics.median(off[name]), statistics.median(on[name])
        per_op = spans[name] / operations[name]
        results["operations"][name] = {
            "operations_per_round": operations[name],
            "off_seconds_per_round": round(off_s, 3),
            "on_seconds_per_round": round(on_s, 3),
            "overhead_on": round(on_s / off_s - 1, 4),
            "spans_per_operation": round(per_op, 1),
            "overhead_off_noop_spans": round(noop * spans[name] / off_s, 6),
            "off_rounds": [round(v, 3) for v in off[name]],
            "on_rounds": [round(v, 3) for v in on[name]],
        }
    return results
