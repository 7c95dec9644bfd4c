"""GGUF models run in-process by xllamacpp, as a LangChain chat model.

One :class:`LlamaServer` per model file and context size lives for the whole process (loaded
lazily, under a lock). It is warmed up with a one-token request right after loading: deleting an
xllamacpp server that never served a request can deadlock, and the warm-up also fills its caches.
xllamacpp always opens an HTTP listener on 127.0.0.1; we lock it with a random API key so no
other local process can use the model.
"""

from __future__ import annotations

import os
import queue
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, convert_to_openai_messages
from pydantic import ConfigDict

from clausewise.core.backends.reply_models import StreamingReplyChatModel
from clausewise.core.errors import ContextOverflow, ModelError, ModelUnavailable

_PASSTHROUGH = (
    "response_format",
    "json_schema",
    "grammar",
    "logprobs",
    "top_logprobs",
    "n_probs",
    "stop",
    "max_tokens",
    "temperature",
    "seed",
    "cache_prompt",
)


class LlamaServer:
    """A loaded GGUF model (xllamacpp.Server), created on first use and kept for the process."""

    def __init__(self, path: Path, context_tokens: int, threads: int, seed: int) -> None:
        self.path = Path(path)
        self.context_tokens = context_tokens
        self.threads = threads or (os.cpu_count() or 1)
        self.seed = seed
        self.load_seconds: float | None = None
        self._server: Any = None
        self._lock = threading.Lock()

    def _start(self) -> Any:
        with self._lock:
            if self._server is not None:
                return self._server
            if not self.path.is_file():
                raise ModelUnavailable(
                    f"model file {self.path} does not exist", hint="check models.llm.gguf_path"
                )
            try:
                import xllamacpp
            except ImportError as exc:
                raise ModelUnavailable(
                    "xllamacpp is not installed", hint="pip install -e . (it is a dependency)"
                ) from exc
            params = xllamacpp.CommonParams()
            params.model.path = str(self.path)
            params.n_ctx = self.context_tokens
            params.n_batch = 2048
            params.n_ubatch = 512
            params.n_parallel = 1  # on few cores, parallel slots only slow each request down
            params.cpuparams.n_threads = self.threads
            params.cpuparams_batch.n_threads = self.threads
            params.sampling.seed = self.seed
            params.embedding = False
            params.verbosity = 0
            params.api_keys = [secrets.token_hex(24)]  # lock the built-in HTTP listener
            started = time.perf_counter()
            try:
                server = xllamacpp.Server(params)
            except (RuntimeError, ValueError) as exc:
                raise ModelUnavailable(
                    f"could not load {self.path.name} ({exc})",
                    hint="check that the file is a GGUF model this version of llama.cpp supports",
                ) from exc
            server.handle_chat_completions(
                {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1, "temperature": 0}
            )
            self.load_seconds = time.perf_counter() - started
            self._server = server
            return server

    @property
    def loaded(self) -> bool:
        return self._server is not None

    def unload(self) -> None:
        """Free the loaded model's memory (gigabytes); the next request loads it again."""
        with self._lock:
            self._server = None

    def chat(self, request: dict[str, Any]) -> dict[str, Any]:
        server = self._start()
        try:
            response = server.handle_chat_completions(request)
        except (ValueError, RuntimeError) as exc:
            raise ModelError(
                f"the local model rejected the request ({exc})", hint="this is a bug; please report it"
            ) from exc
        _raise_for_error(response, self.context_tokens)
        return response

    def stream(self, request: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """Chunks of a streamed completion. xllamacpp streams through a blocking callback, so the
        call runs in a worker thread that feeds a queue."""
        server = self._start()
        chunks: queue.Queue[dict[str, Any] | BaseException | None] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: dict[str, Any]) -> bool:
            chunks.put(chunk)
            return stop.is_set()

        def work() -> None:
            try:
                server.handle_chat_completions({**request, "stream": True}, on_chunk)
            except (ValueError, RuntimeError) as exc:
                chunks.put(exc)
            finally:
                chunks.put(None)

        worker = threading.Thread(target=work, name="clausewise-llm-stream", daemon=True)
        worker.start()
        try:
            while (item := chunks.get()) is not None:
                if isinstance(item, BaseException):
                    raise ModelError(f"the local model failed while streaming ({item})")
                _raise_for_error(item, self.context_tokens)
                yield item
        finally:
            stop.set()
            worker.join()


def _raise_for_error(response: dict[str, Any], context_tokens: int) -> None:
    error = response.get("error")
    if not error:
        return
    if error.get("type") == "exceed_context_size_error":
        raise ContextOverflow(
            f"the prompt has {error.get('n_prompt_tokens', '?')} tokens, more than the model's context of "
            f"{error.get('n_ctx', context_tokens)}",
            hint="raise models.llm.context_tokens or lower models.llm.max_prompt_tokens",
        )
    raise ModelError(f"the local model returned an error: {error.get('message', error)}")


class LlamaChatModel(StreamingReplyChatModel):
    """A chat model on a :class:`LlamaServer`; supports JSON-schema constrained output
    (``response_format``), log-probabilities and token streaming."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    server: LlamaServer
    model_name: str
    max_tokens: int = 512
    temperature: float = 0.0
    seed: int = 42
    supports_json_schema: bool = True
    supports_logprobs: bool = True

    @property
    def _llm_type(self) -> str:
        return "xllamacpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model_name": self.model_name,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
            "context_tokens": self.server.context_tokens,
        }

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "messages": convert_to_openai_messages(messages),
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
        }
        if stop:
            request["stop"] = stop
        request.update({k: v for k, v in kwargs.items() if k in _PASSTHROUGH})
        return request

    def _reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> AIMessage:
        started = time.perf_counter()
        response = self.server.chat(self._request(messages, stop, kwargs))
        choice = response["choices"][0]
        usage = response.get("usage", {})
        metadata = {
            "model_name": self.model_name,
            "finish_reason": choice.get("finish_reason"),
            "timings": response.get("timings", {}),
            "seconds": round(time.perf_counter() - started, 3),
        }
        if choice.get("logprobs"):
            metadata["logprobs"] = choice["logprobs"]
        return AIMessage(
            content=choice["message"].get("content") or "",
            response_metadata=metadata,
            usage_metadata={
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            },
        )

    def _reply_chunks(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> Iterator[AIMessageChunk]:
        request = self._request(messages, stop, kwargs)
        request["stream_options"] = {"include_usage": True}
        for chunk in self.server.stream(request):
            for choice in chunk.get("choices", []):
                text = (choice.get("delta") or {}).get("content") or ""
                finish = choice.get("finish_reason")
                if text or finish:
                    yield AIMessageChunk(
                        content=text, response_metadata={"finish_reason": finish} if finish else {}
                    )
            if chunk.get("usage") and not chunk.get("choices"):
                usage = chunk["usage"]
                yield AIMessageChunk(
                    content="",
                    usage_metadata={
                        "input_tokens": usage.get("prompt_tokens", 0),
                        "output_tokens": usage.get("completion_tokens", 0),
                        "total_tokens": usage.get("total_tokens", 0),
                    },
                    response_metadata={
                        "model_name": self.model_name,
                        "timings": chunk.get("timings", {}),
                    },
                )
