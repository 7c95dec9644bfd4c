"""The service's jobs on Celery workers, for real on loopback: a real ``redis-server`` on an
ephemeral port, two real ``clausewise worker`` processes, the API under uvicorn. A data room of 10
ContractNLI documents (as text) plus a corrupt file, checked against four of the NDA hypotheses
with the shipped NLI classifier: the rows equal the local backend's, each exactly once, also when a
worker is killed mid-batch or Redis stops for a few seconds. (Ten documents are enough for two
workers to share and for a worker to be killed while it holds one; the suite ran 20 documents and
17 hypotheses until stop 72, for the same proof in several times the time.)"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from clausewise.core.config import load_settings
from clausewise.service.app import create_app
from clausewise_lab.evals import scale_bench
from clausewise_lab.evals.processes import RedisServer, WorkerProcess, celery_flags
from tests.live import LiveServer, sse_events, wait_job

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed"),
    pytest.mark.timeout(1800),  # 2 x 11 contracts ingested and checked on 2 cores, beside other work
]

DOCUMENTS = 10  # enough for two workers to share; the fault tests take the first 6 and the next 4
#: Four of the NDA suite's hypotheses.
HYPOTHESES = [
    "All Confidential Information shall be expressly identified by the Disclosing Party.",
    "Receiving Party shall not disclose the fact that Agreement was agreed or negotiated.",
    "Receiving Party may share some Confidential Information with some of Receiving Party's employees.",
    "Receiving Party shall destroy or return some Confidential Information upon the termination of "
    "Agreement.",
]
VISIBILITY = 45.0  # seconds before a dead worker's unit goes to another (longer than a unit)
SPEED = {"structure": {"knowledge_graph": False}}  # the graph plays no part in a check


def _settings(data_dir: Path, jobs: dict[str, Any] | None = None):
    return load_settings(overrides={"paths": {"data_dir": str(data_dir)}, **SPEED, "jobs": jobs or {}})


def _flags_of_speed() -> list[str]:
    return ["--structure.knowledge-graph", "false"]


@pytest.fixture(scope="module")
def data_room(bench_data: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The 10 shortest ContractNLI dev documents as text files (49k characters, the first 10 hold
    136k), and one corrupt PDF."""
    folder = tmp_path_factory.mktemp("data-room")
    files = scale_bench.data_room(bench_data, folder, DOCUMENTS, shortest=True)
    corrupt = folder / "broken-lease.pdf"
    corrupt.write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\n%% truncated by a failed copy")
    return [*files, corrupt]


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory):
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def celery_side(hub, redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory):
    """The API with ``jobs.backend = "celery"`` and two workers on one shared data folder."""
    data_dir = tmp_path_factory.mktemp("celery-data")
    logs = tmp_path_factory.mktemp("worker-logs")
    flags = celery_flags(data_dir, redis_server.url, VISIBILITY) + _flags_of_speed()
    workers = [WorkerProcess(flags, logs / f"worker-{n}.log") for n in range(2)]
    for worker in workers:
        worker.start()
    jobs = {
        "backend": "celery",
        "broker_url": f"{redis_server.url}/0",
        "result_backend": f"{redis_server.url}/1",
        "visibility_timeout": VISIBILITY,
    }
    try:
        with LiveServer(create_app(_settings(data_dir, jobs), hub=hub)) as live:
            yield live, workers
    finally:
        for worker in workers:
            worker.stop()


def _submit(client: httpx.Client, files: list[Path], **form: Any) -> str:
    handles = [("files", (path.name, path.read_bytes())) for path in files]
    response = client.post("/v1/batches", data={"kind": "check", **form}, files=handles)
    assert response.status_code == 202, response.text
    return response.json()["id"]


def _cells(rows: list[dict[str, Any]]) -> dict[tuple[str, str], Any]:
    """(contract, hypothesis) -> what decides the row (label, confidence, evidence offsets); each
    row exactly once."""
    cells: dict[tuple[str, str], Any] = {}
    for row in rows:
        result = row["result"]
        key = (row["contract_id"], result["key"] if result else "error")
        assert key not in cells, f"duplicate row {key}"
        cells[key] = (
            (
                result["label"],
                round(result["confidence"], 4),
                [(*e["span"], e["quote"]) for e in result["evidence"]],
            )
            if result
            else row["error"]
        )
    return cells


def _row_events(client: httpx.Client, job_id: str) -> list[dict[str, Any]]:
    """The rows the job's event stream showed (replayed in full: the job has finished)."""
    with client.stream("GET", f"/v1/jobs/{job_id}/events") as response:
        assert response.status_code == 200
        return [json.loads(data) for name, data in sse_events(response) if name == "row"]


