"""Structured output from any chat model: constrained decoding where the backend has it, a
parser that repairs what small models get wrong, one retry that names the error, then a typed
error. Never a silent empty result.
"""

from __future__ import annotations

import json
import logging
import math
import re
import time
from collections.abc import Iterator
from typing import Any, TypeVar

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableConfig
from pydantic import BaseModel, ValidationError

from clausewise.core.errors import StructuredOutputError

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PYTHON_LITERALS = {"True": "true", "False": "false", "None": "null"}

log = logging.getLogger(__name__)


def underlying_model(model: Runnable) -> Runnable:
    """The chat model inside bindings (``with_config``/``bind`` wrap it)."""
    while isinstance(model, RunnableBinding):
        model = model.bound
    return model


_SALVAGE_LIMIT = 40  # shorter readings of a cut-off answer tried at most


def _json_texts(text: str) -> tuple[list[str], bool]:
    """The first JSON object or array in ``text``, honouring strings and escapes: the balanced
    text when it is complete; when the answer was cut off (the token limit), readings that close
    what is open, longest first: the text as it stands (unless it ends inside a string), then cut
    back to the end of each earlier list element, so a list of citations cut inside its last
    element keeps the elements before it. Cuts fall between list elements only, never between an
    object's members: a member the model wrote is never dropped for its default to stand in. The
    flag says whether the text was cut off."""
    start = next((i for i, ch in enumerate(text) if ch in "{["), None)
    if start is None:
        return [], False
    closing = {"{": "}", "[": "]"}
    stack: list[str] = []
    commas: list[tuple[int, str]] = []  # where a list element ends, and what closes the text there
    in_string = False
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in closing:
            stack.append(closing[ch])
        elif stack and ch == stack[-1]:
            stack.pop()
            if not stack:
                return [text[start : i + 1]], False
        elif ch == "," and stack[-1] == "]":
            commas.append((i, "".join(reversed(stack))))
    readings = [] if in_string else [text[start:] + "".join(reversed(stack))]
    readings += [text[start:comma] + closers for comma, closers in reversed(commas)]
    return readings[:_SALVAGE_LIMIT], True


def _repairs(candidate: str) -> list[str]:
    fixed = _TRAILING_COMMA.sub(r"\1", candidate)
    literal = re.sub(r"\b(True|False|None)\b", lambda m: _PYTHON_LITERALS[m.group(1)], fixed)
    return [candidate, fixed, literal]


def json_values(text: str) -> Iterator[Any]:
    """Every reading of the JSON a model produced, best first (see :func:`_json_texts`),
    tolerating code fences, chatter before/after the object, trailing commas and Python
    literals."""
    sources = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for source in sources:
        for candidate in _json_texts(source)[0]:
            for attempt in _repairs(candidate):
                try:
                    yield json.loads(attempt)
                    break
                except json.JSONDecodeError:
                    continue


def cut_off(text: str) -> bool:
    """Whether the reply's JSON stops before it is closed (the token limit, usually)."""
    return _json_texts(text)[1]


def validate_reply(text: str, schema: type[T]) -> T:
    """The first reading of ``text`` that ``schema`` accepts. A reply cut off by the token limit
    keeps what it completed (an answer and its first citations) instead of costing another call;
    when no reading fits, the error is the one of the fullest reading."""
    first_error: ValidationError | None = None
    for value in json_values(text):
        try:
            return schema.model_validate(value)
        except ValidationError as exc:
            first_error = first_error or exc
    if first_error is not None:
        raise first_error
    raise ValueError("no JSON object found in the answer")


def schema_format(schema: type[BaseModel]) -> dict[str, Any]:
    """An OpenAI-style ``response_format`` for a pydantic model."""
    return {
        "type": "json_schema",
        "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema(), "strict": False},
    }


