"""Questions: one question on one contract, and chat threads. Both are jobs (the model is shared,
so answers wait their turn); a request either waits for the report or streams the work as
Server-Sent Events: ``queued`` (with the queue position), ``running``, the Interrogator's steps
(``start``, ``question``, ``research``, ``draft``, ``final``), then ``result`` with the report, or
``failed`` / ``cancelled``. A thread's clarifying question arrives as a ``clarification`` event,
and the client answers it with the next message.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, PlainTextResponse
from sse_starlette.sse import EventSourceResponse

from clausewise.core.errors import VersionNotFound
from clausewise.core.report import Report
from clausewise.core.results import ThreadInfo
from clausewise.runtime import Runtime
from clausewise.service.answers import check_question
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.jobs import Job
from clausewise.service.schemas import (
    ERROR_RESPONSES,
    AskRequest,
    MessageRequest,
    ThreadCreate,
    ThreadDetail,
)
from clausewise.service.state import Service
from clausewise.service.work import follow, outcome, submit, wait_for

router = APIRouter(prefix="/v1", tags=["questions"], responses=ERROR_RESPONSES)


def streamed(
    service: Service, tenant: str, job: Job, request: Request, cancel_on_disconnect: bool
) -> EventSourceResponse:
    return EventSourceResponse(
        follow(service, tenant, job.id, request, cancel_on_disconnect=cancel_on_disconnect),
        headers={"X-Job-Id": job.id},
    )


def rendered(report: dict[str, Any], fmt: str) -> Response | dict[str, Any]:
    if fmt == "json":
        return report
    model = Report.model_validate(report)
    if fmt == "html":
        return HTMLResponse(model.to_html())
    return PlainTextResponse(model.to_markdown(), media_type="text/markdown; charset=utf-8")


@router.post(
    "/contracts/{contract_id}/ask",
    response_model=Report,
    responses={200: {"content": {"text/event-stream": {}, "text/markdown": {}, "text/html": {}}}},
)
async def ask(
    contract_id: str,
    body: AskRequest,
    request: Request,
    service: CurrentService,
    tenant: Tenant,
    runtime: TenantRuntime,
) -> Any:
    """Answer one question about one contract with a verified, cited report (JSON, Markdown or
    HTML), or stream the work as it happens (``stream: true``)."""
    check_question(body.question, service)
    contract = runtime.store.resolve_id(contract_id)
    version = runtime.store.manifest(contract, body.version)
    if version is None:
        raise VersionNotFound(
            f"contract {contract!r} has no version {body.version}", hint=f"see GET /v1/contracts/{contract}"
        )
    job = submit(
        service,
        tenant,
        "ask",
        {
            "contract": contract,
            "version": version.version,
            **body.model_dump(include={"question", "context", "instructions", "turns", "provision"}),
        },
    )
    if body.stream:
        return streamed(service, tenant, job, request, body.cancel_on_disconnect)
    finished = await wait_for(service, tenant, job.id, service.settings.service.wait_seconds)
    return rendered(outcome(finished), body.format)


# --- threads -----------------------------------------------------------------------------------


def new_thread(runtime: Runtime, contract_id: str) -> ThreadInfo:
    """A thread on the live version of ``contract_id``: it reads that version from then on."""
    manifest = runtime.store.manifest(contract_id)
    return runtime.threads.create(contract_id, manifest.version if manifest else None)


def _detail(runtime: Runtime, thread_id: str) -> ThreadDetail:
    info = runtime.threads.get(thread_id)
    messages = runtime.threads.messages(thread_id)
    awaiting = bool(messages) and messages[-1].role == "assistant" and messages[-1].report is None
    return ThreadDetail(thread=info, messages=messages, awaiting_reply=awaiting)


@router.post("/threads", status_code=201, response_model=ThreadInfo, tags=["threads"])
def create_thread(body: ThreadCreate, runtime: TenantRuntime) -> ThreadInfo:
    """A new conversation about one contract, on its live version (which it reads from then on)."""
    return new_thread(runtime, runtime.store.resolve_id(body.contract))


@router.get("/threads", response_model=list[ThreadInfo], tags=["threads"])
def list_threads(runtime: TenantRuntime, contract: str | None = None) -> list[ThreadInfo]:
    """The conversations of this key's tenant, most recent first (of one contract when given)."""
    return runtime.threads.list(runtime.store.resolve_id(contract) if contract else None)


@router.get("/threads/{thread_id}", response_model=ThreadDetail, tags=["threads"])
def show_thread(thread_id: str, runtime: TenantRuntime) -> ThreadDetail:
    """A conversation and its messages (the assistant's carry their reports)."""
    return _detail(runtime, thread_id)


@router.delete("/threads/{thread_id}", status_code=204, tags=["threads"])
def delete_thread(thread_id: str, runtime: TenantRuntime) -> Response:
    runtime.threads.delete(thread_id)
    return Response(status_code=204)


@router.post("/threads/{thread_id}/messages", tags=["threads"])
async def post_message(
    thread_id: str,
    body: MessageRequest,
    request: Request,
    service: CurrentService,
    tenant: Tenant,
    runtime: TenantRuntime,
) -> Any:
    """The next message: a question, or the answer to the thread's clarifying question. Answers
    with ``{"report": ...}`` or ``{"clarification": "..."}``, or streams like ``ask``."""
    check_question(body.content, service)
    info = runtime.threads.get(thread_id)
    job = submit(
        service,
        tenant,
        "message",
        {
            "thread_id": info.id,
            "contract": info.contract_id,
            **body.model_dump(include={"content", "turns", "provision"}),
        },
    )
    if body.stream:
        return streamed(service, tenant, job, request, body.cancel_on_disconnect)
    finished = await wait_for(service, tenant, job.id, service.settings.service.wait_seconds)
    return outcome(finished)
