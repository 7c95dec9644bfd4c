"""Ask a data room through a live server on loopback: ``POST /v1/rooms`` as a job, its rows
streamed as they are decided, the grid and roll-up as its result, CSV and Excel downloads, one
grid from several jobs, refusals, tenants kept apart, and the MCP tool (with the SDK's client).
The classifiers are the shipped ones; the language model is scripted."""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest

from tests.live import LiveServer, sse_events, wait_job
from tests.test_service import GOVERNING, error_of, ingested, legal_app, service_settings, tenant_keys
from tests.test_service_tenants import _mcp

LAW = "Which law governs the agreement?"
EXPIRY = "When does the agreement expire?"
CONTRACTS = ("mutual-nda", "services-agreement")


@pytest.fixture(scope="module")
def served(hub, tmp_path_factory: pytest.TempPathFactory):
    """A live server with two tenants: A owns the two example contracts, B only the NDA."""
    settings = service_settings(tmp_path_factory.mktemp("room-service"))
    key_a, key_b = tenant_keys(settings, "a", "b")
    with LiveServer(legal_app(settings, hub)) as live:
        for key, names in ((key_a, CONTRACTS), (key_b, CONTRACTS[:1])):
            with live.client(key) as client:
                for name in names:
                    ingested(client, f"{name}.txt")
        yield live, key_a, key_b


def test_a_room_streams_its_rows_then_the_grid(served) -> None:
    live, key_a, _ = served
    body = {"contracts": list(CONTRACTS), "questions": [LAW, EXPIRY, LAW.lower()], "stream": True}
    with live.client(key_a) as client:
        with client.stream("POST", "/v1/rooms", json=body) as response:
            assert response.status_code == 200 and response.headers["x-job-id"]
            events = sse_events(response)
        names = [name for name, _ in events]
        assert names[0] == "queued" and names[-1] == "result"
        rows = [json.loads(data) for name, data in events if name == "row"]
        assert len(rows) == 4 and names.index("row") < names.index("result")  # the repeated question: once
        result = json.loads(events[-1][1])
        assert result["kind"] == "room" and [q["question"] for q in result["questions"]] == [LAW, EXPIRY]
        assert result["rows"] == rows
        grid = {row["contract_id"]: [c["shown"] for c in row["cells"]] for row in result["grid"]}
        assert grid["mutual-nda"][0] == "England (9.1)" and grid["services-agreement"][0] == "New York (11.1)"
        assert grid["services-agreement"][1] == "three (3) years (4.1/s1)"
        law = result["rollup"]["questions"][0]
        assert law["counts"]["value"] == 2 and {g["label"] for g in law["values"]} == {"England", "New York"}
        for row in rows:  # every quote shown is the contract's text at its span
            for source in row["result"]["sources"]:
                start, end = source["span"]
                text = client.get(
                    f"/v1/contracts/{row['contract_id']}/text", params={"start": start, "end": end}
                )
                assert text.json()["text"] == source["quote"]
        job_id = response.headers["x-job-id"]
        assert client.get(f"/v1/jobs/{job_id}").json()["progress"] == {"done": 4, "total": 4, "note": ""}
        # the same room again: every row read back from the stored unit results
        again = wait_job(client, client.post("/v1/rooms", json={**body, "stream": False}).json()["id"])
        assert all(row["resumed"] for row in again["result"]["rows"])
        assert [r["result"] for r in again["result"]["rows"]] == [r["result"] for r in rows]


def test_room_downloads_and_one_grid_from_several_jobs(served) -> None:
    from openpyxl import load_workbook

    live, key_a, _ = served
    with live.client(key_a) as client:
        first = wait_job(
            client, client.post("/v1/rooms", json={"all": True, "questions": [LAW]}).json()["id"]
        )
        second = wait_job(
            client,
            client.post(
                "/v1/rooms", json={"contracts": ["services-agreement"], "questions": [EXPIRY]}
            ).json()["id"],
        )
        assert first["status"] == second["status"] == "done"
        table = client.get(f"/v1/jobs/{first['id']}/result", params={"format": "csv"})
        assert table.status_code == 200 and table.headers["content-type"].startswith("text/csv")
        lines = list(csv.DictReader(io.StringIO(table.text)))
        assert [(r["contract"], r["clauses"]) for r in lines] == [
            ("mutual-nda", "9.1"),
            ("services-agreement", "11.1"),
        ]
        assert GOVERNING in lines[0]["quotes"]
        merged = client.get(
            "/v1/rooms/export", params={"jobs": [first["id"], second["id"]], "format": "xlsx"}
        )
        assert merged.status_code == 200 and "attachment" in merged.headers["content-disposition"]
        book = load_workbook(io.BytesIO(merged.content))
        grid = [[c.value for c in row] for row in book["grid"].iter_rows()]
        assert grid[0] == ["contract", LAW, EXPIRY]
        assert grid[1][:2] == ["mutual-nda", "England (9.1)"] and grid[2] == [
            "services-agreement",
            "New York (11.1)",
            "three (3) years (4.1/s1)",
        ]
        markdown = client.get("/v1/rooms/export", params={"jobs": [first["id"]], "format": "md"})
        assert "| mutual-nda | England (9.1) |" in markdown.text


