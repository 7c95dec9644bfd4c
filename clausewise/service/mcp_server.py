"""MCP tools over streamable HTTP at ``/mcp``, with the same keys and tenants as the REST API:
list contracts, search a contract (retrieval only: verified spans, no model), ask a question,
check a hypothesis, ask a data room (questions over many contracts), review a contract against a
playbook. Work that needs a model
goes through the same job queue as the REST routes.

Authentication is the API's own (:func:`clausewise.service.auth.tenant_for`) applied in front of
the MCP app, so a missing or wrong key is the same 401 envelope, a single-user server needs no
key, and the tenant reaches the tools through a context variable. The caller is also set as the
ASGI user, which binds an MCP session to the key that opened it.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from fastapi import FastAPI
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import TypeAdapter, ValidationError
from starlette.types import Receive, Scope, Send

from clausewise.core.errors import ClausewiseError, ProvisionNotFound
from clausewise.core.report import Report
from clausewise.core.results import Passage
from clausewise.retrieval import SpanSearch
from clausewise.service.answers import (
    answer_text,
    check_hypothesis_text,
    check_question,
    quick_text,
    references,
)
from clausewise.service.audit import record
from clausewise.service.auth import ServiceMiddleware, key_in, key_refused, scope_headers, tenant_for
from clausewise.service.errors import error_body
from clausewise.service.mcp_tools import ToolHost
from clausewise.service.playbook_mcp import add_playbook_tool
from clausewise.service.room_mcp import add_room_tool
from clausewise.service.schemas import ChosenProvision, ContractSummary
from clausewise.service.state import Service
from clausewise.service.work import answer_event, outcome, submit, wait_for
from tools.checks.suites import adhoc_suite
from tools.clause_compare import word_round

T = TypeVar("T")
_tenant: contextvars.ContextVar[str] = contextvars.ContextVar("clausewise_mcp_tenant")


class KeyCheck(ServiceMiddleware):
    """The API's authentication in front of the MCP app."""

    async def on_request(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = key_in(scope_headers(scope))
        try:
            tenant = await asyncio.to_thread(tenant_for, self.service, key)
        except ClausewiseError as error:
            await key_refused(error)(scope, receive, send)
            return
        scope["user"] = AuthenticatedUser(AccessToken(token=key or "local", client_id=tenant, scopes=[]))
        token = _tenant.set(tenant)
        try:
            await self.app(scope, receive, send)
        finally:
            _tenant.reset(token)


def clear_errors(tool: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """A refusal reaches the caller as the tool's error message (what and how to fix it); without
    this, the SDK would show only "Error executing tool"."""

    @functools.wraps(tool)
    async def wrapped(*args: Any, **kwargs: Any) -> T:
        try:
            return await tool(*args, **kwargs)
        except ClausewiseError as error:
            problem = error_body(error)["error"]
            fix = f" Fix: {problem['hint']}" if problem["hint"] else ""
            raise ToolError(f"{problem['message']}.{fix}") from error

    return wrapped


def build_mcp(service: Service) -> MCPServer:
    """The MCP server and its tools, bound to ``service``."""
    provision_key = TypeAdapter(ChosenProvision)
    mcp = MCPServer(
        "clausewise",
        instructions="Question answering over the caller's legal contracts, with verified citations.",
        log_level="WARNING",
    )

    def runtime():
        return service.runtime(_tenant.get())

    @mcp.tool()
    @clear_errors
    async def list_contracts() -> list[ContractSummary]:
        """The contracts you can use (ids for the other tools)."""
        manifests = await asyncio.to_thread(lambda: runtime().store.manifests())
        return [ContractSummary.of(m) for m in manifests]

    @mcp.tool()
    @clear_errors
    async def search_contract(contract: str, query: str, k: int = 5) -> list[Passage]:
        """The contract's spans that best match the query, each its own verbatim text with clause
        id and pages. Retrieval only: no language model."""

        check_question(query, service)  # the bound REST's search holds its query to

        def search() -> list[Passage]:
            contract_id = runtime().store.resolve_id(contract)
            with SpanSearch(runtime(), contract_id) as spans:
                passages = spans.passages(query, max(1, min(k, 32)))
            record(
                runtime().tenant_dir,
                "search",
                contract_id=contract_id,
                clause_ids=[p.node_id for p in passages],
            )
            return passages

        return await asyncio.to_thread(search)

    @mcp.tool()
    @clear_errors
    async def ask(contract: str, question: str, ctx: Context, provision: str | None = None) -> dict[str, Any]:
        """A verified, cited answer to a question about the contract. The short answer, with its
        sources, comes first as a progress message (to a client that asks for progress) within
        seconds, and again as ``quick_answer``; the report that explains it may take minutes.
        Where the short answer offers the question back ("Did you mean ..."), ask again with the
        chosen provision's key as ``provision``."""
        check_question(question, service)
        try:
            provision_key.validate_python(provision)  # the HTTP requests' own declaration
        except ValidationError as error:
            raise ProvisionNotFound(
                "a provision key reads family:name, e.g. cuad:cap-on-liability",
                hint="use a key the question was offered back with",
            ) from error
        tenant = _tenant.get()
        resolved = await asyncio.to_thread(lambda: runtime().store.resolve_id(contract))
        job = submit(
            service, tenant, "ask", {"contract": resolved, "question": question, "provision": provision}
        )
        wait = service.settings.service.wait_seconds
        answer = await answer_event(service, tenant, job.id, wait)
        quick = quick_text(answer.data) if answer is not None else None
        if quick is not None:  # a progress notification, for a client that sent a progress token
            await ctx.report_progress(1, 2, message=quick)
        report = Report.model_validate(outcome(await wait_for(service, tenant, job.id, wait)))
        return {
            "quick_answer": quick,
            "answer": answer_text(report),
            "addressed": report.addressed,
            "references": references(report),
        }

    @mcp.tool()
    @clear_errors
    async def check_hypothesis(contract: str, hypothesis: str) -> dict[str, Any]:
        """Whether the contract entails, contradicts or does not mention a statement, with the
        verified evidence that decides it."""
        check_hypothesis_text(hypothesis)  # the bounds POST /v1/checks holds hypotheses to
        tenant = _tenant.get()
        resolved = await asyncio.to_thread(lambda: runtime().store.resolve_id(contract))
        suite = adhoc_suite([hypothesis])
        job = submit(
            service, tenant, "check", {"contracts": [resolved], "suite": suite.model_dump(), "report": False}
        )
        result = outcome(await wait_for(service, tenant, job.id, service.settings.service.wait_seconds))
        [row] = result["rows"]
        return row["result"]

    @mcp.tool()
    @clear_errors
    async def tracked_changes(contract: str) -> dict[str, Any]:
        """The other side's tracked changes in the Word file the contract was ingested from: each
        change by author with its words in both texts, the comments, and the text before compared
        clause by clause with the text as proposed. No language model."""

        def read() -> dict[str, Any]:
            index = runtime().store.open(runtime().store.resolve_id(contract))
            try:
                found = word_round(index, runtime().settings.structure)
                record(
                    runtime().tenant_dir,
                    "read",
                    contract_id=index.contract_id,
                    version=index.manifest.version,
                    detail="its tracked changes",
                )
            finally:
                index.close()
            return found.model_dump(mode="json")

        return await asyncio.to_thread(read)

    host = ToolHost(mcp, service, _tenant.get, clear_errors)
    add_room_tool(host)
    add_playbook_tool(host)
    return mcp


def mount_mcp(app: FastAPI) -> None:
    """Serve the MCP tools at exactly ``/mcp`` and run their session manager with the app."""
    service: Service = app.state.service
    mcp = build_mcp(service)
    settings = service.settings.service
    loopback = settings.host in ("127.0.0.1", "localhost", "::1")
    # DNS-rebinding protection matters to a server only loopback can reach; one listening on a
    # network is reached by host names we cannot list, and keys protect it
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=loopback, allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"]
    )
    endpoint = mcp.streamable_http_app(transport_security=security)
    app.add_route("/mcp", KeyCheck(endpoint, service), methods=["GET", "POST", "DELETE"])
    app.state.mcp_lifespan = mcp.session_manager.run
