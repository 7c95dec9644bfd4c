"""The ``celery`` jobs backend: units run on ``clausewise worker`` processes, on this machine or
others, with Redis as broker and result store.

The server still owns its jobs (the job store, their events, cancel, restart recovery); for each
job it sends the units to the queue and follows them: a unit's events come back through a Redis
list as the worker emits them (so a batch's table fills as units finish), its result through
Celery's result backend. Workers share the data directory with the server (a shared volume): they
read and write the same indexes, journals and stored unit results.

Delivery is at least once: a unit is acknowledged only when it has finished (``acks_late``), one
at a time per worker process (prefetch 1), and a worker that dies mid-unit leaves it to another
after ``jobs.visibility_timeout``; units are idempotent (see :mod:`clausewise.service.tasks`), so
a unit run twice still yields each row once. Transient failures (a model server or the index
being busy) are retried with backoff; a bad input fails once with its clear error.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis
from celery import Celery
from celery.backends.redis import RedisBackend
from celery.exceptions import SoftTimeLimitExceeded
from kombu.exceptions import OperationalError

from clausewise.core.config import Settings, with_overrides
from clausewise.core.errors import ClausewiseError
from clausewise.runtime import ModelHub, Runtime
from clausewise.service.errors import ApiError, error_body, status_for_code
from clausewise.service.jobs import Job
from clausewise.service.runner import LocalExecutor, StoreContext
from clausewise.service.tasks import TRANSIENT as UNIT_TRANSIENT
from clausewise.service.tasks import JobCancelled, Unit, run_unit

log = logging.getLogger(__name__)

UNIT_TASK = "clausewise.unit"
#: Kinds that stay in the server process: a chat thread's state lives with the server.
LOCAL_KINDS = frozenset({"message"})
TRANSIENT = (*UNIT_TRANSIENT, redis.exceptions.ConnectionError)
_UNAVAILABLE = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, OperationalError)
#: Tries a worker makes to store a unit's state, up to 5 s apart (with jitter: about 2.5 s on
#: average, so about two minutes of outage in all).
RESULT_STORE_RETRIES = 50


def events_key(task_id: str) -> str:
    return f"clausewise:events:{task_id}"


def cancel_key(job_id: str) -> str:
    return f"clausewise:cancel:{job_id}"


T = TypeVar("T")


def while_redis_is_down(action: Callable[[], T], what: str, give_up_after: float, first_delay: float) -> T:
    """``action()``, retried with doubling delays (at most 10 s) while Redis is unavailable, for
    up to ``give_up_after`` seconds; then its last error is raised. A restart of Redis (a few
    seconds) should cost a wait, not a unit or a job."""
    deadline = time.monotonic() + give_up_after
    delay = first_delay
    while True:
        try:
            return action()
        except _UNAVAILABLE as error:
            if time.monotonic() + delay > deadline:
                raise
            log.warning("Redis unavailable to %s (%s); retrying in %.1f s", what, error, delay)
            time.sleep(delay)
            delay = min(10.0, delay * 2)


class RedisContext:
    """A unit's :class:`~clausewise.service.tasks.TaskContext` on a worker: events go to a Redis
    list the server follows; a cancel is a key the server sets.

    A Redis outage mid-unit does not fail the unit: an event waits (with backoff, up to
    ``outage_seconds``) for Redis to come back, because Celery's own retry needs the broker too
    and, with it down, turns the retry into a final rejection. A cancel check during an outage
    answers with what it last knew."""

    retries = True

    def __init__(self, client: redis.Redis, unit: Unit, outage_seconds: float = 120.0) -> None:
        self.client = client
        self.job_id = unit.job_id
        self.key = events_key(unit.task_id)
        self.outage_seconds = outage_seconds
        self._checked = 0.0
        self._cancelled = False

    def event(self, name: str, data: Any = None) -> None:
        payload = json.dumps([name, data], default=str)

        def push() -> None:
            self.client.rpush(self.key, payload)
            self.client.expire(self.key, 86400)

        while_redis_is_down(push, f"record an event of job {self.job_id}", self.outage_seconds, 0.25)

    def cancelled(self) -> bool:
        now = time.monotonic()
        if not self._cancelled and now - self._checked > 0.5:
            self._checked = now
            with contextlib.suppress(*_UNAVAILABLE):
                self._cancelled = bool(self.client.exists(cancel_key(self.job_id)))
        return self._cancelled


class PollingRedisBackend(RedisBackend):
    """Celery's Redis result backend, read by polling (a GET per unit) rather than through a
    pub/sub subscription per task: after a Redis outage that subscription gives up for good
    ("the Celery application must be restarted"), where a poll simply succeeds again."""

    def on_task_call(self, producer: Any, task_id: str) -> None:
        """Do not subscribe to the task's result channel (see the class)."""


