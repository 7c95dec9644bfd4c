"""Measurement instruments of the benchmarks, never reachable from the product (the import
contracts forbid product code to import ``clausewise_lab.evals``).

:class:`InstantReplies` is a chat model that answers every prompt of the product at once with a
well-formed reply (quoting the first passage it was shown), so a benchmark of the service can
take the language model's time out and see what the service itself costs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from clausewise.core.backends.reply_models import ReplyChatModel
from clausewise.core.config import Settings
from clausewise.runtime import ModelHub, Runtime

_FIRST_PASSAGE = re.compile(r"\[1\][^\n]*\n(?:\[\.\.\.\] )?(.+)")


def _reply(system: str, user: str) -> dict[str, Any]:
    match = _FIRST_PASSAGE.search(user)
    quote = " ".join(match.group(1).split()[:8]) if match else ""
    if "too ambiguous to research" in system:
        return {"ambiguous": False, "clarifying_question": ""}
    if "Split the user's" in system:
        return {"parts": []}
    if "prepare searches" in system:
        return {"keywords": [], "semantic_query": "", "tools": ["bm25", "dense"]}
    if "legal researcher answering" in system or "citations failed verification" in system:
        return {
            "answer": "As passage 1 states [1].",
            "addressed": True,
            "citations": [{"evidence": 1, "quote": quote}],
        }
    if "check one hypothesis" in system:
        return {"rationale": "passage 1", "verdict": "supported", "confidence": 0.8, "evidence": [1]}
    if "extract one fact" in system:
        return {"found": True, "value": quote, "evidence": 1, "quote": quote}
    if "next question" in system or "most important thing it" in system:
        return {"question": "What else bears on it?"}
    return {
        "title": "Answer",
        "summary": "The question, restated.",
        "reasoning": ["As passage 1 states [1]."],
        "preliminary_answer": "As passage 1 states [1].",
        "gaps": [],
        "addressed": True,
        "complete": True,
        "confidence": 0.9,
    }


class InstantReplies(ReplyChatModel):
    """Answers at once, from the prompt's template (see the module docstring)."""

    @property
    def _llm_type(self) -> str:
        return "instant-replies"

    def _reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> AIMessage:
        reply = json.dumps(_reply(str(messages[0].content), str(messages[-1].content)))
        return AIMessage(content=reply, response_metadata={"model_name": "instant-replies"})


def scripted_runtimes() -> Callable[[Settings, ModelHub], Runtime]:
    """A runtime factory whose roles all answer with :class:`InstantReplies`."""

    class InstantRuntime(Runtime):
        def chat_model(self, role: str, progress: Callable[[int], None] | None = None):
            model = InstantReplies(callbacks=[self.ledger])
            return model.with_config(metadata={"clausewise_role": role}, run_name=role)

    return lambda settings, hub: InstantRuntime(settings, hub=hub)