def _constrained(model: Runnable, schema: type[BaseModel], mode: str) -> Runnable:
    inner = underlying_model(model)
    if mode == "json_schema" and getattr(inner, "supports_json_schema", False):
        return model.bind(response_format=schema_format(schema))
    if mode == "json_object" and getattr(inner, "supports_json_schema", False):
        return model.bind(response_format={"type": "json_object"})
    return model


def invoke_structured(
    model: Runnable,
    messages: list[BaseMessage],
    schema: type[T],
    *,
    mode: str = "json_schema",
    retries: int = 1,
    config: RunnableConfig | None = None,
    seconds: float | None = None,
) -> T:
    """Call ``model`` and return a validated ``schema`` instance.

    ``mode``: ``json_schema`` (constrained decoding where supported), ``json_object`` or
    ``prompt`` (no constraint: the prompt alone asks for JSON). ``seconds`` bounds each attempt:
    the reply is streamed and generation stops when the time is up (what was written by then is
    read like a reply cut off by the token limit; the prompt's own reading is bounded only by
    its length).
    """
    bound = _constrained(model, schema, mode)
    conversation = list(messages)
    last_error = ""
    for attempt in range(retries + 1):
        text = _reply_text(bound, conversation, config, seconds)
        try:
            return validate_reply(text, schema)
        except (ValueError, ValidationError) as exc:
            last_error = _describe(exc)
            if not isinstance(exc, ValidationError):
                last_error += f"; the reply began {text[:80]!r}"
            if cut_off(text):
                last_error += "; the reply was cut off before its JSON ended, so answer more briefly"
            log.info("unreadable %s reply (attempt %d): %s", schema.__name__, attempt + 1, last_error)
            if attempt == retries:
                break
            conversation = [
                *conversation,
                AIMessage(content=text),
                HumanMessage(
                    content=f"That answer is not valid: {last_error}. Reply again with only one JSON object "
                    f"that matches this schema: {json.dumps(schema.model_json_schema())}"
                ),
            ]
    log.warning("no valid %s after %d attempt(s): %s", schema.__name__, retries + 1, last_error)
    raise StructuredOutputError(
        f"the model did not produce a valid {schema.__name__} after {retries + 1} attempt(s) ({last_error})",
        hint="use a larger model for this role, or raise models.llm.max-tokens if answers are cut off",
    )


def _reply_text(
    model: Runnable, messages: list[BaseMessage], config: RunnableConfig | None, seconds: float | None
) -> str:
    """The model's reply, streamed and cut at ``seconds`` when given."""
    if seconds is None:
        answer = model.invoke(messages, config=config)
        return answer.content if isinstance(answer.content, str) else json.dumps(answer.content)
    deadline = time.monotonic() + seconds
    pieces: list[str] = []
    stream = model.stream(messages, config=config)
    try:
        for chunk in stream:
            pieces.append(chunk.content if isinstance(chunk.content, str) else json.dumps(chunk.content))
            if time.monotonic() >= deadline:
                log.info("the reply was cut at %.0f s", seconds)
                break
    finally:
        getattr(stream, "close", lambda: None)()  # stops the generation on the backend
    return "".join(pieces)


def _describe(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the object"
        return f"{where}: {first['msg']}"
    return str(error)


def yes_probability(
    model: Runnable, messages: list[BaseMessage], config: RunnableConfig | None = None
) -> float | None:
    """P(yes) / (P(yes) + P(no)) from the first token's log-probabilities, or None when the
    backend exposes none. Case and leading-space variants ("Yes", " yes") are summed."""
    if not getattr(underlying_model(model), "supports_logprobs", False):
        return None
    answer = model.bind(max_tokens=1, logprobs=True, top_logprobs=20).invoke(messages, config=config)
    content = (answer.response_metadata.get("logprobs") or {}).get("content") or []
    if not content:
        return None
    yes = no = 0.0
    for candidate in content[0].get("top_logprobs", []):
        word = candidate["token"].strip().lower()
        if word == "yes":
            yes += math.exp(candidate["logprob"])
        elif word == "no":
            no += math.exp(candidate["logprob"])
    if yes + no == 0:
        return None
    return yes / (yes + no)
