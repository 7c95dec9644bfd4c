"""Token and time accounting for every language-model call, and prompt budgets.

A :class:`UsageLedger` is a LangChain callback: attach it to a chat model and every call (from
any graph node, any backend) records its role, model, prompt and completion tokens and seconds.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import asdict, dataclass
from typing import Any
from uuid import UUID

from langchain_core.outputs import LLMResult

from clausewise.core.backends.model_calls import ModelReply, PerCallHandler

log = logging.getLogger(__name__)

#: Characters per token assumed when budgeting before a call (conservative for English legal
#: text with Qwen's tokenizer, which averages ~4.2).
CHARS_PER_TOKEN = 3.5


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def truncate_to_tokens(text: str, tokens: int) -> str:
    """``text`` cut (at a word boundary) to about ``tokens`` tokens."""
    limit = int(tokens * CHARS_PER_TOKEN)
    if len(text) <= limit:
        return text
    cut = text[:limit]
    return cut[: cut.rfind(" ")] if " " in cut else cut


@dataclass
class CallRecord:
    role: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    cached: bool


@dataclass(frozen=True)
class UsageSummary:
    """The model calls of one piece of work (a report's footer): models, calls and tokens."""

    models: list[str]
    calls: int
    prompt_tokens: int
    completion_tokens: int


class UsageLedger(PerCallHandler[tuple[float, str]]):
    """Collects a :class:`CallRecord` per chat-model call (thread-safe)."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[CallRecord] = []

    def call_started(self, role: str, messages: Any, params: dict[str, Any]) -> tuple[float, str]:
        return time.perf_counter(), role

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        started, role = self.call_over(run_id) or (time.perf_counter(), "unassigned")
        reply = ModelReply.of(response)
        record = CallRecord(
            role=role,
            model=reply.model,
            prompt_tokens=int(reply.usage.get("input_tokens", 0)),
            completion_tokens=int(reply.usage.get("output_tokens", 0)),
            seconds=round(time.perf_counter() - started, 3),
            cached=bool(reply.metadata.get("cached")),
        )
        with self._lock:
            self.records.append(record)
        log.debug(
            "model call",
            extra={
                "role": record.role,
                "model": record.model,
                "seconds": record.seconds,
                "prompt_tokens": record.prompt_tokens,
                "completion_tokens": record.completion_tokens,
                "cached": record.cached,
            },
        )

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        started, role = self.call_over(run_id) or (time.perf_counter(), "unassigned")
        log.warning(
            "model call failed: %s",
            error,
            extra={"role": role, "seconds": round(time.perf_counter() - started, 3)},
        )

    def summary(self, since: int = 0) -> UsageSummary:
        """The calls recorded from position ``since`` on (a mark taken with ``len(records)``)."""
        with self._lock:
            records = self.records[since:]
        return UsageSummary(
            models=sorted({r.model for r in records}),
            calls=len(records),
            prompt_tokens=sum(r.prompt_tokens for r in records),
            completion_tokens=sum(r.completion_tokens for r in records),
        )

    def totals(self) -> dict[str, Any]:
        with self._lock:
            records = list(self.records)
        return {
            "calls": len(records),
            "cached_calls": sum(r.cached for r in records),
            "prompt_tokens": sum(r.prompt_tokens for r in records),
            "completion_tokens": sum(r.completion_tokens for r in records),
            "seconds": round(sum(r.seconds for r in records), 2),
            "models": sorted({r.model for r in records}),
        }

    def as_dicts(self) -> list[dict[str, Any]]:
        with self._lock:
            return [asdict(r) for r in self.records]
