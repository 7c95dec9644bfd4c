"""Jobs: list, status and progress (with the queue position while waiting), the result (JSON,
or CSV for checks and reviews), the events as Server-Sent Events (replayable with
``Last-Event-ID``), cancel."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import Response
from sse_starlette.sse import EventSourceResponse

from clausewise.core.report import Report
from clausewise.core.results import CheckResult, ProvisionResult
from clausewise.service.audit import record, record_result_read
from clausewise.service.auth import CurrentService, Tenant
from clausewise.service.errors import ApiError
from clausewise.service.jobs import FINISHED, Job
from clausewise.service.room_results import export as room_export
from clausewise.service.schemas import ERROR_RESPONSES, JobList
from clausewise.service.work import follow, outcome
from tools.checks import render as check_render
from tools.exports import report_docx, report_pdf, rows_xlsx
from tools.result_rows import rows_to_csv
from tools.review import render as review_render

#: Larger than any event's sequence number, and within SQLite's integers.
LAST_SEQ = 2**62

router = APIRouter(prefix="/v1/jobs", tags=["jobs"], responses=ERROR_RESPONSES)


@router.get("", response_model=JobList)
def list_jobs(
    service: CurrentService, tenant: Tenant, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> JobList:
    """This key's jobs, newest first: each one's status and progress, and its request's short
    fields; not its result nor its request's long fields (a playbook, a list of contracts), which
    ``GET /v1/jobs/{id}`` gives. A listing stays small however large the jobs are."""
    return JobList(jobs=[listed(job) for job in service.jobs.list(tenant, limit)])


#: The longest request value a job listing shows (longer ones: GET /v1/jobs/{id}).
_LISTED_CHARS = 500


def listed(job: Job) -> Job:
    """A job as the listing shows it: no result, only the request's short plain values."""
    short = {
        key: value
        for key, value in job.request.items()
        if isinstance(value, str | int | float | bool) and len(str(value)) <= _LISTED_CHARS
    }
    return job.model_copy(update={"request": short, "result": None})


@router.get("/{job_id}", response_model=Job)
def show_job(job_id: str, service: CurrentService, tenant: Tenant) -> Job:
    """The job, with its result once it has ended (the read of a result is in the audit log)."""
    job = service.jobs.get(tenant, job_id)
    record_result_read(service.runtime(tenant).tenant_dir, job, "GET /v1/jobs/{id}")
    return job


def _table(result: dict[str, Any]) -> tuple[str, tuple[str, ...], list[list[str]]]:
    """A check's or review's rows as a table (the CLI's CSV columns); rows of files that could
    not be ingested are left out (their errors are in the JSON)."""
    rows = [r for r in result.get("rows", []) if r.get("result") is not None]
    if result.get("kind") == "check":
        cells = [
            check_render.csv_cells(r["contract_id"], CheckResult.model_validate(r["result"])) for r in rows
        ]
        return "checks", check_render.CSV_COLUMNS, cells
    cells = [
        review_render.csv_cells(r["contract_id"], ProvisionResult.model_validate(r["result"])) for r in rows
    ]
    return "review", review_render.CSV_COLUMNS, cells


def _report_of(result: Any) -> Report | None:
    if isinstance(result, dict) and "sources" in result and "metadata" in result:
        return Report.model_validate(result)  # an ask
    if isinstance(result, dict) and result.get("report"):
        return Report.model_validate(result["report"])  # a chat message
    return None


_MEDIA = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "md": "text/markdown; charset=utf-8",
    "html": "text/html; charset=utf-8",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "pdf": "application/pdf",
}


@router.get("/{job_id}/result", responses={200: {"content": {media: {} for media in _MEDIA.values()}}})
def job_result(
    job_id: str,
    service: CurrentService,
    tenant: Tenant,
    format: Literal["json", "csv", "xlsx", "md", "html", "docx", "pdf"] = "json",
) -> Any:
    """A finished job's result (a failed one answers with its error, as the request would have;
    one still queued or running is 409 ``job_not_finished``). Checks and reviews also as CSV or
    XLSX; a report (ask, chat message) as Markdown, HTML, DOCX or PDF, to download."""
    job = service.jobs.get(tenant, job_id)
    if job.status not in FINISHED:
        raise ApiError(
            409,
            "job_not_finished",
            f"job {job_id!r} is still {job.status}: it has no result yet",
            hint=f"wait for it to end (GET /v1/jobs/{job_id} or its events), then ask again",
        )
    result = outcome(job)
    if format == "json":
        record_result_read(service.runtime(tenant).tenant_dir, job, "json")
        return result
    record(
        service.runtime(tenant).tenant_dir,
        "export",
        contract_id=str(job.request.get("contract", "")),
        detail=f"job {job_id} ({job.kind}) as {format}",
    )
    name = f"clausewise-{job_id}.{format}"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    if format in ("csv", "xlsx") and isinstance(result, dict) and result.get("kind") == "room":
        return Response(room_export([result], format), media_type=_MEDIA[format], headers=headers)
    if format in ("csv", "xlsx"):
        if not isinstance(result, dict) or result.get("kind") not in ("check", "review"):
            raise ApiError(
                422,
                "no_table",
                "only checks, reviews and data rooms are tables",
                hint="ask for a report format",
            )
        sheet, columns, cells = _table(result)
        if format == "csv":
            body: bytes | str = rows_to_csv([(c[0], c) for c in cells], columns, lambda _contract, row: row)
        else:
            body = rows_xlsx(sheet, columns, cells)
        return Response(body, media_type=_MEDIA[format], headers=headers)
    report = _report_of(result)
    if report is None:
        raise ApiError(
            422, "no_report", "this job's result is not a report", hint="ask for json, csv or xlsx"
        )
    rendered: bytes | str = {
        "md": report.to_markdown,
        "html": report.to_html,
        "docx": lambda: report_docx(report),
        "pdf": lambda: report_pdf(report),
    }[format]()
    return Response(rendered, media_type=_MEDIA[format], headers=headers)


@router.get("/{job_id}/events", response_class=EventSourceResponse)
async def job_events(
    job_id: str,
    request: Request,
    service: CurrentService,
    tenant: Tenant,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[int, Query(ge=0, le=LAST_SEQ, description="Replay the events after this one.")] = 0,
) -> EventSourceResponse:
    """The job's events from the start (or after ``Last-Event-ID``), live until it ends; resumed
    past the job's last event, the stream of a finished job ends at once."""
    service.jobs.get(tenant, job_id)  # 404 before the stream starts
    start = after
    if last_event_id and last_event_id.isascii() and last_event_id.isdigit():
        start = min(int(last_event_id), LAST_SEQ)  # a 20-digit id is past any job's end, not an overflow
    return EventSourceResponse(
        follow(service, tenant, job_id, request, after=start, cancel_on_disconnect=False)
    )


@router.post("/{job_id}/cancel", response_model=Job)
def cancel_job(job_id: str, service: CurrentService, tenant: Tenant) -> Job:
    """Cancel a waiting job at once (its uploads are deleted), or stop a running one at its next
    step (its uploads go when it stops)."""
    job = service.jobs.cancel(tenant, job_id)
    if job.status == "cancelled":
        service.clear_uploads(job)  # (served jobs keep their uploads' ids: only paths are cut)
    return job
