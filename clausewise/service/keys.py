"""API keys: each maps to one tenant; only their SHA-256 is stored.

A key reads ``cw_<id>_<secret>``: the id finds the row, the secret (32 random bytes) is what
proves it. Keys are long random strings, so one SHA-256 is the right hash (a slow password hash
protects guessable secrets; these are not guessable), and comparing digests in constant time
leaks nothing. ``clausewise keys create --tenant T`` prints a key once; it cannot be shown again.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from clausewise.core.config import Settings
from clausewise.core.errors import ConfigError
from indexes.sqlite_tables import open_tables

_KEY = re.compile(r"^cw_([a-z0-9]{8})_([A-Za-z0-9_-]{20,100})$")
_TENANT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class KeyInfo(BaseModel):
    """A key as listed: never its secret."""

    id: str
    tenant: str
    name: str = ""
    created_at: str
    revoked_at: str | None = None
    admin: bool = False  # may read the tenant's audit log (GET /v1/audit)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def service_dir(settings: Settings) -> Path:
    """Where the server keeps what is not any one tenant's: keys and the job queue."""
    return settings.paths.data_dir.expanduser() / "service"


class KeyStore:
    """The server's API keys (``<data_dir>/service/keys.sqlite``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None

    @classmethod
    def of(cls, settings: Settings) -> KeyStore:
        return cls(service_dir(settings) / "keys.sqlite")

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            self._db = open_tables(
                self.path,
                [
                    "CREATE TABLE IF NOT EXISTS keys (id TEXT PRIMARY KEY, tenant TEXT NOT NULL, "
                    "name TEXT NOT NULL DEFAULT '', digest TEXT NOT NULL, created_at TEXT NOT NULL, "
                    "revoked_at TEXT)"
                ],
                {"keys": {"admin": "INTEGER NOT NULL DEFAULT 0"}},  # a key store from before admin keys
            )
        return self._db

    def create(self, tenant: str, name: str = "", admin: bool = False) -> tuple[KeyInfo, str]:
        """A new key for ``tenant``: its listing and the key itself (shown once)."""
        if not _TENANT.match(tenant):
            raise ConfigError(
                f"{tenant!r} is not a tenant name", hint="use letters, digits, '.', '_' and '-' (at most 64)"
            )
        key_id, secret = secrets.token_hex(4), secrets.token_urlsafe(32)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, self._connection() as db:
            db.execute(
                "INSERT INTO keys (id, tenant, name, digest, created_at, admin) VALUES (?, ?, ?, ?, ?, ?)",
                (key_id, tenant, name, _digest(secret), now, int(admin)),
            )
        info = KeyInfo(id=key_id, tenant=tenant, name=name, created_at=now, admin=admin)
        return info, f"cw_{key_id}_{secret}"

    def list(self) -> list[KeyInfo]:
        with self._lock:
            rows = (
                self._connection()
                .execute(
                    "SELECT id, tenant, name, created_at, revoked_at, admin FROM keys ORDER BY created_at, id"
                )
                .fetchall()
            )
        return [
            KeyInfo(id=r[0], tenant=r[1], name=r[2], created_at=r[3], revoked_at=r[4], admin=bool(r[5]))
            for r in rows
        ]

    def revoke(self, key_id: str) -> KeyInfo:
        now = datetime.now(UTC).isoformat(timespec="seconds")
        with self._lock, self._connection() as db:
            changed = db.execute(
                "UPDATE keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", (now, key_id)
            ).rowcount
        known = {k.id: k for k in self.list()}
        if key_id not in known:
            raise ConfigError(f"no API key {key_id!r}", hint="see `clausewise keys list`")
        if not changed:
            raise ConfigError(f"API key {key_id!r} was already revoked", hint="create a new one if needed")
        return known[key_id]

    def active(self) -> bool:
        """Whether any key can be used (then the server requires one)."""
        with self._lock:
            row = self._connection().execute("SELECT 1 FROM keys WHERE revoked_at IS NULL LIMIT 1").fetchone()
        return row is not None

    def info_of(self, key: str) -> KeyInfo | None:
        """The listing of a valid, unrevoked key (its id names it in the audit log); None otherwise."""
        match = _KEY.match(key.strip())
        if match is None:
            return None
        key_id, secret = match.groups()
        with self._lock:
            row = (
                self._connection()
                .execute(
                    "SELECT tenant, digest, name, created_at, admin FROM keys "
                    "WHERE id = ? AND revoked_at IS NULL",
                    (key_id,),
                )
                .fetchone()
            )
        if row is None or not hmac.compare_digest(row[1], _digest(secret)):
            return None
        return KeyInfo(id=key_id, tenant=row[0], name=row[2], created_at=row[3], admin=bool(row[4]))
