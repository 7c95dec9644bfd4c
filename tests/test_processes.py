"""The benchmarks' process helpers: CPU time read from /proc, so a benchmark can say where the
cores went."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from clausewise_lab.evals.processes import cpu_seconds

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


def test_cpu_seconds_counts_a_busy_process_and_not_an_idle_one() -> None:
    busy = (
        "import time\nend = time.process_time() + 0.5\nwhile time.process_time() < end: pass\ntime.sleep(30)"
    )
    idle = "import time\ntime.sleep(30)"
    workers = [subprocess.Popen([sys.executable, "-c", code]) for code in (busy, idle)]
    try:
        deadline = time.monotonic() + 20
        while cpu_seconds(workers[0].pid) < 0.5 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert cpu_seconds(workers[0].pid) >= 0.5
        assert cpu_seconds(workers[1].pid) < 0.5
    finally:
        for worker in workers:
            worker.kill()
            worker.wait()
    assert cpu_seconds(workers[0].pid) == 0.0  # ended and reaped: nothing to read
