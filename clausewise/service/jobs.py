"""Persistent jobs: every piece of model work the service does (ingest, ask, a chat message, a
check, a review) is a job in SQLite (``<data_dir>/service/jobs.sqlite``), so a restart loses none.

A job moves queued -> running -> done | failed | cancelled. Its events (progress, the Interrogator's
steps, the report) are stored in order, so a client that connects late, or again after a dropped
connection, replays them from any point. At start-up :meth:`JobStore.recover` accounts for the
jobs a stopped server left running: a job that can resume from its journal (ingest, check,
review) is queued again, any other is marked failed with the reason; none is silently dropped.

Every read is scoped to a tenant: another tenant's job is "not found", never "forbidden".
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from clausewise.service.errors import ApiError

JobKind = Literal["ingest", "ask", "message", "check", "review", "playbook", "room", "round"]
JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]
FINISHED = ("done", "failed", "cancelled")
#: Kinds that pick up where they stopped when run again (journals, idempotent ingest).
RESUMABLE: frozenset[str] = frozenset({"ingest", "check", "review", "playbook", "room"})


class JobProgress(BaseModel):
    done: int = 0
    total: int | None = None
    note: str = ""


class Job(BaseModel):
    id: str
    tenant: str
    kind: JobKind
    status: JobStatus
    created_at: float
    started_at: float | None = None
    finished_at: float | None = None
    progress: JobProgress = Field(default_factory=JobProgress)
    queue_position: int | None = Field(
        default=None,
        description="Among this tenant's queued jobs, 1 = its next to run (tenants take turns).",
    )
    cancel_requested: bool = False
    request: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: dict[str, str] | None = None


class JobEvent(BaseModel):
    seq: int
    event: str
    data: Any = None
    at: float


def _named(value: Any) -> Any:
    """``value`` with every ``path`` (jobs queued before uploads were named by id held one) cut to
    the file's name, and a served manifest's ``source_path`` dropped."""
    if isinstance(value, list):
        return [_named(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {
        key: Path(str(item)).name if key == "path" else _named(item)
        for key, item in value.items()
        if key != "source_path"
    }


#: The key of a job's request holding the trace context of the request that queued it.
TRACE_KEY = "trace"


def served(job: Job) -> Job:
    """A job as a client sees it: its request and result name files, never server paths (what
    the runner claims keeps them: an old job's upload must still be found), and without the
    trace context it carries for the server's spans."""
    request = {k: v for k, v in job.request.items() if k != TRACE_KEY}
    return job.model_copy(update={"request": _named(request), "result": _named(job.result)})


def job_not_found(job_id: str) -> ApiError:
    return ApiError(404, "job_not_found", f"no job {job_id!r} for this key", hint="see GET /v1/jobs")


#: The error of a job the server stopped while it ran (and could not resume).
INTERRUPTED = "interrupted"

_SCHEMA = (
    "PRAGMA journal_mode=WAL",
    "PRAGMA busy_timeout=10000",
    "CREATE TABLE IF NOT EXISTS jobs (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE, "
    "tenant TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL, "
    "started_at REAL, finished_at REAL, progress TEXT NOT NULL DEFAULT '{}', "
    "cancel_requested INTEGER NOT NULL DEFAULT 0, request TEXT NOT NULL, result TEXT, error TEXT)",
    "CREATE INDEX IF NOT EXISTS jobs_status ON jobs (status, seq)",
    "CREATE INDEX IF NOT EXISTS jobs_tenant ON jobs (tenant, status, seq)",
    "CREATE INDEX IF NOT EXISTS jobs_started ON jobs (tenant, started_at)",
    "CREATE TABLE IF NOT EXISTS events (job_id TEXT NOT NULL, seq INTEGER NOT NULL, "
    "event TEXT NOT NULL, data TEXT, at REAL NOT NULL, PRIMARY KEY (job_id, seq))",
)
_INSERT = "INSERT INTO jobs (id, tenant, kind, status, created_at, request) VALUES (?, ?, ?, 'queued', ?, ?)"
_CANCEL_QUEUED = "UPDATE jobs SET status = 'cancelled', finished_at = ?, cancel_requested = 1 WHERE id = ?"
_COLUMNS = (
    "id, tenant, kind, status, created_at, started_at, finished_at, progress, cancel_requested, "
    "request, result, error, seq"
)
#: The next job to run: each tenant's oldest queued job, the tenant served least recently first
#: (round robin), so one tenant's hundreds of jobs do not wait everyone else out.
_NEXT = f"""
SELECT {_COLUMNS} FROM jobs AS head
WHERE status = 'queued'
  AND seq = (SELECT MIN(seq) FROM jobs WHERE tenant = head.tenant AND status = 'queued')
ORDER BY (SELECT COALESCE(MAX(started_at), 0) FROM jobs WHERE tenant = head.tenant), seq
LIMIT 1
"""


class JobStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self.changed = threading.Condition(self._lock)  # notified when jobs are queued or events added

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            if self._db is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None)
                for statement in _SCHEMA:
                    db.execute(statement)
                self._db = db
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _job(self, db: sqlite3.Connection, row: tuple) -> Job:
        job = Job(
            id=row[0],
            tenant=row[1],
            kind=row[2],
            status=row[3],
            created_at=row[4],
            started_at=row[5],
            finished_at=row[6],
            progress=JobProgress.model_validate_json(row[7] or "{}"),
            cancel_requested=bool(row[8]),
            request=json.loads(row[9]),
            result=json.loads(row[10]) if row[10] is not None else None,
            error=json.loads(row[11]) if row[11] is not None else None,
        )
        if job.status == "queued":  # counted within the tenant: other tenants' jobs are not shown
            (ahead,) = db.execute(
                "SELECT COUNT(*) FROM jobs WHERE tenant = ? AND status = 'queued' AND seq < ?",
                (row[1], row[12]),
            ).fetchone()
            job.queue_position = int(ahead) + 1
        return job

    def _event(self, db: sqlite3.Connection, job_id: str, event: str, data: Any) -> int:
        (last,) = db.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM events WHERE job_id = ?", (job_id,)
        ).fetchone()
        db.execute(
            "INSERT INTO events (job_id, seq, event, data, at) VALUES (?, ?, ?, ?, ?)",
            (job_id, last + 1, event, json.dumps(data, default=str), time.time()),
        )
        return int(last) + 1

    # -- submitting and reading ---------------------------------------------------------------------

    def create(self, tenant: str, kind: JobKind, request: dict[str, Any], *, max_queued: int) -> Job:
        """Queue a job; refused (429) when the tenant already has ``max_queued`` waiting."""
        job_id = secrets.token_hex(8)
        with self._tx() as db:
            (waiting,) = db.execute(
                "SELECT COUNT(*) FROM jobs WHERE tenant = ? AND status = 'queued'", (tenant,)
            ).fetchone()
            if waiting >= max_queued:
                raise ApiError(
                    429,
                    "too_many_jobs",
                    f"{waiting} jobs of this key are already waiting",
                    hint="wait for some to finish (GET /v1/jobs) and submit again",
                )
            db.execute(_INSERT, (job_id, tenant, kind, time.time(), json.dumps(request, default=str)))
            self._event(db, job_id, "queued", {"kind": kind})
            self.changed.notify_all()
        return self.get(tenant, job_id)

    def get(self, tenant: str, job_id: str) -> Job:
        with self._tx() as db:
            row = db.execute(
                f"SELECT {_COLUMNS} FROM jobs WHERE id = ? AND tenant = ?", (job_id, tenant)
            ).fetchone()
            if row is None:
                raise job_not_found(job_id)
            return served(self._job(db, row))

    def list(self, tenant: str, limit: int = 100) -> list[Job]:
        with self._tx() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM jobs WHERE tenant = ? ORDER BY seq DESC LIMIT ?", (tenant, limit)
            ).fetchall()
            return [served(self._job(db, row)) for row in rows]

    def pending_ingests(self, tenant: str, contract_id: str) -> set[str]:
        """The content hashes of the tenant's ingest jobs for ``contract_id`` still queued or
        running (an upload's bytes are not the contract's until its job publishes them)."""
        with self._tx() as db:
            rows = db.execute(
                "SELECT request FROM jobs WHERE tenant = ? AND kind = 'ingest' "
                "AND status IN ('queued', 'running')",
                (tenant,),
            ).fetchall()
        requests = [json.loads(row[0]) for row in rows]
        return {r.get("sha256", "") for r in requests if r.get("contract_id") == contract_id}

    def events(self, tenant: str, job_id: str, after: int = 0) -> list[JobEvent]:
        """The job's events after sequence number ``after`` (the tenant's jobs only)."""
        with self._tx() as db:
            if (
                db.execute("SELECT 1 FROM jobs WHERE id = ? AND tenant = ?", (job_id, tenant)).fetchone()
                is None
            ):
                raise job_not_found(job_id)
            rows = db.execute(
                "SELECT seq, event, data, at FROM events WHERE job_id = ? AND seq > ? ORDER BY seq",
                (job_id, after),
            ).fetchall()
        return [
            JobEvent(seq=r[0], event=r[1], data=json.loads(r[2]) if r[2] else None, at=r[3]) for r in rows
        ]

    def wait(self, timeout: float) -> None:
        """Block until jobs are queued or events added, or ``timeout`` passes."""
        with self.changed:
            self.changed.wait(timeout)

    # -- running ------------------------------------------------------------------------------------

    def claim(self) -> Job | None:
        """The next queued job (:data:`_NEXT`: fair between tenants), now running (None when
        nothing waits)."""
        with self._tx() as db:
            row = db.execute(_NEXT).fetchone()
            if row is None:
                return None
            db.execute(
                "UPDATE jobs SET status = 'running', started_at = ? WHERE id = ?", (time.time(), row[0])
            )
            self._event(db, row[0], "running", None)
            self.changed.notify_all()
            return self._job(db, (*row[:3], "running", *row[4:]))

    def add_event(self, job_id: str, event: str, data: Any = None) -> None:
        with self._tx() as db:
            self._event(db, job_id, event, data)
            self.changed.notify_all()

    def set_progress(self, job_id: str, progress: JobProgress) -> None:
        with self._tx() as db:
            db.execute("UPDATE jobs SET progress = ? WHERE id = ?", (progress.model_dump_json(), job_id))
            self._event(db, job_id, "progress", progress.model_dump())
            self.changed.notify_all()

    def cancel_requested(self, job_id: str) -> bool:
        with self._tx() as db:
            row = db.execute("SELECT cancel_requested FROM jobs WHERE id = ?", (job_id,)).fetchone()
        return bool(row and row[0])

    def finish(
        self, job_id: str, status: JobStatus, *, result: Any = None, error: dict | None = None
    ) -> None:
        """Record the end of a running job and its last event (``done``, ``failed``, ``cancelled``)."""
        with self._tx() as db:
            db.execute(
                "UPDATE jobs SET status = ?, finished_at = ?, result = ?, error = ? WHERE id = ?",
                (
                    status,
                    time.time(),
                    json.dumps(result, default=str) if result is not None else None,
                    json.dumps(error) if error is not None else None,
                    job_id,
                ),
            )
            self._event(db, job_id, status, error)
            self.changed.notify_all()

    def cancel(self, tenant: str, job_id: str) -> Job:
        """Cancel a queued job at once; ask a running one to stop at its next step."""
        job = self.get(tenant, job_id)
        if job.status in FINISHED:
            raise ApiError(
                409, "job_finished", f"job {job_id!r} is already {job.status}", hint="nothing to cancel"
            )
        with self._tx() as db:
            if job.status == "queued":
                db.execute(_CANCEL_QUEUED, (time.time(), job_id))
                self._event(db, job_id, "cancelled", None)
            else:
                db.execute("UPDATE jobs SET cancel_requested = 1 WHERE id = ?", (job_id,))
                self._event(db, job_id, "cancelling", None)
            self.changed.notify_all()
        return self.get(tenant, job_id)

    def recover(self) -> dict[str, int]:
        """Account for jobs a stopped server left running: queue again those that resume from
        their journal, fail the others with the reason. Returns how many of each."""
        counts = {"requeued": 0, "failed": 0}
        with self._tx() as db:
            for job_id, kind in db.execute("SELECT id, kind FROM jobs WHERE status = 'running'").fetchall():
                if kind in RESUMABLE:
                    db.execute("UPDATE jobs SET status = 'queued', started_at = NULL WHERE id = ?", (job_id,))
                    self._event(db, job_id, "requeued", {"reason": "the server restarted while it ran"})
                    counts["requeued"] += 1
                else:
                    error = {
                        "code": INTERRUPTED,
                        "message": "the server stopped while this job was running",
                        "hint": "submit it again",
                    }
                    db.execute(
                        "UPDATE jobs SET status = 'failed', finished_at = ?, error = ? WHERE id = ?",
                        (time.time(), json.dumps(error), job_id),
                    )
                    self._event(db, job_id, "failed", error)
                    counts["failed"] += 1
        return counts

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
