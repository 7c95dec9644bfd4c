"""Where a tenant's contracts live on disk, and how a new index version is published atomically.

    <data_dir>/tenants/<tenant>/contracts/<contract_id>/
        CURRENT                  name of the live version (replaced atomically)
        .lock                    flock held while ingesting this contract
        .writer                  who ingests it (host, pid), refreshed while they do
        versions/<version>/      one complete, immutable index build (every one is kept)
        versions/.staging-*/     a build in progress (never read; swept later)

A build is written into a staging folder, fsynced, renamed into ``versions/`` and only then made
live by replacing ``CURRENT``. A crash at any point leaves the previous version live and intact.
Older builds stay: a report, thread or check that cited one keeps resolving against it, and only
an explicit delete removes it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import socket
import threading
import time
import unicodedata
import uuid
from collections.abc import Iterator
from pathlib import Path

from clausewise.core.errors import ContractNotFound, IngestInProgress

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")
STAGING_PREFIX = ".staging-"
POINTER = "CURRENT"
WRITER = ".writer"
#: A writer marker not refreshed for this long belongs to a dead machine (refreshed every 1/4).
STALE_WRITER_SECONDS = 120.0


def contract_id_for(name: str) -> str:
    """A stable, filesystem-safe id from a file name: 'Acme NDA (v2).pdf' -> 'acme-nda-v2',
    'Vertrag Müller.pdf' -> 'vertrag-muller'. Letters with no ASCII form (契約, Договор) cannot
    make an id, so a name that has any gets a hash of the whole name after what it kept
    ('契約.pdf' -> 'contract-3f2a9c1e', 'NDA 契約.pdf' -> 'nda-8b1d04c2'): two such names never
    share an id merely because their ASCII parts agree."""
    stem = Path(name).stem if "." in Path(name).name else name
    ascii_form = unicodedata.normalize("NFKD", stem).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_form.lower()).strip("-")
    lost = any(c.isalnum() for c in unicodedata.normalize("NFKD", stem) if not c.isascii())
    if lost or not slug:
        digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
        return f"{slug[:80].rstrip('-.') or 'contract'}-{digest}"
    return slug[:100].rstrip("-.")


def validate_contract_id(contract_id: str) -> str:
    if not ID_PATTERN.match(contract_id):
        raise ContractNotFound(
            f"{contract_id!r} is not a valid contract id",
            hint="ids are lowercase letters, digits, '.', '_' and '-' (see `clausewise contracts list`)",
        )
    return contract_id


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(path: Path) -> None:
    """Flush every file and folder under ``path`` to disk (before it is published)."""
    for root, _dirs, files in os.walk(path):
        for name in files:
            fd = os.open(Path(root) / name, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _fsync_dir(Path(root))


def _in_progress(contract_id: str, who: str) -> IngestInProgress:
    return IngestInProgress(
        f"contract {contract_id!r} is being ingested by {who}",
        hint="wait for it to finish, then run the command again",
    )


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class WriterMarker:
    """The ``.writer`` file of one contract: created with O_EXCL (atomic on local disks and NFS),
    holding ``host pid token``; its modification time is the owner's heartbeat."""

    def __init__(self, path: Path, stale_seconds: float = STALE_WRITER_SECONDS) -> None:
        self.path = path
        self.stale_seconds = stale_seconds
        self.token = uuid.uuid4().hex

    def _owner(self) -> tuple[str, int, str] | None:
        try:
            host, pid, token = self.path.read_text(encoding="utf-8").split()
            return host, int(pid), token
        except FileNotFoundError:
            return None
        except ValueError:
            return ("?", 0, "?")  # torn by a crash between create and write: stale by age

    def _stale(self, owner: tuple[str, int, str]) -> bool:
        host, pid, _token = owner
        if host == socket.gethostname() and pid and not _process_alive(pid):
            return True
        try:
            age = time.time() - self.path.stat().st_mtime
        except FileNotFoundError:
            return True
        return age > self.stale_seconds

    def _create(self) -> bool:
        try:
            fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(f"{socket.gethostname()} {os.getpid()} {self.token}\n")
            handle.flush()
            os.fsync(handle.fileno())
        return True

    def acquire(self, contract_id: str) -> None:
        if self._create():
            return
        owner = self._owner()
        if owner is not None and not self._stale(owner):
            raise _in_progress(contract_id, f"process {owner[1]} on {owner[0]}")
        # Take the stale marker over: only one taker's rename succeeds.
        with contextlib.suppress(FileNotFoundError):
            self.path.rename(self.path.with_name(f"{WRITER}.stale-{self.token}"))
            self.path.with_name(f"{WRITER}.stale-{self.token}").unlink()
        if not self._create():
            raise _in_progress(contract_id, "another process that has just started")

    def release(self) -> None:
        owner = self._owner()
        if owner is not None and owner[2] == self.token:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()

    @contextlib.contextmanager
    def held(self, contract_id: str) -> Iterator[None]:
        """Hold the marker, refreshing it from a thread, for the ``with`` block."""
        self.acquire(contract_id)
        stop = threading.Event()

        def beat() -> None:
            while not stop.wait(self.stale_seconds / 4):
                with contextlib.suppress(FileNotFoundError):
                    os.utime(self.path)

        heart = threading.Thread(target=beat, name="clausewise-writer-heartbeat", daemon=True)
        heart.start()
        try:
            yield
        finally:
            stop.set()
            heart.join()
            self.release()


