"""Ask a data room: questions over many contracts as one job (202), a unit per contract on
whichever backend runs units (the server's threads or the Celery workers), each question's quick
answer a row as it is decided (the job's events, or this request's own stream with ``stream:
true``); the result is the grid with its roll-up (``GET /v1/jobs/{id}/result``, JSON, CSV or
XLSX). ``GET /v1/rooms/export`` puts several room jobs back into one grid, for a page that adds
a question at a time."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import Field

from clausewise.core.errors import ConfigError, ContractNotFound
from clausewise.core.room import MAX_QUESTIONS, room_questions
from clausewise.service.answers import check_question
from clausewise.service.audit import record
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.errors import ApiError
from clausewise.service.jobs import Job
from clausewise.service.room_results import export
from clausewise.service.routes.questions import streamed
from clausewise.service.schemas import ERROR_RESPONSES, Strict
from clausewise.service.work import outcome, submit

router = APIRouter(prefix="/v1", tags=["data rooms"], responses=ERROR_RESPONSES)

_MEDIA = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "md": "text/markdown; charset=utf-8",
    "json": "application/json",
}


class RoomRequest(Strict):
    contracts: list[str] = Field(default_factory=list, max_length=10_000, description="Contract ids.")
    all: bool = Field(default=False, description="Every contract of this key's tenant instead.")
    questions: list[str] = Field(min_length=1, max_length=MAX_QUESTIONS, description="The questions.")
    stream: bool = Field(default=False, description="Answer with the job's events as they happen.")
    cancel_on_disconnect: bool = Field(default=False, description="Streamed: stop when the client goes away.")


def _contracts(body: RoomRequest, runtime: Any) -> list[str]:
    if body.all and body.contracts:
        raise ConfigError("both 'contracts' and 'all'", hint="send the contracts, or all: true, not both")
    if body.all:
        found = [m.contract_id for m in runtime.store.manifests()]
        if not found:
            raise ContractNotFound(
                "this key's tenant has no contracts yet", hint="upload some: POST /v1/contracts"
            )
        return found
    if not body.contracts:
        raise ConfigError("no contract to ask", hint="send 'contracts': [ids], or 'all': true")
    return list(dict.fromkeys(runtime.store.resolve(reference) for reference in body.contracts))


@router.post(
    "/rooms",
    status_code=202,
    response_model=Job,
    responses={200: {"content": {"text/event-stream": {}}, "description": "With stream: true."}},
)
def create_room(
    body: RoomRequest, request: Request, service: CurrentService, tenant: Tenant, runtime: TenantRuntime
) -> Any:
    """Ask every question of every contract: a cell each, the verified quick answer with its
    sources, or "not addressed" / "unclear". Rows as they are decided; the grid as the result."""
    for question in body.questions:
        check_question(question, service)
    asked = room_questions(body.questions)
    job = submit(service, tenant, "room", {"contracts": _contracts(body, runtime), "questions": asked})
    if body.stream:
        return streamed(service, tenant, job, request, body.cancel_on_disconnect)
    return job


@router.get("/rooms/export", responses={200: {"content": {media: {} for media in _MEDIA.values()}}})
def export_rooms(
    service: CurrentService,
    tenant: Tenant,
    jobs: Annotated[
        list[str], Query(min_length=1, max_length=100, description="Room jobs, in column order.")
    ],
    format: Literal["xlsx", "csv", "md", "json"] = "xlsx",
) -> Response:
    """One grid from finished room jobs (their questions as columns, in order), to download."""
    results = []
    for job_id in dict.fromkeys(jobs):
        job = service.jobs.get(tenant, job_id)
        if job.kind != "room":
            raise ApiError(
                422, "not_a_room", f"job {job_id!r} is a {job.kind}, not a data room", hint="send room jobs"
            )
        results.append(outcome(job))
    headers = {"Content-Disposition": f'attachment; filename="clausewise-room.{format}"'}
    record(
        service.runtime(tenant).tenant_dir,
        "export",
        detail=f"data room grid of {len(results)} job(s) as {format}",
    )
    return Response(export(results, format), media_type=_MEDIA[format], headers=headers)
