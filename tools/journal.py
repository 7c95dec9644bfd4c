"""A resumable record of batch work: one JSON line per (contract, item) decided, where an item is
a hypothesis check or a provision review (any pydantic result with a ``key``).

Each line is written whole and fsynced before the next check starts, so an interrupted batch
(Ctrl-C, a crash, a power cut) loses at most the check in progress; a torn last line is ignored
on resume. The journal's file name is keyed by the batch (files, playbook and settings), so a
changed playbook or configuration starts afresh instead of mixing results.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel

ResultT = TypeVar("ResultT", bound=BaseModel)


def batch_key(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:16]


class ResultJournal(Generic[ResultT]):
    def __init__(self, path: Path, model: type[ResultT]) -> None:
        self.path = path
        self.model = model

    def done(self) -> dict[tuple[str, str], ResultT]:
        """Results already recorded, by (contract id, item key)."""
        found: dict[tuple[str, str], ResultT] = {}
        if not self.path.is_file():
            return found
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
                result = self.model.model_validate(entry["result"])
            except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                continue  # a line torn by an interruption: that check runs again
            found[(entry["contract"], entry["result"]["key"])] = result
        return found

    def record(self, contract_id: str, result: ResultT) -> None:
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
