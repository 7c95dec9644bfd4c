"""The viewer's page images, drawn in processes of their own, each drawing within a budget.

Why processes: PyMuPDF holds Python's GIL while it draws a page. Drawn on the server's threads,
four images of a page at the pixel bound (0.45 s each) held every other request of every tenant
back: another tenant's small request went from 0.03 s to a p95 of 1.7 s. Drawn in a worker
process, the server only waits for the PNG's bytes.

Why a budget: a page can be built to be slow to draw (hundreds of thousands of vector paths) or
to need a great deal of memory. Each drawing may use ``cpu_seconds`` of its worker's CPU time, set
as the worker's ``RLIMIT_CPU`` before it starts (time spent waiting for a worker does not count),
and each worker has ``memory_mb`` of address space (``RLIMIT_AS``). Past its CPU time the kernel
ends the worker; the pool is replaced, and the page is refused with :class:`TooCostlyToDraw`.
Drawings wait for a free worker outside the pool, so the only others lost with it are those under
way in its other workers: they are drawn once more in the new pool (a page lost twice is refused).

The pool is made on the first image (a server that shows none starts no process) with the
*spawn* start method (forking a process that runs threads and holds models is unsafe), and shut
down with the service.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import resource
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from clausewise.core.errors import TooCostlyToDraw
from tools.rendering import page_png

#: How many times a drawing is tried: once more when its pool was lost to another page's drawing.
ATTEMPTS = 2


def _lower(kind: int, wanted: int) -> None:
    """Set the soft limit ``kind`` to ``wanted``, within the hard limit the process was given."""
    _soft, hard = resource.getrlimit(kind)
    resource.setrlimit(kind, (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard))


def _limit_worker(memory_mb: int) -> None:
    """A new worker's limits: its address space, and no core file when the CPU limit ends it."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _lower(resource.RLIMIT_AS, memory_mb * 1024 * 1024)


def _draw(path: str, number: int, scale: float, cpu_seconds: float) -> bytes:
    """In a worker: the page's PNG, the worker's CPU time limited to what it has used so far plus
    ``cpu_seconds`` (the limit is whole seconds, so it is rounded up)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    limit = math.ceil(used.ru_utime + used.ru_stime + cpu_seconds)
    _lower(resource.RLIMIT_CPU, limit)
    return page_png(Path(path), number, scale)


@dataclass
class PageImages:
    """Draws page images in ``processes`` worker processes, made on first use."""

    processes: int
    cpu_seconds: float
    memory_mb: int
    _pool: ProcessPoolExecutor | None = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False)
    _waiting: asyncio.Semaphore | None = field(default=None, init=False)

    async def png(self, path: Path, number: int, scale: float) -> bytes:
        """Page ``number`` of ``path`` as PNG (see :func:`tools.rendering.page_png`)."""
        async with self._turns():
            for _attempt in range(ATTEMPTS):
                pool = self._current()
                try:
                    return await asyncio.wrap_future(
                        pool.submit(_draw, str(path), number, scale, self.cpu_seconds)
                    )
                except BrokenProcessPool:
                    self._replace(pool)
        raise TooCostlyToDraw(
            f"page {number} could not be drawn within its budget ({self.cpu_seconds:g} s of CPU"
            f" time, {self.memory_mb} MB of memory): the process drawing it was stopped",
            hint="show its text (GET .../text), or ask for a smaller scale",
        )

    def close(self) -> None:
        """Stop the workers (a drawing under way ends within its budget)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def _current(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    self.processes,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_limit_worker,
                    initargs=(self.memory_mb,),
                )
            return self._pool

    def _turns(self) -> asyncio.Semaphore:
        """At most one drawing per worker: the others wait here, not in the pool's queue, so a
        worker's death loses only drawings that were under way (see the module)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._waiting is None or self._loop is not loop:
                self._loop, self._waiting = loop, asyncio.Semaphore(self.processes)
            return self._waiting

    def _replace(self, broken: ProcessPoolExecutor) -> None:
        """Drop a pool a worker died in (the next drawing makes a new one), once, whichever of the
        drawings lost with it gets here first."""
        with self._lock:
            if self._pool is not broken:
                return  # another drawing lost with it has replaced it already
            self._pool = None
        broken.shutdown(wait=False, cancel_futures=True)
