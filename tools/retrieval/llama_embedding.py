"""Our embedder as llama-index sees one: a llama-index index is always given this, so it never
falls back to its default (OpenAI). llama-index is imported only when an adapter is made."""

from __future__ import annotations

from typing import Any

from pydantic import PrivateAttr

from clausewise.core.backends.embeddings import Embedder


def llama_index_embedding(embedder: Embedder, batch_size: int = 32) -> Any:
    """``embedder`` as a llama-index ``BaseEmbedding`` that embeds ``batch_size`` texts a call."""
    from llama_index.core.embeddings import BaseEmbedding

    class ClausewiseEmbedding(BaseEmbedding):
        _embedder: Embedder = PrivateAttr()

        def __init__(self, inner: Embedder) -> None:
            super().__init__(model_name=inner.model_id, embed_batch_size=batch_size)
            self._embedder = inner

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._embedder.embed_queries([query])[0].tolist()

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._get_query_embedding(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._embedder.embed([text])[0].tolist()

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return self._embedder.embed(texts).tolist()

    return ClausewiseEmbedding(embedder)
