"""Faults: a model that fails is a 503 with the reason and the service goes on; a client that goes
away mid-stream leaves the job running, or stops it when it asked to, and the thread stays
usable; running and waiting jobs can be cancelled; waiting jobs report their queue position."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clausewise.core.errors import ModelUnavailable
from clausewise.service.app import create_app
from tests.conftest import EXAMPLES
from tests.fakes import LegalScript
from tests.live import LiveServer, scripted_runtimes, wait_job
from tests.test_service import GOVERNING, error_of, service_settings


class SlowScript(LegalScript):
    """The scripted replies, each after ``seconds``: a model that takes its time."""

    def __init__(self, seconds: float) -> None:
        super().__init__(GOVERNING, "English law")
        self.seconds = seconds

    def __call__(self, messages, kwargs) -> str:
        time.sleep(self.seconds)
        return super().__call__(messages, kwargs)


def _upload(client, tmp_path: Path) -> None:
    with (EXAMPLES / "mutual-nda.txt").open("rb") as handle:
        job = client.post("/v1/contracts", files={"file": ("mutual-nda.txt", handle)}).json()["job"]
    assert wait_job(client, job["id"])["status"] == "done"


def test_a_failing_model_is_a_503_with_the_reason_and_the_service_goes_on(hub, tmp_path: Path) -> None:
    down = ModelUnavailable("the model server at http://127.0.0.1:9 refused the connection", hint="start it")
    app = create_app(
        service_settings(tmp_path),
        runtime_factory=scripted_runtimes(LegalScript(GOVERNING, "x", fail=down)),
        hub=hub,
    )
    with LiveServer(app) as live, live.client() as client:
        _upload(client, tmp_path)
        response = client.post("/v1/contracts/mutual-nda/ask", json={"question": "Which law governs?"})
        assert response.status_code == 503 and response.headers["retry-after"]
        error = error_of(response)
        assert error["code"] == "model_unavailable" and "refused the connection" in error["message"]
        assert error["hint"] == "start it"
        assert client.get("/healthz").status_code == 200
        passages = client.get("/v1/contracts/mutual-nda/search", params={"q": "governing law"})
        assert passages.status_code == 200  # retrieval needs no language model


@pytest.fixture(scope="module")
def slow(hub, tmp_path_factory: pytest.TempPathFactory):
    app = create_app(
        service_settings(tmp_path_factory.mktemp("slow")),
        runtime_factory=scripted_runtimes(SlowScript(1.0)),
        hub=hub,
    )
    with LiveServer(app) as live, live.client() as client:
        _upload(client, tmp_path_factory.mktemp("upload"))
        yield live


def _stream_then_leave(live, body: dict) -> str:
    """Start a streamed question, read until research begins, then hang up; the job's id."""
    with (
        live.client() as client,
        client.stream("POST", "/v1/contracts/mutual-nda/ask", json={**body, "stream": True}) as response,
    ):
        job_id = response.headers["x-job-id"]
        for line in response.iter_lines():
            if line.startswith("event: answer"):
                break
    return job_id


def test_a_client_that_goes_away_leaves_the_job_running_unless_it_asked(slow) -> None:
    kept = _stream_then_leave(slow, {"question": "Which law governs?"})
    stopped = _stream_then_leave(slow, {"question": "Which law governs?", "cancel_on_disconnect": True})
    with slow.client() as client:
        assert wait_job(client, kept)["status"] == "done"
        assert GOVERNING in client.get(f"/v1/jobs/{kept}/result").json()["sources"][0]["quote"]
        assert wait_job(client, stopped)["status"] == "cancelled"


def test_cancel_running_and_waiting_jobs_and_the_queue_position(slow) -> None:
    with slow.client() as client:
        thread = client.post("/v1/threads", json={"contract": "mutual-nda"}).json()["id"]
        body = {"content": "Which law governs?", "stream": True}
        jobs = []
        for _ in range(3):
            with client.stream("POST", f"/v1/threads/{thread}/messages", json=body) as response:
                jobs.append(response.headers["x-job-id"])
        second, third = (client.get(f"/v1/jobs/{j}").json() for j in jobs[1:])
        assert second["status"] == third["status"] == "queued"
        assert third["queue_position"] == second["queue_position"] + 1
        assert client.post(f"/v1/jobs/{jobs[2]}/cancel").json()["status"] == "cancelled"
        assert client.post(f"/v1/jobs/{jobs[0]}/cancel").json()["cancel_requested"]
        assert wait_job(client, jobs[0])["status"] == "cancelled"
        assert wait_job(client, jobs[1])["status"] == "done"
        # the thread stays usable after a cancelled message: the next one is answered
        answer = client.post(f"/v1/threads/{thread}/messages", json={"content": "Which law governs?"}).json()
        assert GOVERNING in answer["report"]["sources"][0]["quote"]
        roles = [m["role"] for m in client.get(f"/v1/threads/{thread}").json()["messages"]]
        assert roles.count("assistant") == 2 and roles[-2:] == ["user", "assistant"]
