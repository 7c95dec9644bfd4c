"""A server process killed (SIGKILL) mid-ingest and mid-job, then started again: the contract's
previous index is intact and served, and every job is accounted for: resumable ones run again
from their journal and finish without a duplicate row; an answer cut off is failed with the
reason. Real processes (``python -m clausewise.cli.main serve``), real models, no language model."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from clausewise.core.config import load_settings
from clausewise.service.jobs import JobStore
from clausewise_lab.evals.processes import free_port
from indexes.store import ContractStore
from tests.conftest import EXAMPLES, REPO
from tests.live import wait_job


class ServerProcess:
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def start(self) -> httpx.Client:
        command = [sys.executable, "-m", "clausewise.cli.main", "--data-dir", str(self.data_dir)]
        command += ["serve", "--port", str(self.port)]
        env = {**os.environ, "OMP_THREAD_LIMIT": "1", "HF_HUB_OFFLINE": "1"}
        self.process = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        client = httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=120)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.process.stderr.read().decode()[-2000:]}")
            try:
                if client.get("/healthz").status_code == 200:
                    return client
            except httpx.TransportError:
                time.sleep(0.2)
        raise RuntimeError("the server did not answer within 60 s")

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(30)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(30)


def _wait_until(condition, timeout: float = 120.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _upload(client: httpx.Client, path: Path, contract_id: str, **form: str) -> dict:
    with path.open("rb") as handle:
        response = client.post(
            "/v1/contracts", files={"file": (path.name, handle)}, data={"contract_id": contract_id, **form}
        )
    assert response.status_code in (200, 202), response.text
    return response.json()


@pytest.mark.ocr
def test_killed_mid_ingest_the_previous_index_stays_and_the_ingest_is_redone(
    tmp_path: Path, tesseract
) -> None:
    server = ServerProcess(tmp_path / "data")
    try:
        client = server.start()
        first = _upload(client, EXAMPLES / "mutual-nda.pdf", "nda")
        assert wait_job(client, first["job"]["id"])["status"] == "done"
        before = client.get("/v1/contracts/nda").json()["manifest"]
        # a new version of the same contract (the scanned copy: OCR takes seconds), killed mid-way
        second = _upload(client, EXAMPLES / "mutual-nda-scanned.pdf", "nda", new_version="true")["job"]["id"]
        _wait_until(lambda: client.get(f"/v1/jobs/{second}").json()["status"] == "running", what="the ingest")
        time.sleep(1.5)
        server.kill()
        # on disk, the live version is the previous one, whole and readable
        store = ContractStore(load_settings(overrides={"paths": {"data_dir": str(tmp_path / "data")}}))
        index = store.open("nda")
        assert index.manifest.content_sha256 == before["content_sha256"]
        assert "9.1" in index.tree.nodes and index.bm25.ids and index.document.text
        index.close()
        client = server.start()
        job = wait_job(client, second)
        assert job["status"] == "done", job
        events = [e["event"] for e in _events(tmp_path, second)]
        assert "requeued" in events
        detail = client.get("/v1/contracts/nda").json()
        after = detail["manifest"]
        assert after["content_sha256"] != before["content_sha256"] and after["ocr_pages"]
        # nothing lost: version 1 is kept beside the new live version 2, and still served
        assert [(v["version"], v["live"]) for v in detail["versions"]] == [(1, False), (2, True)]
        old = client.get("/v1/contracts/nda", params={"version": 1}).json()["manifest"]
        assert old["content_sha256"] == before["content_sha256"]
        assert not list((tmp_path / "data" / "tenants" / "default" / "uploads").rglob("*.pdf"))
    finally:
        server.stop()


def _events(data: Path, job_id: str) -> list[dict]:
    store = JobStore(data / "data" / "service" / "jobs.sqlite")
    try:
        job = next(j for j in store.list("default") if j.id == job_id)
        return [e.model_dump() for e in store.events(job.tenant, job_id)]
    finally:
        store.close()


def test_killed_mid_check_the_job_resumes_from_its_journal(tmp_path: Path) -> None:
    server = ServerProcess(tmp_path / "data")
    try:
        client = server.start()
        for name, contract in (("mutual-nda.txt", "nda"), ("services-agreement.txt", "msa")):
            wait_job(client, _upload(client, EXAMPLES / name, contract)["job"]["id"])
        job_id = client.post("/v1/checks", json={"contracts": ["nda", "msa"], "suite": "nda"}).json()["id"]
        _wait_until(lambda: client.get(f"/v1/jobs/{job_id}").json()["progress"]["done"] >= 5, what="5 rows")
        server.kill()
        client = server.start()
        job = wait_job(client, job_id)
        assert job["status"] == "done", job
        rows = job["result"]["rows"]
        keys = [(r["contract_id"], r["result"]["key"]) for r in rows]
        assert len(keys) == 34 and len(set(keys)) == 34  # every row once
        assert any(r["resumed"] for r in rows) and not all(r["resumed"] for r in rows)
    finally:
        server.stop()


def test_a_job_that_cannot_resume_is_failed_with_the_reason(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.sqlite")
    asked = store.create("t", "ask", {"question": "q"}, max_queued=10)
    checked = store.create("t", "check", {"contracts": []}, max_queued=10)
    assert store.claim().id == asked.id and store.claim().id == checked.id  # both running
    store.close()
    store = JobStore(tmp_path / "jobs.sqlite")  # a new process
    assert store.recover() == {"requeued": 1, "failed": 1}
    failed = store.get("t", asked.id)
    assert failed.status == "failed" and failed.error["code"] == "interrupted" and failed.error["hint"]
    assert store.get("t", checked.id).status == "queued"
    assert store.get("t", checked.id).queue_position == 1
    from clausewise.service.errors import ApiError
    from clausewise.service.work import outcome

    with pytest.raises(ApiError) as refused:  # its result is a 409 with the reason, not a 500
        outcome(failed)
    assert refused.value.status == 409 and refused.value.code == "interrupted"
