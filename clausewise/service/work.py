"""Submitting work and following it: what the routes, the OpenAI-compatible endpoint and the MCP
tools share. Work that uses a model is a job (queued, persistent); a caller either waits for its
end or follows its events as Server-Sent Events.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from fastapi import Request

from clausewise.core.errors import ClausewiseError
from clausewise.core.tracing import current_traceparent
from clausewise.service.audit import current_actor
from clausewise.service.auth import presented_key, tenant_for
from clausewise.service.errors import ApiError, error_body, status_for_code
from clausewise.service.jobs import FINISHED, INTERRUPTED, TRACE_KEY, Job, JobEvent, JobKind
from clausewise.service.state import Service

_POLL_SECONDS = 0.1
#: How often an open stream asks again whether its key is still valid (a revoked key ends it).
_KEY_CHECK_SECONDS = 1.0


def submit(service: Service, tenant: str, kind: JobKind, request: dict[str, Any]) -> Job:
    """Queue a job; it carries its caller's key id, so the audit log names who asked when it ends,
    and the request's trace context, so the work done for it joins the request's trace."""
    asked = {**request, "actor": current_actor.get(), TRACE_KEY: current_traceparent()}
    return service.jobs.create(tenant, kind, asked, max_queued=service.settings.service.max_queued_jobs)


async def wait_for(service: Service, tenant: str, job_id: str, timeout: float) -> Job:
    """The job once it has finished, or as it stands after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        job = await asyncio.to_thread(service.jobs.get, tenant, job_id)
        if job.status in FINISHED or time.monotonic() >= deadline:
            return job
        await asyncio.sleep(_POLL_SECONDS)


async def answer_event(service: Service, tenant: str, job_id: str, timeout: float) -> JobEvent | None:
    """The job's ``answer`` event (the decided short answer, streamed before the report is
    written) as soon as it is stored, or None once the job finishes without one or after
    ``timeout`` seconds. For callers that show the answer first and the report when it is done."""
    deadline, seen = time.monotonic() + timeout, 0
    while True:
        job = await asyncio.to_thread(service.jobs.get, tenant, job_id)
        for event in await asyncio.to_thread(service.jobs.events, tenant, job_id, seen):
            seen = event.seq
            if event.event == "answer":
                return event
        if job.status in FINISHED or time.monotonic() >= deadline:
            return None
        await asyncio.sleep(_POLL_SECONDS)


def outcome(job: Job) -> Any:
    """A finished job's result, or its failure as the refusal it would have been (same status,
    code, message and hint)."""
    if job.status == "done":
        return job.result
    if job.status == "failed":
        error = job.error or {}
        code = error.get("code", "internal_error")
        # a job the server stopped while it ran has no result, through no fault of the request
        status = 409 if code == INTERRUPTED else status_for_code(code)
        raise ApiError(status, code, error.get("message", "the job failed"), hint=error.get("hint", ""))
    if job.status == "cancelled":
        raise ApiError(409, "job_cancelled", f"job {job.id!r} was cancelled", hint="submit it again")
    raise ApiError(
        504,
        "still_running",
        f"job {job.id!r} is still {job.status}",
        hint=f"follow it: GET /v1/jobs/{job.id}",
    )


async def follow(
    service: Service,
    tenant: str,
    job_id: str,
    request: Request,
    *,
    after: int = 0,
    cancel_on_disconnect: bool,
) -> AsyncIterator[dict[str, Any]]:
    """The job's events as Server-Sent Events (``event``, JSON ``data``, ``id`` = sequence number,
    so a client can resume with ``Last-Event-ID``), ending with its outcome: ``result`` when it is
    done, otherwise its last event (``failed`` with the error, ``cancelled``). A client that goes
    away stops the job only when it asked for that; the job's events stay stored either way.

    The key that opened the stream is checked again every second: once it is revoked (or the
    server's keys no longer let it in) the stream ends with an ``error`` event, whatever the job
    does next."""
    seen, ended = after, False
    key, checked = presented_key(request), time.monotonic()
    try:
        while not await request.is_disconnected():
            if time.monotonic() - checked >= _KEY_CHECK_SECONDS:
                checked = time.monotonic()
                try:
                    await asyncio.to_thread(tenant_for, service, key)
                except ApiError as error:
                    ended = True  # access ended, not the job: it is not cancelled
                    yield {"event": "error", "data": json.dumps(error_body(error))}
                    return
            events = await asyncio.to_thread(service.jobs.events, tenant, job_id, seen)
            for event in events:
                seen = event.seq
                if event.event == "done":
                    job = await asyncio.to_thread(service.jobs.get, tenant, job_id)
                    ended = True
                    yield {"event": "result", "data": json.dumps(job.result), "id": str(event.seq)}
                    return
                ended = event.event in ("failed", "cancelled")
                yield {"event": event.event, "data": json.dumps(event.data), "id": str(event.seq)}
                if ended:
                    return
            if not events:
                job = await asyncio.to_thread(service.jobs.get, tenant, job_id)
                if job.status in FINISHED:
                    # its last events may have been stored since they were read: read once more
                    if not await asyncio.to_thread(service.jobs.events, tenant, job_id, seen):
                        ended = True  # resumed past its last event: nothing more will come
                        return
                    continue
                await asyncio.sleep(_POLL_SECONDS)
    finally:
        # the stream ended before the job did: the client went away (or the stream was cancelled)
        if not ended and cancel_on_disconnect:
            with contextlib.suppress(ClausewiseError):  # it may have finished meanwhile
                service.jobs.cancel(tenant, job_id)
