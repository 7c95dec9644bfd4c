"""Character-span helpers shared by retrieval and its benchmarks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from clausewise.core.domain import Span


def merge_spans(spans: Iterable[Span]) -> list[Span]:
    """Union of spans as sorted, non-overlapping spans."""
    merged: list[Span] = []
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def overlap(a: Span, b: Span) -> int:
    return max(0, min(a[1], b[1]) - max(a[0], b[0]))


def covered(span: Span, by: Iterable[Span]) -> bool:
    """Whether ``span`` lies entirely inside the union of ``by``."""
    remaining = span[1] - span[0]
    for piece in merge_spans(by):
        remaining -= overlap(span, piece)
    return remaining <= 0


def precision_recall(retrieved: list[tuple[str, Span]], gold: list[tuple[str, Span]]) -> tuple[float, float]:
    """Character-level precision and recall as LegalBench-RAG defines them, over (file, span)
    pairs. Overlapping retrieved spans of a file are merged first, so a character counts once."""
    files = {f for f, _ in retrieved} | {f for f, _ in gold}
    retrieved_chars = gold_chars = relevant = 0
    for name in files:
        pieces = merge_spans(s for f, s in retrieved if f == name)
        truth = merge_spans(s for f, s in gold if f == name)
        retrieved_chars += sum(e - s for s, e in pieces)
        gold_chars += sum(e - s for s, e in truth)
        relevant += sum(overlap(p, g) for p in pieces for g in truth)
    precision = relevant / retrieved_chars if retrieved_chars else 0.0
    recall = relevant / gold_chars if gold_chars else 0.0
    return precision, recall


def span_hit_rates(
    cases: Iterable[tuple[Sequence[Span], Sequence[Span]]],
) -> tuple[float | None, float | None]:
    """Span-level (recall, precision) over ``(gold spans, returned spans)`` cases: the share of
    gold spans touched by a returned span, and of returned spans touching a gold span (None when
    there is nothing to count)."""
    gold_total = gold_hit = returned_total = returned_hit = 0
    for gold, returned in cases:
        gold_total += len(gold)
        gold_hit += sum(any(overlap(g, r) > 0 for r in returned) for g in gold)
        returned_total += len(returned)
        returned_hit += sum(any(overlap(g, r) > 0 for g in gold) for r in returned)
    recall = round(gold_hit / gold_total, 4) if gold_total else None
    precision = round(returned_hit / returned_total, 4) if returned_total else None
    return recall, precision