def make_celery(settings: Settings, worker_threads: int | None = None) -> Celery:
    """The Celery app of the server (to send units; ``worker_threads`` None) or of a worker (to
    run them; ``worker_threads`` is each worker process's share of the cores for its models)."""
    worker = worker_threads is not None
    jobs = settings.jobs
    backend = f"{__name__}:{PollingRedisBackend.__name__}+{jobs.result_backend}"
    app = Celery("clausewise", broker=jobs.broker_url, backend=backend)
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_default_queue=jobs.queue,
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        task_track_started=True,
        worker_prefetch_multiplier=1,
        worker_max_tasks_per_child=jobs.max_tasks_per_child,
        broker_transport_options={"visibility_timeout": jobs.visibility_timeout},
        # a worker keeps trying to store a unit's result through a Redis restart (a result lost
        # there would leave the job waiting); the server's reads give up sooner and poll again
        result_backend_transport_options={"retry_policy": {"timeout": 60.0 if worker else 5.0}},
        # The retry policy above covers only the write: storing a state first reads the stored
        # one, and that read, failing in an outage, made Celery record the unit as failed with
        # the connection error once Redis was back. The worker retries the whole store instead.
        result_backend_always_retry=worker,
        result_backend_max_retries=RESULT_STORE_RETRIES,
        result_backend_max_sleep_between_retries_ms=5000,
        result_expires=7 * 86400,
        broker_connection_retry_on_startup=True,
        worker_hijack_root_logger=False,
    )
    state: dict[str, Any] = {}  # this process's models and Redis client, made on first use

    @app.task(name=UNIT_TASK, bind=True)
    def unit_task(task: Any, unit: dict[str, Any]) -> dict[str, Any]:
        """Run one unit on this worker: its output, ``cancelled``, or its refusal as an error."""
        work = Unit(**unit)
        if "hub" not in state:
            state["hub"] = ModelHub(threads=worker_threads or 0)
            state["redis"] = redis.Redis.from_url(jobs.result_backend)
        tenant_settings = with_overrides(settings, {"paths": {"tenant": work.tenant}})
        runtime = Runtime(tenant_settings, hub=state["hub"])
        try:
            context = RedisContext(
                state["redis"], work, outage_seconds=min(300.0, jobs.visibility_timeout / 2)
            )
            return {"output": run_unit(work, runtime, context)}
        except JobCancelled:
            return {"cancelled": True}
        except SoftTimeLimitExceeded:
            limit = f"jobs.{'ask' if work.kind == 'message' else work.kind}_seconds"
            log.warning("unit %s stopped at its time limit (%s)", work.task_id, limit)
            return {
                "error": {
                    "code": "time_limit",
                    "message": f"the {work.kind} of {work.key} took longer than its time limit ({limit})",
                    "hint": f"raise {limit} on the workers, or split the work",
                }
            }
        except TRANSIENT as error:
            retries = task.request.retries
            log.warning("unit %s: transient failure, retry %d: %s", work.task_id, retries + 1, error)
            raise task.retry(exc=error, countdown=min(60, 2**retries), max_retries=jobs.retries) from error
        except ClausewiseError as error:
            log.warning("unit %s refused: %s", work.task_id, error, extra={"tenant": work.tenant})
            return {"error": error_body(error)["error"]}

    return app


def _copy_events(raws: list[bytes], context: StoreContext) -> int:
    """Copy a unit's events, as read from its Redis list, into its job's; returns how many."""
    for raw in raws:
        name, data = json.loads(raw)
        context.event(name, data)
    return len(raws)


