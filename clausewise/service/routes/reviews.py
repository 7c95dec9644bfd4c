"""Hypothesis checks and provision reviews over one contract or many, as jobs (202): a built-in
suite or list, a playbook's YAML text, or hypotheses typed in; or a batch of uploaded files, each
ingested and then checked or reviewed by its own unit of work. Results come from the job
(``GET /v1/jobs/{id}/result``, JSON or CSV), rows as they are decided (its events).

A playbook is sent as text, never as a path: the server reads no file a caller names."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, UploadFile

from clausewise.core.errors import ConfigError
from clausewise.runtime import Runtime
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.jobs import Job
from clausewise.service.schemas import ERROR_RESPONSES, CheckRequest, ReviewRequest
from clausewise.service.uploads import StoredUpload, discard, store_upload
from clausewise.service.work import submit
from tools.checks.suites import BUILTIN_SUITES, Suite, adhoc_suite, load_suite, parse_suite
from tools.review.provisions import BUILTIN_PROVISIONS, ProvisionList, load_provisions, parse_provisions

router = APIRouter(prefix="/v1", tags=["checks and reviews"], responses=ERROR_RESPONSES)


def _builtin(name: str, known: tuple[str, ...], what: str) -> str:
    if name not in known:
        raise ConfigError(
            f"no built-in {what} {name!r}", hint=f"use one of: {', '.join(known)}, or send a playbook"
        )
    return name


def suite_of(body: CheckRequest) -> Suite:
    return _suite(body.suite, body.playbook, body.hypotheses)


def _suite(name: str | None, playbook: str | None, hypotheses: list[str]) -> Suite:
    parts: list[Suite] = []
    if name:
        parts.append(load_suite(_builtin(name, BUILTIN_SUITES, "suite")))
    if playbook:
        parts.append(parse_suite(playbook, "the playbook"))
    if hypotheses:
        parts.append(adhoc_suite(hypotheses))
    if not parts:
        raise ConfigError("nothing to check", hint="send 'suite': 'nda', a 'playbook' or 'hypotheses'")
    return Suite(name="+".join(p.name for p in parts), hypotheses=[h for p in parts for h in p.hypotheses])


def contract_ids(runtime: Runtime, references: list[str]) -> list[str]:
    """Contract ids of this tenant, in order and once each (an unknown one: 404 at once)."""
    return list(dict.fromkeys(runtime.store.resolve_id(reference) for reference in references))


@router.post("/checks", status_code=202, response_model=Job)
def create_check(body: CheckRequest, service: CurrentService, tenant: Tenant, runtime: TenantRuntime) -> Job:
    """Check hypotheses against contracts: Entailment / Contradiction / NotMentioned, with evidence."""
    suite = suite_of(body)
    request = {
        "contracts": contract_ids(runtime, body.contracts),
        "suite": suite.model_dump(),
        "report": body.report,
    }
    return submit(service, tenant, "check", request)


@router.post("/reviews", status_code=202, response_model=Job)
def create_review(
    body: ReviewRequest, service: CurrentService, tenant: Tenant, runtime: TenantRuntime
) -> Job:
    """Review provisions (CUAD's 41 by default) in contracts: present or absent, clauses, values."""
    provisions = _provisions(body.provisions, body.playbook)
    request = {"contracts": contract_ids(runtime, body.contracts), "provisions": provisions.model_dump()}
    return submit(service, tenant, "review", request)


def _provisions(name: str | None, playbook: str | None) -> ProvisionList:
    if playbook:
        return parse_provisions(playbook, "the provision list")
    return load_provisions(_builtin(name or "cuad", BUILTIN_PROVISIONS, "provision list"))


MAX_BATCH_FILES = 2000


@router.post("/batches", status_code=202, response_model=Job)
async def create_batch(
    service: CurrentService,
    tenant: Tenant,
    runtime: TenantRuntime,
    kind: Annotated[Literal["check", "review"], Form(description="check or review.")],
    files: Annotated[list[UploadFile], File(description="The data room's contracts.")],
    suite: Annotated[str | None, Form(description="check: a built-in suite (nda).")] = None,
    hypotheses: Annotated[list[str] | None, Form(description="check: hypotheses typed in.")] = None,
    provisions: Annotated[str | None, Form(description="review: a built-in provision list (cuad).")] = None,
    playbook: Annotated[str | None, Form(description="A playbook's or provision list's YAML text.")] = None,
) -> Job:
    """A data room in one request: each file is ingested and checked or reviewed by its own unit
    of work (on the workers with ``jobs.backend = "celery"``); the job's rows fill as units finish.
    A file that cannot be read (corrupt, encrypted, wrong type) becomes its row's error; the
    others go on. Too large or empty files refuse the request at once, naming the file."""
    if len(files) > MAX_BATCH_FILES:
        raise ConfigError(
            f"{len(files)} files in one batch (at most {MAX_BATCH_FILES})", hint="send the data room in parts"
        )
    if kind == "check":
        asked = {"suite": _suite(suite, playbook, hypotheses or []).model_dump(), "report": False}
    else:
        asked = {"provisions": _provisions(provisions, playbook).model_dump()}
    stored: list[StoredUpload] = []
    try:
        for file in files:
            stored.append(await store_upload(file, runtime))
        uploads = [upload.reference() for upload in stored]
        return submit(service, tenant, kind, {"contracts": [], "uploads": uploads, **asked})
    except BaseException:
        for upload in stored:  # a refused request keeps none of its files
            discard(upload.path)
        raise
