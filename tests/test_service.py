"""The HTTP API against a live uvicorn on loopback: uploads and their refusals, contracts, asking
(JSON, Markdown, streamed), threads with a clarifying question, checks and reviews as jobs, the
error envelope. The models' replies are scripted; everything else is real."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pymupdf
import pytest

from clausewise.core.config import load_settings
from clausewise.service.app import create_app
from clausewise.service.keys import KeyStore
from tests.conftest import EXAMPLES
from tests.fakes import LegalScript
from tests.live import LiveServer, scripted_runtimes, sse_events, wait_job
from tools.citations import QuoteVerifier

GOVERNING = "governed by the laws of England and Wales"
SURVIVAL = "Some obligations under the agreement continue after it terminates or expires."


def service_settings(data_dir: Path, **overrides):
    base = {
        "paths": {"data_dir": str(data_dir)},
        "interrogation": {"attributed_sentences": 0, "max_turns": 1},
        "parsing": {"max_file_mb": 2},
    }
    for section, values in overrides.items():
        base[section] = {**base.get(section, {}), **values}
    return load_settings(overrides=base)


def legal_app(settings, hub):
    """The service on ``settings``, its models scripted to find the governing-law clause."""
    return create_app(
        settings, runtime_factory=scripted_runtimes(LegalScript(GOVERNING, "English law")), hub=hub
    )


def tenant_keys(settings, *tenants: str) -> list[str]:
    """One key for each tenant named, in order."""
    keys = KeyStore.of(settings)
    return [keys.create(tenant, "tests")[1] for tenant in tenants]


def ingested(client, name: str, **form: str) -> dict:
    """Upload the example contract ``name`` (a file of examples/) and wait for its ingest, done."""
    with (EXAMPLES / name).open("rb") as handle:
        upload = client.post("/v1/contracts", files={"file": (name, handle, "text/plain")}, data=form)
    assert upload.status_code == 202, upload.text
    job = wait_job(client, upload.json()["job"]["id"])
    assert job["status"] == "done", job
    return job


@pytest.fixture(scope="module")
def server(hub, tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("service")
    app = create_app(
        service_settings(data),
        runtime_factory=scripted_runtimes(LegalScript(GOVERNING, "English law")),
        hub=hub,
    )
    with LiveServer(app) as live:
        with live.client() as client:
            with (EXAMPLES / "mutual-nda.txt").open("rb") as handle:
                upload = client.post(
                    "/v1/contracts", files={"file": ("mutual-nda.txt", handle, "text/plain")}
                )
            assert upload.status_code == 202, upload.text
            assert wait_job(client, upload.json()["job"]["id"])["status"] == "done"
        yield live


@pytest.fixture
def client(server):
    with server.client() as http:
        yield http


def error_of(response) -> dict:
    body = response.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "hint"}, body
    return body["error"]


def test_health_docs_and_readiness(client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.json()["checks"]["store"] == "ok" and ready.status_code in (200, 503)
    assert "/v1/contracts/{contract_id}/ask" in client.get("/openapi.json").json()["paths"]
    assert client.get("/docs").status_code == 200


def test_the_same_bytes_again_are_the_existing_contract(client) -> None:
    with (EXAMPLES / "mutual-nda.txt").open("rb") as handle:
        again = client.post("/v1/contracts", files={"file": ("mutual-nda.txt", handle, "text/plain")})
    assert again.status_code == 200 and again.json() == {
        "contract_id": "mutual-nda",
        "file_name": "mutual-nda.txt",
        "status": "unchanged",
        "version": 1,
        "job": None,
    }


def test_contract_resources(client) -> None:
    [summary] = [c for c in client.get("/v1/contracts").json() if c["contract_id"] == "mutual-nda"]
    assert summary["file_name"] == "mutual-nda.txt" and summary["clauses"] > 20
    detail = client.get("/v1/contracts/mutual-nda").json()
    assert "Confidential Information" in {d["term"] for d in detail["defined_terms"]}
    tree = client.get("/v1/contracts/mutual-nda/tree").json()
    by_id = {n["id"]: n for n in tree["nodes"]}
    assert by_id["9.1"]["parent"] == "9" and "9.1" in by_id["9"]["children"]
    node = by_id["9.1"]
    text = client.get(
        "/v1/contracts/mutual-nda/text", params={"start": node["start"], "end": node["end"]}
    ).json()
    assert text["text"].startswith("9.1 Governing law") and text["pages"] == [1]
    passages = client.get("/v1/contracts/mutual-nda/search", params={"q": "which law governs", "k": 3}).json()
    assert passages[0]["node_id"] == "9.1" and GOVERNING in passages[0]["quote"]
    whole = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
    verifier = QuoteVerifier(client.get("/v1/contracts/mutual-nda/text").json()["text"])
    assert all(verifier.is_at(p["quote"], tuple(p["span"])) for p in passages) and whole
    original = client.get("/v1/contracts/mutual-nda/original")
    assert original.status_code == 200 and original.content == (EXAMPLES / "mutual-nda.txt").read_bytes()
    bad_span = client.get("/v1/contracts/mutual-nda/text", params={"start": 10, "end": 5})
    assert bad_span.status_code == 422 and error_of(bad_span)["code"] == "invalid_span"


def test_bad_uploads_are_refused_with_a_clear_error(client, tmp_path: Path) -> None:
    encrypted = tmp_path / "locked.pdf"
    document = pymupdf.open()
    document.new_page().insert_text((72, 72), "Secret agreement")
    document.save(encrypted, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    cases = {
        "empty.txt": (b"", 422, "empty_document"),
        "corrupt.pdf": (b"%PDF-1.7\nthis is not really a PDF", 422, "corrupt_document"),
        "locked.pdf": (encrypted.read_bytes(), 422, "encrypted_document"),
        "old.doc": (b"\xd0\xcf\x11\xe0" + b"\x00" * 600, 415, "unsupported_file_type"),
        "big.txt": (b"clause " * 400_000, 413, "file_too_large"),
        "binary.txt": (bytes(range(256)) * 40, 422, "undecodable_text"),
    }
    for name, (content, status, code) in cases.items():
        response = client.post("/v1/contracts", files={"file": (name, content)})
        assert response.status_code == status, (name, response.text)
        error = error_of(response)
        assert error["code"] == code and error["hint"], (name, error)
    assert (
        "password"
        in error_of(client.post("/v1/contracts", files={"file": ("locked.pdf", encrypted.read_bytes())}))[
            "message"
        ]
    )
    missing = client.post("/v1/contracts", data={"force": "true"})
    assert missing.status_code == 422 and error_of(missing)["code"] == "invalid_request"


def test_ask_answers_with_a_verified_report(client) -> None:
    response = client.post("/v1/contracts/mutual-nda/ask", json={"question": "Which law governs?"})
    assert response.status_code == 200, response.text
    report = response.json()
    assert report["addressed"] and report["sources"][0]["node_id"] == "9.1"
    text = client.get("/v1/contracts/mutual-nda/text").json()["text"]
    verifier = QuoteVerifier(text)
    assert all(verifier.is_at(s["quote"], tuple(s["span"])) for s in report["sources"])
    markdown = client.post(
        "/v1/contracts/mutual-nda/ask", json={"question": "Which law governs?", "format": "md"}
    )
    assert markdown.headers["content-type"].startswith("text/markdown") and "## Sources" in markdown.text
    html = client.post(
        "/v1/contracts/mutual-nda/ask", json={"question": "Which law governs?", "format": "html"}
    )
    assert html.headers["content-type"].startswith("text/html") and 'id="source-1"' in html.text


def test_ask_streams_the_work_as_it_happens(client) -> None:
    with client.stream(
        "POST", "/v1/contracts/mutual-nda/ask", json={"question": "Which law governs?", "stream": True}
    ) as response:
        assert response.headers["content-type"].startswith("text/event-stream")
        events = sse_events(response)
    names = [name for name, _ in events]
    steps = [
        n
        for n in names
        if n in ("queued", "running", "start", "answer", "question", "research", "draft", "final", "result")
    ]
    # the law is settled by the value reader before any writing: its answer comes first, and the
    # writer explains it without a research turn
    assert steps == ["queued", "running", "start", "answer", "draft", "final", "result"]
    answer = json.loads(dict(events)["answer"])
    assert answer["value"] == "England" and answer["grounds"][0]["node_id"] == "9.1"
    assert GOVERNING in json.loads(events[-1][1])["sources"][0]["quote"]


def test_refusals_of_questions(client) -> None:
    long = client.post("/v1/contracts/mutual-nda/ask", json={"question": "x" * 100_000})
    assert long.status_code == 422 and error_of(long)["code"] == "question_too_long"
    unknown = client.post("/v1/contracts/no-such/ask", json={"question": "Which law governs?"})
    assert unknown.status_code == 404 and error_of(unknown)["code"] == "contract_not_found"
    malformed = client.post(
        "/v1/contracts/mutual-nda/ask", content=b'{"question": ', headers={"content-type": "application/json"}
    )
    assert malformed.status_code == 400 and error_of(malformed)["code"] == "malformed_json"
    extra = client.post("/v1/contracts/mutual-nda/ask", json={"question": "q?", "temperature": 2})
    assert extra.status_code == 422 and "temperature" in error_of(extra)["message"]
    odd_key = client.post("/v1/contracts/mutual-nda/ask", json={"question": "q?", "provision": "../etc"})
    assert odd_key.status_code == 422 and "provision" in error_of(odd_key)["message"]
    no_key = client.post(
        "/v1/contracts/mutual-nda/ask", json={"question": "Is that in it?", "provision": "cuad:no-such"}
    )
    assert no_key.status_code == 404 and error_of(no_key)["code"] == "provision_not_found"
    assert "offered back" in error_of(no_key)["hint"]


def test_a_chosen_provision_is_answered_by_its_decider(client) -> None:
    """The choice a question asked back offers, sent as ``provision``: the short answer is that
    provision's, with no options left."""
    response = client.post(
        "/v1/contracts/mutual-nda/ask",
        json={"question": "Is it clear which state's rules apply?", "provision": "cuad:governing-law"},
    )
    assert response.status_code == 200, response.text
    short = response.json()["short_answer"]
    assert short["provision"] == "Governing Law" and not short["options"] and short["verdict"] == "yes"
    assert client.get("/v1/nothing-here").status_code == 404 and error_of(client.get("/v1/nothing-here"))


