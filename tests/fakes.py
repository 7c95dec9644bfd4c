"""Scripted fake chat models for tests (never used by the product)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from pydantic import Field

from clausewise.core.backends.reply_models import StreamingReplyChatModel

Reply = str | Callable[[list[BaseMessage], dict[str, Any]], str]


class ScriptedChatModel(StreamingReplyChatModel):
    """Answers from a script, in order, and remembers every call (messages and kwargs).

    A reply may be a string or a function of (messages, kwargs) -> string, so a test can route
    on the prompt. When the script runs out, the last reply repeats if ``repeat_last``.
    """

    replies: list[Reply] = Field(default_factory=list)
    calls: list[tuple[list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)
    repeat_last: bool = False
    supports_json_schema: bool = False
    supports_logprobs: bool = False
    name_for_usage: str = "scripted"
    logprobs: list[dict[str, Any]] | None = None

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"name": self.name_for_usage}

    def _next(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> str:
        self.calls.append((list(messages), dict(kwargs)))
        index = len(self.calls) - 1
        if index >= len(self.replies):
            if not (self.repeat_last and self.replies):
                raise AssertionError(
                    f"the script has {len(self.replies)} replies; call {index + 1} was not expected"
                )
            index = len(self.replies) - 1
        reply = self.replies[index]
        return reply(messages, kwargs) if callable(reply) else reply

    def _reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> AIMessage:
        text = self._next(messages, kwargs)
        prompt_tokens = sum(len(str(m.content).split()) for m in messages)
        metadata: dict[str, Any] = {"model_name": self.name_for_usage, "finish_reason": "stop"}
        if self.logprobs is not None and kwargs.get("logprobs"):
            metadata["logprobs"] = {
                "content": [{"token": text, "logprob": 0.0, "top_logprobs": self.logprobs}]
            }
        return AIMessage(
            content=text,
            response_metadata=metadata,
            usage_metadata={
                "input_tokens": prompt_tokens,
                "output_tokens": len(text.split()),
                "total_tokens": prompt_tokens + len(text.split()),
            },
        )

    def _reply_chunks(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> Iterator[AIMessageChunk]:
        text = self._next(messages, kwargs)
        for word in text.split(" "):
            yield AIMessageChunk(content=word + " ")


class ConstantReranker:
    """A stand-in reranker that finds every passage equally (ir)relevant."""

    name = "constant"

    def __init__(self, probability: float) -> None:
        self.probability = probability

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        return np.full(len(passages), self.probability)


class PhraseClassifier:
    """A stand-in NLI classifier: a piece containing one of the scripted phrases gets that
    label with ``probability``; every other piece is NotMentioned. Records what it was asked."""

    name = "phrases"

    def __init__(self, phrases: dict[str, str], probability: float = 0.9) -> None:
        self.phrases = phrases  # phrase -> "Entailment" | "Contradiction"
        self.probability = probability
        self.calls: list[tuple[str, list[str]]] = []

    def probabilities(self, hypothesis: str, pieces: Sequence[str]) -> np.ndarray:
        self.calls.append((hypothesis, list(pieces)))
        rows = np.zeros((len(pieces), 3))
        rows[:, 2] = 1.0
        for row, piece in enumerate(pieces):
            for phrase, label in self.phrases.items():
                if phrase in piece:
                    column = 0 if label == "Entailment" else 1
                    rows[row] = 0.0
                    rows[row, column] = self.probability
                    rows[row, 2] = 1.0 - self.probability
        return rows


def passage_number(messages: list[BaseMessage], phrase: str) -> int:
    """The number of the first evidence passage of a prompt that contains ``phrase`` (1 if none)."""
    text = str(messages[-1].content)
    blocks = text.split("<evidence>", 1)[-1].split("\n\n[")
    return next((i for i, block in enumerate(blocks, start=1) if phrase in block), 1)


class LegalScript:
    """Replies for every prompt of the product, chosen by the prompt's own words, so one scripted
    model can stand in for every role across many questions (a service test asks several).

    Answers cite ``quote`` from whichever passage holds it; drafts are complete and confident
    (one turn); ``ambiguous`` makes the clarity check ask ``clarify`` once."""

    def __init__(
        self, quote: str, answer: str, clarify: str | None = None, fail: BaseException | None = None
    ) -> None:
        self.quote = quote
        self.answer = answer
        self.clarify = clarify
        self.fail = fail

    def __call__(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> str:
        import json

        if self.fail is not None:
            raise self.fail
        system = str(messages[0].content)
        if "too ambiguous to research" in system:
            clarify, self.clarify = self.clarify, None  # ask once
            return json.dumps({"ambiguous": bool(clarify), "clarifying_question": clarify or ""})
        if "Split the user's" in system:
            return json.dumps({"parts": []})
        if "prepare searches" in system:
            return json.dumps({"keywords": [], "semantic_query": "", "tools": ["bm25", "dense"]})
        if "legal researcher answering" in system or "citations failed verification" in system:
            number = passage_number(messages, self.quote)
            return json.dumps(
                {
                    "answer": f"{self.answer} [1]",
                    "addressed": True,
                    "citations": [{"evidence": number, "quote": self.quote}],
                }
            )
        if "check one hypothesis" in system:
            number = passage_number(messages, self.quote)
            return json.dumps(
                {"rationale": "stated", "verdict": "supported", "confidence": 0.9, "evidence": [number]}
            )
        if "extract one fact" in system:
            number = passage_number(messages, self.quote)
            return json.dumps({"found": True, "value": self.answer, "evidence": number, "quote": self.quote})
        # the Interrogator's draft, its repair, its next question
        if "next question" in system or "most important thing it" in system:
            return json.dumps({"question": "What else bears on it?"})
        return json.dumps(
            {
                "title": "Answer",
                "summary": "The question, restated.",
                "reasoning": [f"{self.answer} [1]."],
                "preliminary_answer": f"{self.answer} [1].",
                "gaps": [],
                "addressed": True,
                "complete": True,
                "confidence": 0.95,
            }
        )
