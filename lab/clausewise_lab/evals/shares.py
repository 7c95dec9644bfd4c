"""Shares and outcome counts as every benchmark prints them (four decimals, ``None`` of nothing)."""

from __future__ import annotations

from collections import Counter
from typing import Any


def share(part: float, whole: float) -> float | None:
    """``part / whole`` to four decimals; ``None`` when there is nothing to divide by, so an empty
    group never reads as 0% or 100%."""
    return round(part / whole, 4) if whole else None


def outcome_figures(outcomes: Counter, count_name: str = "n") -> dict[str, Any]:
    """Right, wrong and abstained answers: accuracy counting abstentions as wrong, accuracy over
    committed answers, and the abstention rate."""
    answered = outcomes["right"] + outcomes["wrong"]
    total = answered + outcomes["abstained"]
    return {
        count_name: total,
        "right": outcomes["right"],
        "wrong": outcomes["wrong"],
        "abstained": outcomes["abstained"],
        "accuracy": share(outcomes["right"], total),
        "committed_accuracy": share(outcomes["right"], answered),
        "abstention_rate": share(outcomes["abstained"], total),
    }