def test_checks_and_reviews_are_jobs_with_json_and_csv_results(client) -> None:
    created = client.post(
        "/v1/checks",
        json={"contracts": ["mutual-nda"], "hypotheses": [SURVIVAL]},
    )
    assert created.status_code == 202, created.text
    job = wait_job(client, created.json()["id"])
    assert job["status"] == "done" and job["progress"]["done"] == 1
    [row] = client.get(f"/v1/jobs/{job['id']}/result").json()["rows"]
    assert row["contract_id"] == "mutual-nda" and row["result"]["label"] == "Entailment"
    assert [e["node_id"] for e in row["result"]["evidence"]] == ["6.2"]
    csv_text = client.get(f"/v1/jobs/{job['id']}/result", params={"format": "csv"}).text
    assert csv_text.splitlines()[0].startswith("contract,key,topic,hypothesis,label")
    review = client.post("/v1/reviews", json={"contracts": ["mutual-nda"], "playbook": PROVISIONS})
    done = wait_job(client, review.json()["id"])
    [law] = done["result"]["rows"]
    assert law["result"]["present"] and law["result"]["answer"] == "English law"
    assert law["result"]["answer_evidence"]["node_id"] == "9.1"
    bad = client.post(
        "/v1/checks", json={"contracts": ["mutual-nda"], "playbook": "name: x\nhypotheses: 3\n"}
    )
    assert bad.status_code == 400 and "the playbook" in error_of(bad)["message"]
    path = client.post("/v1/checks", json={"contracts": ["mutual-nda"], "suite": "/etc/passwd"})
    assert path.status_code == 400 and error_of(path)["code"] == "config_error"


