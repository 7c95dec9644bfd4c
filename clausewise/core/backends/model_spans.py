"""A span per language-model call, in OpenTelemetry's GenAI semantic conventions: operation,
provider, requested and answering model, input and output tokens, and the Clausewise role that
asked. The prompt and the reply enter the span only when the work's content policy captures
content (:mod:`clausewise.core.tracing`), redacted.

A LangChain callback, attached to every chat model next to the usage ledger: it sees every call
whichever graph node, agent or backend makes it.
"""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

from langchain_core.outputs import LLMResult
from opentelemetry import trace
from opentelemetry.trace import Status, StatusCode

from clausewise.core.backends.model_calls import ModelReply, PerCallHandler
from clausewise.core.tracing import record_content, tracer


def _messages_json(messages: Any) -> str:
    """The prompt's messages as GenAI's ``[{"role": ..., "content": ...}]``."""
    batch = messages[0] if messages and isinstance(messages[0], list) else messages or []
    return json.dumps(
        [{"role": getattr(m, "type", "user"), "content": str(getattr(m, "content", m))} for m in batch]
    )


class ModelCallSpans(PerCallHandler[trace.Span]):
    """Opens a ``chat <model>`` span when a call starts and ends it with the usage when it ends."""

    run_inline = True  # in the caller's thread, so the span's parent is the node that called

    def __init__(self, provider: str) -> None:
        super().__init__()
        self.provider = provider

    def call_started(self, role: str, messages: Any, params: dict[str, Any]) -> trace.Span:
        model = str(params.get("model") or params.get("model_name") or "")
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
        return opened

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        ended = self.call_over(run_id)
        if ended is None:
            return
        reply = ModelReply.of(response)
        ended.set_attributes(
            {
                "gen_ai.response.model": reply.model,
                "gen_ai.usage.input_tokens": int(reply.usage.get("input_tokens", 0)),
                "gen_ai.usage.output_tokens": int(reply.usage.get("output_tokens", 0)),
                "clausewise.cached": bool(reply.metadata.get("cached")),
            }
        )
        if reply.generation is not None:
            answer = json.dumps([{"role": "assistant", "content": reply.generation.text}])
            record_content(ended, "gen_ai.output.messages", answer)
        ended.end()

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        ended = self.call_over(run_id)
        if ended is None:
            return
        ended.record_exception(error)
        ended.set_status(Status(StatusCode.ERROR, type(error).__name__))
        ended.end()
