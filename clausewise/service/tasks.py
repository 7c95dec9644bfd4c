"""The units of work behind the service's jobs, and how a job is split into them and put back
together.

A unit is the natural piece of work: ingest one file, answer one question (or one chat message),
check one contract against a suite, review one contract, answer a data room's questions on one
contract. A batch (contracts or uploaded files) is one unit per contract. Whatever runs the
units, the server's own threads or Celery workers, calls :func:`run_unit` on the same
:class:`Unit`, so a result never depends on where it was computed.

Units of checks, reviews and data rooms are idempotent: their result is stored under a key made
of the tenant, the contract's content hash, the settings that change a result and what was
asked; a unit delivered again, or a job submitted again, returns the stored rows (marked
``resumed``) instead of working again, so a batch never gets a duplicate row. Within a unit, a
journal keeps each decided row, so a unit cut short resumes where it stopped.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from opentelemetry import trace

from clausewise.api import BatchItem, Clarification, Clausewise, ProgressEvent
from clausewise.core.errors import (
    ClausewiseError,
    IngestInProgress,
    InputError,
    ModelTimeout,
    ModelUnavailable,
)
from clausewise.core.report import Report
from clausewise.core.results import Manifest
from clausewise.core.tracing import context_of, tracer
from clausewise.runtime import Runtime
from clausewise.service.errors import error_text, without_server_paths
from clausewise.service.jobs import TRACE_KEY, Job
from clausewise.service.playbook_results import playbook_result
from clausewise.service.room_results import room_result
from clausewise.service.uploads import discard, upload_path
from indexes.results import ResultStore
from tools.checks.suites import Suite
from tools.playbook.positions import Playbook
from tools.review.provisions import ProvisionList

log = logging.getLogger(__name__)


class TaskContext(Protocol):
    job_id: str
    #: Whether a transient failure is retried by whoever runs the unit (Celery does; the server's
    #: own threads do not, so there it becomes the row's error instead).
    retries: bool

    def event(self, name: str, data: Any = None) -> None:
        """A step the client may watch (stored, streamed)."""
        ...

    def cancelled(self) -> bool:
        """Whether the job was asked to stop (checked between steps)."""
        ...


#: Failures that may pass: a model server restarting or busy, the contract being ingested.
TRANSIENT = (ModelUnavailable, ModelTimeout, IngestInProgress)


class JobCancelled(Exception):
    """Raised inside a unit that stopped because its job was asked to."""


@dataclass(frozen=True)
class Unit:
    """One unit of a job: what to do (``kind``), for whom, on what (``payload``); ``key`` names it
    within its job (the contract, or "0" for a job of one unit)."""

    job_id: str
    tenant: str
    kind: str
    key: str
    payload: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def task_id(self) -> str:
        """A stable id: the same unit sent again is the same task."""
        return f"{self.job_id}-{hashlib.sha1(self.key.encode()).hexdigest()[:12]}"


def _check_cancel(context: TaskContext) -> None:
    if context.cancelled():
        raise JobCancelled


def _upload(runtime: Runtime, payload: dict[str, Any]) -> Path:
    path = upload_path(runtime, payload)
    if not path.is_file():
        raise InputError(
            "the uploaded file is no longer on the server (its ingest ended, or it was refused)",
            hint="upload it again",
        )
    return path


def _settled(error: BaseException, context: TaskContext) -> bool:
    """Whether a unit that failed with ``error`` is over (its upload can go): anything but a
    transient failure that whoever runs it will retry."""
    return not (isinstance(error, TRANSIENT) and context.retries)


# --- splitting jobs and putting them together --------------------------------------------------


def sources_of(request: dict[str, Any]) -> list[dict[str, str]]:
    """What a batch runs on: contracts by id, and uploaded files (ingested by their unit)."""
    return [{"contract": c} for c in request.get("contracts", [])] + list(request.get("uploads", []))


#: Kinds whose job is a batch: one unit per contract (or uploaded file), a row per decided item.
BATCH_KINDS = ("check", "review", "playbook", "room")


def plan(job: Job) -> list[Unit]:
    """The units of ``job``, in the order their results are put together."""
    if job.kind not in BATCH_KINDS:
        return [Unit(job.id, job.tenant, job.kind, "0", job.request)]
    common = {k: v for k, v in job.request.items() if k not in ("contracts", "uploads")}
    return [
        Unit(
            job.id,
            job.tenant,
            job.kind,
            source.get("contract") or source.get("upload") or source["path"],
            {**common, "source": source},
        )
        for source in sources_of(job.request)
    ]


def assemble(job: Job, outputs: list[Any]) -> Any:
    """The job's result from its units' results (same order as :func:`plan`)."""
    if job.kind == "room":
        return room_result(job.request["questions"], [row for output in outputs for row in output["rows"]])
    if job.kind in ("check", "review"):
        return {"kind": job.kind, "rows": [row for output in outputs for row in output["rows"]]}
    if job.kind == "playbook":
        return playbook_result(job.request["playbook"], [row for output in outputs for row in output["rows"]])
    return outputs[0]


def batch_size(job: Job) -> int:
    """Rows the job will produce (progress), for checks and reviews; 1 otherwise."""
    if job.kind == "check":
        return len(sources_of(job.request)) * len(job.request["suite"]["hypotheses"])
    if job.kind == "review":
        return len(sources_of(job.request)) * len(job.request["provisions"]["provisions"])
    if job.kind == "room":
        return len(sources_of(job.request)) * len(job.request["questions"])
    if job.kind == "playbook":
        return len(sources_of(job.request)) * len(job.request["playbook"]["positions"])
    return 1


# --- the units -------------------------------------------------------------------------------


def _ingested(contract_id: str, status: str, manifest: Manifest) -> dict[str, Any]:
    served = manifest.model_dump(mode="json", exclude={"source_path"})
    return {"contract_id": contract_id, "status": status, "version": manifest.version, "manifest": served}


def ingest(payload: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    """Ingest one uploaded file, then delete the upload (the version keeps its own copy). The
    same bytes already ingested (a twin upload got there first) are ``unchanged`` at once."""
    archivist = runtime.archivist()
    contract, sha = payload.get("contract_id"), payload.get("sha256")
    if contract and sha and not payload["force"]:
        existing = archivist.current(contract, sha)
        if existing is not None:
            with contextlib.suppress(InputError):
                discard(upload_path(runtime, payload))
            return _ingested(contract, "unchanged", existing)
    path = _upload(runtime, payload)
    context.event("ingesting", {"file": payload.get("file_name", path.name)})
    try:
        result = Clausewise(runtime=runtime, audit=False).ingest(
            path,
            contract_id=contract,
            force=payload["force"],
            new_version=payload.get("new_version", False),
        )
    except ClausewiseError as error:
        if _settled(error, context):
            discard(path)
        raise
    discard(path)
    return _ingested(result.contract_id, result.status, result.manifest)


def _follow(
    items: Iterable[ProgressEvent | Report | Clarification], context: TaskContext
) -> Report | Clarification:
    """Pass progress events on, stop between steps when asked, return the last item."""
    last: Report | Clarification | None = None
    iterator = iter(items)
    try:
        for item in iterator:
            if isinstance(item, ProgressEvent):
                context.event(item.event, {"turn": item.turn, "of": item.of, **item.data})
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


def ask(payload: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    items = Clausewise(runtime=runtime, audit=False).ask_stream(
        payload["contract"],
        payload["question"],
        context=payload.get("context", ""),
        instructions=payload.get("instructions", ""),
        turns=payload.get("turns"),
        version=payload.get("version"),
        provision=payload.get("provision"),
    )
    report = _follow(items, context)
    assert isinstance(report, Report)
    return report.model_dump(mode="json")


def message(payload: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    """A chat message: the answer to the thread's clarifying question, or its next question."""
    with Clausewise(runtime=runtime, audit=False).chat(payload["contract"], payload["thread_id"]) as thread:
        items = thread.send(
            payload["content"],
            context=payload.get("context", ""),
            instructions=payload.get("instructions", ""),
            turns=payload.get("turns"),
            clarify=payload.get("clarify", True),
            provision=payload.get("provision"),
        )
        outcome = _follow(items, context)
    if isinstance(outcome, Clarification):
        context.event("clarification", {"question": outcome.question})
        return {"thread_id": payload["thread_id"], "clarification": outcome.question, "report": None}
    return {
        "thread_id": payload["thread_id"],
        "clarification": None,
        "report": outcome.model_dump(mode="json"),
    }