class StoreLayout:
    """The contracts folder of one tenant (``tenant_dir`` is ``<data_dir>/tenants/<tenant>``)."""

    def __init__(self, tenant_dir: Path, tenant: str) -> None:
        self.tenant = tenant
        self.contracts_dir = Path(tenant_dir) / "contracts"

    def contract_dir(self, contract_id: str) -> Path:
        return self.contracts_dir / validate_contract_id(contract_id)

    def current_version(self, contract_id: str) -> Path | None:
        """The live version folder, or None if the contract was never (completely) ingested."""
        pointer = self.contract_dir(contract_id) / POINTER
        try:
            name = pointer.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        version = self.contract_dir(contract_id) / "versions" / name
        return version if name and version.is_dir() else None

    def contract_ids(self) -> list[str]:
        if not self.contracts_dir.is_dir():
            return []
        return sorted(p.name for p in self.contracts_dir.iterdir() if (p / POINTER).is_file())

    @contextlib.contextmanager
    def ingest_lock(self, contract_id: str) -> Iterator[None]:
        """Exclusive per-contract lock; a second concurrent ingest fails fast instead of racing.

        Two locks, because workers on several machines may share this folder: ``flock`` (released
        by the kernel when a process dies; across machines only where the shared filesystem
        supports it, as NFSv4 does) and a ``.writer`` marker created exclusively, naming its owner
        and refreshed while the ingest runs, which every filesystem honours. A marker whose owner
        died (same machine, process gone) or stopped refreshing it (another machine, for
        :data:`STALE_WRITER_SECONDS`) is taken over."""
        folder = self.contract_dir(contract_id)
        folder.mkdir(parents=True, exist_ok=True)
        with (folder / ".lock").open("a") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError as exc:
                raise _in_progress(contract_id, "another process") from exc
            try:
                with WriterMarker(folder / WRITER).held(contract_id):
                    yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def new_staging(self, contract_id: str) -> Path:
        versions = self.contract_dir(contract_id) / "versions"
        versions.mkdir(parents=True, exist_ok=True)
        staging = versions / f"{STAGING_PREFIX}{uuid.uuid4().hex[:12]}"
        staging.mkdir()
        return staging

    def version_dirs(self, contract_id: str) -> list[Path]:
        """Every complete build of the contract (a folder with a manifest), live or not."""
        versions = self.contract_dir(contract_id) / "versions"
        if not versions.is_dir():
            return []
        return sorted(
            entry
            for entry in versions.iterdir()
            if not entry.name.startswith(".") and (entry / "manifest.json").is_file()
        )

    def publish(self, contract_id: str, staging: Path) -> Path:
        """Make a finished staging build the live version, atomically; older builds are kept."""
        fsync_tree(staging)
        versions = staging.parent
        name = f"v{time.strftime('%Y%m%dT%H%M%S')}-{uuid.uuid4().hex[:8]}"
        final = versions / name
        staging.rename(final)
        _fsync_dir(versions)
        folder = self.contract_dir(contract_id)
        tmp = folder / f".{POINTER}.{uuid.uuid4().hex[:8]}"
        tmp.write_text(name + "\n", encoding="utf-8")
        with tmp.open("rb") as handle:
            os.fsync(handle.fileno())
        tmp.replace(folder / POINTER)
        _fsync_dir(folder)
        self.sweep(contract_id, keep=name)
        return final

    def sweep(self, contract_id: str, keep: str | None = None) -> None:
        """Remove abandoned staging folders and half-removed builds (never a complete build:
        older versions are deleted only when asked, by :meth:`delete_version`). Runs under the
        ingest lock, so no staging folder swept is still being written."""
        versions = self.contract_dir(contract_id) / "versions"
        if not versions.is_dir():
            return
        live = keep or (self.current_version(contract_id) or Path()).name
        for entry in versions.iterdir():
            incomplete = entry.name.startswith(".") or not (entry / "manifest.json").is_file()
            if entry.name != live and incomplete:
                shutil.rmtree(entry, ignore_errors=True)

    def delete_version(self, contract_id: str, name: str) -> None:
        """Remove one build that is not live: renamed out of sight first, then deleted."""
        folder = self.contract_dir(contract_id) / "versions" / name
        trash = folder.with_name(f".deleted-{name}-{uuid.uuid4().hex[:8]}")
        folder.rename(trash)
        shutil.rmtree(trash, ignore_errors=True)

    def delete(self, contract_id: str) -> None:
        """Remove a contract entirely: first make it invisible (rename), then delete the files."""
        folder = self.contract_dir(contract_id)
        if not folder.is_dir():
            raise ContractNotFound(
                f"no contract {contract_id!r} in tenant {self.tenant!r}",
                hint="see `clausewise contracts list`",
            )
        trash = folder.with_name(f".deleted-{contract_id}-{uuid.uuid4().hex[:8]}")
        folder.rename(trash)
        shutil.rmtree(trash, ignore_errors=True)
