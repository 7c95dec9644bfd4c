"""Any OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio, OpenAI, Azure OpenAI)
through langchain-openai, with the server's failures turned into errors a user can act on.

There is no default URL: a missing ``base_url`` is a configuration error, so nothing ever falls
back to a cloud service silently.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_openai import AzureChatOpenAI, ChatOpenAI

from clausewise.core.config import LLMSettings
from clausewise.core.errors import ConfigError, ContextOverflow, ModelError, ModelTimeout, ModelUnavailable

#: The server failures a user can fix, first match wins (a timeout is also a connection error):
#: the openai error, the error it becomes, its message (``{where}``: the server, ``{model}``: the
#: model asked for) and the fix.
_KNOWN_FAILURES: tuple[tuple[type[openai.OpenAIError], type[ModelError], str, str], ...] = (
    (
        openai.APITimeoutError,
        ModelTimeout,
        "{where} did not answer in time",
        "raise models.llm.timeout-seconds or use a smaller model",
    ),
    (
        openai.APIConnectionError,
        ModelUnavailable,
        "cannot reach the model server at {where}",
        "start the server (e.g. `ollama serve`) or fix models.llm.base-url",
    ),
    (
        openai.AuthenticationError,
        ModelUnavailable,
        "{where} refused the API key",
        "set the key in the variable named by models.llm.api-key-env",
    ),
    (
        openai.NotFoundError,
        ModelUnavailable,
        "the server at {where} has no model {model!r}",
        "list its models (e.g. `ollama list`) and set models.llm.model",
    ),
)


def translate_error(error: openai.OpenAIError, base_url: str | None, model: str | None) -> ModelError:
    where = base_url or "the server"
    for failure, error_type, message_format, hint in _KNOWN_FAILURES:
        if isinstance(error, failure):
            return error_type(message_format.format(where=where, model=model), hint=hint)
    message = str(error)
    lowered = message.lower()
    # OpenAI and vLLM say "maximum context length", llama.cpp "exceeds the available context size"
    if (
        isinstance(error, openai.BadRequestError)
        and "context" in lowered
        and ("length" in lowered or "size" in lowered)
    ):
        return ContextOverflow(
            f"the prompt is longer than {model!r} accepts", hint="lower models.llm.max-prompt-tokens"
        )
    return ModelError(f"the model server at {where} failed: {message[:300]}")


class _Translating:
    """Mixin: re-raise openai errors as clausewise ModelErrors."""

    openai_api_base: str | None
    model_name: str

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        try:
            return super()._generate(*args, **kwargs)  # type: ignore[misc]
        except openai.OpenAIError as exc:
            raise translate_error(exc, self.openai_api_base, self.model_name) from exc

    async def _agenerate(self, *args: Any, **kwargs: Any) -> ChatResult:
        try:
            return await super()._agenerate(*args, **kwargs)  # type: ignore[misc]
        except openai.OpenAIError as exc:
            raise translate_error(exc, self.openai_api_base, self.model_name) from exc

    def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        try:
            yield from super()._stream(*args, **kwargs)  # type: ignore[misc]
        except openai.OpenAIError as exc:
            raise translate_error(exc, self.openai_api_base, self.model_name) from exc

    async def _astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        try:
            async for chunk in super()._astream(*args, **kwargs):  # type: ignore[misc]
                yield chunk
        except openai.OpenAIError as exc:
            raise translate_error(exc, self.openai_api_base, self.model_name) from exc


class ServerChatModel(_Translating, ChatOpenAI):
    supports_json_schema: bool = True
    supports_logprobs: bool = True


class AzureServerChatModel(_Translating, AzureChatOpenAI):
    supports_json_schema: bool = True
    supports_logprobs: bool = True


def create_server_model(settings: LLMSettings, **extra: Any) -> ChatOpenAI:
    if not settings.base_url or not settings.model:
        raise ConfigError(
            f"backend {settings.backend} needs both a base URL and a model name",
            hint="set models.llm.base-url (e.g. http://localhost:11434/v1) and models.llm.model",
        )
    api_key = os.environ.get(settings.api_key_env) or "not-needed"  # local servers accept any key
    common: dict[str, Any] = {
        "api_key": api_key,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "timeout": settings.timeout_seconds,
        "max_retries": settings.max_retries,
        **extra,
    }
    if settings.backend == "azure":
        if not settings.api_version:
            raise ConfigError("Azure OpenAI needs an API version", hint="set models.llm.api-version")
        return AzureServerChatModel(
            azure_endpoint=settings.base_url,
            azure_deployment=settings.model,
            api_version=settings.api_version,
            model=settings.model,
            **common,
        )
    return ServerChatModel(base_url=settings.base_url, model=settings.model, seed=settings.seed, **common)
