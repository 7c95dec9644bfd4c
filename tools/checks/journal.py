"""A resumable record of batch checks: one JSON line per (contract, hypothesis) decided.

Each line is written whole and fsynced before the next check starts, so an interrupted batch
(Ctrl-C, a crash, a power cut) loses at most the check in progress; a torn last line is ignored
on resume. The journal is keyed by the batch (folder, suite and settings), so a changed suite or
configuration starts afresh instead of mixing results.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agents.checker import CheckResult


def batch_key(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:16]


class CheckJournal:
    def __init__(self, path: Path) -> None:
        self.path = path

    def done(self) -> dict[tuple[str, str], CheckResult]:
        """Results already recorded, by (contract id, hypothesis key)."""
        from agents.checker import CheckResult

        found: dict[tuple[str, str], CheckResult] = {}
        if not self.path.is_file():
            return found
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
                result = CheckResult.model_validate(entry["result"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a line torn by an interruption: that check runs again
            found[(entry["contract"], result.key)] = result
        return found

    def record(self, contract_id: str, result: CheckResult) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(
            {"contract": contract_id, "result": result.model_dump(mode="json")}, ensure_ascii=False
        )
        with self.path.open("a", encoding="utf-8") as handle:
            if handle.tell() and not self._ends_with_newline():
                handle.write("\n")  # never glue a new record onto a torn one
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) == b"\n"
