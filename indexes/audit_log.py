"""A tenant's audit log: who saw or changed which contract, when. Append-only and hash-chained:
each record carries the hash of the one before it and its own hash over both, so a record that
is edited, removed or moved breaks the chain where it was, and :meth:`AuditLog.verify` names it.

One JSON line per record in ``<tenant dir>/audit.jsonl``. An append takes an exclusive lock on
the file (the server's threads, Celery workers and the CLI may write at once), reads the last
record's hash, and writes the new line with one ``write`` and an ``fsync``. A process killed
mid-write can leave at most a last line without its newline; the next append cuts it off (it
was never a record: its writer did not return) and :meth:`verify` reports it as torn, not as
tampering.
"""

from __future__ import annotations

import fcntl
import getpass
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

AuditAction = Literal[
    "ingest",
    "new_version",
    "delete",
    "ask",
    "search",
    "check",
    "review",
    "playbook_review",
    "room",
    "export",
    "read",
    "playbook_created",
    "key_created",
    "key_revoked",
]
#: The hash the first record chains to.
GENESIS = "0" * 64


class AuditRecord(BaseModel):
    seq: int
    at: str = Field(description="When, UTC, ISO 8601.")
    actor: str = Field(
        description="Which key (its id, never the secret); local without keys; local:<user> for the "
        "command line and the Python API."
    )
    action: AuditAction
    contract_id: str = ""
    version: int | None = None
    clause_ids: list[str] = Field(default_factory=list, description="The clauses the answer returned.")
    detail: str = ""
    prev: str
    hash: str = ""

    def digest(self) -> str:
        """The record's hash: over every field but itself, the previous hash included."""
        body = self.model_dump(exclude={"hash"})
        return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@dataclass(frozen=True)
class AuditCheck:
    """What :meth:`AuditLog.verify` found: the records that chain, and where the chain breaks."""

    records: int
    broken_at: int | None = None  # the line (1-based) where the chain breaks
    reason: str = ""
    torn_tail: bool = False  # a last line cut by a killed writer (not a record)

    @property
    def valid(self) -> bool:
        return self.broken_at is None


class AuditLog:
    def __init__(self, path: Path) -> None:
        self.path = path

    def append(
        self,
        actor: str,
        action: AuditAction,
        *,
        contract_id: str = "",
        version: int | None = None,
        clause_ids: list[str] | None = None,
        detail: str = "",
    ) -> AuditRecord:
        """Chain a new record to the last one and write it durably."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            last = self._last(fd)
            record = AuditRecord(
                seq=last.seq + 1 if last else 1,
                at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                actor=actor,
                action=action,
                contract_id=contract_id,
                version=version,
                clause_ids=list(clause_ids or []),
                detail=detail,
                prev=last.hash if last else GENESIS,
            )
            record.hash = record.digest()
            os.lseek(fd, 0, os.SEEK_END)
            os.write(fd, (record.model_dump_json() + "\n").encode("utf-8"))
            os.fsync(fd)
            return record
        finally:
            os.close(fd)  # (closing releases the lock)

    def _last(self, fd: int) -> AuditRecord | None:
        """The last whole record; a torn last line (its writer was killed) is cut off first."""
        size = os.lseek(fd, 0, os.SEEK_END)
        if size == 0:
            return None
        position, tail = _tail(fd, size)
        if not tail.endswith(b"\n"):
            cut = tail.rfind(b"\n")
            os.ftruncate(fd, position + cut + 1 if cut >= 0 else 0)
            return self._last(fd)
        return AuditRecord.model_validate_json(tail[:-1].rsplit(b"\n", 1)[-1])

    def records(self) -> Iterator[AuditRecord]:
        """Every whole record, oldest first (a torn last line is not one)."""
        if not self.path.is_file():
            return
        with self.path.open("rb") as handle:
            for raw in handle:
                if raw.endswith(b"\n"):
                    yield AuditRecord.model_validate_json(raw)

    def verify(self) -> AuditCheck:
        """Walk the chain: every record's hash is its own, its ``prev`` the hash before it, its
        ``seq`` one more; the first break is named."""
        if not self.path.is_file():
            return AuditCheck(records=0)
        previous, count = GENESIS, 0
        with self.path.open("rb") as handle:
            lines = handle.read().split(b"\n")
        torn = lines[-1] != b""
        whole = lines[:-1]
        for number, raw in enumerate(whole, start=1):
            try:
                record = AuditRecord.model_validate_json(raw)
            except ValueError:
                return AuditCheck(count, number, "the line is not a record", torn)
            if record.prev != previous:
                return AuditCheck(count, number, "it does not chain to the record before it", torn)
            if record.digest() != record.hash:
                return AuditCheck(count, number, "its content does not match its hash", torn)
            if record.seq != count + 1:
                return AuditCheck(count, number, f"its number is {record.seq}, not {count + 1}", torn)
            previous, count = record.hash, count + 1
        return AuditCheck(count, torn_tail=torn)


def _tail(fd: int, size: int) -> tuple[int, bytes]:
    """(offset, bytes) of the end of the file holding its last two line ends (or all of it)."""
    position, tail = size, b""
    while position > 0 and tail.count(b"\n") < 2:
        step = min(65536, position)
        position -= step
        os.lseek(fd, position, os.SEEK_SET)
        tail = os.read(fd, step) + tail
    return position, tail


def local_actor() -> str:
    """Whom a record of the command line or the Python API names: ``local:<user>``, the
    operating system's account that ran it (``local`` where it has no name)."""
    try:
        return f"local:{getpass.getuser()}"
    except (KeyError, OSError):  # no login name and no password-file entry (some containers)
        return "local"


def audit_log_of(tenant_dir: Path) -> AuditLog:
    """The audit log of the tenant whose folder is ``tenant_dir``."""
    return AuditLog(tenant_dir / "audit.jsonl")
