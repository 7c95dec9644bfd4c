"""The service's records in each tenant's audit log (:mod:`indexes.audit_log`): who (the key's
id, never its secret; ``local`` without keys) ingested, versioned, deleted, asked, searched,
checked, reviewed or exported which contract and version, and which clause ids came back.

The request gate names the caller (:data:`current_actor`); a job carries its submitter's name in
its request, so the record of its work is written when it ends, with the clauses its result
cites. Requests answered at once (a search, a delete, an export) are recorded as they answer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from clausewise.api import cited_clauses
from clausewise.service.jobs import Job
from indexes.audit_log import AuditAction, audit_log_of

#: The key (its id) the current request came with; set by the request gate.
current_actor: ContextVar[str] = ContextVar("clausewise_audit_actor", default="local")

_JOB_ACTIONS: dict[str, AuditAction] = {
    "ask": "ask",
    "message": "ask",
    "check": "check",
    "review": "review",
    "playbook": "playbook_review",
    "room": "room",
    "round": "playbook_review",
}


def record(
    tenant_dir: Path,
    action: AuditAction,
    *,
    contract_id: str = "",
    version: int | None = None,
    clause_ids: Iterable[str] = (),
    detail: str = "",
) -> None:
    """One record by the current request's caller in its tenant's log (``tenant_dir``)."""
    audit_log_of(tenant_dir).append(
        current_actor.get(),
        action,
        contract_id=contract_id,
        version=version,
        clause_ids=list(clause_ids),
        detail=detail,
    )


def _contracts_of(job: Job) -> list[tuple[str, int | None, list[str]]]:
    """(contract, version, the clauses its part of the result cites) for each contract a
    finished job's result is about: one for an answer, one per contract of a batch."""
    result = job.result
    if job.kind in ("ask", "message"):
        return [(str(job.request.get("contract", "")), None, cited_clauses([result]))]
    if job.kind == "round":
        positions = result.get("positions", []) if isinstance(result, dict) else []
        cited = cited_clauses([p.get(side) for p in positions for side in ("before", "after")])
        return [(str(job.request.get("contract", "")), job.request.get("version"), cited)]
    by_contract: dict[tuple[str, int | None], list[Any]] = defaultdict(list)
    for row in result.get("rows", []) if isinstance(result, dict) else []:
        by_contract[(str(row.get("contract_id", "")), row.get("contract_version"))].append(row.get("result"))
    return [(contract, version, cited_clauses(rows)) for (contract, version), rows in by_contract.items()]


def record_job(tenant_dir: Path, job: Job) -> None:
    """The records of a job that has ended with a result: an ingest (or new version), an answer
    and the clauses it cites, a batch's contracts and the clauses of each one's rows."""
    if job.status != "done" or not isinstance(job.result, dict):
        return
    log = audit_log_of(tenant_dir)
    actor = str(job.request.get("actor", "local"))
    result = job.result
    if job.kind == "ingest":
        if result.get("status") == "unchanged":
            return
        version = result.get("version")
        action: AuditAction = "new_version" if (version or 1) > 1 else "ingest"
        log.append(actor, action, contract_id=str(result.get("contract_id", "")), version=version)
        return
    kind = _JOB_ACTIONS.get(job.kind)
    if kind is None:
        return
    for contract, version, clauses in _contracts_of(job):
        log.append(
            actor, kind, contract_id=contract, version=version, clause_ids=clauses, detail=f"job {job.id}"
        )


def record_result_read(tenant_dir: Path, job: Job, how: str) -> None:
    """A read of a finished job's result by the current request's caller (``how``: the route or
    format), one record per contract the result is about. An ingest's result (a manifest) and a
    job without a result hold no contract text and are not recorded."""
    if job.kind == "ingest" or job.status != "done" or not isinstance(job.result, dict):
        return
    for contract, version, clauses in _contracts_of(job):
        record(
            tenant_dir,
            "read",
            contract_id=contract,
            version=version,
            clause_ids=clauses,
            detail=f"the result of job {job.id} ({how})",
        )
