"""What the LangChain callbacks that watch every model call share (the usage ledger, the model
call spans): the role that asked, the reply's usage and model, and something held per call from
its start to its end, under a lock (calls run in many threads at once)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import Generation, LLMResult

Held = TypeVar("Held")


@dataclass(frozen=True)
class ModelReply:
    """The first generation of a call's result, with its token usage and response metadata
    (empty when the backend gave none)."""

    generation: Generation | None
    usage: dict[str, Any]
    metadata: dict[str, Any]

    @classmethod
    def of(cls, response: LLMResult) -> ModelReply:
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        message = getattr(generation, "message", None)
        return cls(
            generation,
            getattr(message, "usage_metadata", None) or {},
            getattr(message, "response_metadata", None) or {},
        )

    @property
    def model(self) -> str:
        """The model that answered, as the backend names it."""
        return str(self.metadata.get("model_name") or self.metadata.get("model") or "unknown")


class PerCallHandler(BaseCallbackHandler, Generic[Held]):
    """A callback that keeps what :meth:`call_started` returns for each chat-model call until
    :meth:`call_over` takes it back (when the call ends or fails)."""

    def __init__(self) -> None:
        self._calls: dict[UUID, Held] = {}
        self._lock = threading.Lock()

    def call_started(self, role: str, messages: Any, params: dict[str, Any]) -> Held:
        """What to keep for a call starting: ``role``, the Clausewise role that asked
        ("unassigned" when none did), ``params``: the model's invocation parameters."""
        raise NotImplementedError

    def call_over(self, run_id: UUID) -> Held | None:
        """What was kept for the call ``run_id`` (None when its start was not seen), forgotten."""
        with self._lock:
            return self._calls.pop(run_id, None)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: Any,
        *,
        run_id: UUID,
        metadata: dict[str, Any] | None = None,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        role = (metadata or {}).get("clausewise_role", "unassigned")
        held = self.call_started(role, messages, invocation_params or {})
        with self._lock:
            self._calls[run_id] = held
