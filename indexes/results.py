"""Results of finished units of work, kept by a key that says what they are the result of.

A unit (check one contract against a suite, review one contract) is keyed by the tenant, the
contract's content hash, the settings that change its result and what it was asked; the same key
means the same result. A re-delivered or re-submitted unit returns the stored result instead of
working again, so a batch never gets a duplicate row, on whichever process or machine it runs.
Files are written whole (a temporary file renamed into place), so two writers of one key leave
one complete result, never a torn one.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any


class ResultStore:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        if not key.isalnum():
            raise ValueError(f"result keys are hexadecimal digests, not {key!r}")
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> Any | None:
        try:
            return json.loads(self._path(key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except json.JSONDecodeError:
            return None  # cannot happen for files written by put(); recomputed if it does

    def put(self, key: str, value: Any) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{key}.{uuid.uuid4().hex[:8]}")
        with partial.open("w", encoding="utf-8") as handle:
            json.dump(value, handle, ensure_ascii=False)
            handle.flush()
            os.fsync(handle.fileno())
        partial.replace(path)
