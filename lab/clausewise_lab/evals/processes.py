"""Real parts for ``eval scale``, ``eval serve`` and their tests: a ``redis-server`` on 127.0.0.1
with an ephemeral port (append-only file fsynced on every write, so a restart keeps the queue),
``clausewise worker`` processes and ``clausewise serve`` started as a user would start them."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx

from clausewise.core.config import Settings
from clausewise.service.jobs import FINISHED
from clausewise_lab import REPO


def cpu_seconds(pid: int) -> float:
    """CPU time (user and system) a process has used, with that of its children it has reaped;
    0.0 once it has ended. Read from /proc, so Linux only, as the benchmarks that use it are."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    # after the command name: utime, stime, cutime, cstime are fields 14-17 of stat(5)
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def status_kb(pid: int, field: str) -> int | None:
    """One kilobyte field of ``/proc/<pid>/status`` (``VmRSS``: resident now, ``VmHWM``: its
    peak); None when the process has ended or the field is absent. Linux only, as the benchmarks
    that use it are."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    prefix = f"{field}:"
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith(prefix)), None)


def ended_job(client: httpx.Client, job_id: str, deadline: float, poll: float = 0.2) -> dict[str, Any]:
    """The job once it has ended, polled over HTTP; TimeoutError at ``deadline`` (a
    ``time.monotonic()`` value), so a benchmark that waits on a job stops by itself."""
    while time.monotonic() < deadline:
        job = client.get(f"/v1/jobs/{job_id}").json()
        if job["status"] in FINISHED:
            return job
        time.sleep(poll)
    raise TimeoutError(f"job {job_id} did not end in the time given")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """One redis-server; ``stop`` and ``start`` again keep its port and its data."""

    def __init__(self, folder: Path) -> None:
        self.binary = shutil.which("redis-server")
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> RedisServer:
        if self.binary is None:
            raise RuntimeError("redis-server is not installed (Debian: apt install redis-server)")
        self.folder.mkdir(parents=True, exist_ok=True)
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        command += ["--appendonly", "yes", "--appendfsync", "always", "--save", "", "--protected-mode", "yes"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as connection:
                    connection.sendall(b"PING\r\n")
                    if connection.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def cpu_seconds(self) -> float:
        return cpu_seconds(self.process.pid) if self.process is not None else 0.0

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(20)


class WorkerProcess:
    """``python -m clausewise.cli.main [flags] worker``, in its own process group (its pool too)."""

    def __init__(self, flags: list[str], log: Path, concurrency: int = 1, threads: int = 0) -> None:
        self.command = [sys.executable, "-m", "clausewise.cli.main", *flags]
        self.command += ["worker", "--concurrency", str(concurrency), "--loglevel", "INFO"]
        if threads:
            self.command += ["--threads", str(threads)]
        self.log = log
        self.process: subprocess.Popen | None = None

    def start(self) -> WorkerProcess:
        env = {**os.environ, "OMP_THREAD_LIMIT": "1", "HF_HUB_OFFLINE": "1"}
        offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                self.command,
                cwd=REPO if (REPO / "pyproject.toml").is_file() else None,
                env=env,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the worker exited: {self.log.read_text()[-3000:]}")
            if b" ready." in self.log.read_bytes()[offset:]:
                return self
            time.sleep(0.2)
        raise RuntimeError(f"the worker was not ready in 90 s: {self.log.read_text()[-3000:]}")

    def _pids(self) -> list[int]:
        """The worker's live processes: its own process group (main and pool)."""
        if self.process is None:
            return []
        pids = []
        for entry in Path("/proc").glob("[0-9]*"):
            try:
                if os.getpgid(int(entry.name)) == self.process.pid:
                    pids.append(int(entry.name))
            except (OSError, ValueError):
                continue  # the process ended meanwhile
        return pids

    def peak_rss_mb(self) -> float:
        """The peak resident memory of the worker's processes (main and pool), summed."""
        total_kb = sum(status_kb(pid, "VmHWM") or 0 for pid in self._pids())  # None: it ended meanwhile
        return round(total_kb / 1024, 1)

    def cpu_seconds(self) -> float:
        """CPU time of the worker's processes (main and pool, with pool processes it replaced)."""
        return sum(cpu_seconds(pid) for pid in self._pids())

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes, as a machine that dies would."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.kill()


def celery_flags(data_dir: Path, redis_url: str, visibility_timeout: float = 3600.0) -> list[str]:
    """The flags that point a server or a worker at one data folder and one Redis."""
    return [
        "--data-dir",
        str(data_dir),
        "--jobs.backend",
        "celery",
        "--jobs.broker-url",
        f"{redis_url}/0",
        "--jobs.result-backend",
        f"{redis_url}/1",
        "--jobs.visibility-timeout",
        str(visibility_timeout),
    ]


def started_workers(
    flags: Sequence[str], logs: Path, name: str, count: int, threads: int
) -> list[WorkerProcess]:
    """``count`` Celery workers started with ``flags``, each logging to ``<logs>/<name>-<n>.log``."""
    workers = [WorkerProcess(list(flags), logs / f"{name}-{n}.log", threads=threads) for n in range(count)]
    for worker in workers:
        worker.start()
    return workers


def celery_jobs(redis_url: str) -> dict[str, str]:
    """The ``jobs`` settings of a server that queues its work on ``redis_url`` (as ``celery_flags``)."""
    return {"backend": "celery", "broker_url": f"{redis_url}/0", "result_backend": f"{redis_url}/1"}


class ServeProcess:
    """``clausewise serve`` in its own process on 127.0.0.1 and a free port, the embedded stack."""

    def __init__(self, settings: Settings, log: Path, extra: Sequence[str] = ()) -> None:
        """``extra``: more settings for the server, as ``--section.field value`` arguments."""
        self.port = free_port()
        self.command = [sys.executable, "-m", "clausewise.cli.main"]
        self.command += ["--data-dir", str(settings.paths.data_dir)]
        self.command += ["--models.llm.embedded-model", settings.models.llm.embedded_model, *extra]
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
        peak_kb = status_kb(self.process.pid, "VmHWM")
        if peak_kb is None:
            raise RuntimeError("no VmHWM in /proc: peak memory is measured on Linux only")
        return round(peak_kb / 1024, 1)

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
