"""The task functions of the service's jobs: ingest a file, answer a question, answer a chat
message, check contracts against hypotheses, review provisions.

Each is a plain function of the job's request, a tenant's runtime and a :class:`TaskContext` (where
its events and progress go, and whether it was asked to stop). Whatever runs the jobs, the
in-process runner or a queue's workers, calls these same functions, so a result never depends on
where it was computed. Requests were validated by the API (:mod:`clausewise.service.schemas`);
files are read only from the tenant's own upload folder.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol

from clausewise.api import BatchItem, Clarification, Clausewise, ProgressEvent
from clausewise.core.errors import InputError
from clausewise.core.report import Report
from clausewise.runtime import Runtime
from tools.checks.suites import Suite
from tools.review.provisions import ProvisionList

log = logging.getLogger(__name__)


class TaskContext(Protocol):
    job_id: str

    def event(self, name: str, data: Any = None) -> None:
        """A step the client may watch (stored, streamed)."""
        ...

    def progress(self, done: int, total: int | None, note: str = "") -> None: ...

    def cancelled(self) -> bool:
        """Whether the job was asked to stop (checked between steps)."""
        ...


class JobCancelled(Exception):
    """Raised inside a task that stopped because it was asked to."""


def _check_cancel(context: TaskContext) -> None:
    if context.cancelled():
        raise JobCancelled


def uploads_dir(runtime: Runtime) -> Path:
    """Where the tenant's uploaded files wait for (and stay after) their ingest."""
    return runtime.tenant_dir / "uploads"


def ingest(request: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    path = Path(request["path"]).resolve()
    if not path.is_relative_to(uploads_dir(runtime).resolve()):
        raise InputError("the file to ingest is not one of this tenant's uploads", hint="upload it again")
    context.event("ingesting", {"file": request.get("file_name", path.name)})
    result = Clausewise(runtime=runtime).ingest(
        path, contract_id=request.get("contract_id"), force=request["force"]
    )
    return {
        "contract_id": result.contract_id,
        "status": result.status,
        "manifest": result.manifest.model_dump(mode="json"),
    }


def _progress_event(item: ProgressEvent) -> tuple[str, dict[str, Any]]:
    return item.event, {"turn": item.turn, "of": item.of, **item.data}


def ask(request: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    items = Clausewise(runtime=runtime).ask_stream(
        request["contract"],
        request["question"],
        context=request.get("context", ""),
        instructions=request.get("instructions", ""),
        turns=request.get("turns"),
    )
    report = _follow(items, context)
    assert isinstance(report, Report)
    return report.model_dump(mode="json")


def message(request: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    """A chat message: the answer to the thread's clarifying question, or its next question."""
    with Clausewise(runtime=runtime).chat(request["contract"], request["thread_id"]) as thread:
        items = thread.send(
            request["content"],
            context=request.get("context", ""),
            instructions=request.get("instructions", ""),
            turns=request.get("turns"),
        )
        outcome = _follow(items, context)
    if isinstance(outcome, Clarification):
        context.event("clarification", {"question": outcome.question})
        return {"thread_id": request["thread_id"], "clarification": outcome.question, "report": None}
    return {
        "thread_id": request["thread_id"],
        "clarification": None,
        "report": outcome.model_dump(mode="json"),
    }


def _follow(
    items: Iterable[ProgressEvent | Report | Clarification], context: TaskContext
) -> Report | Clarification:
    """Pass progress events on, stop between steps when asked, return the last item."""
    last: Report | Clarification | None = None
    iterator = iter(items)
    try:
        for item in iterator:
            if isinstance(item, ProgressEvent):
                context.event(*_progress_event(item))
            else:
                last = item
            _check_cancel(context)
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()  # a generator stopped early closes the graph run and the index
    if last is None:
        raise RuntimeError("the question produced no report")
    return last


def _rows(items: Iterable[BatchItem], total: int, context: TaskContext) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for done, item in enumerate(items, start=1):
        row = item.model_dump(mode="json")
        rows.append(row)
        context.event("row", row)
        context.progress(done, total, item.contract_id)
        _check_cancel(context)
    return rows


def check(request: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    suite = Suite.model_validate(request["suite"])
    contracts: list[str] = request["contracts"]
    journal = runtime.journal_dir("checks") / f"job-{context.job_id}.jsonl"
    items = Clausewise(runtime=runtime).check_batch(
        contracts, suite, report=request.get("report", False), journal=journal
    )
    return {"kind": "check", "rows": _rows(items, len(contracts) * len(suite.hypotheses), context)}


def review(request: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    provisions = ProvisionList.model_validate(request["provisions"])
    contracts: list[str] = request["contracts"]
    journal = runtime.journal_dir("reviews") / f"job-{context.job_id}.jsonl"
    items = Clausewise(runtime=runtime).review_batch(contracts, provisions, journal=journal)
    return {"kind": "review", "rows": _rows(items, len(contracts) * len(provisions.provisions), context)}


TASKS: dict[str, Callable[[dict[str, Any], Runtime, TaskContext], Any]] = {
    "ingest": ingest,
    "ask": ask,
    "message": message,
    "check": check,
    "review": review,
}
