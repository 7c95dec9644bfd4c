"""llama.cpp's own HTTP server (from the xllamacpp wheel) serving one GGUF file: an
OpenAI-compatible endpoint (``/v1/chat/completions``, streamed or not, JSON schemas, logprobs)
that several processes can share, so workers need not each load the model.

    with LlamaHttpServer(path, port=8080, api_key=key) as server:
        ...  # models.llm.backend = "openai", base_url = server.base_url

Three facts of xllamacpp shape this class: the constructor loads the model and holds the GIL
until it is ready; the server stops only when its last reference goes; and dropping a server
that never served a request can deadlock the process, so a one-token request warms it up before
anything else happens.
"""

from __future__ import annotations

import json
import os
import secrets
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from clausewise.core.errors import ModelUnavailable


class LlamaHttpServer:
    def __init__(
        self,
        model_path: Path,
        *,
        alias: str,
        host: str = "127.0.0.1",
        port: int = 0,
        threads: int = 0,
        context_tokens: int = 8192,
        parallel: int = 1,
        api_key: str | None = None,
    ) -> None:
        """``port`` 0 lets the system choose; ``api_key`` None makes a random one (read it from
        :attr:`api_key`), so no other local process can use the model unasked."""
        self.model_path = Path(model_path)
        self.alias = alias
        self.host = host
        self.port = port
        self.threads = threads or (os.cpu_count() or 1)
        self.context_tokens = context_tokens
        self.parallel = parallel
        self.api_key = api_key or secrets.token_hex(24)
        self.base_url = ""
        self.load_seconds = 0.0
        self._server: Any = None  # only ever held here: the server lives as long as this reference

    def start(self) -> str:
        """Load the model, listen, warm up; returns the OpenAI base URL (``http://host:port/v1``)."""
        if self._server is not None:
            return self.base_url
        if not self.model_path.is_file():
            raise ModelUnavailable(f"model file {self.model_path} does not exist", hint="check the path")
        import xllamacpp

        params = xllamacpp.CommonParams()
        params.model.path = str(self.model_path)
        params.model_alias = {self.alias}
        params.hostnames = [self.host]
        params.port = self.port
        params.api_keys = [self.api_key]
        params.n_ctx = self.context_tokens * self.parallel
        params.n_parallel = self.parallel
        params.n_batch, params.n_ubatch = 2048, 512
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.ui = False
        params.verbosity = 0
        started = time.perf_counter()
        try:
            self._server = xllamacpp.Server(params)
        except (RuntimeError, ValueError) as exc:
            raise ModelUnavailable(
                f"could not serve {self.model_path.name} on {self.host}:{self.port} ({exc})",
                hint="check the GGUF file and that the port is free",
            ) from exc
        address = self._server.listening_address.rstrip("/")
        self.base_url = f"{address}/v1"
        self._request(
            "/v1/chat/completions", {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
        )
        self.load_seconds = time.perf_counter() - started
        return self.base_url

    def _request(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            self.base_url.removesuffix("/v1") + path,
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                return json.loads(response.read())
        except (urllib.error.URLError, TimeoutError) as exc:
            raise ModelUnavailable(f"the model server at {self.base_url} did not answer ({exc})") from exc

    def stop(self) -> None:
        self._server = None  # the last reference: xllamacpp stops the server and frees the model

    def __enter__(self) -> LlamaHttpServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
