"""Running jobs: ``workers`` threads of the server take the oldest queued job, split it into units
(:mod:`clausewise.service.tasks`), have them executed, and record the outcome. One model per
process, so model work waits its turn in the queue, whose position every queued job reports.

Where units execute is the backend's business (``jobs.backend``): in these threads (``local``),
or on Celery workers (``celery``, :mod:`clausewise.service.celery_backend`); the units, and so
the results, are the same. A failure becomes the job's error in the API's envelope (the same
code, message and hint a refusal would carry) and a log line; a cancelled job stops at its next
step.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from opentelemetry import trace

from clausewise.core.errors import ClausewiseError
from clausewise.core.tracing import context_of, tracer
from clausewise.runtime import Runtime
from clausewise.service.errors import error_body
from clausewise.service.jobs import TRACE_KEY, Job, JobProgress, JobStore
from clausewise.service.tasks import JobCancelled, Unit, assemble, batch_size, plan, run_unit

log = logging.getLogger(__name__)


class StoreContext:
    """A running job's :class:`~clausewise.service.tasks.TaskContext`, backed by the job store:
    events are stored in order, each decided row advances the job's progress."""

    retries = False

    def __init__(self, store: JobStore, job: Job) -> None:
        self.store = store
        self.job_id = job.id
        self.total = batch_size(job)
        self.done = 0
        self._rows: set[str] = set()
        self._checked = 0.0
        self._cancelled = False

    def event(self, name: str, data: Any = None) -> None:
        if name == "row" and not self._first_time(data):
            return  # a unit delivered again (its worker died) repeats the rows it had sent
        self.store.add_event(self.job_id, name, data)
        if name == "row":
            self.done += 1
            note = data.get("contract_id", "") if isinstance(data, dict) else ""
            self.store.set_progress(self.job_id, JobProgress(done=self.done, total=self.total, note=note))

    def _first_time(self, row: Any) -> bool:
        if not isinstance(row, dict):
            return True
        result = row.get("result") or {}
        identity = json.dumps([row.get("contract_id"), result.get("key"), row.get("error")])
        if identity in self._rows:
            return False
        self._rows.add(identity)
        return True

    def cancelled(self) -> bool:
        now = time.monotonic()
        if not self._cancelled and now - self._checked > 0.2:  # one read per step is plenty
            self._checked = now
            self._cancelled = self.store.cancel_requested(self.job_id)
        return self._cancelled


class Executor(Protocol):
    def execute(self, job: Job, units: list[Unit], context: StoreContext) -> list[Any]:
        """The units' results, in order (raising what a unit raised, or JobCancelled)."""
        ...


class LocalExecutor:
    """Units run in the calling thread, one after the other."""

    def __init__(self, runtime_for: Callable[[str], Runtime]) -> None:
        self.runtime_for = runtime_for

    def execute(self, job: Job, units: list[Unit], context: StoreContext) -> list[Any]:
        runtime = self.runtime_for(job.tenant)
        outputs = []
        for unit in units:
            if context.cancelled():
                raise JobCancelled
            outputs.append(run_unit(unit, runtime, context))
        return outputs


def run_job(
    job: Job, store: JobStore, executor: Executor, on_end: Callable[[Job], None] | None = None
) -> None:
    """Run one claimed job to its end, record how it ended, then ``on_end(job)`` (what the job
    leaves behind, its uploads, is cleared whatever the outcome)."""
    try:
        _run(job, store, executor)
    finally:
        if on_end is not None:
            on_end(job)


def _run(job: Job, store: JobStore, executor: Executor) -> None:
    """The job in a ``clausewise.job`` span, a child of the request that queued it."""
    attributes = {"clausewise.tenant": job.tenant, "clausewise.job": job.id, "clausewise.job.kind": job.kind}
    with tracer().start_as_current_span(
        f"job {job.kind}",
        context=context_of(job.request.get(TRACE_KEY)),
        kind=trace.SpanKind.CONSUMER,
        attributes={**attributes, **_contract_attributes(job.request)},
    ) as span:
        status = _run_traced(job, store, executor)
        span.set_attribute("clausewise.job.status", status)
        if status == "failed":
            span.set_status(trace.Status(trace.StatusCode.ERROR))


def _contract_attributes(request: dict[str, Any]) -> dict[str, Any]:
    contract, version = request.get("contract"), request.get("version")
    return {
        **({"clausewise.contract": contract} if isinstance(contract, str) else {}),
        **({"clausewise.contract.version": version} if isinstance(version, int) else {}),
    }


def _run_traced(job: Job, store: JobStore, executor: Executor) -> str:
    """Run the job and record how it ended; that status is returned."""
    started = time.perf_counter()
    extra = {"tenant": job.tenant, "job": job.id, "kind": job.kind}
    context = StoreContext(store, job)
    try:
        result = assemble(job, executor.execute(job, plan(job), context))
    except JobCancelled:
        store.finish(job.id, "cancelled")
        log.info("job cancelled", extra=extra)
        return "cancelled"
    except ClausewiseError as error:
        store.finish(job.id, "failed", error=error_body(error)["error"])
        seconds = round(time.perf_counter() - started, 2)
        log.warning("job failed: %s", error, extra={**extra, "seconds": seconds})
        return "failed"
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
        return "failed"
    else:
        if context.total > 1:
            store.set_progress(job.id, JobProgress(done=context.total, total=context.total))
        store.finish(job.id, "done", result=result)
        log.info("job done", extra={**extra, "seconds": round(time.perf_counter() - started, 2)})
        return "done"


class LocalRunner:
    """Worker threads in the server process, taking jobs from the store."""

    def __init__(
        self,
        store: JobStore,
        executor: Executor,
        workers: int = 1,
        on_end: Callable[[Job], None] | None = None,
    ) -> None:
        self.store = store
        self.executor = executor
        self.workers = workers
        self.on_end = on_end
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
            run_job(job, self.store, self.executor, self.on_end)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop taking jobs; a job still running after ``timeout`` is accounted for at the next
        start (queued again or failed with the reason)."""
        self._stopping.set()
        with self.store.changed:
            self.store.changed.notify_all()
        for thread in self._threads:
            thread.join(timeout)
