"""The in-process job runner: ``workers`` threads take the oldest queued job, run its task and
record the outcome. One model per process, so model work waits its turn in the queue, whose
position every queued job reports.

A failure becomes the job's error in the API's envelope (the same code, message and hint a
refusal would carry) and a log line; a cancelled job stops at its next step.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from clausewise.core.errors import ClausewiseError
from clausewise.runtime import Runtime
from clausewise.service.errors import error_body
from clausewise.service.jobs import Job, JobProgress, JobStore
from clausewise.service.tasks import TASKS, JobCancelled

log = logging.getLogger(__name__)


class StoreContext:
    """A running job's :class:`~clausewise.service.tasks.TaskContext` backed by the job store."""

    def __init__(self, store: JobStore, job: Job) -> None:
        self.store = store
        self.job_id = job.id
        self._checked = 0.0
        self._cancelled = False

    def event(self, name: str, data: Any = None) -> None:
        self.store.add_event(self.job_id, name, data)

    def progress(self, done: int, total: int | None, note: str = "") -> None:
        self.store.set_progress(self.job_id, JobProgress(done=done, total=total, note=note))

    def cancelled(self) -> bool:
        now = time.monotonic()
        if not self._cancelled and now - self._checked > 0.2:  # one read per step is plenty
            self._checked = now
            self._cancelled = self.store.cancel_requested(self.job_id)
        return self._cancelled


def run_job(job: Job, store: JobStore, runtime_for: Callable[[str], Runtime]) -> None:
    """Run one claimed job to its end and record how it ended."""
    started = time.perf_counter()
    extra = {"tenant": job.tenant, "job": job.id, "kind": job.kind}
    try:
        result = TASKS[job.kind](job.request, runtime_for(job.tenant), StoreContext(store, job))
    except JobCancelled:
        store.finish(job.id, "cancelled")
        log.info("job cancelled", extra=extra)
    except ClausewiseError as error:
        store.finish(job.id, "failed", error=error_body(error)["error"])
        log.warning(
            "job failed: %s", error, extra={**extra, "seconds": round(time.perf_counter() - started, 2)}
        )
    except Exception as error:  # the job boundary: a bug fails its job, not the service
        log.exception("job crashed", extra=extra)
        store.finish(
            job.id,
            "failed",
            error={
                "code": "internal_error",
                "message": f"the job failed unexpectedly ({type(error).__name__})",
                "hint": "it was logged; submit it again or report it",
            },
        )
    else:
        store.finish(job.id, "done", result=result)
        log.info("job done", extra={**extra, "seconds": round(time.perf_counter() - started, 2)})


class LocalRunner:
    """Worker threads in the server process."""

    def __init__(self, store: JobStore, runtime_for: Callable[[str], Runtime], workers: int = 1) -> None:
        self.store = store
        self.runtime_for = runtime_for
        self.workers = workers
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        recovered = self.store.recover()
        if any(recovered.values()):
            log.warning("jobs left running by a stopped server: %s", recovered)
        for number in range(self.workers):
            thread = threading.Thread(target=self._work, name=f"clausewise-job-{number}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        while not self._stopping.is_set():
            job = self.store.claim()
            if job is None:
                self.store.wait(0.5)
                continue
            run_job(job, self.store, self.runtime_for)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop taking jobs; a job still running after ``timeout`` is accounted for at the next
        start (queued again or failed with the reason)."""
        self._stopping.set()
        with self.store.changed:
            self.store.changed.notify_all()
        for thread in self._threads:
            thread.join(timeout)