def test_a_data_room_on_two_workers_equals_the_local_backend(
    hub, celery_side, data_room: list[Path], tmp_path: Path
) -> None:
    live, _workers = celery_side
    with live.client(timeout=300) as client:
        celery_job = wait_job(client, _submit(client, data_room, hypotheses=HYPOTHESES), timeout=1800)
        assert celery_job["status"] == "done", celery_job
        rows = client.get(f"/v1/jobs/{celery_job['id']}/result").json()["rows"]
        resubmitted = wait_job(client, _submit(client, data_room, hypotheses=HYPOTHESES), timeout=300)
        again = client.get(f"/v1/jobs/{resubmitted['id']}/result").json()["rows"]

    with (
        LiveServer(create_app(_settings(tmp_path / "local"), hub=hub)) as local,
        local.client(timeout=300) as client,
    ):
        local_job = wait_job(client, _submit(client, data_room, hypotheses=HYPOTHESES), timeout=1800)
        assert local_job["status"] == "done", local_job
        local_rows = client.get(f"/v1/jobs/{local_job['id']}/result").json()["rows"]

    cells = _cells(rows)
    hypotheses = {key for _contract, key in cells if key != "error"}
    assert len(hypotheses) == len(HYPOTHESES)
    assert len(cells) == DOCUMENTS * len(hypotheses) + 1
    assert (
        "corrupt" in cells[("broken-lease.pdf", "error")].lower()
        or "pdf" in cells[("broken-lease.pdf", "error")].lower()
    )
    assert cells == _cells(local_rows)
    assert {row["contract_id"] for row in rows} == {row["contract_id"] for row in local_rows}
    # Submitted again: every row read back from the stored unit results, none worked out anew.
    assert _cells(again) == cells
    assert all(row["resumed"] for row in again if row["result"])


def _rows_so_far(client: httpx.Client, job_id: str) -> int:
    return client.get(f"/v1/jobs/{job_id}").json()["progress"]["done"]


def _wait_rows(client: httpx.Client, job_id: str, rows: int, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while _rows_so_far(client, job_id) < rows:
        assert time.monotonic() < deadline, "the batch made no progress"
        time.sleep(0.2)


def test_a_worker_killed_mid_batch_loses_and_duplicates_nothing(celery_side, data_room: list[Path]) -> None:
    live, workers = celery_side
    files = data_room[:6]
    hypotheses = [
        "The Receiving Party may retain some Confidential Information.",
        "The Agreement shall not grant the Receiving Party any right to the Confidential Information.",
    ]
    with live.client(timeout=120) as client:
        job_id = _submit(client, files, hypotheses=hypotheses)
        _wait_rows(client, job_id, 4)
        workers[0].kill()  # SIGKILL: the unit it held is unacknowledged and goes to the other
        job = wait_job(client, job_id, timeout=900)
        assert job["status"] == "done", job
        cells = _cells(client.get(f"/v1/jobs/{job_id}/result").json()["rows"])
        assert len(cells) == len(files) * len(hypotheses)
        assert len(_row_events(client, job_id)) == len(cells)  # the table never showed a row twice
        assert job["progress"]["done"] == len(cells)
    workers[0].start()


def test_redis_stopped_mid_batch_and_started_again(celery_side, redis_server, data_room: list[Path]) -> None:
    live, _workers = celery_side
    files = data_room[6:10]
    hypotheses = ["Confidential Information shall only include technical information."]
    with live.client(timeout=120) as client:
        job_id = _submit(client, files, hypotheses=hypotheses)
        _wait_rows(client, job_id, 2)
        redis_server.stop()
        time.sleep(4)
        redis_server.start()
        job = wait_job(client, job_id, timeout=900)
        assert job["status"] == "done", job
        cells = _cells(client.get(f"/v1/jobs/{job_id}/result").json()["rows"])
        assert len(cells) == len(files) * len(hypotheses)
        assert len(_row_events(client, job_id)) == len(cells)


def test_a_celery_server_without_redis_says_so(hub, tmp_path: Path) -> None:
    from clausewise_lab.evals.processes import free_port

    url = f"redis://127.0.0.1:{free_port()}"
    jobs = {
        "backend": "celery",
        "broker_url": f"{url}/0",
        "result_backend": f"{url}/1",
        "redis_wait_seconds": 2,
    }
    app = create_app(_settings(tmp_path, jobs), hub=hub)
    with LiveServer(app) as live, live.client(timeout=120) as client:
        path = tmp_path / "nda.txt"
        path.write_text("1. Confidentiality. The Recipient shall keep it secret.\n", encoding="utf-8")
        job = wait_job(client, _submit(client, [path], suite="nda"), timeout=120)
    assert job["status"] == "failed"
    assert job["error"]["code"] == "queue_unavailable"
    assert "redis" in job["error"]["hint"].lower()
