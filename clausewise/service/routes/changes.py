"""A negotiation round over HTTP: the tracked changes of a Word file a contract was ingested from
(by author, its comments, and its text before compared clause by clause with its text as
proposed), and any two texts of the caller's contracts compared. No language model: those answer
at once. Holding the round against a playbook runs the deciders on both texts, so it is a job, and
the reply a DOCX of the finished job. Contracts are named by id only (``ID``, ``ID@VERSION``,
``ID@before``, ``ID@proposed``); another tenant's is a 404 like a missing one."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from clausewise.api import Clausewise
from clausewise.core.comparison import Comparison, RoundAssessment, TextReference, WordRound
from clausewise.service.audit import record
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.errors import ApiError
from clausewise.service.jobs import Job
from clausewise.service.routes.contracts import Version, open_contract, record_read
from clausewise.service.routes.playbooks import DOCX, chosen_playbook, finished_job
from clausewise.service.schemas import ERROR_RESPONSES, RoundAssessmentRequest
from clausewise.service.work import outcome, submit
from indexes.store import ContractIndex
from tools.clause_compare import compare_stored, word_round

router = APIRouter(prefix="/v1", tags=["changes"], responses=ERROR_RESPONSES)

Reference = Annotated[
    str,
    Query(
        max_length=200,
        description="A text of one of your contracts: ID (its live version), ID@N (version N), ID@before "
        "or ID@proposed (the two texts of a Word file with tracked changes), ID@N:before.",
    ),
]


def _reference(value: str, name: str) -> TextReference:
    try:
        return TextReference.parse(value)
    except ValueError as error:
        raise ApiError(
            422,
            "invalid_reference",
            f"{name}: {error}",
            hint="name a text as ID, ID@N, ID@before or ID@proposed",
        ) from error


@router.get("/contracts/{contract_id}/changes", response_model=WordRound)
def contract_changes(contract_id: str, runtime: TenantRuntime, version: Version = None) -> WordRound:
    """The tracked changes of the Word file the contract was ingested from: each change with its
    author, kind and span in both texts, its comments, and the clause-level comparison of its text
    before with its text as proposed (each change with its authors). 422 when it has none."""
    index = open_contract(runtime, contract_id, version)
    try:
        found = word_round(index, runtime.settings.structure)
        record_read(runtime, index, "its tracked changes")
        return found
    finally:
        index.close()


@router.get("/compare", response_model=Comparison)
def compare(runtime: TenantRuntime, before: Reference, after: Reference) -> Comparison:
    """Two texts compared clause by clause: values changed (with both values), words replaced,
    inserted or deleted, clauses inserted, struck or moved, each with its span in both texts; a
    clause moved or renumbered is not a change of its words."""
    references = [_reference(before, "before"), _reference(after, "after")]
    opened: list[ContractIndex] = []
    try:
        for reference in references:
            opened.append(open_contract(runtime, reference.contract, reference.version))
        comparison = compare_stored(
            (opened[0], references[0]), (opened[1], references[1]), runtime.settings.structure
        )
        for index in opened:
            record_read(runtime, index, "a comparison of its text")
        return comparison
    finally:
        for index in opened:
            index.close()


@router.post("/contracts/{contract_id}/changes/assessments", status_code=202, response_model=Job)
def assess_changes(
    contract_id: str,
    body: RoundAssessmentRequest,
    service: CurrentService,
    tenant: Tenant,
    runtime: TenantRuntime,
    version: Version = None,
) -> Job:
    """Hold the round against a playbook, as a job (202): each position decided on the text
    before and as proposed, the changes in its clause, those made worse first, the changes no
    position covers. Then ``GET /v1/round-assessments/{job}/reply`` answers it in their file."""
    playbook = chosen_playbook(runtime, body)
    index = open_contract(runtime, contract_id, version)
    try:
        word_round(index, runtime.settings.structure)  # refuses a contract without tracked changes
        request = {"contract": index.contract_id, "version": index.manifest.version}
    finally:
        index.close()
    return submit(service, tenant, "round", {**request, "playbook": playbook.model_dump()})


@router.get("/round-assessments/{job_id}/reply", responses={200: {"content": {DOCX: {}}}})
def round_reply(
    job_id: str,
    service: CurrentService,
    tenant: Tenant,
    runtime: TenantRuntime,
    author: Annotated[
        str, Query(min_length=1, max_length=80, description="Our changes' author.")
    ] = "Clausewise",
) -> Response:
    """Our answer to an assessed round: their Word file with their changes kept and ours added
    (their changes that made a position worse rejected, each with a Word comment), read back
    before it is returned."""
    job = finished_job(service, tenant, job_id, "round", "a round assessment", "reply")
    assessed = RoundAssessment.model_validate(outcome(job))
    answered = Clausewise(runtime=runtime, audit=False).answer_round(
        assessed, author=author, when=datetime.now(UTC)
    )
    record(
        runtime.tenant_dir,
        "export",
        contract_id=assessed.round.contract_id,
        version=assessed.round.version,
        detail=f"round reply of job {job_id} ({len(answered.rejected)} rejected)",
    )
    name = f"{assessed.round.contract_id}-reply.docx"
    return Response(
        answered.data, media_type=DOCX, headers={"Content-Disposition": f'attachment; filename="{name}"'}
    )
