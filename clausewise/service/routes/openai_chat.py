"""An OpenAI-compatible chat endpoint, so any chat front end can talk to a contract.

``model`` is ``clausewise/<contract-id>``; the last user message is the question, system messages
are instructions, and earlier messages are the thread. OpenAI clients send the whole conversation
each time, so a conversation is recognised by a digest of its messages so far: the first exchange
creates a chat thread and the digest of the conversation after it is remembered; the next request
that repeats that conversation continues the same thread (and reuses its research). A
conversation never seen (a client that rewrote history) starts a thread with the earlier messages
as context.

The answer keeps its ``[n]`` markers; its verified sources come back in a ``references`` field of
the message (and of the last chunk of a stream): clause id, title, pages, span and quote.

A chat client shows whatever comes back as the answer, so the endpoint does not ask clarifying
questions unless the request says ``"clarify": true``; then a clarifying question comes back
marked as one: ``finish_reason`` ``"clarification"`` and ``"clarification": true`` on the message
(and on the last chunk), with no references. The user's next message answers it.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import AsyncIterator
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette.sse import EventSourceResponse

from clausewise.core.report import Report
from clausewise.runtime import Runtime
from clausewise.service.answers import (
    answer_text,
    check_instructions,
    check_question,
    quick_text,
    references,
    rest_after,
)
from clausewise.service.auth import CurrentService, Tenant, TenantRuntime
from clausewise.service.errors import ApiError
from clausewise.service.jobs import Job
from clausewise.service.routes.questions import new_thread
from clausewise.service.schemas import ERROR_RESPONSES
from clausewise.service.state import Service
from clausewise.service.work import answer_event, outcome, submit, wait_for

router = APIRouter(prefix="/v1", tags=["OpenAI-compatible"], responses=ERROR_RESPONSES)
PREFIX = "clausewise/"


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="allow")

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str | list[dict[str, Any]] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):  # content parts: keep the text ones
            return "\n".join(str(part.get("text", "")) for part in self.content if part.get("type") == "text")
        return self.content or ""


class ChatRequest(BaseModel):
    model_config = ConfigDict(extra="allow")  # temperature, top_p ...: accepted, the server decides

    model: str = Field(description="clausewise/<contract-id>")
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    clarify: bool = Field(
        default=False,
        description="Let the assistant ask a clarifying question when the question is ambiguous (it "
        "comes back with finish_reason 'clarification'); by default it answers as best it can.",
    )


def _digest(contract: str, messages: list[tuple[str, str]]) -> str:
    return hashlib.sha256(json.dumps([contract, messages], ensure_ascii=False).encode()).hexdigest()


def _conversation(body: ChatRequest) -> tuple[str, str, list[tuple[str, str]]]:
    """(question, instructions, earlier user/assistant messages) of a chat request."""
    instructions = "\n".join(m.text() for m in body.messages if m.role in ("system", "developer")).strip()
    turns = [(m.role, m.text()) for m in body.messages if m.role in ("user", "assistant")]
    if not turns or turns[-1][0] != "user" or not turns[-1][1].strip():
        raise ApiError(
            422, "no_question", "the last message must be the user's question", hint="end with a user message"
        )
    return turns[-1][1], instructions, turns[:-1]


def _contract(model: str, runtime: Runtime) -> str:
    if not model.startswith(PREFIX):
        raise ApiError(
            404,
            "model_not_found",
            f"no model {model!r}",
            hint="use clausewise/<contract-id> (GET /v1/models)",
        )
    return runtime.store.resolve_id(model.removeprefix(PREFIX))


@router.get("/models")
def list_models(runtime: TenantRuntime) -> dict[str, Any]:
    """The contracts this key may talk to, as models."""
    return {
        "object": "list",
        "data": [
            {"id": f"{PREFIX}{m.contract_id}", "object": "model", "created": 0, "owned_by": runtime.tenant}
            for m in runtime.store.manifests()
        ],
    }


def _start(
    body: ChatRequest, service: Service, tenant: str, runtime: Runtime
) -> tuple[Job, str, list[tuple[str, str]]]:
    contract = _contract(body.model, runtime)
    question, instructions, earlier = _conversation(body)
    check_question(question, service)
    check_instructions(instructions)
    thread = runtime.threads.thread_for_conversation(_digest(contract, earlier))
    context = ""
    if thread is None:
        thread = new_thread(runtime, contract)
        if earlier:
            context = (
                "Earlier in this conversation:\n"
                + "\n".join(f"{role}: {text}" for role, text in earlier)[-6000:]
            )
    job = submit(
        service,
        tenant,
        "message",
        {
            "thread_id": thread.id,
            "contract": contract,
            "content": question,
            "context": context,
            "instructions": instructions,
            "turns": None,
            "clarify": body.clarify,
        },
    )
    return job, contract, [*earlier, ("user", question)]


def _reply(result: dict[str, Any]) -> tuple[str, list[dict[str, Any]], Report | None]:
    """The answer's text, its references and its report (None for a clarifying question)."""
    if result.get("clarification"):
        return str(result["clarification"]), [], None
    report = Report.model_validate(result["report"])
    return answer_text(report), references(report), report


