"""Hybrid + graph retrieval, reranking order and threshold, tree expansion, on the sample MSA."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from clausewise.core.domain import RetrievalQuery
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.graph import GRAPH_FOLDER, graph_spec, open_graph
from tools.retrieval.spans import covered


@pytest.fixture(scope="module")
def msa(tmp_path_factory: pytest.TempPathFactory, embedder):
    """The sample services agreement, ingested once for the module (with its graph)."""
    from pathlib import Path

    from agents.archivist import Archivist
    from clausewise.core.config import load_settings
    from indexes.store import ContractStore

    settings = load_settings(
        overrides={
            "paths": {"data_dir": str(tmp_path_factory.mktemp("retrieval"))},
            "structure": {"knowledge_graph": True},
        }
    )
    store = ContractStore(settings)
    Archivist(settings, store, embedder).ingest(Path("examples/services-agreement.txt"))
    index = store.open("services-agreement")
    yield settings, index
    index.close()


def test_the_graph_is_built_only_when_retrieval_searches_it(tmp_path, embedder) -> None:
    from pathlib import Path

    from agents.archivist import Archivist
    from clausewise.core.config import load_settings, with_overrides
    from indexes.store import ContractStore

    plain = load_settings(overrides={"paths": {"data_dir": str(tmp_path)}})
    graph_on = with_overrides(plain, {"retrieval": {"graph": True}})
    assert not plain.builds_knowledge_graph() and graph_on.builds_knowledge_graph()
    # turning graph retrieval on changes what ingest builds, so the contract is built again
    assert plain.ingest_fingerprint() != graph_on.ingest_fingerprint()
    sample = Path("examples/services-agreement.txt")
    built = []
    for settings in (plain, graph_on):
        store = ContractStore(settings)
        Archivist(settings, store, embedder).ingest(sample)
        index = store.open("services-agreement")
        built.append((index.path / GRAPH_FOLDER / "nodes.txt").is_file())
        index.close()
    assert built == [False, True]


class KeywordReranker:
    """A deterministic stand-in for the cross-encoder: relevant iff the passage has the word."""

    name = "keyword"

    def __init__(self, word: str) -> None:
        self.word = word

    def score(self, query: str, passages: Sequence[str]) -> np.ndarray:
        return np.asarray([0.9 if self.word in p else 0.05 for p in passages], dtype=np.float32)


CHANGE_OF_CONTROL = RetrievalQuery(
    question="Can the customer terminate if the supplier is acquired?",
    keywords=["Change of Control", "terminate"],
    semantic="the customer may terminate when the supplier undergoes a change of control",
)


def test_the_graph_is_built_from_terms_clauses_and_references(msa) -> None:
    _, index = msa
    spec = graph_spec(index.document.text, index.tree, index.definitions, index.cross_references)
    names = {e["entity_name"] for e in spec.entities}
    assert "Section 4.4: Change of Control" in names or any(n.startswith("Clause 4.4") for n in names)
    assert 'Defined term "Change of Control"' in names and 'Party "Customer"' in names
    kinds = {k for r in spec.relationships for k in r["keywords"].split(", ")}
    assert kinds == {"defines", "uses", "refers to"}
    assert all(len({r["src_id"], r["tgt_id"]}) == 2 for r in spec.relationships)
    assert (index.path / GRAPH_FOLDER / "nodes.txt").read_text().splitlines() == spec.node_ids


def test_hybrid_graph_retrieval_ranks_the_clause_first(msa, embedder) -> None:
    settings, index = msa
    retriever = ContractRetriever(index, embedder, settings.retrieval)
    with open_graph(index.path, embedder, enabled=True) as graph:
        assert graph is not None
        graph_nodes = graph.search(
            CHANGE_OF_CONTROL.question, CHANGE_OF_CONTROL.keywords, [CHANGE_OF_CONTROL.semantic], 10
        )
        hits = retriever.search(CHANGE_OF_CONTROL, 5, graph=graph)
    assert "4.4" in graph_nodes[:3]
    assert hits[0].node_id == "4.4"
    assert {"bm25_rank", "dense_rank", "graph_rank", "rrf"} <= set(hits[0].signals)
    assert hits[0].text == index.document.text[hits[0].span[0] : hits[0].span[1]]
    assert hits[0].pages == [1]
    # every hit adds text: none is inside the spans ranked above it
    for i, hit in enumerate(hits[1:], start=1):
        assert not covered(hit.span, [h.span for h in hits[:i]])
    with open_graph(index.path, embedder, enabled=False) as graph:  # retrieval.graph off: not loaded
        assert graph is None


def test_hits_carry_definitions_and_referenced_clauses(msa, embedder) -> None:
    settings, index = msa
    retriever = ContractRetriever(index, embedder, settings.retrieval)
    hit = next(h for h in retriever.search(CHANGE_OF_CONTROL, 5) if h.node_id == "4.4")
    definition = next(link for link in hit.linked if link.label == "Change of Control")
    assert definition.relation == "definition" and definition.node_id == "1.1/Change of Control"
    query = RetrievalQuery(question="How are disputed invoices resolved?", keywords=["disputed", "invoice"])
    disputed = next(h for h in retriever.search(query, 5) if h.node_id == "3.4")
    assert any(link.relation == "reference" and link.node_id == "11.2" for link in disputed.linked)


def test_reranker_order_and_calibrated_threshold(msa, embedder) -> None:
    settings, index = msa
    retriever = ContractRetriever(
        index, embedder, settings.retrieval, reranker=KeywordReranker("forty-eight")
    )
    query = RetrievalQuery(
        question="How fast must a security breach be notified?", keywords=["Security Incident"]
    )
    hits = retriever.search(query, 6)
    assert hits[0].node_id == "10.2" and hits[0].score == pytest.approx(0.9) and hits[0].relevant
    for hit in (
        hits
    ):  # 0.9 for passages with the word (10.2 and the article around it), 0.05 under the 0.2 threshold
        assert hit.relevant == ("forty-eight" in hit.text)
    assert sum(h.relevant for h in hits) < len(hits)
    assert hits[0].signals["rerank"] == pytest.approx(0.9)


def test_bm25_only_and_dense_only_rankings(msa, embedder) -> None:
    settings, index = msa
    retriever = ContractRetriever(index, embedder, settings.retrieval)
    lexical = retriever.rankings(CHANGE_OF_CONTROL, use=("bm25",))
    assert set(lexical) == {"bm25"} and lexical["bm25"]
    dense = retriever.rankings(CHANGE_OF_CONTROL, use=("dense",))
    assert set(dense) == {"dense"} and len(dense["dense"]) == settings.retrieval.dense_top_k


def test_a_part_naming_a_section_heading_ranks_that_section(tmp_path, embedder) -> None:
    """ "What exceptions apply?" meets Section 3 EXCEPTIONS, whose text never says "exception"."""
    from tests.conftest import ingested_sample
    from tools.retrieval.headings import heading_ranking, stem

    assert stem("exceptions") == stem("EXCEPTION") and stem("terminates") == stem("termination")
    with ingested_sample(tmp_path, embedder) as (settings, index):
        ranking = heading_ranking(index.tree, "What exceptions apply?")
        assert ranking[0] == "3" and index.tree.node("3").title.upper() == "EXCEPTIONS"
        assert heading_ranking(index.tree, "What does the agreement say?") == []  # generic words only
        # "how long" names no heading word, yet is answered under TERM AND SURVIVAL
        duration = heading_ranking(index.tree, "How long must the information be kept confidential?")
        assert duration[0] == "6" and "SURVIVAL" in index.tree.node("6").title.upper()
        retriever = ContractRetriever(index, embedder, settings.retrieval)
        query = RetrievalQuery(
            question="What exceptions apply?", keywords=[], semantic="What exceptions apply?"
        )
        plain = retriever.rankings(query)
        assert "headings" not in plain  # the user's own question: headings rank only for parts
        with_headings = retriever.rankings(query, use=(*settings.retrieval.rankers, "headings"))
        first = index.chunks[with_headings["headings"][0]]
        assert (
            first.node_id.startswith("3")
            and index.tree.node(first.node_id).span[0] <= index.tree.node("3").own_end
        )
