"""``eval serve``: the streamed asks time their ``answer`` event (the decided short answer, before
the report) against a live server with scripted replies on 127.0.0.1."""

from __future__ import annotations

import asyncio
from pathlib import Path

from clausewise.core.config import load_settings
from clausewise.evals import serve_bench
from clausewise.evals.instruments import scripted_runtimes
from clausewise.runtime import ModelHub, Runtime


def test_streamed_asks_time_the_answer_event_before_the_report(tmp_path: Path) -> None:
    settings = load_settings(overrides={"paths": {"data_dir": str(tmp_path), "tenant": "default"}})
    hub = ModelHub()
    ingested = Runtime(settings, hub=hub).archivist().ingest(serve_bench.EXAMPLES / "mutual-nda.txt")
    with serve_bench.LoopbackServer(settings, scripted_runtimes(), hub) as url:
        asked = asyncio.run(serve_bench._streamed_asks(url, ingested.contract_id, 2, 1, 300))
    assert asked["errors"] == 0 and asked["answer_seconds"]["n"] == 2  # both questions are decided
    assert asked["first_event_seconds"]["p50"] <= asked["answer_seconds"]["p50"]
    assert asked["answer_seconds"]["p95"] <= asked["report_seconds"]["p95"]
