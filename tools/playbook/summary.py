"""A playbook review's overall risk: how many positions got each verdict, and which deviations
and missing clauses carry which risk tier (the highest tier among them is the overall risk)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from clausewise.core.results import PlaybookSummary, PositionReview
from tools.playbook.redlines import Edit

_TIERS = ("high", "medium", "low")


def summarise(reviews: Sequence[PositionReview]) -> PlaybookSummary:
    counts = Counter(r.verdict for r in reviews)
    open_points = [r for r in reviews if r.verdict in ("deviation", "missing")]
    by_tier = {tier: [r.position_id for r in open_points if r.risk == tier] for tier in _TIERS}
    overall = next((tier for tier in _TIERS if by_tier[tier]), "none")
    return PlaybookSummary(
        counts=dict(sorted(counts.items())),
        overall_risk=overall,  # type: ignore[arg-type]
        refused=[r.position_id for r in reviews if r.verdict.startswith("refused")],
        **by_tier,
    )


def redline_queue(reviews: Sequence[PositionReview]) -> list[tuple[str, list[Edit]]]:
    """The reviews' redlines, highest risk first (playbook order within a tier): the order in
    which :func:`tools.playbook.redlines.merged` keeps them when two change the same words."""
    ranked = sorted((r for r in reviews if r.redline and r.redline.edits), key=lambda r: _TIERS.index(r.risk))
    return [
        (r.position_id, [Edit(e.span[0], e.span[1], e.inserted) for e in r.redline.edits])  # type: ignore[union-attr]
        for r in ranked
    ]
