"""The OpenAI-compatible backend against a tiny stub server on loopback (no network)."""

from __future__ import annotations

import json
import math
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from clausewise.core.backends.openai_compat import create_server_model
from clausewise.core.backends.structured import invoke_structured, yes_probability
from clausewise.core.config import LLMSettings
from clausewise.core.errors import ConfigError, ContextOverflow, ModelUnavailable


class _Handler(BaseHTTPRequestHandler):
    server: _StubServer

    def log_message(self, *args: object) -> None:
        return None

    def _send(self, status: int, payload: dict) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **request})
        model = request.get("model")
        if model == "missing":
            self._send(
                404,
                {
                    "error": {
                        "message": f"model '{model}' not found",
                        "type": "invalid_request_error",
                        "code": "model_not_found",
                    }
                },
            )
            return
        if model == "tiny-context":
            self._send(
                400,
                {
                    "error": {
                        "message": "This model's maximum context length is 16 tokens.",
                        "type": "invalid_request_error",
                        "code": "context_length_exceeded",
                    }
                },
            )
            return
        if model == "flaky" and sum(r.get("model") == "flaky" for r in self.server.requests) == 1:
            self._send(500, {"error": {"message": "temporarily overloaded", "type": "server_error"}})
            return
        content = self.server.reply
        if request.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            for word in content.split(" "):
                chunk = {
                    "id": "c1",
                    "object": "chat.completion.chunk",
                    "created": 0,
                    "model": model,
                    "choices": [{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}],
                }
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.write(b"data: [DONE]\n\n")
            return
        choice: dict = {
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": "stop",
        }
        if request.get("logprobs"):
            top = [
                {"token": "Yes", "logprob": math.log(0.7), "bytes": None},
                {"token": "No", "logprob": math.log(0.1), "bytes": None},
            ]
            choice["logprobs"] = {
                "content": [{"token": "Yes", "logprob": math.log(0.7), "bytes": None, "top_logprobs": top}]
            }
        self._send(
            200,
            {
                "id": "c1",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [choice],
                "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
            },
        )


class _StubServer(ThreadingHTTPServer):
    requests: list[dict]
    reply: str


@pytest.fixture
def stub() -> Iterator[_StubServer]:
    server = _StubServer(("127.0.0.1", 0), _Handler)
    server.requests = []
    server.reply = '{"answer": "England and Wales"}'
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _settings(stub: _StubServer, model: str = "stub-model", **extra: object) -> LLMSettings:
    return LLMSettings(
        backend="openai",
        base_url=f"http://127.0.0.1:{stub.server_address[1]}/v1",
        model=model,
        max_retries=0,
        timeout_seconds=10,
        **extra,
    )


class Answer(BaseModel):
    answer: str


def test_chat_structured_and_usage(stub: _StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_LLM_KEY", "secret-123")
    model = create_server_model(_settings(stub, api_key_env="MY_LLM_KEY"))
    reply = model.invoke([HumanMessage(content="Which law governs?")])
    assert reply.content == '{"answer": "England and Wales"}'
    assert reply.usage_metadata["input_tokens"] == 11
    assert stub.requests[0]["auth"] == "Bearer secret-123" and stub.requests[0]["temperature"] == 0.0
    assert (
        invoke_structured(model, [HumanMessage(content="Which law?")], Answer).answer == "England and Wales"
    )
    assert stub.requests[-1]["response_format"]["type"] == "json_schema"
    assert stub.requests[-1]["response_format"]["json_schema"]["name"] == "Answer"


def test_streaming_and_logprobs(stub: _StubServer) -> None:
    stub.reply = "The laws of England apply"
    model = create_server_model(_settings(stub))
    pieces = [chunk.content for chunk in model.stream([HumanMessage(content="law?")])]
    assert "".join(pieces).strip() == "The laws of England apply" and len(pieces) >= 5
    assert yes_probability(model, [HumanMessage(content="relevant?")]) == pytest.approx(0.7 / 0.8)


def test_errors_are_typed_with_a_fix(stub: _StubServer) -> None:
    with pytest.raises(ModelUnavailable, match="has no model 'missing'") as raised:
        create_server_model(_settings(stub, model="missing")).invoke([HumanMessage(content="x")])
    assert "models.llm.model" in str(raised.value)
    with pytest.raises(ContextOverflow, match="max-prompt-tokens"):
        create_server_model(_settings(stub, model="tiny-context")).invoke([HumanMessage(content="x")])


def test_transient_server_errors_are_retried(stub: _StubServer) -> None:
    model = create_server_model(_settings(stub, model="flaky").model_copy(update={"max_retries": 1}))
    assert model.invoke([HumanMessage(content="x")]).content
    assert sum(r["model"] == "flaky" for r in stub.requests) == 2


def test_a_server_that_is_down_is_named() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # free port, nothing listens after the with-block
    settings = LLMSettings(backend="openai", base_url=f"http://127.0.0.1:{port}/v1", model="m", max_retries=0)
    with pytest.raises(ModelUnavailable, match="cannot reach the model server") as raised:
        create_server_model(settings).invoke([HumanMessage(content="x")])
    assert f"127.0.0.1:{port}" in str(raised.value) and "ollama serve" in str(raised.value)


def test_no_url_means_no_silent_cloud_fallback() -> None:
    with pytest.raises(ConfigError, match="base URL"):
        create_server_model(LLMSettings(backend="openai", model="gpt-4o-mini"))
