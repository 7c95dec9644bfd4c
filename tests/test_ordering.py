"""Search depth, candidate pool and the order of candidates after reranking."""

from __future__ import annotations

from clausewise.core.config import RetrievalSettings
from tools.retrieval.ordering import candidate_pool, reranked_order, search_depth


def test_depth_and_pool_grow_with_k_but_never_below_the_configuration() -> None:
    settings = RetrievalSettings(fused_top_k=64)
    assert search_depth(100, 4) == 100
    assert search_depth(100, 64) == 256
    assert candidate_pool(settings, 8) == 64
    assert candidate_pool(settings, 64) == 128


def test_replace_orders_by_probability_and_keeps_unscored_last() -> None:
    settings = RetrievalSettings(rerank_mode="replace", rerank_length_prior=0.0)
    spans = [(0, 100), (100, 200), (200, 300), (300, 400)]
    order = reranked_order(spans, {0: 0.1, 1: 0.9, 2: 0.5}, settings)
    assert order == [1, 2, 0, 3]


def test_length_prior_prefers_the_tighter_span_at_equal_probability() -> None:
    settings = RetrievalSettings(rerank_mode="replace", rerank_length_prior=1.0, rerank_target_chars=500)
    spans = [(0, 5000), (5000, 5400)]
    assert reranked_order(spans, {0: 0.8, 1: 0.8}, settings) == [1, 0]


def test_fuse_lets_neither_stage_decide_alone() -> None:
    settings = RetrievalSettings(rerank_mode="fuse", rerank_weight=1.0, rerank_length_prior=0.0)
    spans = [(i * 100, i * 100 + 100) for i in range(5)]
    # The reranker loves the last first-stage candidate; fusion lifts it, but the first-stage
    # leader, ranked second by the reranker, stays on top.
    probabilities = {0: 0.8, 1: 0.1, 2: 0.2, 3: 0.3, 4: 0.9}
    order = reranked_order(spans, probabilities, settings)
    assert order[0] == 0
    assert order.index(4) < order.index(1)
    assert sorted(order) == list(range(5))
