"""Playbooks and playbook reviews: the tenant's playbooks uploaded (validated, kept per name and
version) and listed beside the built-in ones; a review of contracts against one as a job (202)
whose rows stream as each position is decided; and the redlines of a finished review as a DOCX of
tracked changes, one contract at a time.

A playbook is sent as text, never as a path: the server reads no file a caller names."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from clausewise.api import Clausewise
from clausewise.core.results import PositionReview
from clausewise.runtime import Runtime
from clausewise.service.audit import record
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.errors import ApiError
from clausewise.service.jobs import FINISHED, Job
from clausewise.service.routes.reviews import contract_ids
from clausewise.service.schemas import (
    ERROR_RESPONSES,
    PlaybookChoice,
    PlaybookInfo,
    PlaybookList,
    PlaybookReviewRequest,
    PlaybookUpload,
)
from clausewise.service.state import Service
from clausewise.service.work import outcome, submit
from tools.playbook.positions import Playbook, parse_positions
from tools.playbook.shelf import PlaybookShelf

router = APIRouter(prefix="/v1", tags=["playbooks"], responses=ERROR_RESPONSES)
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def shelf_of(runtime: Runtime) -> PlaybookShelf:
    return PlaybookShelf(runtime.tenant_dir / "playbooks")


def chosen_playbook(runtime: Runtime, body: PlaybookChoice) -> Playbook:
    """The playbook a request names: sent as YAML, or stored (built-in or the tenant's)."""
    if body.yaml:
        return parse_positions(body.yaml, "the playbook")
    return shelf_of(runtime).get(body.playbook or "playbook-commercial", body.version)


def finished_job(service: Service, tenant: str, job_id: str, kind: str, what: str, product: str) -> Job:
    """The tenant's job ``job_id`` when it is a finished ``kind`` (``what`` in words), whose
    ``product`` is asked for; a clear refusal otherwise."""
    job = service.jobs.get(tenant, job_id)
    if job.kind != kind:
        code = "not_" + what.replace(" ", "_")
        raise ApiError(422, code, f"job {job_id!r} is a {job.kind}", hint=f"pass {what}'s job id")
    if job.status not in FINISHED:
        raise ApiError(
            409,
            "job_not_finished",
            f"job {job_id!r} is still {job.status}: it has no {product} yet",
            hint=f"wait for it to end (GET /v1/jobs/{job_id}), then ask again",
        )
    return job


@router.get("/playbooks", response_model=PlaybookList)
def list_playbooks(runtime: TenantRuntime) -> PlaybookList:
    """The built-in playbooks and this tenant's, every version."""
    return PlaybookList(playbooks=[PlaybookInfo(**vars(p)) for p in shelf_of(runtime).list()])


@router.post("/playbooks", status_code=201, response_model=PlaybookInfo)
def upload_playbook(body: PlaybookUpload, runtime: TenantRuntime) -> PlaybookInfo:
    """Keep a playbook (YAML text) for this tenant: validated first, with errors that say where and
    how to fix it; the same name and version with other positions is 409 (give it a new version)."""
    kept = shelf_of(runtime).put(body.yaml)
    if kept.created:
        record(
            runtime.tenant_dir,
            "playbook_created",
            detail=f"playbook {kept.name} version {kept.version} ({kept.positions} positions)",
        )
    return PlaybookInfo(**vars(kept))


@router.get("/playbooks/{name}", response_model=Playbook)
def show_playbook(
    name: str,
    runtime: TenantRuntime,
    version: Annotated[str | None, Query(max_length=40, description="Default: the latest.")] = None,
) -> Playbook:
    return shelf_of(runtime).get(name, version)


@router.post("/playbook-reviews", status_code=202, response_model=Job)
def create_playbook_review(
    body: PlaybookReviewRequest, service: CurrentService, tenant: Tenant, runtime: TenantRuntime
) -> Job:
    """Review contracts against a playbook: per position meets standard, meets fallback N,
    deviation, missing or refused, with risk, the clause and the position cited, and a redline."""
    playbook = chosen_playbook(runtime, body)
    contracts = contract_ids(runtime, body.contracts)
    return submit(service, tenant, "playbook", {"contracts": contracts, "playbook": playbook.model_dump()})


@router.get("/playbook-reviews/{job_id}/redline", responses={200: {"content": {DOCX: {}}}})
def review_redline(
    job_id: str,
    service: CurrentService,
    tenant: Tenant,
    runtime: TenantRuntime,
    contract: Annotated[str, Query(max_length=200, description="The contract of the review (its id).")],
    author: Annotated[
        str, Query(min_length=1, max_length=80, description="The changes' author.")
    ] = "Clausewise",
    keep_active: Annotated[
        bool,
        Query(
            description="Keep what the contract's Word file could run or fetch when opened (macros, "
            "remote templates, external links, fields that fetch); by default they are removed and "
            "the X-Clausewise-Removed header lists them."
        ),
    ] = False,
) -> Response:
    """The redlines a finished playbook review proposed for one contract, as a DOCX of the
    contract's text with real tracked changes (of the version the review read)."""
    job = finished_job(service, tenant, job_id, "playbook", "a playbook review", "redline")
    contract_id = runtime.store.resolve_id(contract)
    rows = [r for r in outcome(job)["rows"] if r.get("contract_id") == contract_id and r.get("result")]
    if not rows:
        raise ApiError(
            404,
            "not_in_review",
            f"the review has no rows for {contract!r}",
            hint="pass a contract the review read",
        )
    reviews = [PositionReview.model_validate(r["result"]) for r in rows]
    made = Clausewise(runtime=runtime, audit=False).redline_docx(
        contract_id,
        reviews,
        author=author,
        when=datetime.now(UTC),
        version=rows[0].get("contract_version"),
        keep_active=keep_active,
    )
    record(
        runtime.tenant_dir,
        "export",
        contract_id=contract_id,
        version=rows[0].get("contract_version"),
        detail=f"the redline of playbook review {job_id} ({made.base})",
    )
    name = f"{contract_id}-redline.docx"
    headers = {
        "Content-Disposition": f'attachment; filename="{name}"',
        "X-Clausewise-Redline-Base": made.base,  # "original": the contract's own Word file
    }
    if made.removed:  # header values are Latin-1: the descriptions are plain ASCII
        headers["X-Clausewise-Removed"] = "; ".join(made.removed)
    return Response(made.data, media_type=DOCX, headers=headers)
