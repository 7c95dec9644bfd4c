"""``GET /v1/audit``: the tenant's audit log, for an admin key (or the single user of a server
without keys), as JSON with its chain verified, or as JSON lines to export."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response

from clausewise.service.auth import CurrentService, Tenant, presented_key
from clausewise.service.errors import ApiError
from clausewise.service.schemas import ERROR_RESPONSES
from indexes.audit_log import audit_log_of

router = APIRouter(prefix="/v1", tags=["audit"], responses=ERROR_RESPONSES)


@router.get("/audit")
def audit_records(
    request: Request,
    service: CurrentService,
    tenant: Tenant,
    format: Literal["json", "jsonl"] = "json",
    limit: Annotated[int, Query(ge=1, le=1_000_000, description="The newest this many records.")] = 1000,
) -> Any:
    """Who ingested, versioned, deleted, asked, searched, checked, reviewed or exported which
    contract of this tenant, and which clauses came back; the hash chain verified (``json``)."""
    if service.keys.active():
        key = presented_key(request)
        info = service.keys.info_of(key) if key else None
        if info is None or not info.admin:
            raise ApiError(
                403,
                "admin_key_required",
                "reading the audit log needs an admin key of this tenant",
                hint="create one with `clausewise keys create --tenant T --admin`",
            )
    log = audit_log_of(service.runtime(tenant).tenant_dir)
    records = list(log.records())[-limit:]
    if format == "jsonl":
        lines = "".join(record.model_dump_json() + "\n" for record in records)
        headers = {"Content-Disposition": 'attachment; filename="clausewise-audit.jsonl"'}
        return Response(lines, media_type="application/x-ndjson", headers=headers)
    check = log.verify()
    return {
        "records": [record.model_dump() for record in records],
        "total": check.records,
        "intact": check.valid,
        "broken_at": check.broken_at,
        "reason": check.reason,
    }