PROVISIONS = """name: law
provisions:
  - key: governing-law
    name: Governing Law
    question: Which law governs the contract?
    keywords: [governed, laws]
    answer: law
    threshold: 0.0
"""


def test_jobs_replay_their_events_and_cancel(client) -> None:
    created = client.post("/v1/checks", json={"contracts": ["mutual-nda"], "suite": "nda"}).json()
    done = wait_job(client, created["id"])
    events = sse_events(client.get(f"/v1/jobs/{done['id']}/events"))
    assert [name for name, _ in events][:2] == ["queued", "running"] and events[-1][0] == "result"
    rows = [json.loads(data) for name, data in events if name == "row"]
    assert len(rows) == 17 and {r["result"]["key"] for r in rows} == {f"nda-{i}" for i in range(1, 18)}
    later = sse_events(client.get(f"/v1/jobs/{done['id']}/events", headers={"Last-Event-ID": "3"}))
    assert len(later) == len(events) - 3
    finished = client.post(f"/v1/jobs/{done['id']}/cancel")
    assert finished.status_code == 409 and error_of(finished)["code"] == "job_finished"
    assert client.get("/v1/jobs/0000000000000000").status_code == 404


def test_a_thread_clarifies_then_answers_and_follows_up(hub, tmp_path: Path) -> None:
    script = LegalScript(GOVERNING, "English law", clarify="Do you mean the governing law or the courts?")
    app = create_app(service_settings(tmp_path), runtime_factory=scripted_runtimes(script), hub=hub)
    with LiveServer(app) as live, live.client() as client:
        shutil.copyfile(EXAMPLES / "mutual-nda.txt", tmp_path / "nda.txt")
        with (tmp_path / "nda.txt").open("rb") as handle:
            wait_job(
                client, client.post("/v1/contracts", files={"file": ("nda.txt", handle)}).json()["job"]["id"]
            )
        thread = client.post("/v1/threads", json={"contract": "nda"}).json()
        first = client.post(f"/v1/threads/{thread['id']}/messages", json={"content": "Which law?"}).json()
        assert first["clarification"].startswith("Do you mean") and first["report"] is None
        assert client.get(f"/v1/threads/{thread['id']}").json()["awaiting_reply"]
        answered = client.post(
            f"/v1/threads/{thread['id']}/messages", json={"content": "the governing law"}
        ).json()
        assert GOVERNING in answered["report"]["sources"][0]["quote"]
        follow = client.post(
            f"/v1/threads/{thread['id']}/messages", json={"content": "And the courts?"}
        ).json()
        assert follow["report"]["addressed"]
        detail = client.get(f"/v1/threads/{thread['id']}").json()
        assert [m["role"] for m in detail["messages"]] == ["user", "assistant"] * 3
        assert not detail["awaiting_reply"] and detail["thread"]["title"] == "Which law?"
        # a question offered back (rule "ask back"), and the choice sent as the next message
        wording = "Is it clear which state's rules apply?"
        offered = client.post(f"/v1/threads/{thread['id']}/messages", json={"content": wording}).json()
        options = offered["report"]["short_answer"]["options"]
        assert options and "Did you mean" in offered["report"]["short_answer"]["line"]
        chosen = client.post(
            f"/v1/threads/{thread['id']}/messages", json={"content": wording, "provision": options[0]["key"]}
        ).json()
        short = chosen["report"]["short_answer"]
        assert short["provision"] == options[0]["name"] and not short["options"]
    # a restarted server has the thread, and the thread its research
    with (
        LiveServer(
            create_app(service_settings(tmp_path), runtime_factory=scripted_runtimes(script), hub=hub)
        ) as again,
        again.client() as client,
    ):
        assert [t["id"] for t in client.get("/v1/threads").json()] == [thread["id"]]
        more = client.post(
            f"/v1/threads/{thread['id']}/messages", json={"content": "Which law again?"}
        ).json()
        sources = more["report"]["sources"]
        # the law's clause first; the thread asked about the courts too, so the dispute plan may
        # quote the jurisdiction clause beside it, and nothing else
        assert GOVERNING in sources[0]["quote"] and {s["node_id"] for s in sources} <= {"9.1", "9.2"}
