"""Hypothesis checks and provision reviews over one contract or many, as jobs (202): a built-in
suite or list, a playbook's YAML text, or hypotheses typed in. Results come from the job
(``GET /v1/jobs/{id}/result``, JSON or CSV), rows as they are decided (its events).

A playbook is sent as text, never as a path: the server reads no file a caller names."""

from __future__ import annotations

from fastapi import APIRouter

from clausewise.core.errors import ConfigError
from clausewise.runtime import Runtime
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.jobs import Job
from clausewise.service.schemas import ERROR_RESPONSES, CheckRequest, ReviewRequest
from clausewise.service.work import submit
from tools.checks.suites import BUILTIN_SUITES, Suite, adhoc_suite, load_suite, parse_suite
from tools.review.provisions import BUILTIN_PROVISIONS, load_provisions, parse_provisions

router = APIRouter(prefix="/v1", tags=["checks and reviews"], responses=ERROR_RESPONSES)


def _builtin(name: str, known: tuple[str, ...], what: str) -> str:
    if name not in known:
        raise ConfigError(
            f"no built-in {what} {name!r}", hint=f"use one of: {', '.join(known)}, or send a playbook"
        )
    return name


def suite_of(body: CheckRequest) -> Suite:
    parts: list[Suite] = []
    if body.suite:
        parts.append(load_suite(_builtin(body.suite, BUILTIN_SUITES, "suite")))
    if body.playbook:
        parts.append(parse_suite(body.playbook, "the playbook"))
    if body.hypotheses:
        parts.append(adhoc_suite(body.hypotheses))
    if not parts:
        raise ConfigError("nothing to check", hint="send 'suite': 'nda', a 'playbook' or 'hypotheses'")
    return Suite(name="+".join(p.name for p in parts), hypotheses=[h for p in parts for h in p.hypotheses])


def _contracts(runtime: Runtime, references: list[str]) -> list[str]:
    """Contract ids of this tenant, in order and once each (an unknown one: 404 at once)."""
    return list(dict.fromkeys(runtime.store.resolve(reference) for reference in references))


@router.post("/checks", status_code=202, response_model=Job)
def create_check(body: CheckRequest, service: CurrentService, tenant: Tenant, runtime: TenantRuntime) -> Job:
    """Check hypotheses against contracts: Entailment / Contradiction / NotMentioned, with evidence."""
    suite = suite_of(body)
    request = {
        "contracts": _contracts(runtime, body.contracts),
        "suite": suite.model_dump(),
        "report": body.report,
    }
    return submit(service, tenant, "check", request)


@router.post("/reviews", status_code=202, response_model=Job)
def create_review(
    body: ReviewRequest, service: CurrentService, tenant: Tenant, runtime: TenantRuntime
) -> Job:
    """Review provisions (CUAD's 41 by default) in contracts: present or absent, clauses, values."""
    if body.playbook:
        provisions = parse_provisions(body.playbook, "the provision list")
    else:
        provisions = load_provisions(
            _builtin(body.provisions or "cuad", BUILTIN_PROVISIONS, "provision list")
        )
    request = {"contracts": _contracts(runtime, body.contracts), "provisions": provisions.model_dump()}
    return submit(service, tenant, "review", request)
