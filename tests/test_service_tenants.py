"""Keys and tenants through every door of a live server: REST, the OpenAI-compatible endpoint
(with the official ``openai`` client) and MCP (with the SDK's own client). Tenant B owns a
contract, a thread and jobs; tenant A's key finds none of them, by id, by path, or by name."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.conftest import EXAMPLES
from tests.helpers import keyed_settings
from tests.live import LiveServer, wait_job
from tests.test_service import GOVERNING, SURVIVAL, error_of, legal_app


@pytest.fixture(scope="module")
def served(hub, tmp_path_factory: pytest.TempPathFactory):
    settings, keys = keyed_settings(tmp_path_factory.mktemp("tenants-service"))
    _, key_a = keys.create("a", "tests")
    _, key_b = keys.create("b", "tests")
    _, revoked = keys.create("b", "old")
    keys.revoke(revoked.split("_")[1])
    app = legal_app(settings, hub)
    with LiveServer(app) as live:
        with live.client(key_b) as b:
            with (EXAMPLES / "mutual-nda.txt").open("rb") as handle:
                upload = b.post("/v1/contracts", files={"file": ("mutual-nda.txt", handle)}).json()
            wait_job(b, upload["job"]["id"])
            thread = b.post("/v1/threads", json={"contract": "mutual-nda"}).json()
            check = b.post(
                "/v1/checks", json={"contracts": ["mutual-nda"], "hypotheses": ["Governed by English law."]}
            )
            job = wait_job(b, check.json()["id"])
        yield live, key_a, key_b, revoked, thread["id"], job["id"]


def test_keys_are_required_once_they_exist(served) -> None:
    live, _key_a, _key_b, revoked, _thread, _job = served
    for key in (None, "cw_deadbeef_not-a-real-secret-at-all-xxxxxx", revoked, "garbage"):
        with live.client(key) as client:
            response = client.get("/v1/contracts")
            assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
            assert error_of(response)["code"] in ("missing_api_key", "invalid_api_key")
    with live.client() as client:
        assert client.get("/healthz").status_code == 200  # health needs no key


def test_another_tenants_things_are_not_found_by_any_route(served) -> None:
    live, key_a, key_b, _revoked, thread, job = served
    with live.client(key_a) as a:
        assert a.get("/v1/contracts").json() == [] and a.get("/v1/threads").json() == []
        assert a.get("/v1/jobs").json() == {"jobs": []}
        for reference in ("mutual-nda", "mutual-nda.txt", "..%2Fb%2Fmutual-nda", "%2E%2E%2Fb%2Fmutual-nda"):
            for method, path, body in (
                ("GET", f"/v1/contracts/{reference}", None),
                ("GET", f"/v1/contracts/{reference}/tree", None),
                ("GET", f"/v1/contracts/{reference}/text", None),
                ("GET", f"/v1/contracts/{reference}/search?q=law", None),
                ("GET", f"/v1/contracts/{reference}/original", None),
                ("POST", f"/v1/contracts/{reference}/ask", {"question": "Which law governs?"}),
                ("DELETE", f"/v1/contracts/{reference}", None),
            ):
                response = a.request(method, path, json=body)
                assert response.status_code == 404, (method, path, response.text)
        for method, path, body in (
            ("POST", "/v1/threads", {"contract": "mutual-nda"}),
            ("POST", "/v1/checks", {"contracts": ["mutual-nda"], "suite": "nda"}),
            ("POST", "/v1/reviews", {"contracts": ["mutual-nda"]}),
            ("GET", f"/v1/threads/{thread}", None),
            ("POST", f"/v1/threads/{thread}/messages", {"content": "Which law?"}),
            ("DELETE", f"/v1/threads/{thread}", None),
            ("GET", f"/v1/jobs/{job}", None),
            ("GET", f"/v1/jobs/{job}/result", None),
            ("GET", f"/v1/jobs/{job}/events", None),
            ("POST", f"/v1/jobs/{job}/cancel", None),
        ):
            response = a.request(method, path, json=body)
            assert response.status_code == 404, (method, path, response.text)
        chat = a.post(
            "/v1/chat/completions",
            json={"model": "clausewise/mutual-nda", "messages": [{"role": "user", "content": "Which law?"}]},
        )
        assert chat.status_code == 404 and a.get("/v1/models").json()["data"] == []
    with live.client(key_b) as b:  # all of it still there for B
        assert [c["contract_id"] for c in b.get("/v1/contracts").json()] == ["mutual-nda"]
        assert (
            b.get(f"/v1/threads/{thread}").status_code == 200 and b.get(f"/v1/jobs/{job}").status_code == 200
        )


def test_the_openai_client_talks_to_a_contract(served) -> None:
    live, _key_a, key_b, _revoked, _thread, _job = served
    client = openai.OpenAI(base_url=f"{live.url}/v1", api_key=key_b, max_retries=0)
    assert [m.id for m in client.models.list()] == ["clausewise/mutual-nda"]
    question = [{"role": "user", "content": "Which law governs this agreement?"}]
    completion = client.chat.completions.create(model="clausewise/mutual-nda", messages=question)
    message = completion.choices[0].message
    assert message.content.startswith("**England [1]**") and GOVERNING in message.content
    [reference] = message.model_extra["references"]
    assert reference["node_id"] == "9.1" and GOVERNING in reference["quote"] and reference["pages"] == [1]
    # a follow-up repeats the conversation: it continues the same thread
    follow_up = [
        *question,
        {"role": "assistant", "content": message.content},
        {"role": "user", "content": "And the courts?"},
    ]
    threads_before = _threads(live, key_b)
    client.chat.completions.create(model="clausewise/mutual-nda", messages=follow_up)
    assert _threads(live, key_b) == threads_before
    chunks = list(
        client.chat.completions.create(model="clausewise/mutual-nda", messages=question, stream=True)
    )
    assert chunks[0].choices[0].delta.role == "assistant"
    # the first content is the quick answer with its source, the report follows without repeating it
    first = next(c.choices[0].delta.content for c in chunks if c.choices[0].delta.content)
    assert first.startswith("**England [1]**") and "[1] 9.1" in first and GOVERNING in first
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text.count("**England [1]**") == 1 and len(text) > len(first)
    assert (
        chunks[-1].choices[0].finish_reason == "stop"
        and chunks[-1].model_extra["references"][0]["node_id"] == "9.1"
    )
    # the streamed text, sent back as the assistant's turn, continues that stream's thread
    threads_before = _threads(live, key_b)
    client.chat.completions.create(
        model="clausewise/mutual-nda",
        messages=[
            *question,
            {"role": "assistant", "content": text},
            {"role": "user", "content": "And the courts?"},
        ],
    )
    assert _threads(live, key_b) == threads_before
    with pytest.raises(openai.NotFoundError):
        client.chat.completions.create(model="gpt-4o", messages=question)


def _threads(live, key) -> int:
    with live.client(key) as client:
        return len(client.get("/v1/threads").json())


async def _mcp(
    url: str, key: str, calls: list[tuple[str, dict]], logged: list | None = None
) -> tuple[list[str], list]:
    from mcp.shared._httpx_utils import create_mcp_http_client  # the SDK's HTTP client, with headers

    async def progress(done: float, total: float | None, message: str | None) -> None:
        if logged is not None:
            logged.append((name, message))

    headers = {"Authorization": f"Bearer {key}"}
    async with (
        create_mcp_http_client(headers=headers) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        tools = sorted(t.name for t in (await client.list_tools()).tools)
        results = []
        for name, arguments in calls:
            results.append(await client.call_tool(name, arguments, progress_callback=progress))
    return tools, results


def test_mcp_tools_with_the_sdk_client(served) -> None:
    live, key_a, key_b, _revoked, _thread, _job = served
    calls = [
        ("list_contracts", {}),
        ("search_contract", {"contract": "mutual-nda", "query": "which law governs", "k": 2}),
        ("ask", {"contract": "mutual-nda", "question": "Which law governs?"}),
        (
            "check_hypothesis",
            {"contract": "mutual-nda", "hypothesis": SURVIVAL},
        ),
    ]
    logged: list = []
    tools, (listed, searched, asked, checked) = asyncio.run(_mcp(live.url, key_b, calls, logged))
    assert tools == [
        "ask",
        "ask_data_room",
        "check_hypothesis",
        "list_contracts",
        "review_against_playbook",
        "search_contract",
        "tracked_changes",
    ]
    assert [c["contract_id"] for c in listed.structured_content["result"]] == ["mutual-nda"]
    passages = searched.structured_content["result"]
    assert passages[0]["node_id"] == "9.1" and GOVERNING in passages[0]["quote"]
    assert GOVERNING in asked.structured_content["references"][0]["quote"]
    # the short answer was sent as progress before the report, as the result repeats it
    [quick] = [message for tool, message in logged if tool == "ask"]
    assert quick.startswith("**England [1]**") and GOVERNING in quick
    assert asked.structured_content["quick_answer"] == quick
    assert checked.structured_content["label"] == "Entailment"
    assert [e["node_id"] for e in checked.structured_content["evidence"]] == ["6.2"]
    # a choice among the provisions a question was offered back with, and a key that is none
    question = "Is it clear which state's rules apply?"
    _, (chosen, odd) = asyncio.run(
        _mcp(
            live.url,
            key_b,
            [
                ("ask", {"contract": "mutual-nda", "question": question, "provision": "cuad:governing-law"}),
                ("ask", {"contract": "mutual-nda", "question": question, "provision": "../../etc"}),
            ],
        )
    )
    assert not chosen.is_error and "Did you mean" not in chosen.structured_content["quick_answer"]
    assert GOVERNING in chosen.structured_content["references"][0]["quote"]
    assert odd.is_error and "provision key" in json.dumps([c.model_dump() for c in odd.content])
    # tenant A sees nothing of B's through MCP either
    _, (mine, theirs) = asyncio.run(_mcp(live.url, key_a, calls[:2]))
    assert mine.structured_content["result"] == []
    assert theirs.is_error and "no contract" in json.dumps([c.model_dump() for c in theirs.content])
