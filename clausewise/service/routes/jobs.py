"""Jobs: list, status and progress (with the queue position while waiting), the result (JSON,
or CSV for checks and reviews), the events as Server-Sent Events (replayable with
``Last-Event-ID``), cancel."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import PlainTextResponse
from sse_starlette.sse import EventSourceResponse

from clausewise.core.results import CheckResult, ProvisionResult
from clausewise.service.auth import CurrentService, Tenant
from clausewise.service.errors import ApiError
from clausewise.service.jobs import Job
from clausewise.service.schemas import ERROR_RESPONSES, JobList
from clausewise.service.work import follow, outcome
from tools.checks import render as check_render
from tools.review import render as review_render

router = APIRouter(prefix="/v1/jobs", tags=["jobs"], responses=ERROR_RESPONSES)


@router.get("", response_model=JobList)
def list_jobs(
    service: CurrentService, tenant: Tenant, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> JobList:
    """This key's jobs, newest first."""
    return JobList(jobs=service.jobs.list(tenant, limit))


@router.get("/{job_id}", response_model=Job)
def show_job(job_id: str, service: CurrentService, tenant: Tenant) -> Job:
    return service.jobs.get(tenant, job_id)


def as_csv(result: dict[str, Any]) -> str:
    """A check's or review's rows as CSV (the CLI's columns); rows of files that failed are left out."""
    rows = [r for r in result.get("rows", []) if r.get("result") is not None]
    if result.get("kind") == "check":
        return check_render.render(
            "csv", [(r["contract_id"], CheckResult.model_validate(r["result"])) for r in rows]
        )
    return review_render.render(
        "csv", [(r["contract_id"], ProvisionResult.model_validate(r["result"])) for r in rows]
    )


@router.get("/{job_id}/result", responses={200: {"content": {"text/csv": {}}}})
def job_result(
    job_id: str, service: CurrentService, tenant: Tenant, format: Literal["json", "csv"] = "json"
) -> Any:
    """A finished job's result (a failed one answers with its error, as the request would have)."""
    result = outcome(service.jobs.get(tenant, job_id))
    if format == "csv":
        if not isinstance(result, dict) or result.get("kind") not in ("check", "review"):
            raise ApiError(
                422, "no_csv", "only checks and reviews have a CSV result", hint="ask for format=json"
            )
        return PlainTextResponse(as_csv(result), media_type="text/csv; charset=utf-8")
    return result


@router.get("/{job_id}/events", response_class=EventSourceResponse)
async def job_events(
    job_id: str,
    request: Request,
    service: CurrentService,
    tenant: Tenant,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[int, Query(ge=0, description="Replay the events after this one.")] = 0,
) -> EventSourceResponse:
    """The job's events from the start (or after ``Last-Event-ID``), live until it ends."""
    service.jobs.get(tenant, job_id)  # 404 before the stream starts
    start = int(last_event_id) if last_event_id and last_event_id.isdigit() else after
    return EventSourceResponse(
        follow(service, tenant, job_id, request, after=start, cancel_on_disconnect=False)
    )


@router.post("/{job_id}/cancel", response_model=Job)
def cancel_job(job_id: str, service: CurrentService, tenant: Tenant) -> Job:
    """Cancel a waiting job at once, or stop a running one at its next step."""
    return service.jobs.cancel(tenant, job_id)
