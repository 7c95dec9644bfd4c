"""A Redis outage at the moment a unit's state is stored or read, against a real ``redis-server``
on loopback (no worker processes: the moments are made on purpose here, where the batch tests in
``test_scale_celery`` can only hope to hit them).

What must hold: a worker that finishes a unit while Redis is down keeps its result until Redis is
back (it used to record the unit as failed, with the connection error, once Redis returned); a
server whose read of a finished unit fails follows that unit again instead of losing it."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from celery.exceptions import BackendStoreError

from clausewise.core.config import load_settings
from clausewise.service.celery_backend import CeleryExecutor, make_celery
from clausewise.service.jobs import Job
from clausewise.service.tasks import Unit
from clausewise_lab.evals.processes import RedisServer

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")


@pytest.fixture
def redis_server(tmp_path: Path):
    server = RedisServer(tmp_path / "redis").start()
    yield server
    server.stop()


def _settings(server: RedisServer):
    jobs = {"backend": "celery", "broker_url": f"{server.url}/0", "result_backend": f"{server.url}/1"}
    return load_settings(overrides={"jobs": jobs})


def _unit(job_id: str, key: str) -> Unit:
    return Unit(job_id=job_id, tenant="default", kind="check", key=key)


class _NoEvents:
    """The job's side of a unit's events, which these tests do not look at; never cancelled."""

    def event(self, name: str, data: Any = None) -> None:
        """Nothing to keep: the units here send no events."""

    def cancelled(self) -> bool:
        return False


@pytest.mark.timeout(120)
@pytest.mark.parametrize("state", ["STARTED", "SUCCESS"])
def test_a_state_stored_in_an_outage_is_kept_for_redis(redis_server: RedisServer, state: str) -> None:
    settings = _settings(redis_server)
    worker = make_celery(settings, worker_threads=1)
    server = make_celery(settings)
    task_id = _unit("outage-job", "contract-a").task_id
    failed: list[Exception] = []

    def store() -> None:
        try:
            worker.backend.store_result(task_id, {"output": {"rows": 1}}, state)
        except (redis.exceptions.RedisError, BackendStoreError) as error:  # what giving up raises
            failed.append(error)

    redis_server.stop()
    storing = threading.Thread(target=store)
    storing.start()
    time.sleep(2.0)
    assert storing.is_alive(), "the store gave up while Redis was down"
    redis_server.start()
    storing.join(90)
    assert not storing.is_alive() and not failed, failed
    meta = server.backend.get_task_meta(task_id)
    assert meta["status"] == state
    assert meta["result"] == {"output": {"rows": 1}}


@pytest.mark.timeout(120)
def test_a_failed_read_of_a_finished_unit_is_read_again(redis_server: RedisServer) -> None:
    settings = _settings(redis_server)
    worker = make_celery(settings, worker_threads=1)
    units = [_unit("follow-job", "contract-a"), _unit("follow-job", "contract-b")]
    for n, unit in enumerate(units):
        worker.backend.store_result(unit.task_id, {"output": {"rows": n}}, "SUCCESS")
    executor = CeleryExecutor(settings, local=None, poll_seconds=0.05)  # type: ignore[arg-type]
    real_result = executor.app.AsyncResult
    reads: list[str] = []

    class _FirstReadFails:
        """The unit's result, whose first read meets a Redis restarting."""

        def __init__(self, task_id: str) -> None:
            self._real = real_result(task_id)

        def __getattr__(self, name: str) -> Any:
            if len(reads) == 1:
                reads.append("failed")
                raise redis.exceptions.ConnectionError("Redis restarted between the poll and the read")
            return getattr(self._real, name)

    def flaky_result(task_id: str) -> Any:
        reads.append(task_id)
        return _FirstReadFails(task_id)

    executor.app.AsyncResult = flaky_result  # type: ignore[method-assign]
    executor._send = lambda unit: None  # type: ignore[method-assign]  # the units have already run
    job = Job(id="follow-job", tenant="default", kind="check", status="running", created_at=time.time())
    outputs = executor.execute(job, units, _NoEvents())  # type: ignore[arg-type]
    assert outputs == [{"rows": 0}, {"rows": 1}]
    assert reads[:3] == [units[0].task_id, "failed", units[0].task_id]  # the failed read was made again
