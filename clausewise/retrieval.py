"""The plain retrieval interface: ``(file, (start, end), score)`` spans of contracts for a query,
with no language model involved.

It is what ``clausewise eval legalbench-rag`` scores (every row is this interface under some
settings), what the service's search endpoint and MCP tool return, and the smallest way to use
Clausewise's retrieval from Python:

    retrieve(runtime, "mutual-nda", "return or destroy confidential information", k=5)
    with SpanSearch(runtime, ["nda-a", "nda-b"]) as search:   # a corpus, opened once
        for query in queries:
            search(query, k=64)

A single contract is searched as the Researcher searches it (its first-stage rankings, the
knowledge graph when ``retrieval.graph`` is on, the reranker), without tree expansion: the spans
returned are the contract's own text. A list of contracts is searched as one corpus.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any

from clausewise.core.domain import Hit, RetrievalQuery
from clausewise.core.results import Passage, RetrievedSpan
from clausewise.runtime import Runtime
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.corpus import CorpusRetriever
from tools.retrieval.graph import GraphSearch, open_graph


class SpanSearch:
    """Retrieval over one contract (an id or an ingested file) or a corpus (a list of them),
    opened once and queried many times; close it (or use it as a context manager) when done."""

    def __init__(self, runtime: Runtime, scope: str | Sequence[str]) -> None:
        self._stack = ExitStack()
        self._contract: ContractRetriever | None = None
        self._corpus: CorpusRetriever | None = None
        self._graph: GraphSearch | None = None
        settings = runtime.settings.retrieval
        if isinstance(scope, str):
            index = runtime.store.open(scope)
            self._stack.callback(index.close)
            self._contract = ContractRetriever(index, runtime.embedder, settings, runtime.reranker())
            self._graph = self._stack.enter_context(
                open_graph(index.path, runtime.embedder, enabled=settings.graph)
            )
        else:
            indexes = [runtime.store.open(contract) for contract in scope]
            self._corpus = CorpusRetriever(indexes, runtime.embedder, settings, runtime.reranker())

    def hits(self, query: str, k: int = 10) -> list[Hit]:
        request = RetrievalQuery(question=query)
        if self._contract is not None:
            return self._contract.search(request, k, graph=self._graph, expand=False)
        assert self._corpus is not None
        return self._corpus.search(request, k)

    def __call__(self, query: str, k: int = 10) -> list[RetrievedSpan]:
        return [RetrievedSpan(hit.file_name, hit.span, hit.score) for hit in self.hits(query, k)]

    def passages(self, query: str, k: int = 10) -> list[Passage]:
        """The top ``k`` spans with their text, clause and pages (one contract only)."""
        if self._contract is None:
            raise ValueError("passages are read from one contract: open the search on a contract id")
        index = self._contract.index
        passages = []
        for hit in self.hits(query, k):
            node = index.tree.node(hit.node_id)
            passages.append(
                Passage(
                    contract_id=hit.contract_id,
                    file=hit.file_name,
                    node_id=hit.node_id,
                    title=node.title,
                    pages=hit.pages,
                    span=hit.span,
                    quote=index.document.text[hit.span[0] : hit.span[1]],
                    score=round(hit.score, 4),
                )
            )
        return passages

    def close(self) -> None:
        self._stack.close()

    def __enter__(self) -> SpanSearch:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def retrieve(runtime: Runtime, scope: str | Sequence[str], query: str, k: int = 10) -> list[RetrievedSpan]:
    """The top ``k`` spans for ``query`` over one contract (an id) or a corpus (a list of ids)."""
    with SpanSearch(runtime, scope) as search:
        return search(query, k)
