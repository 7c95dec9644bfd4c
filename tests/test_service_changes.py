"""The other side's redline over HTTP against a live uvicorn on loopback: a Word file with tracked
changes uploaded, its round read (changes by author, comments, clause by clause) and any two texts
compared, by id only; another tenant's contract is a 404 like a missing one, a bad reference and
a contract without tracked changes are 422s that say what to do; the MCP tool reads the same."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clausewise_lab.evals.word_files import write_word_file
from tests.live import LiveServer, wait_job
from tests.test_service import error_of, ingested, legal_app, service_settings, tenant_keys
from tests.test_service_tenants import _mcp
from tests.test_word_revisions import THEM, services_agreement


@pytest.fixture(scope="module")
def served(hub, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("changes-service")
    settings = service_settings(folder / "data")
    key_a, key_b = tenant_keys(settings, "a", "b")
    word_file = write_word_file(folder / "services.docx", services_agreement())
    with LiveServer(legal_app(settings, hub)) as live:
        with live.client(key_a) as a:
            with word_file.open("rb") as handle:
                upload = a.post(
                    "/v1/contracts", files={"file": ("services.docx", handle, "application/octet-stream")}
                )
            assert upload.status_code == 202, upload.text
            job = wait_job(a, upload.json()["job"]["id"])
            assert job["status"] == "done", job
            ingested(a, "mutual-nda.txt")
        yield live, key_a, key_b, job


def test_the_ingest_says_how_many_changes_by_whom(served) -> None:
    *_, job = served
    assert "3 tracked changes (Opposing Counsel 3)" in " ".join(job["result"]["manifest"]["warnings"])


def test_the_round_and_the_comparison_of_its_texts(served) -> None:
    live, key_a, _, _ = served
    with live.client(key_a) as a:
        response = a.get("/v1/contracts/services/changes")
        assert response.status_code == 200, response.text
        found = response.json()
        assert found["authors"] == {THEM: 3} and found["read_as"] == "proposed"
        assert [c["kind"] for c in found["revisions"]] == ["delete", "insert", "insert"]
        changes = found["comparison"]["changes"]
        assert [(c["kind"], c["authors"]) for c in changes] == [
            ("value_changed", [THEM]),
            ("clause_inserted", [THEM]),
        ]
        assert (changes[0]["value_before"], changes[0]["value_after"]) == ("12 months", "6 months")
        compared = a.get("/v1/compare", params={"before": "services@before", "after": "services"}).json()
        assert [c["kind"] for c in compared["changes"]] == ["value_changed", "clause_inserted"]
        assert compared["before_name"] == "services@before" and "/" not in response.text.replace("</", "")


def test_refusals_say_what_to_do_and_another_tenants_contract_is_not_found(served) -> None:
    live, key_a, key_b, _ = served
    with live.client(key_a) as a:
        bad = a.get("/v1/compare", params={"before": "services@latest", "after": "services"})
        assert bad.status_code == 422 and error_of(bad)["code"] == "invalid_reference"
        plain = a.get("/v1/contracts/mutual-nda/changes")
        assert plain.status_code == 422 and error_of(plain)["code"] == "no_tracked_changes"
        assert "no tracked changes" in error_of(plain)["message"]
        assert "compare" in error_of(plain)["hint"]
    with live.client(key_b) as b:
        assert b.get("/v1/contracts/services/changes").status_code == 404
        other = b.get("/v1/compare", params={"before": "services@before", "after": "services"})
        assert (
            other.status_code == 404 and error_of(other)["message"] == "no contract 'services' in tenant 'b'"
        )


def test_the_mcp_tool_reads_the_round_of_the_callers_contract_only(served) -> None:
    live, key_a, key_b, _ = served
    _, (found,) = asyncio.run(_mcp(live.url, key_a, [("tracked_changes", {"contract": "services"})]))
    assert found.structured_content["authors"] == {THEM: 3}
    _, (refused,) = asyncio.run(_mcp(live.url, key_b, [("tracked_changes", {"contract": "services"})]))
    assert refused.is_error and "no contract" in refused.content[0].text


def test_a_word_file_path_never_reaches_the_answer(served, tmp_path: Path) -> None:
    live, key_a, _, _ = served
    with live.client(key_a) as a:
        body = a.get("/v1/contracts/services/changes").text
    assert str(tmp_path.parent) not in body and "changes-service" not in body


def test_the_round_held_against_a_playbook_as_a_job_and_answered_in_their_file(served) -> None:
    from tools.round_reply import text_of

    live, key_a, key_b, _ = served
    with live.client(key_a) as a:
        created = a.post(
            "/v1/contracts/services/changes/assessments", json={"playbook": "playbook-commercial"}
        )
        assert created.status_code == 202, created.text
        job = wait_job(a, created.json()["id"])
        assert job["status"] == "done", job
        result = a.get(f"/v1/jobs/{job['id']}/result").json()
        worse = {p["clause"]: p["changes"] for p in result["positions"] if p["movement"] == "worse"}
        assert worse["Cap on Liability"] == [1] and worse["Exclusivity"] == [2]
        reply = a.get(f"/v1/round-assessments/{job['id']}/reply", params={"author": "Buyer Counsel"})
        assert reply.status_code == 200 and reply.headers["content-type"].startswith(
            "application/vnd.openxml"
        )
        accepted = text_of(reply.content, "proposed")
        # their six months meet the fallback and stay; the new exclusivity clause is rejected
        assert "fees paid in the six (6) months" in accepted and "Exclusivity" not in accepted
        plain = a.post("/v1/contracts/mutual-nda/changes/assessments", json={"playbook": "playbook-nda"})
        assert plain.status_code == 422 and error_of(plain)["code"] == "no_tracked_changes"
    with live.client(key_b) as b:
        assert b.get(f"/v1/round-assessments/{job['id']}/reply").status_code == 404
        theirs = b.post(
            "/v1/contracts/services/changes/assessments", json={"playbook": "playbook-commercial"}
        )
        assert theirs.status_code == 404


def test_either_text_is_served_and_a_contract_without_changes_has_only_one(served) -> None:
    live, key_a, _, _ = served
    with live.client(key_a) as a:
        before = a.get("/v1/contracts/services/text", params={"reading": "before"}).json()["text"]
        proposed = a.get("/v1/contracts/services/text", params={"reading": "proposed"}).json()["text"]
        assert "twelve (12) months" in before and "six (6) months" in proposed
        assert a.get("/v1/contracts/services/text").json()["text"] == proposed  # read as proposed
        refused = a.get("/v1/contracts/mutual-nda/text", params={"reading": "before"})
        assert refused.status_code == 422 and error_of(refused)["code"] == "no_tracked_changes"
