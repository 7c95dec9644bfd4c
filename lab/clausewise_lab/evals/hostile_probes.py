"""The hostile client of ``clausewise eval serve``'s fault run: what a client may send and what the
server must answer, stated here as data, and the scorer of each answer.

Two tenants: the owner (:data:`OWNER`, with a contract, a chat thread and an answered question)
and the other (:data:`OTHER`, with nothing). The other tenant names the owner's contract, thread
and job in every way a request can (path, query, JSON body, chat model, a server path, ``../``);
each must be the same 404 as the same request for a thing nobody has (its *twin*). Keys that are
revoked, unknown, malformed or missing are 401. The owner sends other bytes under its contract's
id (409 ``contract_changed``), the same bytes again (200, nothing new), bodies too large, too deep,
not UTF-8 or truncated, files that cannot be read, and asks to delete its live version alone.

The expected statuses and codes are the documented ones (docs/service.md, "Errors"), written out
here: the benchmark scores the server, so it does not ask the server's own code what is right.
Each response is scored by :func:`problems_of` (status, error envelope with a hint) and
:func:`leaks` (no server path anywhere, no other tenant's name or ids unless the request itself
said them).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import httpx

#: The tenants of the fault run: distinctive names, so a leak of one cannot be a coincidence.
OWNER, OTHER = "bench-owner-tenant", "bench-other-tenant"
#: The owner's contract id.
CONTRACT = "owner-secret-nda"
#: Question asked by the probes that name a contract (one the value reader decides).
QUESTION = "Which law governs this agreement?"


@dataclass(frozen=True)
class Probe:
    """One hostile request and the answer the server must give.

    ``key``: whose key is sent (``owner``, ``other``, ``revoked``, ``unknown``, ``garbage``,
    ``none``). ``path`` and ``json`` may hold ``{contract}``, ``{thread}``, ``{job}``, ``{owner}``,
    ``{contract_dir}`` and ``{keys_file}`` (server paths), and their URL-quoted forms ``{..._q}``.
    ``raw`` names a body of :func:`raw_body`, ``upload`` a file of :func:`upload_file`.
    ``code`` is the error code expected (``None``: a success, no envelope). ``twin``: the 404 must
    equal, word for word once the names are taken out, the same request naming what nobody has."""

    name: str
    key: str
    method: str
    path: str
    status: int
    code: str | None = None
    json: Any = None
    raw: str | None = None
    upload: str | None = None
    form: tuple[tuple[str, str], ...] = ()
    twin: bool = False


def _not_yours(name: str, method: str, path: str, code: str = "contract_not_found", **kw: Any) -> Probe:
    return Probe(name, "other", method, path, 404, code, twin=True, **kw)


_CHAT = {"model": "clausewise/{contract}", "messages": [{"role": "user", "content": QUESTION}]}
_HYPOTHESIS = "Confidentiality obligations survive the end of the agreement."

#: Every probe of the fault run (a run of N probes cycles through them).
PROBES: tuple[Probe, ...] = (
    # the other tenant names the owner's things: one 404, whether or not they exist elsewhere
    _not_yours("contract", "GET", "/v1/contracts/{contract}"),
    _not_yours("contract version", "GET", "/v1/contracts/{contract}?version=1"),
    _not_yours("text of version 1", "GET", "/v1/contracts/{contract}/text?version=1"),
    _not_yours("tree", "GET", "/v1/contracts/{contract}/tree"),
    _not_yours("pages", "GET", "/v1/contracts/{contract}/pages"),
    _not_yours("page image", "GET", "/v1/contracts/{contract}/pages/1/image"),
    _not_yours("highlight", "GET", "/v1/contracts/{contract}/highlight?start=0&end=5"),
    _not_yours("search", "GET", "/v1/contracts/{contract}/search?q=governing%20law"),
    _not_yours("original", "GET", "/v1/contracts/{contract}/original"),
    _not_yours("delete contract", "DELETE", "/v1/contracts/{contract}"),
    _not_yours("delete version", "DELETE", "/v1/contracts/{contract}?version=1"),
    _not_yours("ask", "POST", "/v1/contracts/{contract}/ask", json={"question": QUESTION}),
    _not_yours(
        "ask streamed", "POST", "/v1/contracts/{contract}/ask", json={"question": QUESTION, "stream": True}
    ),
    _not_yours("thread on contract", "POST", "/v1/threads", json={"contract": "{contract}"}),
    _not_yours("threads of contract", "GET", "/v1/threads?contract={contract_q}"),
    _not_yours("thread", "GET", "/v1/threads/{thread}", "thread_not_found"),
    _not_yours(
        "thread message",
        "POST",
        "/v1/threads/{thread}/messages",
        "thread_not_found",
        json={"content": QUESTION},
    ),
    _not_yours("delete thread", "DELETE", "/v1/threads/{thread}", "thread_not_found"),
    _not_yours("job", "GET", "/v1/jobs/{job}", "job_not_found"),
    _not_yours("job result", "GET", "/v1/jobs/{job}/result?format=md", "job_not_found"),
    _not_yours("job events", "GET", "/v1/jobs/{job}/events", "job_not_found"),
    _not_yours("cancel job", "POST", "/v1/jobs/{job}/cancel", "job_not_found"),
    _not_yours(
        "check", "POST", "/v1/checks", json={"contracts": ["{contract}"], "hypotheses": [_HYPOTHESIS]}
    ),
    _not_yours("review", "POST", "/v1/reviews", json={"contracts": ["{contract}"]}),
    _not_yours("chat model", "POST", "/v1/chat/completions", json=_CHAT),
    _not_yours("data room", "POST", "/v1/rooms", json={"contracts": ["{contract}"], "questions": [QUESTION]}),
    _not_yours("data room export", "GET", "/v1/rooms/export?jobs={job}&format=csv", "job_not_found"),
    # ... by a server path or a relative one
    _not_yours("traversal in body", "POST", "/v1/threads", json={"contract": "../{owner}/{contract}"}),
    _not_yours(
        "server folder in body", "POST", "/v1/checks", json={"contracts": ["{contract_dir}"], "suite": "nda"}
    ),
    _not_yours("server file in body", "POST", "/v1/reviews", json={"contracts": ["{keys_file}"]}),
    _not_yours("traversal in path", "GET", "/v1/contracts/..%2F{owner}%2F{contract}", "not_found"),
    _not_yours("server folder in path", "GET", "/v1/contracts/{contract_dir_q}/text", "not_found"),
    # the other tenant's own views show nothing of the owner's
    Probe("list contracts", "other", "GET", "/v1/contracts", 200),
    Probe("list jobs", "other", "GET", "/v1/jobs?limit=1000", 200),
    Probe("list threads", "other", "GET", "/v1/threads", 200),
    Probe("list models", "other", "GET", "/v1/models", 200),
    Probe(
        "data room of all mine",
        "other",
        "POST",
        "/v1/rooms",
        404,
        "contract_not_found",
        json={"all": True, "questions": [QUESTION]},
    ),
    # keys
    Probe("revoked key", "revoked", "GET", "/v1/contracts", 401, "invalid_api_key"),
    Probe(
        "revoked key asks",
        "revoked",
        "POST",
        "/v1/contracts/{contract}/ask",
        401,
        "invalid_api_key",
        json={"question": QUESTION},
    ),
    Probe(
        "unknown key",
        "unknown",
        "POST",
        "/v1/checks",
        401,
        "invalid_api_key",
        json={"contracts": ["x"], "suite": "nda"},
    ),
    Probe("garbage key", "garbage", "GET", "/v1/jobs", 401, "invalid_api_key"),
    Probe("no key", "none", "GET", "/v1/contracts/{contract}", 401, "missing_api_key"),
    # refusals with the envelope and a hint; nothing kept
    Probe("unknown route", "other", "GET", "/v1/nothing-here", 404, "not_found"),
    Probe("wrong method", "owner", "PUT", "/v1/contracts/{contract}", 405, "method_not_allowed"),
    Probe("truncated JSON", "other", "POST", "/v1/threads", 400, "malformed_json", raw="truncated"),
    Probe(
        "unreadable form", "other", "POST", "/v1/contracts", 400, "malformed_form", raw="garbage multipart"
    ),
    Probe(
        "id with traversal",
        "other",
        "POST",
        "/v1/contracts",
        422,
        "invalid_contract_id",
        upload="small text",
        form=(("contract_id", "../{owner}/x"),),
    ),
    Probe("empty file", "other", "POST", "/v1/contracts", 422, "empty_document", upload="empty"),
    Probe(
        "legacy Word file",
        "other",
        "POST",
        "/v1/contracts",
        415,
        "unsupported_file_type",
        upload="legacy doc",
    ),
    Probe("binary as text", "other", "POST", "/v1/contracts", 422, "undecodable_text", upload="binary text"),
    Probe(
        "batch with an empty file",
        "other",
        "POST",
        "/v1/batches",
        422,
        "empty_document",
        upload="batch, one file empty",
        form=(("kind", "check"), ("suite", "nda")),
    ),
    # the owner: its contract is not replaced, its live version not deleted
    Probe(
        "other bytes, same id",
        "owner",
        "POST",
        "/v1/contracts",
        409,
        "contract_changed",
        upload="other bytes",
        form=(("contract_id", "{contract}"),),
    ),
    Probe(
        "same bytes again",
        "owner",
        "POST",
        "/v1/contracts",
        200,
        upload="same bytes",
        form=(("contract_id", "{contract}"),),
    ),
    Probe(
        "delete the live version",
        "owner",
        "DELETE",
        "/v1/contracts/{contract}?version=1",
        409,
        "live_version",
    ),
    Probe(
        "no such version", "owner", "GET", "/v1/contracts/{contract}/text?version=2", 404, "version_not_found"
    ),
    Probe("no such page", "owner", "GET", "/v1/contracts/{contract}/pages/99/image", 404, "no_such_page"),
    Probe(
        "span past the end",
        "owner",
        "GET",
        "/v1/contracts/{contract}/highlight?start=0&end=99999999",
        422,
        "invalid_span",
    ),
    Probe("cancel a finished job", "owner", "POST", "/v1/jobs/{job}/cancel", 409, "job_finished"),
    Probe("own report", "owner", "GET", "/v1/jobs/{job}/result?format=md", 200),
    Probe("own text", "owner", "GET", "/v1/contracts/{contract}/text?version=1", 200),
    # the owner's bodies: deep, not UTF-8, too large (announced or streamed), too long
    Probe(
        "deep JSON array",
        "owner",
        "POST",
        "/v1/contracts/{contract}/ask",
        400,
        "malformed_json",
        raw="deep array",
    ),
    Probe("deep JSON object", "owner", "POST", "/v1/checks", 400, "malformed_json", raw="deep object"),
    Probe("JSON not UTF-8", "owner", "POST", "/v1/threads", 400, "malformed_json", raw="bad utf-8"),
    Probe("truncated chat", "owner", "POST", "/v1/chat/completions", 400, "malformed_json", raw="truncated"),
    Probe(
        "oversized body",
        "owner",
        "POST",
        "/v1/contracts/{contract}/ask",
        413,
        "payload_too_large",
        raw="oversize",
    ),
    Probe(
        "oversized, chunked", "owner", "POST", "/v1/checks", 413, "payload_too_large", raw="oversize chunked"
    ),
    Probe("oversized file", "owner", "POST", "/v1/contracts", 413, "file_too_large", upload="oversize"),
    Probe(
        "question too long",
        "owner",
        "POST",
        "/v1/contracts/{contract}/ask",
        422,
        "question_too_long",
        json={"question": "x" * 5000},
    ),
    Probe(
        "too many contracts",
        "owner",
        "POST",
        "/v1/checks",
        422,
        "invalid_request",
        json={"contracts": ["{contract}"] * 10_001, "suite": "nda"},
    ),
)


def raw_body(name: str, limit_bytes: int) -> tuple[bytes | Iterator[bytes], dict[str, str]]:
    """A body that is not well-formed JSON (or too large), with its headers."""
    as_json = {"content-type": "application/json"}
    if name == "deep array":
        return b"[" * 5000 + b"]" * 5000, as_json
    if name == "deep object":
        return b'{"a":' * 5000 + b"1" + b"}" * 5000, as_json
    if name == "bad utf-8":
        return b'{"contract": "\xff\xfe"}', as_json
    if name == "truncated":
        return b'{"question": ', as_json
    if name == "garbage multipart":
        return b"garbage, not a form", {"content-type": "multipart/form-data; boundary=xyz"}
    huge = json.dumps({"question": "x" * (limit_bytes + (64 << 10))}).encode()
    if name == "oversize":
        return huge, as_json
    if name == "oversize chunked":
        return (huge[i : i + 65536] for i in range(0, len(huge), 65536)), as_json
    raise ValueError(f"no raw body {name!r}")


def upload_file(
    name: str, files: Mapping[str, Path], max_file_bytes: int
) -> list[tuple[str, tuple[str, bytes]]]:
    """The multipart file parts of an upload: [(field, (file name, bytes))]. ``files`` holds the
    owner's contract (``same``) and another version of it (``other``)."""
    small = b"This Agreement is made between the parties."
    parts = {
        "same bytes": (files["same"].name, files["same"].read_bytes()),
        "other bytes": (files["other"].name, files["other"].read_bytes()),
        "small text": ("x.txt", small),
        "empty": ("empty.txt", b""),
        "legacy doc": ("old.doc", b"\xd0\xcf\x11\xe0" + b"\x00" * 600),
        "binary text": ("binary.txt", bytes(range(256)) * 40),
        "oversize": ("big.txt", b"clause " * (max_file_bytes // 7 + 1000)),
    }
    if name == "batch, one file empty":
        return [("files", ("a.txt", small)), ("files", ("empty.txt", b""))]
    if name not in parts:
        raise ValueError(f"no upload {name!r}")
    return [("file", parts[name])]


@dataclass(frozen=True)
class Names:
    """The values of a probe's placeholders: the owner's things, or (for a twin) things nobody has."""

    contract: str
    thread: str
    job: str
    owner: str
    contract_dir: str
    keys_file: str

    def values(self) -> dict[str, str]:
        plain = {
            "contract": self.contract,
            "thread": self.thread,
            "job": self.job,
            "owner": self.owner,
            "contract_dir": self.contract_dir,
            "keys_file": self.keys_file,
        }
        return plain | {f"{k}_q": quote(v, safe="") for k, v in plain.items()}

    def nobody(self, data_dir: Path) -> Names:
        """The same kinds of names, of nothing: ids of the same shape, paths that are not there."""
        return Names(
            contract="nobody-has-this-nda",
            thread="0" * len(self.thread),
            job="0" * len(self.job),
            owner="nobody-tenant-here",
            contract_dir=str(
                data_dir / "tenants" / "nobody-tenant-here" / "contracts" / "nobody-has-this-nda"
            ),
            keys_file=str(data_dir / "service" / "nothing-here.sqlite"),
        )


def fill(template: Any, names: Names) -> Any:
    """``template`` (a string, or JSON of strings) with the placeholders replaced."""
    if isinstance(template, str):
        for key, value in sorted(names.values().items(), key=lambda kv: -len(kv[0])):
            template = template.replace("{" + key + "}", value)
        return template
    if isinstance(template, list):
        return [fill(item, names) for item in template]
    if isinstance(template, dict):
        return {k: fill(v, names) for k, v in template.items()}
    return template


@dataclass(frozen=True)
class Sent:
    """A probe as sent: the request line, what the request said (for echoes), the response."""

    request: str
    said: str
    status: int
    text: str


def send(
    client: httpx.Client, probe: Probe, names: Names, *, files: Mapping[str, Path], limits: tuple[int, int]
) -> Sent:
    """Send ``probe`` with ``names``; ``limits`` = (request body bytes, file bytes) of the server."""
    path = fill(probe.path, names)
    said = [path, unquote(path)]
    kwargs: dict[str, Any] = {}
    if probe.json is not None:
        body = fill(probe.json, names)
        kwargs["json"] = body
        said.append(json.dumps(body))
    if probe.raw is not None:
        content, headers = raw_body(probe.raw, limits[0])
        kwargs["content"], kwargs["headers"] = content, headers
    if probe.upload is not None:
        parts = upload_file(probe.upload, files, limits[1])
        form = {k: fill(v, names) for k, v in probe.form}
        kwargs["files"], kwargs["data"] = parts, form
        said += [file_name for _field, (file_name, _content) in parts] + list(form.values())
    response = client.request(probe.method, path, **kwargs)
    return Sent(f"{probe.method} {path}", "\n".join(said), response.status_code, response.text)


@dataclass(frozen=True)
class McpProbe:
    """A call of an MCP tool by the other tenant (``/mcp``, the same keys): refused with a message
    saying ``says``, or answered; ``twin`` as for :class:`Probe`."""

    name: str
    tool: str
    arguments: Any
    refused: bool
    says: str = ""
    twin: bool = False


#: The MCP tools, called by the other tenant on the owner's contract.
MCP_PROBES: tuple[McpProbe, ...] = (
    McpProbe("MCP list", "list_contracts", {}, refused=False),
    McpProbe(
        "MCP search", "search_contract", {"contract": "{contract}", "query": "law"}, True, "no contract", True
    ),
    McpProbe("MCP ask", "ask", {"contract": "{contract}", "question": QUESTION}, True, "no contract", True),
    McpProbe(
        "MCP check",
        "check_hypothesis",
        {"contract": "{contract}", "hypothesis": _HYPOTHESIS},
        True,
        "no contract",
        True,
    ),
    McpProbe(
        "MCP data room",
        "ask_data_room",
        {"questions": [QUESTION], "contracts": ["{contract}"]},
        True,
        "no contract",
        True,
    ),
    McpProbe("MCP data room of all mine", "ask_data_room", {"questions": [QUESTION]}, True, "no contracts"),
    McpProbe(
        "MCP search by server path",
        "search_contract",
        {"contract": "{contract_dir}", "query": "law"},
        True,
        "no contract",
        True,
    ),
)


async def call_mcp(url: str, key: str, probes: Iterable[McpProbe], names: Names) -> list[Sent]:
    """Each MCP probe called with ``names`` in one session: status 1 when refused (an error
    result), 0 when answered; the text is every content part and the structured result."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    sent = []
    async with (
        create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        for probe in probes:
            arguments = fill(probe.arguments, names)
            result = await client.call_tool(probe.tool, arguments)
            shown = [part.model_dump(mode="json") for part in result.content]
            text = json.dumps([shown, result.structured_content])
            said = json.dumps(arguments)
            sent.append(Sent(f"MCP {probe.tool} {said}", said, int(bool(result.is_error)), text))
    return sent


def mcp_problems_of(probe: McpProbe, sent: Sent) -> list[str]:
    """What is wrong with an MCP tool's answer: refused or not as expected, saying what it must."""
    if bool(sent.status) != probe.refused:
        return ["answered, expected a refusal" if probe.refused else "refused, expected an answer"]
    return [f"does not say {probe.says!r}"] if probe.says and probe.says not in sent.text else []


def problems_of(probe: Probe, sent: Sent) -> list[str]:
    """What is wrong with the answer to ``probe``: its status; for a refusal, the envelope
    ``{"error": {code, message, hint}}`` with the expected code and a hint."""
    if sent.status != probe.status:
        return [f"status {sent.status}, expected {probe.status}"]
    if probe.code is None:
        return []
    try:
        error = json.loads(sent.text)["error"]
    except (ValueError, KeyError, TypeError):
        error = None
    if not isinstance(error, dict) or set(error) != {"code", "message", "hint"}:
        return [f"no error envelope (expected {probe.code})"]
    if error["code"] != probe.code:
        return [f"code {error['code']!r}, expected {probe.code!r}"]
    return [] if error["hint"] else [f"{probe.code}: no hint"]


def leaks(text: str, said: str, paths: Iterable[str], foreign: Iterable[str]) -> list[str]:
    """What ``text`` (a response) shows that it must not: a server path, anywhere (even one the
    request sent: a path is shown by its last part only), or another tenant's name or ids, unless
    the request itself said them (an echo of "no contract '...'" is the caller's own words)."""
    shown = [path for path in paths if path and path in text]
    return shown + [name for name in foreign if name and name in text and name not in said]


def normalized(text: str, names: Names) -> str:
    """A response with the names the request used taken out (in every form a response may show
    them: as sent, URL-quoted, a path's last part), to compare a probe with its twin."""
    forms: list[tuple[str, str]] = []
    for key, value in names.values().items():
        forms += [(value, key), (Path(value).name, key)]
    for value, key in sorted(forms, key=lambda form: -len(form[0])):
        if value:
            text = text.replace(value, f"<{key}>")
    return text


def catalog(count: int, seed: int = 0) -> list[Probe]:
    """``count`` probes: the whole list as many times as it fits, then its first ones, shuffled
    (the same order every run) so that every kind runs alongside the others."""
    probes = [PROBES[i % len(PROBES)] for i in range(count)]
    random.Random(seed).shuffle(probes)
    return probes
