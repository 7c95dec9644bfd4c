"""A disk cache of completions (SQLite), keyed by model, prompt and parameters.

It plugs into LangChain's cache hook, so every backend uses it the same way. Evaluations turn it
on by default (re-running a benchmark costs nothing); interactive use only when asked, since a
lawyer asking the same question twice may want a fresh answer from a changed model.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation


class CompletionCache(BaseCache):
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False)
        with self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS completions (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
            )

    @staticmethod
    def _key(prompt: str, llm_string: str) -> str:
        return hashlib.sha256(f"{llm_string}\x00{prompt}".encode()).hexdigest()

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        with self._lock:
            row = self._db.execute(
                "SELECT value FROM completions WHERE key = ?", (self._key(prompt, llm_string),)
            ).fetchone()
        if row is None:
            return None
        return [_revive(item) for item in json.loads(row[0])]

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        payload = json.dumps([_freeze(generation) for generation in return_val])
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO completions (key, value) VALUES (?, ?)",
                (self._key(prompt, llm_string), payload),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM completions")

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM completions").fetchone()[0])


def _freeze(generation: Generation) -> dict[str, Any]:
    """Plain JSON for a generation: our backends only produce text answers with metadata."""
    if isinstance(generation, ChatGeneration):
        message = generation.message
        return {
            "content": message.content,
            "response_metadata": message.response_metadata,
            "usage_metadata": getattr(message, "usage_metadata", None),
        }
    return {"text": generation.text}


def _revive(item: dict[str, Any]) -> Generation:
    if "text" in item:
        return Generation(text=item["text"])
    metadata = {**item["response_metadata"], "cached": True}
    return ChatGeneration(
        message=AIMessage(
            content=item["content"], response_metadata=metadata, usage_metadata=item["usage_metadata"]
        )
    )
