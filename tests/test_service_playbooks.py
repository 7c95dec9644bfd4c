"""Playbooks and playbook reviews over HTTP against a live uvicorn on loopback: playbooks uploaded,
validated, versioned and kept per tenant; a review of two contracts as a job whose rows stream as
positions are decided; the redline of one contract as a DOCX of tracked changes. The deciders are
the real embedded models (no language model is asked)."""

from __future__ import annotations

import asyncio
import io
import zipfile
from concurrent.futures import ThreadPoolExecutor

import pytest

from clausewise_lab.evals.abuse_families import (
    active_parts,
    active_word_file,
    alias_bomb,
    deep_playbook,
    largest_playbook,
    positions_of,
)
from tests.conftest import EXAMPLES
from tests.live import LiveServer, sse_events, wait_job
from tests.test_service import error_of, ingested, legal_app, service_settings, tenant_keys
from tests.test_service_tenants import _mcp

OURS = """name: our-terms
version: "1"
positions:
  - id: governing-law
    clause: Governing Law
    question: Which law governs this agreement?
    standard: {law: [New York]}
    fallbacks: [{law: [California]}]
    risk: medium
  - id: liability-cap
    clause: Cap on Liability
    question: How many months of fees does the cap on liability equal?
    standard: {duration: {at_least: 12 months}}
    risk: high
  - id: non-compete
    clause: Non-Compete
    standard: {require: absent}
    risk: high
"""


@pytest.fixture(scope="module")
def served(hub, tmp_path_factory: pytest.TempPathFactory):
    settings = service_settings(tmp_path_factory.mktemp("playbook-service"), parsing={"max_file_mb": 5})
    key_a, key_b = tenant_keys(settings, "a", "b")
    with LiveServer(legal_app(settings, hub)) as live:
        with live.client(key_a) as a:
            for name in ("supply-agreement.txt", "services-agreement.txt"):
                ingested(a, name)
        yield live, key_a, key_b


def test_a_playbook_is_validated_kept_per_version_and_per_tenant(served) -> None:
    live, key_a, key_b = served
    with live.client(key_a) as a, live.client(key_b) as b:
        stored = a.post("/v1/playbooks", json={"yaml": OURS})
        assert stored.status_code == 201, stored.text
        assert stored.json() == {
            "name": "our-terms",
            "version": "1",
            "positions": 3,
            "builtin": False,
            "description": "",
        }
        assert a.post("/v1/playbooks", json={"yaml": OURS}).status_code == 201  # the same again
        changed = a.post("/v1/playbooks", json={"yaml": OURS.replace("high", "low")})
        assert changed.status_code == 409 and "new version" in error_of(changed)["hint"]
        bad = a.post("/v1/playbooks", json={"yaml": OURS.replace("risk: medium", "risk: severe")})
        assert bad.status_code == 400 and "positions.0.risk" in error_of(bad)["message"]
        names = {(p["name"], p["builtin"]) for p in a.get("/v1/playbooks").json()["playbooks"]}
        assert {("playbook-commercial", True), ("playbook-nda", True), ("our-terms", False)} <= names
        assert a.get("/v1/playbooks/our-terms").json()["positions"][0]["id"] == "governing-law"
        # tenant b neither lists nor reads nor reviews with tenant a's playbook
        assert ("our-terms", False) not in {
            (p["name"], p["builtin"]) for p in b.get("/v1/playbooks").json()["playbooks"]
        }
        assert b.get("/v1/playbooks/our-terms").status_code == 404
        review = b.post(
            "/v1/playbook-reviews", json={"contracts": ["supply-agreement"], "playbook": "our-terms"}
        )
        assert review.status_code == 404


