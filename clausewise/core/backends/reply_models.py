"""LangChain's chat-model hooks written once for the chat models that make their own replies:
the embedded llama.cpp model, and the lab's and the tests' stand-ins for a model.

LangChain calls ``_generate`` (and ``_stream``, where a model streams) with its own signature and
wants the reply wrapped in its result types; a :class:`ReplyChatModel` only says what the reply
is (:meth:`~ReplyChatModel._reply`), a :class:`StreamingReplyChatModel` also the pieces it
streams (:meth:`~StreamingReplyChatModel._reply_chunks`).
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult


class ReplyChatModel(BaseChatModel):
    """A chat model that answers each call with one message (no streaming of its own)."""

    @abstractmethod
    def _reply(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> AIMessage:
        """The reply to ``messages`` (``kwargs``: the call's options, e.g. ``response_format``)."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._reply(messages, stop, kwargs))])


class StreamingReplyChatModel(ReplyChatModel):
    """A :class:`ReplyChatModel` that also streams its reply, piece by piece; each piece with text
    is reported to the run's callbacks as a new token."""

    @abstractmethod
    def _reply_chunks(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict[str, Any]
    ) -> Iterator[AIMessageChunk]:
        """The pieces of the reply to ``messages``, in order."""

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for message in self._reply_chunks(messages, stop, kwargs):
            piece = ChatGenerationChunk(message=message)
            if run_manager is not None and message.content:
                run_manager.on_llm_new_token(str(message.content), chunk=piece)
            yield piece
