"""A span per language-model call, in OpenTelemetry's GenAI semantic conventions: operation,
provider, requested and answering model, input and output tokens, and the Clausewise role that
asked. The prompt and the reply enter the span only when the work's content policy captures
content (:mod:`clausewise.core.tracing`), redacted.

A LangChain callback, attached to every chat model next to the usage ledger: it sees every call
whichever graph node, agent or backend makes it.
"""

from __future__ import annotations

import json
import threading
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from clausewise.core.tracing import record_content, tracer


def _messages_json(messages: Any) -> str:
    """The prompt's messages as GenAI's ``[{"role": ..., "content": ...}]``."""
    batch = messages[0] if messages and isinstance(messages[0], list) else messages or []
    return json.dumps(
        [{"role": getattr(m, "type", "user"), "content": str(getattr(m, "content", m))} for m in batch]
    )


class ModelCallSpans(BaseCallbackHandler):
    """Opens a ``chat <model>`` span when a call starts and ends it with the usage when it ends."""

    run_inline = True  # in the caller's thread, so the span's parent is the node that called

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self._open: dict[UUID, trace.Span] = {}
        self._lock = threading.Lock()

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
        params = invocation_params or {}
        model = str(params.get("model") or params.get("model_name") or "")
        role = (metadata or {}).get("clausewise_role", "unassigned")
        opened = tracer().start_span(
            f"chat {model or role}",
            kind=trace.SpanKind.CLIENT,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": self.provider,
                "gen_ai.request.model": model,
                "clausewise.role": role,
                **({"gen_ai.request.max_tokens": params["max_tokens"]} if params.get("max_tokens") else {}),
            },
        )
        record_content(opened, "gen_ai.input.messages", _messages_json(messages))
        with self._lock:
            self._open[run_id] = opened

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            ended = self._open.pop(run_id, None)
        if ended is None:
            return
        generation = response.generations[0][0] if response.generations and response.generations[0] else None
        message = getattr(generation, "message", None)
        usage = getattr(message, "usage_metadata", None) or {}
        metadata = getattr(message, "response_metadata", None) or {}
        answering = metadata.get("model_name") or metadata.get("model") or "unknown"
        ended.set_attributes(
            {
                "gen_ai.response.model": str(answering),
                "gen_ai.usage.input_tokens": int(usage.get("input_tokens", 0)),
                "gen_ai.usage.output_tokens": int(usage.get("output_tokens", 0)),
                "clausewise.cached": bool(metadata.get("cached")),
            }
        )
        if generation is not None:
            reply = json.dumps([{"role": "assistant", "content": generation.text}])
            record_content(ended, "gen_ai.output.messages", reply)
        ended.end()

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            ended = self._open.pop(run_id, None)
        if ended is None:
            return
        ended.record_exception(error)
        ended.set_status(Status(StatusCode.ERROR, type(error).__name__))
        ended.end()