def _batch_source(runtime: Runtime, source: dict[str, str]) -> Path | str:
    return source["contract"] if "contract" in source else _upload(runtime, source)


def _batch_rows(items: Iterable[BatchItem], context: TaskContext) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for item in items:
        row = item.model_dump(mode="json")
        if row.get("error"):
            row["error"] = without_server_paths(row["error"])
        rows.append(row)
        context.event("row", row)
        _check_cancel(context)
    return rows


def _drop_upload(runtime: Runtime, source: dict[str, str]) -> None:
    if "contract" not in source:
        with contextlib.suppress(InputError):
            discard(upload_path(runtime, source))


def _unit_key(
    runtime: Runtime, kind: str, source: Path | str, asked: Any, sha256: str | None = None
) -> str | None:
    """The idempotency key of a batch unit: tenant, content, settings, what was asked (None when
    the contract does not exist yet: an upload not ingested)."""
    if isinstance(source, Path):
        content = sha256 or hashlib.sha256(source.read_bytes()).hexdigest()
    else:
        manifest = runtime.store.manifest(runtime.store.resolve_id(source))
        content = manifest.content_sha256 if manifest else ""
    settings = runtime.settings.model_dump_json(
        include={"parsing", "structure", "chunking", "models", "retrieval", "checks", "review"}
    )
    blob = json.dumps([runtime.tenant, kind, content, settings, asked], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


#: How a batch unit makes its contract's rows: an API batch method, given the contract (or file),
#: and the journal that keeps each decided row.
BatchRun = Callable[[Clausewise, list[Path | str], Path], Iterable[BatchItem]]


def _batch_run(kind: str, payload: dict[str, Any]) -> BatchRun:
    """The batch method of ``kind`` with what the job asked of it (a suite, provisions, a playbook
    or a data room's questions), read from the payload once, before the unit starts."""
    if kind == "check":
        suite = Suite.model_validate(payload["suite"])
        return lambda api, sources, journal: api.check_batch(
            sources, suite, report=payload.get("report", False), journal=journal
        )
    if kind == "review":
        provisions = ProvisionList.model_validate(payload["provisions"])
        return lambda api, sources, journal: api.review_batch(sources, provisions, journal=journal)
    if kind == "playbook":  # a row per position as it is reviewed
        playbook = Playbook.model_validate(payload["playbook"])
        return lambda api, sources, journal: api.playbook_batch(sources, playbook, journal=journal)
    if kind == "room":  # its indexes opened and its decider built once, a row per question decided
        questions = [question for _key, question in payload["questions"]]
        return lambda api, sources, journal: api.ask_room(sources, questions, journal=journal)
    raise ValueError(f"no batch unit of kind {kind!r}")


def _batch_unit(kind: str, payload: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    """One contract (or uploaded file) of a batch of ``kind`` (check, review, playbook, room); its
    refusal (an unreadable upload, a contract deleted meanwhile) is its one row, with the error,
    and the batch goes on. An uploaded file is deleted once its unit is over."""
    run = _batch_run(kind, payload)
    try:
        rows = _batch_rows_of(kind, payload, runtime, context, run)
        _drop_upload(runtime, payload["source"])
        return rows
    except ClausewiseError as error:
        if not _settled(error, context):
            raise
        _drop_upload(runtime, payload["source"])
        name = payload["source"].get("file_name") or payload["source"].get("contract", "?")
        log.warning(
            "batch: %s refused: %s", name, error, extra={"tenant": runtime.tenant, "job": context.job_id}
        )
        row = BatchItem(contract_id=name, error=error_text(error)).model_dump(mode="json")
        context.event("row", row)
        return {"rows": [row]}


def _resumed(stored: dict[str, Any], context: TaskContext) -> dict[str, Any]:
    rows = [{**row, "resumed": True} for row in stored["rows"]]
    for row in rows:
        context.event("row", row)
    return {"rows": rows}


def _batch_rows_of(
    kind: str,
    payload: dict[str, Any],
    runtime: Runtime,
    context: TaskContext,
    run: BatchRun,
) -> dict[str, Any]:
    asked = {key: payload.get(key) for key in ("suite", "provisions", "report", "playbook")}
    if kind == "playbook":  # a drafter's redlines are other rows than quick mode's
        asked["draft"] = runtime.settings.playbook.draft
    if kind == "room":  # a cell is the decider's answer to a question: both change it
        asked = {
            "questions": payload["questions"],
            "decision": runtime.settings.decision.model_dump(mode="json"),
        }
    store = ResultStore(runtime.tenant_dir / "results" / kind)
    sha = payload["source"].get("sha256")
    if sha:  # an upload delivered again after its unit ended (and its file went): its stored rows
        stored = store.get(_unit_key(runtime, kind, Path(payload["source"]["file_name"]), asked, sha) or "")
        if stored is not None:
            return _resumed(stored, context)
    source = _batch_source(runtime, payload["source"])
    key = _unit_key(runtime, kind, source, asked, sha)
    stored = store.get(key) if key else None
    if stored is not None:
        return _resumed(stored, context)
    journal = (
        runtime.journal_dir(f"{kind}s")
        / f"job-{context.job_id}-{hashlib.sha1(str(source).encode()).hexdigest()[:12]}.jsonl"
    )
    rows = _batch_rows(run(Clausewise(runtime=runtime, audit=False), [source], journal), context)
    if key and not any(row.get("error") for row in rows):
        store.put(key, {"rows": [{**row, "resumed": False} for row in rows]})
    return {"rows": rows}


def assess_round(payload: dict[str, Any], runtime: Runtime, context: TaskContext) -> dict[str, Any]:
    """A Word file's round held against a playbook (each position decided on both texts)."""
    playbook = Playbook.model_validate(payload["playbook"])
    context.event("assessing", {"contract": payload["contract"], "positions": len(playbook.positions)})
    assessed = Clausewise(runtime=runtime, audit=False).assess_round(
        payload["contract"], playbook, version=payload.get("version")
    )
    return assessed.model_dump(mode="json")


UNITS: dict[str, Callable[[dict[str, Any], Runtime, TaskContext], Any]] = {
    "ingest": ingest,
    "ask": ask,
    "message": message,
    **{kind: functools.partial(_batch_unit, kind) for kind in ("check", "review", "playbook", "room")},
    "round": assess_round,
}


def run_unit(unit: Unit, runtime: Runtime, context: TaskContext) -> Any:
    """Do one unit of work (the same function in the server's threads and on a worker), in a
    span under its job's (on a worker, which has no job span, under the queuing request's)."""
    here = trace.get_current_span().is_recording()
    with tracer().start_as_current_span(
        f"unit {unit.kind}",
        context=None if here else context_of(unit.payload.get(TRACE_KEY)),
        attributes={
            "clausewise.tenant": unit.tenant,
            "clausewise.job": unit.job_id,
            "clausewise.unit": unit.key,
        },
    ):
        return UNITS[unit.kind](unit.payload, runtime, context)