class CeleryExecutor:
    """Send a job's units to the workers and follow them to the end (server side)."""

    def __init__(self, settings: Settings, local: LocalExecutor, poll_seconds: float = 0.2) -> None:
        self.settings = settings
        self.local = local
        self.poll_seconds = poll_seconds
        self.app = make_celery(settings)
        self.client = redis.Redis.from_url(settings.jobs.result_backend, socket_timeout=5)

    def execute(self, job: Job, units: list[Unit], context: StoreContext) -> list[Any]:
        if job.kind in LOCAL_KINDS:
            return self.local.execute(job, units, context)
        self._retrying(lambda: [self._send(unit) for unit in units], "send the units")
        pending = {unit.task_id: unit for unit in units}
        seen = dict.fromkeys(pending, 0)
        outputs: dict[str, Any] = {}
        delay = self.poll_seconds
        while pending:
            if context.cancelled():
                self._cancel(job, list(pending))
                raise JobCancelled
            try:
                for task_id in self._poll(list(pending), seen, context):
                    seen[task_id] = self._relay(task_id, seen[task_id], context)
                    # still pending until its result is read: a read that fails is polled again
                    outputs[task_id] = self._output(self.app.AsyncResult(task_id), pending[task_id])
                    del pending[task_id]
                delay = self.poll_seconds
            except _UNAVAILABLE as error:
                delay = min(10.0, delay * 2)
                log.warning(
                    "Redis unavailable while following job %s (%s); retrying in %.1f s", job.id, error, delay
                )
            time.sleep(delay)
        return [outputs[unit.task_id] for unit in units]

    def _send(self, unit: Unit) -> None:
        jobs = self.settings.jobs
        limit = jobs.time_limit(unit.kind)
        self.app.send_task(
            UNIT_TASK,
            args=[unit.as_dict()],
            task_id=unit.task_id,
            queue=jobs.queue,
            time_limit=limit + 30.0,  # the hard stop, if the soft one is not heard
            soft_time_limit=limit,
        )

    def _poll(self, task_ids: list[str], seen: dict[str, int], context: StoreContext) -> list[str]:
        """Relay every pending unit's new events and return the units that have finished, in one
        round trip to Redis for all of them.

        Why one round trip: a data room follows one unit per contract, and two requests per unit
        every ``poll_seconds`` (a 50-contract room: 500 a second) cost the server a share of the
        cores the workers need. ``seen`` is updated in place. A finished unit's events are read
        once more by the caller: an event pushed between this read of its list and the read of
        its result would otherwise be lost."""
        backend = self.app.backend
        pipe = self.client.pipeline(transaction=False)
        for task_id in task_ids:
            pipe.lrange(events_key(task_id), seen[task_id], -1)
            pipe.get(backend.get_key_for_task(task_id))
        replies = pipe.execute()
        finished = []
        for n, task_id in enumerate(task_ids):
            events, meta = replies[2 * n], replies[2 * n + 1]
            seen[task_id] += _copy_events(events, context)
            if meta is not None and backend.decode(meta)["status"] in ("SUCCESS", "FAILURE"):
                finished.append(task_id)
        return finished

    def _relay(self, task_id: str, seen: int, context: StoreContext) -> int:
        """Copy the unit's new events into the job's; returns how many were copied in all."""
        return seen + _copy_events(self.client.lrange(events_key(task_id), seen, -1), context)

    def _output(self, result: Any, unit: Unit) -> Any:
        value = result.result
        if result.state == "FAILURE" or not isinstance(value, dict):
            raise ClausewiseError(f"unit {unit.key} of the job failed on its worker ({value!r})"[:500])
        if value.get("cancelled"):
            raise JobCancelled
        if "error" in value:
            error = value["error"]
            raise ApiError(
                status_for_code(error["code"]), error["code"], error["message"], hint=error.get("hint", "")
            )
        return value["output"]

    def _cancel(self, job: Job, task_ids: list[str]) -> None:
        with contextlib.suppress(*_UNAVAILABLE):
            self.client.set(cancel_key(job.id), "1", ex=86400)
            for task_id in task_ids:
                self.app.control.revoke(task_id)

    def _retrying(self, action: Callable[[], T], what: str) -> T:
        """``action()`` through a Redis restart (``jobs.redis_wait_seconds`` of retries), then a
        503 the client can act on."""
        wait = self.settings.jobs.redis_wait_seconds
        try:
            return while_redis_is_down(action, what, give_up_after=wait, first_delay=min(0.5, wait / 4))
        except _UNAVAILABLE as error:
            raise ApiError(
                503,
                "queue_unavailable",
                f"could not {what}: Redis is unavailable ({error})",
                hint="check that redis-server runs at jobs.broker_url",
            ) from error


def run_worker(
    settings: Settings, concurrency: int, queues: list[str], loglevel: str = "INFO", threads: int = 0
) -> None:
    """Run a Celery worker of ``concurrency`` processes (blocks until it is stopped): prefetch 1,
    late acknowledgement, each process recycled after ``jobs.max_tasks_per_child`` units, its
    models on ``threads`` cores (default: the machine's cores shared between the processes)."""
    threads = threads or max(1, (os.cpu_count() or 1) // concurrency)
    app = make_celery(settings, worker_threads=threads)
    app.worker_main(
        argv=[
            "worker",
            f"--loglevel={loglevel}",
            f"--concurrency={concurrency}",
            f"--queues={','.join(queues or [settings.jobs.queue])}",
            "--prefetch-multiplier=1",
            f"--max-tasks-per-child={settings.jobs.max_tasks_per_child}",
            f"--hostname=clausewise-{os.getpid()}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
    )
