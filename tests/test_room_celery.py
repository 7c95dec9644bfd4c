"""A data room (and a playbook review) on Celery workers, for real on loopback: a
``redis-server`` on an ephemeral port, two ``clausewise worker`` processes, the API under uvicorn.
Five contracts (the examples and variants of the services agreement under other laws) are
uploaded and ingested by the workers, then asked three questions: a unit per contract, its
indexes opened once; the cells equal the local backend's, each exactly once; asked again, every
cell is read back from the stored unit results; two of them are then reviewed against the
built-in commercial playbook, with the same verdicts as the local backend's. The shipped
classifiers decide; no language model (``decision.model_decides`` off)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest

from clausewise.core.config import load_settings
from clausewise.service.app import create_app
from clausewise_lab.evals.processes import RedisServer, WorkerProcess, celery_flags
from tests.conftest import EXAMPLES
from tests.live import LiveServer, sse_events, wait_job

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed"),
    pytest.mark.timeout(1500),
]

QUESTIONS = [
    "Which law governs the agreement?",
    "When does the agreement expire?",
    "Is there a non-compete clause?",
]
SPEED = {"structure": {"knowledge_graph": False}, "decision": {"model_decides": False}}
FLAGS = ["--structure.knowledge-graph", "false", "--decision.model-decides", "false"]


def _settings(data_dir: Path, jobs: dict[str, Any] | None = None):
    return load_settings(overrides={"paths": {"data_dir": str(data_dir)}, **SPEED, "jobs": jobs or {}})


@pytest.fixture(scope="module")
def room_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("room-files")
    files = []
    for name in ("mutual-nda.txt", "services-agreement.txt"):
        files.append(folder / name)
        shutil.copyfile(EXAMPLES / name, files[-1])
    text = (EXAMPLES / "services-agreement.txt").read_text(encoding="utf-8")
    for place in ("Texas", "Delaware", "New Jersey"):
        path = folder / f"msa-{place.lower().replace(' ', '-')}.txt"
        path.write_text(
            text.replace("the laws of the State of New York", f"the laws of the State of {place}")
        )
        files.append(path)
    return files


def _upload(client: httpx.Client, files: list[Path]) -> list[str]:
    ids = []
    for path in files:
        upload = client.post("/v1/contracts", files={"file": (path.name, path.read_bytes())})
        assert upload.status_code == 202, upload.text
        assert wait_job(client, upload.json()["job"]["id"], timeout=600)["status"] == "done"
        ids.append(upload.json()["contract_id"])
    return ids


def _room(client: httpx.Client, contracts: list[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The finished room job and the rows its event stream showed."""
    job_id = client.post("/v1/rooms", json={"contracts": contracts, "questions": QUESTIONS}).json()["id"]
    job = wait_job(client, job_id, timeout=900)
    assert job["status"] == "done", job
    with client.stream("GET", f"/v1/jobs/{job_id}/events") as response:
        rows = [json.loads(data) for name, data in sse_events(response) if name == "row"]
    return job, rows


def _cells(rows: list[dict[str, Any]]) -> dict[tuple[str, str], Any]:
    cells: dict[tuple[str, str], Any] = {}
    for row in rows:
        cell = row["result"]
        key = (row["contract_id"], cell["question"])
        assert key not in cells, f"duplicate cell {key}"
        cells[key] = (
            cell["answer"],
            cell["value"],
            cell["line"],
            [(*s["span"], s["quote"]) for s in cell["sources"]],
        )
    return cells


def _playbook(client: httpx.Client, contracts: list[str]) -> dict[tuple[str, str], Any]:
    """The verdicts of a playbook review (the built-in commercial playbook) of ``contracts``."""
    created = client.post("/v1/playbook-reviews", json={"contracts": contracts})
    assert created.status_code == 202, created.text
    job = wait_job(client, created.json()["id"], timeout=900)
    assert job["status"] == "done", job
    return {
        (row["contract_id"], row["result"]["position_id"]): (
            row["result"]["verdict"],
            [(*c["span"], c["quote"]) for c in row["result"]["citations"]],
        )
        for row in job["result"]["rows"]
    }


def test_a_room_on_two_workers_equals_the_local_backend(hub, room_files: list[Path], tmp_path: Path) -> None:
    redis = RedisServer(tmp_path / "redis").start()
    data_dir = tmp_path / "celery-data"
    workers = [
        WorkerProcess([*celery_flags(data_dir, redis.url, 120.0), *FLAGS], tmp_path / f"worker-{n}.log")
        for n in range(2)
    ]
    jobs = {"backend": "celery", "broker_url": f"{redis.url}/0", "result_backend": f"{redis.url}/1"}
    try:
        for worker in workers:
            worker.start()
        with (
            LiveServer(create_app(_settings(data_dir, jobs), hub=hub)) as live,
            live.client(timeout=300) as client,
        ):
            contracts = _upload(client, room_files)
            job, streamed = _room(client, contracts)
            again, _ = _room(client, contracts)
            reviewed = _playbook(client, contracts[:2])
        peaks = [worker.peak_rss_mb() for worker in workers]
    finally:
        for worker in workers:
            worker.stop()
        redis.stop()
    logs = "".join((tmp_path / f"worker-{n}.log").read_text() for n in range(2))
    assert logs.count("clausewise.unit") >= len(contracts) + 2  # the units ran on the workers
    assert all(peak > 100 for peak in peaks)

    with (
        LiveServer(create_app(_settings(tmp_path / "local"), hub=hub)) as local,
        local.client(timeout=300) as client,
    ):
        local_contracts = _upload(client, room_files)
        local_job, _ = _room(client, local_contracts)
        local_reviewed = _playbook(client, local_contracts[:2])
    assert reviewed == local_reviewed and len(reviewed) == 2 * 15  # a playbook review on the workers too

    rows = job["result"]["rows"]
    cells = _cells(rows)
    assert len(cells) == len(contracts) * len(QUESTIONS)
    assert _cells(streamed) == cells  # the stream showed every cell once
    assert job["progress"]["done"] == len(cells)
    assert cells == _cells(local_job["result"]["rows"])
    law = job["result"]["rollup"]["questions"][0]
    assert {g["label"]: len(g["contracts"]) for g in law["values"]} == {
        "England": 1,
        "New York": 1,
        "Texas": 1,
        "Delaware": 1,
        "New Jersey": 1,
    }
    assert _cells(again["result"]["rows"]) == cells
    assert all(row["resumed"] for row in again["result"]["rows"])
