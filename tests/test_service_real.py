"""One question through the whole service with the real embedded 0.5B model: upload over HTTP,
ask with a streamed answer, the report from the governing-law clause with verified quotes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clausewise.service.app import create_app
from tests.conftest import EXAMPLES
from tests.helpers import SMALL_MODEL, needs_small_model, small_llm
from tests.live import LiveServer, sse_events, wait_job
from tests.test_service import service_settings
from tools.citations import QuoteVerifier

pytestmark = [pytest.mark.real_models, needs_small_model]


def test_a_real_question_end_to_end(hub, tmp_path: Path) -> None:
    settings = service_settings(tmp_path, models=small_llm(400))
    with LiveServer(create_app(settings, hub=hub)) as live, live.client(timeout=900) as client:
        with (EXAMPLES / "mutual-nda.pdf").open("rb") as handle:
            upload = client.post("/v1/contracts", files={"file": ("mutual-nda.pdf", handle)}).json()
        assert wait_job(client, upload["job"]["id"])["status"] == "done"
        body = {"question": "Which law governs this agreement?", "stream": True}
        with client.stream("POST", "/v1/contracts/mutual-nda/ask", json=body) as response:
            events = sse_events(response)
        names = [name for name, _ in events]
        # the law is decided first and streamed as the answer, before the report is written
        assert names.index("start") < names.index("answer") < names.index("final") < names.index("result")
        answer = json.loads(events[names.index("answer")][1])
        assert (
            answer["short_answer"]["line"].startswith("England [1]")
            and answer["sources"][0]["node_id"] == "9.1"
        )
        report = json.loads(events[-1][1])
        assert report["addressed"] and report["metadata"]["models"] == [SMALL_MODEL]
        assert any(s["node_id"] == "9.1" and "England and Wales" in s["quote"] for s in report["sources"])
        text = client.get("/v1/contracts/mutual-nda/text").json()["text"]
        verifier = QuoteVerifier(text)
        assert all(verifier.is_at(s["quote"], tuple(s["span"])) for s in report["sources"])
