"""How deep each first stage searches, and the order of candidates after reranking.

Shared by the per-contract and the corpus retriever so both scopes rank the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

from clausewise.core.config import RetrievalSettings
from clausewise.core.domain import Span
from tools.retrieval.fusion import reciprocal_rank_fusion

# Chunks per returned span the first stages fetch. A node has up to three chunks (node,
# ancestor-aware, descendant-aware) and spans covered by better hits are skipped, so k spans
# need several times k chunks; without this, deep cut-offs (k = 64) run out of candidates.
CHUNKS_PER_SPAN = 4


def search_depth(configured: int, k: int) -> int:
    """Candidates a first stage returns: the configured depth, or more when ``k`` needs it."""
    return max(configured, CHUNKS_PER_SPAN * k)


def candidate_pool(settings: RetrievalSettings, k: int) -> int:
    """Distinct spans kept after fusion: ``fused_top_k``, or twice ``k`` when that is larger."""
    return max(settings.fused_top_k, 2 * k)


def reranked_order(
    spans: Sequence[Span], probabilities: dict[int, float], settings: RetrievalSettings
) -> list[int]:
    """Candidate indexes (first-stage order 0..n-1) after reranking.

    The reranker's order sorts by probability, optionally scaled by a length prior: a
    cross-encoder rates a whole section that contains the answer as highly as the answering
    sentence, and the prior prefers the tighter span (exponent 0 by default: on LegalBench-RAG it
    cost more R@1 than it bought P@1). ``replace``: that order alone. ``fuse``: reciprocal rank
    fusion of the first-stage order and that order, so neither alone decides. Unscored candidates
    keep their first-stage order after the scored ones (``replace``) or fuse with their
    first-stage rank only (``fuse``).
    """
    target = settings.rerank_target_chars

    def adjusted(i: int) -> float:
        start, end = spans[i]
        prior = min(1.0, target / max(end - start, 1)) ** settings.rerank_length_prior
        return probabilities[i] * prior

    reranked = sorted(probabilities, key=lambda i: (-adjusted(i), i))
    if settings.rerank_mode == "replace":
        return reranked + [i for i in range(len(spans)) if i not in probabilities]
    fused = reciprocal_rank_fusion(
        {"first": [str(i) for i in range(len(spans))], "rerank": [str(i) for i in reranked]},
        {"first": 1.0, "rerank": settings.rerank_weight},
        settings.rrf_k,
    )
    return [int(i) for i, _, _ in fused]