def test_a_review_streams_its_rows_and_sums_each_contract_up(served) -> None:
    live, key_a, _ = served
    with live.client(key_a) as a:
        a.post("/v1/playbooks", json={"yaml": OURS})
        created = a.post(
            "/v1/playbook-reviews",
            json={"contracts": ["supply-agreement", "services-agreement"], "playbook": "our-terms"},
        )
        assert created.status_code == 202, created.text
        job = wait_job(a, created.json()["id"])
        assert job["status"] == "done" and job["progress"]["done"] == 6
        with a.stream("GET", f"/v1/jobs/{job['id']}/events") as events:
            rows = [e for e in sse_events(events) if e[0] == "row"]
        assert len(rows) == 6
        result = a.get(f"/v1/jobs/{job['id']}/result").json()
        assert result["kind"] == "playbook" and result["playbook"] == {"name": "our-terms", "version": "1"}
        verdicts = {
            (r["contract_id"], r["result"]["position_id"]): r["result"]["verdict"] for r in result["rows"]
        }
        assert verdicts[("services-agreement", "governing-law")] == "meets_standard"
        assert verdicts[("supply-agreement", "governing-law")] == "meets_fallback"
        assert verdicts[("supply-agreement", "non-compete")] == "deviation"
        assert result["summaries"]["supply-agreement"]["overall_risk"] == "high"
        assert "non-compete" in result["summaries"]["supply-agreement"]["high"]

        redline = a.get(
            f"/v1/playbook-reviews/{job['id']}/redline",
            params={"contract": "supply-agreement", "author": "Counsel"},
        )
        assert redline.status_code == 200 and redline.headers["content-type"].startswith(
            "application/vnd.openxmlformats-officedocument.wordprocessingml"
        )
        assert redline.headers["x-clausewise-redline-base"] == "text"  # it came as text, not Word
        with zipfile.ZipFile(io.BytesIO(redline.content)) as docx:
            body = docx.read("word/document.xml").decode("utf-8")
        assert 'w:author="Counsel"' in body and "<w:ins " in body and "<w:del " in body
        assert "twelve (12) months" in body and "/work" not in body and "/tmp" not in body
        other = a.get(f"/v1/playbook-reviews/{job['id']}/redline", params={"contract": "mutual-nda"})
        assert other.status_code == 404


def test_refusals_name_what_to_fix(served) -> None:
    live, key_a, _ = served
    with live.client(key_a) as a:
        unknown = a.post("/v1/playbook-reviews", json={"contracts": ["supply-agreement"], "playbook": "nope"})
        assert unknown.status_code == 404 and "GET /v1/playbooks" in error_of(unknown)["hint"]
        broken = a.post(
            "/v1/playbook-reviews", json={"contracts": ["supply-agreement"], "yaml": "name: [x\n"}
        )
        assert broken.status_code == 400 and "not valid YAML" in error_of(broken)["message"]
        builtin = a.post("/v1/playbooks", json={"yaml": OURS.replace("our-terms", "playbook-nda")})
        assert builtin.status_code == 409
        stray = a.post("/v1/playbook-reviews", json={"contracts": ["supply-agreement"], "playbok": "x"})
        assert stray.status_code == 422


def test_the_mcp_tool_reviews_with_the_callers_playbooks_only(served) -> None:
    live, key_a, key_b = served
    with live.client(key_a) as a:
        a.post("/v1/playbooks", json={"yaml": OURS})
    calls = [("review_against_playbook", {"contract": "supply-agreement", "playbook": "our-terms"})]
    _, (reviewed,) = asyncio.run(_mcp(live.url, key_a, calls))
    content = reviewed.structured_content
    assert content["summary"]["overall_risk"] == "high"
    by_position = {p["position"]: p for p in content["positions"]}
    assert by_position["governing-law"]["verdict"] == "meets fallback 1"
    assert by_position["liability-cap"]["redline"][0]["insert"] == "twelve (12) months"
    _, (refused,) = asyncio.run(_mcp(live.url, key_b, calls))
    assert refused.is_error


# --- playbooks and Word files that attack (issue 67) ---------------------------------------------


def test_playbooks_that_expand_or_nest_too_far_are_422_on_every_door(served) -> None:
    live, key_a, _ = served
    with live.client(key_a) as a:
        for text, said in ((alias_bomb(), "expands to more than"), (deep_playbook(), "nested more than")):
            stored = a.post("/v1/playbooks", json={"yaml": text})
            assert stored.status_code == 422, stored.text
            assert error_of(stored)["code"] == "yaml_too_complex" and said in error_of(stored)["message"]
            inline = a.post("/v1/playbook-reviews", json={"contracts": ["supply-agreement"], "yaml": text})
            assert inline.status_code == 422 and error_of(inline)["hint"]
        listed = a.get("/v1/playbooks")
        assert {"alias-bomb", "deep"}.isdisjoint(p["name"] for p in listed.json()["playbooks"])
        assert len(listed.content) < 100_000


def test_one_version_sent_twice_at_once_is_kept_once_and_for_good(served) -> None:
    live, key_a, _ = served
    with live.client(key_a) as a, ThreadPoolExecutor(max_workers=2) as pair:
        for number in range(12):
            version = f"race-{number}"
            texts = {risk: positions_of(version, risk) for risk in ("low", "high")}
            answers = dict(
                zip(
                    texts,
                    pair.map(lambda t: a.post("/v1/playbooks", json={"yaml": t}), texts.values()),
                    strict=True,
                )
            )
            assert sorted(r.status_code for r in answers.values()) == [201, 409], version
            winner = next(risk for risk, r in answers.items() if r.status_code == 201)
            kept = a.get("/v1/playbooks/race", params={"version": version}).json()
            assert kept["positions"][0]["risk"] == winner


