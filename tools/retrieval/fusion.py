"""Reciprocal rank fusion: score(d) = sum over rankings of weight / (k + rank(d)).

Rank-based, so BM25 scores, cosine similarities and graph hits can be combined without
calibrating their scales against each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int = 60
) -> list[tuple[str, float, dict[str, int]]]:
    """Fused (item, score, {ranking name: 1-based rank}) in decreasing score; ties keep the order
    of first appearance (so the result is deterministic)."""
    scores: dict[str, float] = {}
    ranks: dict[str, dict[str, int]] = {}
    for name, items in rankings.items():
        weight = weights.get(name, 1.0)
        if weight <= 0:
            continue
        seen: set[str] = set()
        for position, item in enumerate(items, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + position)
            ranks.setdefault(item, {})[name] = position
    order = {item: i for i, item in enumerate(scores)}
    return [
        (item, scores[item], ranks[item]) for item in sorted(scores, key=lambda x: (-scores[x], order[x]))
    ]
