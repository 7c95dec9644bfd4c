"""The chat threads of one tenant: which thread ids exist, on which contract, since when.

LangGraph's checkpointer keeps what a thread has said and found (``checkpoints.sqlite`` beside
this registry); the registry is what makes a thread id a thing one can list, resume or refuse.
A thread id the tenant never created is :class:`~clausewise.core.errors.ThreadNotFound`, so
resuming an unknown (or another tenant's) id fails loudly instead of silently starting afresh.
Both files live in the tenant's own folder, so no tenant can see another's threads.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from clausewise.core.errors import ThreadNotFound
from clausewise.core.results import ThreadInfo, ThreadMessage
from indexes.sqlite_tables import open_tables

_ID = re.compile(r"^[a-z0-9]{6,32}$")
_COLUMNS = "id, contract_id, title, created_at, updated_at, contract_version"


def validate_thread_id(thread_id: str) -> str:
    if not _ID.match(thread_id):
        raise ThreadNotFound(
            f"{thread_id!r} is not a thread id",
            hint="thread ids are 6-32 lowercase letters and digits, as `clausewise chat` prints them",
        )
    return thread_id


class ThreadRegistry:
    """Thread ids of one tenant in a small SQLite table (thread-safe, created on first use)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = open_tables(
                self.path,
                [
                    "CREATE TABLE IF NOT EXISTS threads (id TEXT PRIMARY KEY, contract_id TEXT NOT NULL, "
                    "title TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL, updated_at TEXT NOT NULL)",
                    "CREATE TABLE IF NOT EXISTS conversations "
                    "(key TEXT PRIMARY KEY, thread_id TEXT NOT NULL)",
                    "CREATE TABLE IF NOT EXISTS messages (thread_id TEXT NOT NULL, seq INTEGER NOT NULL, "
                    "role TEXT NOT NULL, content TEXT NOT NULL, report TEXT, at TEXT NOT NULL, "
                    "PRIMARY KEY (thread_id, seq))",
                ],
                # a registry from before contract versions
                {"threads": {"contract_version": "INTEGER"}},
            )
        return self._db

    @staticmethod
    def _info(row: tuple) -> ThreadInfo:
        return ThreadInfo(
            id=row[0],
            contract_id=row[1],
            title=row[2],
            created_at=row[3],
            updated_at=row[4],
            contract_version=row[5],
        )

    def create(self, contract_id: str, contract_version: int | None = None) -> ThreadInfo:
        """A new thread on ``contract_id``, reading its version ``contract_version`` from now on."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        thread_id = secrets.token_hex(6)
        with self._lock, self._connection() as db:
            db.execute(
                f"INSERT INTO threads ({_COLUMNS}) VALUES (?, ?, '', ?, ?, ?)",
                (thread_id, contract_id, now, now, contract_version),
            )
        return ThreadInfo(
            id=thread_id,
            contract_id=contract_id,
            contract_version=contract_version,
            created_at=now,
            updated_at=now,
        )

    def get(self, thread_id: str) -> ThreadInfo:
        validate_thread_id(thread_id)
        with self._lock:
            row = (
                self._connection()
                .execute(f"SELECT {_COLUMNS} FROM threads WHERE id = ?", (thread_id,))
                .fetchone()
            )
        if row is None:
            raise ThreadNotFound(
                f"no chat thread {thread_id!r} in this tenant",
                hint="list them with `clausewise chat CONTRACT --list`",
            )
        return self._info(row)

    def list(self, contract_id: str | None = None) -> list[ThreadInfo]:
        """Threads, most recently used first (of one contract when given)."""
        query = f"SELECT {_COLUMNS} FROM threads"
        arguments: tuple[str, ...] = ()
        if contract_id is not None:
            query, arguments = f"{query} WHERE contract_id = ?", (contract_id,)
        with self._lock:
            rows = self._connection().execute(f"{query} ORDER BY updated_at DESC, id", arguments).fetchall()
        return [self._info(row) for row in rows]

    def touch(self, thread_id: str, title: str = "") -> None:
        """Mark the thread used now; its title is set by its first question."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, self._connection() as db:
            db.execute(
                "UPDATE threads SET updated_at = ?, title = CASE WHEN title = '' THEN ? ELSE title END "
                "WHERE id = ?",
                (now, title[:200], thread_id),
            )

    def add_message(self, thread_id: str, role: str, content: str, report: str | None = None) -> None:
        """Record a turn of the conversation: the user's words, or the assistant's question or
        report (``report``: the report as JSON), so the thread can be shown again."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, self._connection() as db:
            (last,) = db.execute(
                "SELECT COALESCE(MAX(seq), 0) FROM messages WHERE thread_id = ?", (thread_id,)
            ).fetchone()
            db.execute(
                "INSERT INTO messages (thread_id, seq, role, content, report, at) VALUES (?, ?, ?, ?, ?, ?)",
                (thread_id, last + 1, role, content, report, now),
            )

    def messages(self, thread_id: str) -> list[ThreadMessage]:
        self.get(thread_id)
        with self._lock:
            rows = (
                self._connection()
                .execute(
                    "SELECT seq, role, content, report, at FROM messages WHERE thread_id = ? ORDER BY seq",
                    (thread_id,),
                )
                .fetchall()
            )
        return [
            ThreadMessage(
                seq=r[0], role=r[1], content=r[2], report=json.loads(r[3]) if r[3] else None, at=r[4]
            )
            for r in rows
        ]

    def remember_conversation(self, key: str, thread_id: str) -> None:
        """Note that a stateless client's conversation so far (its digest, ``key``) is this thread,
        so its next message continues the thread's research."""
        with self._lock, self._connection() as db:
            db.execute(
                "INSERT OR REPLACE INTO conversations (key, thread_id) VALUES (?, ?)", (key, thread_id)
            )

    def thread_for_conversation(self, key: str) -> ThreadInfo | None:
        with self._lock:
            row = (
                self._connection()
                .execute("SELECT thread_id FROM conversations WHERE key = ?", (key,))
                .fetchone()
            )
        if row is None:
            return None
        try:
            return self.get(row[0])
        except ThreadNotFound:
            return None  # the thread was deleted since

    def delete(self, thread_id: str) -> None:
        self.get(thread_id)
        with self._lock, self._connection() as db:
            db.execute("DELETE FROM messages WHERE thread_id = ?", (thread_id,))
            db.execute("DELETE FROM conversations WHERE thread_id = ?", (thread_id,))
            db.execute("DELETE FROM threads WHERE id = ?", (thread_id,))
