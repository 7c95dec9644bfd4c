"""Retrieval over one ingested contract: BM25 + dense (+ lexicon) (+ graph) -> reciprocal rank
fusion -> spans -> cross-encoder rerank -> distinct spans -> tree expansion.

Candidates are chunks, but what comes back are spans of the contract: chunks that stand for the
same span (a clause's node and ancestor-aware chunks) are one candidate, and a span already
covered by better hits is skipped, so every returned hit adds text.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from clausewise.core.backends.embeddings import Embedder
from clausewise.core.config import RetrievalSettings
from clausewise.core.domain import Chunk, Hit, RetrievalQuery, Span
from clausewise.core.tracing import annotate, record_content, record_identifiers, span
from indexes.store import ContractIndex
from tools.retrieval.expansion import TreeExpander
from tools.retrieval.fusion import reciprocal_rank_fusion
from tools.retrieval.graph import GraphSearch
from tools.retrieval.headings import heading_ranking
from tools.retrieval.lexicon import Lexicon, load_lexicon
from tools.retrieval.ordering import candidate_pool, reranked_order, search_depth
from tools.retrieval.rerank import Reranker
from tools.retrieval.spans import covered

_CONTEXT_PREFERENCE = {"ancestor": 0, "node": 1, "passage": 1, "descendant": 2}


@dataclass
class _Candidate:
    span: Span
    chunks: list[Chunk]
    fused: float
    ranks: dict[str, int]

    @property
    def best_text_chunk(self) -> Chunk:
        """The chunk whose text best shows the span in context (ancestor-aware first)."""
        return min(self.chunks, key=lambda c: _CONTEXT_PREFERENCE.get(c.kind, 3))


class ContractRetriever:
    def __init__(
        self,
        index: ContractIndex,
        embedder: Embedder,
        settings: RetrievalSettings,
        reranker: Reranker | None = None,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.settings = settings
        self.reranker = reranker

    @cached_property
    def _chunks_of_node(self) -> dict[str, list[str]]:
        by_node: dict[str, list[str]] = {}
        for chunk in self.index.chunks.values():
            by_node.setdefault(chunk.node_id, []).append(chunk.id)
        for ids in by_node.values():
            ids.sort(key=lambda cid: _CONTEXT_PREFERENCE.get(self.index.chunks[cid].kind, 3))
        return by_node

    def _chunk_under(self, node_id: str) -> str | None:
        """The node's own best chunk, or (a heading-only node, such as "3. EXCEPTIONS", has
        none) that of its first descendant that has one."""
        pending = [node_id]
        while pending:
            current = pending.pop(0)
            if current in self._chunks_of_node:
                return self._chunks_of_node[current][0]
            pending[:0] = self.index.tree.nodes[current].children
        return None

    @cached_property
    def lexicon(self) -> Lexicon | None:
        """The query-expansion lexicon, read once per retriever (None when its weight is 0)."""
        if self.settings.lexicon_weight <= 0:
            return None
        return load_lexicon(self.settings.lexicon)

    @cached_property
    def expander(self) -> TreeExpander:
        return TreeExpander(self.index.tree, self.index.definitions, self.index.cross_references)

    def rankings(
        self,
        query: RetrievalQuery,
        graph: GraphSearch | None = None,
        use: tuple[str, ...] | None = None,
        k: int = 0,
    ) -> dict[str, list[str]]:
        """Chunk ids ranked by each retriever in ``use`` (default ``retrieval.rankers``; and by
        the graph, when one is given), deep enough for ``k`` distinct spans. ``lexicon`` ranks by
        the contract words of the concepts the question touches; a question that touches none
        gets no such ranking; ``headings`` by the clause titles naming what it asks about."""
        use = use or self.settings.rankers
        rankings: dict[str, list[str]] = {}
        if "bm25" in use:
            depth = search_depth(self.settings.bm25_top_k, k)
            rankings["bm25"] = [cid for cid, _ in self.index.bm25.search(query.lexical, depth)]
        terms = self.lexicon.expansion(query.question) if "lexicon" in use and self.lexicon else []
        if terms:
            depth = search_depth(self.settings.bm25_top_k, k)
            rankings["lexicon"] = [cid for cid, _ in self.index.bm25.search(" ".join(terms), depth)]
        if "dense" in use:
            vector = self.embedder.embed_queries([query.dense])[0]
            depth = search_depth(self.settings.dense_top_k, k)
            rankings["dense"] = [cid for cid, _ in self.index.vectors.search(vector, depth)]
        if "headings" in use or self.settings.headings == "always":
            nodes = heading_ranking(self.index.tree, query.question)
            chunks = [c for c in map(self._chunk_under, nodes) if c is not None]
            if chunks:
                rankings["headings"] = chunks
        if graph is not None:
            nodes = graph.search(query.question, query.keywords, [query.dense], self.settings.graph_top_k)
            rankings["graph"] = [self._chunks_of_node[n][0] for n in nodes if n in self._chunks_of_node]
        return rankings

    def _candidates(self, rankings: dict[str, list[str]], pool: int) -> list[_Candidate]:
        weights = {
            "bm25": self.settings.bm25_weight,
            "dense": self.settings.dense_weight,
            "graph": self.settings.graph_weight,
            "lexicon": self.settings.lexicon_weight,
            "headings": self.settings.heading_weight,
        }
        by_span: dict[Span, _Candidate] = {}
        for chunk_id, score, ranks in reciprocal_rank_fusion(rankings, weights, self.settings.rrf_k):
            chunk = self.index.chunks[chunk_id]
            candidate = by_span.get(chunk.span)
            if candidate is None:
                if len(by_span) >= pool:
                    continue
                by_span[chunk.span] = _Candidate(chunk.span, [chunk], score, dict(ranks))
            else:
                candidate.chunks.append(chunk)
                for name, rank in ranks.items():
                    candidate.ranks[name] = min(rank, candidate.ranks.get(name, rank))
        return list(by_span.values())

    def _rerank_text(self, candidate: _Candidate) -> str:
        """What the reranker reads: the span itself (as it was trained), or the span with its
        ancestors' headings (``rerank_text = "context"``)."""
        if self.settings.rerank_text == "context":
            return candidate.best_text_chunk.text
        start, end = candidate.span
        return self.index.document.text[start:end]

    def search(
        self,
        query: RetrievalQuery,
        k: int | None = None,
        *,
        rerank: bool = True,
        graph: GraphSearch | None = None,
        expand: bool = True,
        use: tuple[str, ...] | None = None,
    ) -> list[Hit]:
        """Ranked hits for a query (``k`` defaults to ``retrieval.top_k``), traced as a
        ``retrieval.search`` span: k, the rankers, and the clause ids and scores returned."""
        k = k or self.settings.top_k
        with span("retrieval.search", {"clausewise.contract": self.index.contract_id}) as searching:
            record_content(searching, "clausewise.query", query.question)
            hits = self._ranked(query, k, rerank=rerank, graph=graph, expand=expand, use=use)
            annotate(
                searching,
                {
                    "clausewise.retrieval.k": k,
                    "clausewise.retrieval.rankers": use or self.settings.rankers,
                    "clausewise.retrieval.graph": graph is not None,
                    "clausewise.retrieval.reranked": rerank and self.reranker is not None,
                    "clausewise.retrieval.scores": [round(h.score, 4) for h in hits],
                },
            )
            record_identifiers(searching, "clausewise.retrieval.node_ids", [h.node_id for h in hits])
        return hits

    def _ranked(
        self,
        query: RetrievalQuery,
        k: int,
        *,
        rerank: bool,
        graph: GraphSearch | None,
        expand: bool,
        use: tuple[str, ...] | None,
    ) -> list[Hit]:
        candidates = self._candidates(self.rankings(query, graph, use, k), candidate_pool(self.settings, k))
        probabilities: dict[int, float] = {}
        if rerank and self.reranker is not None and candidates:
            head = candidates[: self.settings.rerank_top_n]
            scores = self.reranker.score(query.question, [self._rerank_text(c) for c in head])
            probabilities = {i: float(p) for i, p in enumerate(scores)}
            order = reranked_order([c.span for c in candidates], probabilities, self.settings)
        else:
            order = list(range(len(candidates)))
        hits: list[Hit] = []
        chosen: list[Span] = []
        text = self.index.document.text
        for i in order:
            candidate = candidates[i]
            if chosen and covered(candidate.span, chosen):
                continue  # adds no text to what is already retrieved
            representative = candidate.best_text_chunk
            probability = probabilities.get(i)
            signals = {f"{name}_rank": float(rank) for name, rank in candidate.ranks.items()}
            signals["rrf"] = round(candidate.fused, 6)
            if probability is not None:
                signals["rerank"] = round(probability, 4)
            hit = Hit(
                contract_id=self.index.contract_id,
                file_name=self.index.manifest.file_name,
                node_id=representative.node_id,
                chunk_id=representative.id,
                span=candidate.span,
                pages=representative.pages,
                score=probability if probability is not None else candidate.fused,
                relevant=probability is None or probability >= self.settings.rerank_threshold,
                signals=signals,
                text=text[candidate.span[0] : candidate.span[1]],
            )
            if expand and (self.settings.expand_definitions or self.settings.expand_references):
                hit = self.expander.expand(
                    hit, self.settings.expand_definitions, self.settings.expand_references
                )
            hits.append(hit)
            chosen.append(candidate.span)
            if len(hits) >= k:
                break
        return hits