def test_bad_rooms_are_refused_with_a_clear_error(served) -> None:
    live, key_a, _ = served
    with live.client(key_a) as client:
        cases = [
            ({"contracts": ["mutual-nda"], "questions": []}, 422, "invalid_request"),
            ({"contracts": ["nope"], "questions": [LAW]}, 404, "contract_not_found"),
            ({"contracts": ["mutual-nda"], "all": True, "questions": [LAW]}, 400, "config_error"),
            ({"questions": [LAW]}, 400, "config_error"),
            ({"contracts": ["mutual-nda"], "questions": ["  "]}, 422, "empty_question"),
            ({"contracts": ["mutual-nda"], "questions": ["why " * 2000]}, 422, "question_too_long"),
            (
                {"contracts": ["mutual-nda"], "questions": [f"Q{n}?" for n in range(51)]},
                422,
                "invalid_request",
            ),
            ({"contracts": ["mutual-nda"], "questions": [LAW], "typo": 1}, 422, "invalid_request"),
        ]
        for body, status, code in cases:
            response = client.post("/v1/rooms", json=body)
            assert response.status_code == status, (body, response.text)
            assert error_of(response)["code"] == code
            assert "/tmp" not in response.text and "Traceback" not in response.text
        check = client.post(
            "/v1/checks", json={"contracts": ["mutual-nda"], "hypotheses": ["Governed by English law."]}
        )
        wait_job(client, check.json()["id"])
        refused = client.get("/v1/rooms/export", params={"jobs": [check.json()["id"]]})
        assert refused.status_code == 422 and error_of(refused)["code"] == "not_a_room"
        unknown = client.get("/v1/rooms/export", params={"jobs": ["0123456789abcdef"]})
        assert unknown.status_code == 404 and error_of(unknown)["code"] == "job_not_found"


def test_a_tenant_asks_only_its_own_contracts(served) -> None:
    live, key_a, key_b = served
    with live.client(key_a) as a:
        job_a = a.post("/v1/rooms", json={"contracts": ["mutual-nda"], "questions": [LAW]}).json()["id"]
        wait_job(a, job_a)
    with live.client(key_b) as b:
        refused = b.post("/v1/rooms", json={"contracts": ["services-agreement"], "questions": [LAW]})
        assert refused.status_code == 404 and "services-agreement" in error_of(refused)["message"]
        assert b.get(f"/v1/jobs/{job_a}").status_code == 404
        assert b.get("/v1/rooms/export", params={"jobs": [job_a]}).status_code == 404
        mine = wait_job(b, b.post("/v1/rooms", json={"all": True, "questions": [LAW]}).json()["id"])
        assert [row["contract_id"] for row in mine["result"]["grid"]] == ["mutual-nda"]


def test_the_mcp_tool_asks_a_data_room(served) -> None:
    live, key_a, key_b = served
    calls = [("ask_data_room", {"questions": [LAW, EXPIRY]})]
    tools, (asked,) = asyncio.run(_mcp(live.url, key_a, calls))
    assert "ask_data_room" in tools
    room = asked.structured_content
    cells = {(c["contract"], c["question"]): c for c in room["cells"]}
    assert cells[("services-agreement", LAW)]["line"] == "New York [1]"
    assert cells[("services-agreement", LAW)]["clauses"] == ["11.1"]
    assert "New York" in cells[("services-agreement", LAW)]["quotes"][0]["quote"]
    assert room["rollup"]["questions"][1]["counts"]["value"] == 2
    # B's tool sees only B's contract, and A's by name is not found
    _, (mine, theirs) = asyncio.run(
        _mcp(
            live.url,
            key_b,
            [calls[0], ("ask_data_room", {"questions": [LAW], "contracts": ["services-agreement"]})],
        )
    )
    assert {c["contract"] for c in mine.structured_content["cells"]} == {"mutual-nda"}
    assert theirs.is_error and "no contract" in json.dumps([c.model_dump() for c in theirs.content])
