"""Build the chat model a role is configured to use: embedded, GGUF file or server."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from langchain_core.caches import BaseCache
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel

from clausewise.core.backends.llamacpp import LlamaChatModel, LlamaServer
from clausewise.core.backends.model_files import EMBEDDED_MODELS, assemble
from clausewise.core.config import LLMSettings
from clausewise.core.errors import ConfigError


class LlamaServerPool:
    """One loaded server per (file, context size, threads, seed), shared by every role using it."""

    def __init__(self) -> None:
        self._servers: dict[tuple[str, int, int, int], LlamaServer] = {}
        self._lock = threading.Lock()

    def get(self, path: Path, settings: LLMSettings) -> LlamaServer:
        key = (str(path), settings.context_tokens, settings.threads, settings.seed)
        with self._lock:
            if key not in self._servers:
                self._servers[key] = LlamaServer(
                    path, settings.context_tokens, settings.threads, settings.seed
                )
            return self._servers[key]

    def loaded(self) -> int:
        """How many model files are loaded (one per file and context size, however many roles)."""
        with self._lock:
            return sum(server.loaded for server in self._servers.values())

    def unload_all(self) -> None:
        """Free every loaded model (each loads again on its next request)."""
        with self._lock:
            servers = list(self._servers.values())
        for server in servers:
            server.unload()


def model_label(settings: LLMSettings) -> str:
    """A short human name for the configured model ("qwen2.5-coder-1.5b", "llama3.1:8b @ http://...")."""
    if settings.backend == "embedded":
        return settings.embedded_model
    if settings.backend == "gguf":
        return Path(settings.gguf_path).name if settings.gguf_path else "gguf (no path)"
    return f"{settings.model} @ {settings.base_url}"


def gguf_file(settings: LLMSettings, models_dir: Path, progress: Callable[[int], None] | None = None) -> Path:
    """The GGUF file an embedded or gguf model runs (an embedded one joined and verified first)."""
    if settings.backend == "embedded":
        return assemble(EMBEDDED_MODELS[settings.embedded_model], models_dir, progress)
    if settings.gguf_path is None:
        raise ConfigError("backend gguf needs a model file", hint="set models.llm.gguf-path to a .gguf file")
    return Path(settings.gguf_path).expanduser()


def create_chat_model(
    settings: LLMSettings,
    *,
    pool: LlamaServerPool,
    models_dir: Path,
    callbacks: Sequence[BaseCallbackHandler] = (),
    cache: BaseCache | None = None,
    progress: Callable[[int], None] | None = None,
) -> BaseChatModel:
    common = {"callbacks": list(callbacks), "cache": cache if cache is not None else False}
    if settings.backend in {"embedded", "gguf"}:
        return LlamaChatModel(
            server=pool.get(gguf_file(settings, models_dir, progress), settings),
            model_name=model_label(settings),
            max_tokens=settings.max_tokens,
            temperature=settings.temperature,
            seed=settings.seed,
            **common,
        )
    from clausewise.core.backends.openai_compat import create_server_model

    return create_server_model(settings, **common)
