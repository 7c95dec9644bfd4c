"""Traces: one ask over HTTP, against the real app with tracing on and its models scripted, is
exported over OTLP to a real trace backend (Arize Phoenix, installed from PyPI by ``make
setup-test`` in a venv of its own) and read back from Phoenix's REST API: the span tree from the
request through the job, the graph's nodes, the decision, the retrieval, the model calls and the
check passes, with tenant and contract version; content redacted. And the redaction rules and
the content policy on their own, on two contracts."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from clausewise.core.tracing import ContentPolicy, content_policy, record_content, redact
from clausewise_lab.evals.processes import free_port
from tests.conftest import EXAMPLES, REPO
from tools.preamble import contract_parties

PHOENIX = REPO / ".venv-phoenix" / "bin" / "phoenix"
NDA = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
SERVICES = (EXAMPLES / "services-agreement.txt").read_text(encoding="utf-8")


# --- redaction and the content policy ---------------------------------------------------------


@pytest.mark.parametrize("text", [NDA, SERVICES], ids=["mutual-nda", "services-agreement"])
def test_party_names_are_redacted_in_full_and_by_their_distinctive_word(text: str) -> None:
    parties = contract_parties(text)
    assert len(parties) == 2
    preamble = text[:1500]
    redacted = redact(preamble, parties)
    for party in parties:
        assert party.split()[0] in preamble
        assert party.split()[0] not in redacted  # "Northwind" of "Northwind Analytics Ltd."
    assert "[party]" in redacted
    assert "Agreement" in redacted  # the rest of the text is kept


@pytest.mark.parametrize("text", [NDA, SERVICES], ids=["mutual-nda", "services-agreement"])
def test_addresses_phone_and_account_numbers_are_redacted_but_dates_and_sums_kept(text: str) -> None:
    parties = contract_parties(text)
    clause = (
        f"Notices to {parties[0]} go to legal.notices@example.com or +44 (0)113 496 0123; fees are paid "
        "to account number 20-45-11 73920154 or IBAN GB29 NWBK 6016 1331 9268 19 within 30 days, "
        "a fee of $1,250,000 from 2025-03-03 under Section 12.3."
    )
    redacted = redact(clause, parties)
    for secret in ("legal.notices@", "496 0123", "73920154", "GB29", parties[0]):
        assert secret not in redacted, (secret, redacted)
    for kept in ("$1,250,000", "2025-03-03", "Section 12.3", "30 days"):
        assert kept in redacted, (kept, redacted)
    for token in ("[email]", "[phone]", "[account]", "[party]"):
        assert token in redacted, (token, redacted)


def test_content_enters_a_span_only_under_a_capturing_policy_and_redacted() -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()  # not installed: this test's own, so the session's stays none
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    question = "Does Northwind Analytics Ltd. owe notice to ops@northwind.example?"
    with tracer.start_as_current_span("by default") as span:
        record_content(span, "clausewise.question", question)
    capturing = ContentPolicy(capture=True, parties=("Northwind Analytics Ltd.",))
    with content_policy(capturing), tracer.start_as_current_span("captured") as span:
        record_content(span, "clausewise.question", question)
    spans = {s.name: dict(s.attributes or {}) for s in exporter.get_finished_spans()}
    assert "clausewise.question" not in spans["by default"]
    assert spans["captured"]["clausewise.question"] == "Does [party]. owe notice to [email]?"
    provider.shutdown()


# --- one ask, traced end to end into a real backend ---------------------------------------------


def _wait_http(url: str, process: subprocess.Popen, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{url} exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code < 500:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"{url} did not answer in {seconds} s")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory):
    if not PHOENIX.exists():
        pytest.skip("Phoenix (the trace backend) is not installed: run `make setup-test`")
    work = tmp_path_factory.mktemp("phoenix")
    port, grpc_port = free_port(), free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(work),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    log = (work / "phoenix.log").open("w")
    process = subprocess.Popen([str(PHOENIX), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_http(f"http://127.0.0.1:{port}/healthz", process, 180)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(process)
        log.close()


def _spans(phoenix: str) -> list[dict[str, Any]]:
    spans, cursor = [], None
    while True:
        params: dict[str, Any] = {"limit": 1000, **({"cursor": cursor} if cursor else {})}
        page = httpx.get(f"{phoenix}/v1/projects/default/spans", params=params, timeout=30).json()
        spans += page["data"]
        cursor = page.get("next_cursor")
        if not cursor:
            return spans


@pytest.fixture(scope="module")
def traced_ask(phoenix: str, tmp_path_factory: pytest.TempPathFactory):
    """The spans Phoenix received for one ingest and one ask (the server stopped, so every batched
    span was sent), and the question asked."""
    data, port = tmp_path_factory.mktemp("traced"), free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.traced_service", str(data), str(port), f"{phoenix}/v1/traces"],
        cwd=REPO,
    )
    url = f"http://127.0.0.1:{port}"
    question = (
        "What are the exceptions to the confidentiality obligations of Brightwater Health Inc.? "
        "Copy ops@brightwater.example."
    )
    try:
        _wait_http(f"{url}/healthz", server, 120)
        with httpx.Client(base_url=url, timeout=300) as client:
            upload = client.post("/v1/contracts", files={"file": ("mutual-nda.txt", NDA.encode())})
            job = upload.json()["job"]["id"]
            deadline = time.monotonic() + 300
            while client.get(f"/v1/jobs/{job}").json()["status"] not in ("done", "failed"):
                assert time.monotonic() < deadline
                time.sleep(0.2)
            asked = client.post("/v1/contracts/mutual-nda/ask", json={"question": question})
            assert asked.status_code == 200, asked.text
    finally:
        _stop(server)
    deadline, spans = time.monotonic() + 60, []
    while time.monotonic() < deadline:  # Phoenix stores what it receives asynchronously
        spans = _spans(phoenix)
        if any(s["name"] == "POST /v1/contracts/{contract_id}/ask" for s in spans) and any(
            s["name"] == "job ask" for s in spans
        ):
            time.sleep(2)
            return _spans(phoenix), question
        time.sleep(1)
    raise AssertionError(f"Phoenix did not receive the ask's spans: {sorted({s['name'] for s in spans})}")


def _tree(spans: list[dict[str, Any]], root: dict[str, Any]) -> list[dict[str, Any]]:
    """``root`` and every span below it."""
    children = defaultdict(list)
    for s in spans:
        children[s["parent_id"]].append(s)
    found, todo = [], [root]
    while todo:
        span = todo.pop()
        found.append(span)
        todo += children[span["context"]["span_id"]]
    return found


def _parent(spans: list[dict[str, Any]], span: dict[str, Any]) -> dict[str, Any]:
    return next(s for s in spans if s["context"]["span_id"] == span["parent_id"])


def test_one_ask_is_one_trace_from_the_request_through_the_graph_to_the_checks(traced_ask) -> None:
    spans, _ = traced_ask
    request = next(s for s in spans if s["name"] == "POST /v1/contracts/{contract_id}/ask")
    assert request["parent_id"] is None  # (Phoenix shows its own span kinds, not OpenTelemetry's)
    assert request["attributes"]["http.response.status_code"] == 200
    assert request["attributes"]["clausewise.tenant"] == "default"
    tree = _tree(spans, request)
    assert {s["context"]["trace_id"] for s in tree} == {request["context"]["trace_id"]}
    named = defaultdict(list)
    for s in tree:
        named[s["name"]].append(s)

    job = named["job ask"][0]  # queued by the request, run by the runner: still its child
    assert _parent(spans, job) == request
    assert job["attributes"]["clausewise.contract.version"] == 1
    assert job["attributes"]["clausewise.job.status"] == "done"
    ask = named["clausewise.ask"][0]
    assert ask["attributes"]["clausewise.contract"] == "mutual-nda"
    assert ask["attributes"]["clausewise.contract.version"] == 1
    for node in ("intake", "question", "research", "refine", "final", "plan", "retrieve", "answer"):
        assert named[f"graph.node {node}"], node

    decide = named["decide"][0]
    assert _parent(spans, decide)["name"] == "graph.node intake"
    # a list question: no short answer to decide, and the decider says so without routing it
    assert decide["attributes"]["clausewise.question.form"] == "list"
    assert "clausewise.decision.verdict" not in decide["attributes"]

    search = named["retrieval.search"][0]
    ids, scores = (
        search["attributes"]["clausewise.retrieval.node_ids"],
        search["attributes"]["clausewise.retrieval.scores"],
    )
    assert ids and len(ids) == len(scores) and search["attributes"]["clausewise.retrieval.k"] >= len(ids)

    calls = [s for s in tree if s["attributes"].get("gen_ai.operation.name") == "chat"]
    assert calls and all(c["attributes"]["gen_ai.provider.name"] == "llama.cpp" for c in calls)
    assert {"gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens", "clausewise.role"} <= set(
        calls[0]["attributes"]
    )
    assert all(_parent(spans, c)["name"].startswith(("graph.node", "check.", "decide")) for c in calls)

    passes = [
        s["name"] for s in sorted(tree, key=lambda s: s["start_time"]) if s["name"].startswith("check.")
    ]
    assert passes[:3] == ["check.compose", "check.restate", "check.verify"]
    assert passes[-2:] == ["check.remove", "check.fill"]
    assert "clausewise.check.unsupported" in named["check.verify"][0]["attributes"]
    assert all(
        _parent(spans, named[p][0])["name"] == "graph.node final" for p in ("check.verify", "check.fill")
    )


def test_the_ingest_is_traced_step_by_step(traced_ask) -> None:
    spans, _ = traced_ask
    ingest = next(s for s in spans if s["name"] == "clausewise.ingest")
    steps = [s["name"] for s in _tree(spans, ingest)]
    for step in ("ingest.parse", "ingest.structure", "ingest.embed", "ingest.bm25"):
        assert step in steps
    assert ingest["attributes"]["clausewise.contract.version"] == 1


def test_captured_content_is_redacted_and_no_other_attribute_quotes_it(traced_ask) -> None:
    spans, _ = traced_ask
    everything = json.dumps([s["attributes"] for s in spans])
    for secret in ("Brightwater", "Northwind", "ops@brightwater.example"):
        where = [(s["name"], k, v) for s in spans for k, v in s["attributes"].items() if secret in str(v)]
        assert secret not in everything, where[:3]
    asked = next(s for s in spans if s["name"] == "clausewise.ask")["attributes"]["clausewise.question"]
    assert "[party]" in asked and "[email]" in asked and "What are the exceptions" in asked
    # the question is only where content is recorded: no other attribute carries it
    for span in spans:
        for key, value in span["attributes"].items():
            if isinstance(value, str) and "What are the exceptions" in value:
                assert key in ("clausewise.question", "clausewise.query", "gen_ai.input.messages"), key