#: How a clarifying question ends a completion, so a client can tell it from an answer.
CLARIFICATION = "clarification"


def _remember(
    runtime: Runtime, contract: str, conversation: list[tuple[str, str]], text: str, thread_id: str
) -> None:
    runtime.threads.remember_conversation(_digest(contract, [*conversation, ("assistant", text)]), thread_id)


@router.post("/chat/completions")
async def chat_completions(
    body: ChatRequest, request: Request, service: CurrentService, tenant: Tenant, runtime: TenantRuntime
) -> Any:
    """Chat with a contract through any OpenAI-compatible client (streamed or not)."""
    job, contract, conversation = _start(body, service, tenant, runtime)
    completion_id, created = f"chatcmpl-{job.id}", int(time.time())
    if body.stream:
        return EventSourceResponse(
            _stream(
                service,
                tenant,
                runtime,
                job,
                contract,
                conversation,
                body.model,
                completion_id,
                created,
                request,
            )
        )
    result = outcome(await wait_for(service, tenant, job.id, service.settings.service.wait_seconds))
    text, refs, report = _reply(result)
    _remember(runtime, contract, conversation, text, result["thread_id"])
    usage = report.metadata if report is not None else None
    prompt, completion = (usage.prompt_tokens, usage.completion_tokens) if usage else (0, 0)
    message: dict[str, Any] = {"role": "assistant", "content": text, "references": refs}
    if report is None:
        message["clarification"] = True
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": body.model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": CLARIFICATION if report is None else "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
        "references": refs,
    }


def _chunk(
    completion_id: str, created: int, model: str, delta: dict[str, Any], finish: str | None = None
) -> str:
    return json.dumps(
        {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
    )


async def _stream(
    service: Service,
    tenant: str,
    runtime: Runtime,
    job: Job,
    contract: str,
    conversation: list[tuple[str, str]],
    model: str,
    completion_id: str,
    created: int,
    request: Request,
) -> AsyncIterator[dict[str, Any]]:
    """OpenAI chunks: the role at once, the quick answer (the decided short answer with its
    sources) as soon as it is decided, then the report in pieces when it is written, then a last
    chunk carrying the references, then ``[DONE]``. Errors end the stream with an error object."""
    yield {"data": _chunk(completion_id, created, model, {"role": "assistant", "content": ""})}
    wait = service.settings.service.wait_seconds
    quick = ""
    answer = await answer_event(service, tenant, job.id, wait)
    if answer is not None:
        quick = quick_text(answer.data)
        yield {"data": _chunk(completion_id, created, model, {"content": quick + "\n\n"})}
    finished = await wait_for(service, tenant, job.id, wait)
    try:
        result = outcome(finished)
    except ApiError as error:
        yield {
            "data": json.dumps({"error": {"code": error.code, "message": error.message, "hint": error.hint}})
        }
        yield {"data": "[DONE]"}
        return
    text, refs, report = _reply(result)
    rest = rest_after(quick, report) if quick and report is not None else text
    # the conversation as the client will send it back: what it was streamed, quick answer first
    _remember(runtime, contract, conversation, f"{quick}\n\n{rest}" if quick else text, result["thread_id"])
    for start in range(0, len(rest), 200):
        if await request.is_disconnected():
            return
        yield {"data": _chunk(completion_id, created, model, {"content": rest[start : start + 200]})}
    finish = CLARIFICATION if report is None else "stop"
    last = json.loads(_chunk(completion_id, created, model, {"references": refs}, finish))
    last["references"] = refs
    if report is None:
        last["clarification"] = True
    yield {"data": json.dumps(last)}
    yield {"data": "[DONE]"}
