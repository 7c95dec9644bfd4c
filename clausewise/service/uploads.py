"""Uploaded files on the server: stored under the tenant's ``uploads/`` within the size limits,
each upload in a folder of its own (so deleting one never touches another, even of the same
bytes), and deleted as soon as nothing needs them: a refused upload at once, an ingested one
when its ingest ends (the index version keeps its own copy of the original).

A job names its upload by that folder's id and the file's name, never by a server path; the
tenant's uploads together may not exceed ``service.max_upload_mb`` (413 past it).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi import UploadFile

from clausewise.core.errors import EmptyDocument, FileTooLarge, InputError
from clausewise.runtime import Runtime
from clausewise.service.errors import ApiError

_CHUNK = 1 << 20
_MB = 1024 * 1024
_UNSAFE = re.compile(r"[^\w.\- ()]+")
_UPLOAD_ID = re.compile(r"^[0-9a-f]{32}$")


def uploads_dir(runtime: Runtime) -> Path:
    """Where the tenant's uploaded files wait for their ingest."""
    return runtime.tenant_dir / "uploads"


def safe_name(name: str | None) -> str:
    """The base name of an uploaded file, without folders or characters a file system dislikes."""
    base = Path((name or "").replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip(" .") or "contract"
    return cleaned[-150:]


@dataclass(frozen=True)
class StoredUpload:
    """One stored upload: its folder's id, the file's (safe) name, its bytes' SHA-256 and size."""

    upload_id: str
    file_name: str
    sha256: str
    size: int
    path: Path

    def reference(self) -> dict[str, str]:
        """How a job's request names it: no server path."""
        return {"upload": self.upload_id, "file_name": self.file_name, "sha256": self.sha256}


def usage(folder: Path) -> int:
    """Bytes the files under ``folder`` take (uploads being written included)."""
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += (Path(root) / name).stat().st_size
            except FileNotFoundError:
                continue  # deleted meanwhile
    return total


def too_large(runtime: Runtime) -> FileTooLarge:
    limit = runtime.settings.parsing.max_file_mb
    return FileTooLarge(
        f"the upload is over the {limit:g} MB limit",
        hint="split the file or raise parsing.max_file_mb on the server",
    )


def quota_exceeded(runtime: Runtime) -> ApiError:
    quota = runtime.settings.service.max_upload_mb
    return ApiError(
        413,
        "upload_quota_exceeded",
        f"this key's uploads waiting to be ingested would pass the {quota:g} MB allowed",
        hint="wait for the uploads being ingested to finish, or ask for service.max_upload_mb to be raised",
    )


async def store_upload(file: UploadFile, runtime: Runtime) -> StoredUpload:
    """Copy the upload into a folder of its own under the tenant's uploads, refusing it (and
    keeping nothing) past the file size limit or the tenant's uploads quota, or when empty."""
    limit = int(runtime.settings.parsing.max_file_mb * _MB)
    folder = uploads_dir(runtime)
    folder.mkdir(parents=True, exist_ok=True)
    room = int(runtime.settings.service.max_upload_mb * _MB) - usage(folder)
    upload_id = uuid.uuid4().hex
    partial = folder / f".partial-{upload_id}"
    digest, size = hashlib.sha256(), 0
    try:
        with partial.open("wb") as handle:
            while chunk := await file.read(_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise too_large(runtime)
                if size > room:
                    raise quota_exceeded(runtime)
                digest.update(chunk)
                handle.write(chunk)
            handle.flush()
            os.fsync(handle.fileno())
        if size == 0:
            raise EmptyDocument("the upload is empty (0 bytes)", hint="choose the contract file again")
        name = safe_name(file.filename)
        target = folder / upload_id / name
        target.parent.mkdir()
        partial.replace(target)
        return StoredUpload(upload_id, name, digest.hexdigest(), size, target)
    finally:
        partial.unlink(missing_ok=True)


def upload_path(runtime: Runtime, reference: dict[str, str]) -> Path:
    """The file a job's request names (``upload`` + ``file_name``; older jobs: a ``path`` inside
    the tenant's uploads). Anything else is refused: a job reads only its tenant's uploads."""
    folder = uploads_dir(runtime).resolve()
    if "upload" in reference:
        upload_id, name = reference["upload"], reference.get("file_name", "")
        if not _UPLOAD_ID.match(upload_id) or name != safe_name(name):
            raise InputError("the upload reference is not valid", hint="upload the file again")
        return folder / upload_id / name
    path = Path(reference["path"]).resolve()
    if not path.is_relative_to(folder):
        raise InputError("the file to ingest is not one of this tenant's uploads", hint="upload it again")
    return path


def discard(path: Path) -> None:
    """Delete an upload, and its folder once empty (an upload's folder holds only it)."""
    path.unlink(missing_ok=True)
    with contextlib.suppress(OSError):
        path.parent.rmdir()


def discard_job_uploads(runtime: Runtime, request: dict[str, Any]) -> None:
    """Delete every upload a job's request names, once the job has ended however it ended (done,
    failed, cancelled, cancelled before it ran): nothing else will read them. Uploads named by an
    older server's path are left (that layout shared one file between uploads of the same bytes)."""
    references = [*request.get("uploads", []), request]
    for reference in references:
        if isinstance(reference, dict) and "upload" in reference:
            with contextlib.suppress(InputError):
                discard(upload_path(runtime, reference))
