"""Retrieval over many contracts at once (corpus scope): one BM25 over every chunk, exact cosine
search over every stored embedding, fusion, rerank. Used when the contract is not known."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from clausewise.core.backends.embeddings import Embedder
from clausewise.core.config import RetrievalSettings
from clausewise.core.domain import Chunk, Hit, RetrievalQuery, Span
from indexes.bm25 import BM25Index
from indexes.store import ContractIndex
from tools.retrieval.fusion import reciprocal_rank_fusion
from tools.retrieval.ordering import candidate_pool, reranked_order, search_depth
from tools.retrieval.rerank import Reranker
from tools.retrieval.spans import covered


@dataclass
class _Entry:
    index: ContractIndex
    chunk: Chunk


class CorpusRetriever:
    def __init__(
        self,
        indexes: list[ContractIndex],
        embedder: Embedder,
        settings: RetrievalSettings,
        reranker: Reranker | None = None,
    ) -> None:
        self.embedder = embedder
        self.settings = settings
        self.reranker = reranker
        self.entries: dict[str, _Entry] = {}
        ids: list[str] = []
        tokens: list[list[str]] = []
        vectors: list[np.ndarray] = []
        vector_ids: list[str] = []
        for index in indexes:
            for chunk_id, chunk_tokens in zip(index.bm25.ids, index.bm25.tokens, strict=True):
                key = f"{index.contract_id}::{chunk_id}"
                self.entries[key] = _Entry(index, index.chunks[chunk_id])
                ids.append(key)
                tokens.append(chunk_tokens)
            stored_ids, stored = index.vectors.embeddings()
            vector_ids.extend(f"{index.contract_id}::{c}" for c in stored_ids)
            vectors.append(stored)
            index.close()
        self.bm25 = BM25Index(ids, tokens, settings.bm25_k1, settings.bm25_b)
        self.vector_ids = vector_ids
        self.matrix = np.vstack(vectors) if vectors else np.zeros((0, embedder.dimension), dtype=np.float32)

    def _dense(self, query: str, k: int) -> list[str]:
        if not len(self.vector_ids):
            return []
        scores = self.matrix @ self.embedder.embed_queries([query])[0]
        k = min(k, scores.size)
        top = np.argpartition(-scores, k - 1)[:k]
        return [self.vector_ids[i] for i in top[np.argsort(-scores[top], kind="stable")]]

    def search(
        self, query: RetrievalQuery, k: int, *, rerank: bool = True, use: tuple[str, ...] | None = None
    ) -> list[Hit]:
        """Ranked hits over every contract, by the rankers in ``use`` (default
        ``retrieval.rankers``; the lexicon has no meaning across documents and is not used)."""
        use = use or self.settings.rankers
        rankings: dict[str, list[str]] = {}
        if "bm25" in use:
            depth = search_depth(self.settings.bm25_top_k, k)
            rankings["bm25"] = [cid for cid, _ in self.bm25.search(query.lexical, depth)]
        if "dense" in use:
            rankings["dense"] = self._dense(query.dense, search_depth(self.settings.dense_top_k, k))
        weights = {"bm25": self.settings.bm25_weight, "dense": self.settings.dense_weight}
        pool = candidate_pool(self.settings, k)
        groups: dict[tuple[str, Span], list[str]] = {}
        fused: dict[tuple[str, Span], float] = {}
        for key, score, _ in reciprocal_rank_fusion(rankings, weights, self.settings.rrf_k):
            entry = self.entries[key]
            group = (entry.index.contract_id, entry.chunk.span)
            if group not in groups and len(groups) >= pool:
                continue
            groups.setdefault(group, []).append(key)
            fused.setdefault(group, score)
        candidates = list(groups)
        probabilities: dict[int, float] = {}
        if rerank and self.reranker is not None and candidates:
            head = candidates[: self.settings.rerank_top_n]
            texts = [self._rerank_text(groups[g]) for g in head]
            probabilities = dict(enumerate(map(float, self.reranker.score(query.question, texts))))
            order = reranked_order([span for _, span in candidates], probabilities, self.settings)
        else:
            order = list(range(len(candidates)))
        hits: list[Hit] = []
        chosen: dict[str, list[Span]] = {}
        for position in order:
            group = candidates[position]
            contract_id, span = group
            if covered(span, chosen.get(contract_id, [])):
                continue
            entry = self.entries[min(groups[group], key=self._context_first)]
            probability = probabilities.get(position)
            hits.append(
                Hit(
                    contract_id=contract_id,
                    file_name=entry.index.manifest.file_name,
                    node_id=entry.chunk.node_id,
                    chunk_id=entry.chunk.id,
                    span=span,
                    pages=entry.chunk.pages,
                    score=probability if probability is not None else fused[group],
                    relevant=probability is None or probability >= self.settings.rerank_threshold,
                )
            )
            chosen.setdefault(contract_id, []).append(span)
            if len(hits) >= k:
                break
        return hits

    def _rerank_text(self, keys: list[str]) -> str:
        """What the reranker reads (``retrieval.rerank_text``): the span, or its best context chunk."""
        entry = self.entries[min(keys, key=self._context_first)]
        if self.settings.rerank_text == "context":
            return entry.chunk.text
        start, end = entry.chunk.span
        return entry.index.document.text[start:end]

    def _context_first(self, key: str) -> int:
        return {"ancestor": 0, "node": 1, "passage": 1, "descendant": 2}.get(self.entries[key].chunk.kind, 3)
