"""A live server for the service tests: the real app under uvicorn on 127.0.0.1 with an ephemeral
port, in a thread of the test process, called over real HTTP."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import uvicorn

from clausewise.core.config import Settings
from clausewise.runtime import ModelHub, Runtime
from clausewise_lab.evals.processes import ended_job
from tests.fakes import ScriptedChatModel


class LiveServer:
    def __init__(self, app: Any) -> None:
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.url = ""

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.05)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)

    def client(self, key: str | None = None, timeout: float = 120.0) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=timeout)


def scripted_runtimes(script: Callable[..., str]) -> Callable[[Settings, ModelHub], Runtime]:
    """A runtime factory whose every role answers from ``script`` (a reply function), the rest
    (stores, retrieval, verification, the graph) real."""

    class ScriptedRuntime(Runtime):
        def chat_model(self, role: str, progress: Callable[[int], None] | None = None):
            callbacks = self.model_callbacks(self.settings.models.for_role(role))
            model = ScriptedChatModel(replies=[script], repeat_last=True, callbacks=callbacks)
            return model.with_config(metadata={"clausewise_role": role}, run_name=role)

    return lambda settings, hub: ScriptedRuntime(settings, hub=hub)


def wait_job(client: httpx.Client, job_id: str, timeout: float = 300.0) -> dict[str, Any]:
    """The job once it has finished (polled over HTTP); a test fails when it takes longer than
    ``timeout`` seconds."""
    try:
        return ended_job(client, job_id, time.monotonic() + timeout, poll=0.1)
    except TimeoutError as error:
        raise AssertionError(f"job {job_id} did not finish in {timeout} s") from error


def sse_events(response: httpx.Response) -> list[tuple[str, str]]:
    """(event, data) pairs of a Server-Sent Events response, read to its end."""
    events: list[tuple[str, str]] = []
    name, data = "message", []
    for line in response.iter_lines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif not line.strip() and data:
            events.append((name, "\n".join(data)))
            name, data = "message", []
    if data:
        events.append((name, "\n".join(data)))
    return events