def test_a_built_in_playbook_is_found_at_the_version_the_listing_shows(served) -> None:
    live, key_a, _ = served
    with live.client(key_a) as a:
        listed = {p["name"]: p["version"] for p in a.get("/v1/playbooks").json()["playbooks"] if p["builtin"]}
        for name, version in listed.items():
            found = a.get(f"/v1/playbooks/{name}", params={"version": version})
            assert found.status_code == 200 and found.json()["version"] == version
        assert a.get("/v1/playbooks/playbook-nda", params={"version": "1999.1"}).status_code == 404


def test_a_job_listing_stays_small_and_a_job_keeps_a_bounded_copy_of_its_playbook(served) -> None:
    live, key_a, _ = served
    largest = largest_playbook("largest")
    with live.client(key_a) as a:
        queued = a.post("/v1/playbook-reviews", json={"contracts": ["supply-agreement"], "yaml": largest})
        assert queued.status_code == 202, queued.text
        job = wait_job(a, queued.json()["id"])
        assert job["request"]["playbook"]["name"] == "largest" and job["status"] == "done"
        assert len(a.get(f"/v1/jobs/{job['id']}").content) < 2_000_000
        listing = a.get("/v1/jobs", params={"limit": 1000})
        listed = next(j for j in listing.json()["jobs"] if j["id"] == job["id"])
        assert listed["result"] is None and "playbook" not in listed["request"]
        assert listed["status"] == "done" and len(listing.content) < 2_000_000


def test_a_word_file_with_text_outside_its_body_is_refused_naming_the_part(served) -> None:
    live, key_a, _ = served
    hidden = active_word_file(["1. The Supplier shall deliver the Goods."], hidden=True)
    with live.client(key_a) as a:
        refused = a.post("/v1/contracts", files={"file": ("hidden.docx", hidden)})
        assert refused.status_code == 422, refused.text
        error = error_of(refused)
        assert error["code"] == "hidden_text" and "altChunk (afchunk.htm)" in error["message"]
        assert "subDoc" in error["message"] and "save it as a new .docx" in error["hint"]


def test_a_redline_leaves_out_what_could_run_or_fetch_and_control_characters_never_break_it(
    served,
) -> None:
    live, key_a, _ = served
    supply = (EXAMPLES / "supply-agreement.txt").read_text(encoding="utf-8")
    clauses = [line.strip() for line in supply.splitlines() if line.strip()]
    with live.client(key_a) as a:
        uploads = [
            a.post(
                "/v1/contracts",
                files={"file": ("supply-active.docx", active_word_file(clauses))},
                data={"contract_id": "supply-active"},
            ),
            a.post(
                "/v1/contracts",
                files={"file": ("titled.txt", ("\x01\x02\x1b[31m" + supply).encode())},
                data={"contract_id": "titled"},
            ),
        ]
        for upload in uploads:
            assert wait_job(a, upload.json()["job"]["id"])["status"] == "done"
        shown = a.get("/v1/contracts/supply-active/text").json()["text"]
        assert "Included text." in shown and "Simple text." in shown  # what the fields show is read
        review = a.post(
            "/v1/playbook-reviews",
            json={"contracts": ["supply-active", "titled"], "playbook": "playbook-commercial"},
        )
        job = wait_job(a, review.json()["id"])["id"]

        def redline(contract: str, **params: str):
            return a.get(f"/v1/playbook-reviews/{job}/redline", params={"contract": contract, **params})

        cleaned = redline("supply-active", author="Counsel")
        assert cleaned.status_code == 200 and cleaned.headers["x-clausewise-redline-base"] == "original"
        assert active_parts(cleaned.content) == []
        removed = cleaned.headers["x-clausewise-removed"]
        assert "macros" in removed and "attachedTemplate" in removed and "fields that fetch" in removed
        with zipfile.ZipFile(io.BytesIO(cleaned.content)) as docx:
            body = docx.read("word/document.xml").decode("utf-8")
        assert "Included text." in body and "See our terms." in body  # the text Word showed stays
        kept = redline("supply-active", author="Counsel", keep_active="true")
        assert (
            kept.status_code == 200
            and "word/vbaProject.bin" in zipfile.ZipFile(io.BytesIO(kept.content)).namelist()
        )
        assert "x-clausewise-removed" not in kept.headers
        for contract in ("supply-active", "titled"):
            odd = redline(contract, author="\x01x\x1b[31m")
            assert odd.status_code == 200, odd.text
            with zipfile.ZipFile(io.BytesIO(odd.content)) as docx:
                assert docx.read("word/document.xml")  # a Word file that opens
