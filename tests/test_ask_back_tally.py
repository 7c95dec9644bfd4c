"""Rule "ask back" as the lab measures it: the share of questions routed nowhere that are offered
a choice holding their provision, and of outside questions offered any (the trainer's threshold
choice, on out-of-fold predictions), and the same figures from the routing benchmark's rows."""

from __future__ import annotations

import numpy as np

from clausewise_lab.evals import routing_bench
from clausewise_lab.train.router import Example, Predictions, RouterTrainConfig, offer_tally

CLASSES = ("cuad:cap-on-liability", "cuad:uncapped-liability", "none")
EXAMPLES = [
    Example("Is our exposure limited?", "cuad:cap-on-liability", 0, "catalogue", "tune"),  # offered, among
    Example(
        "No ceiling on damages?", "cuad:uncapped-liability", 0, "catalogue", "tune"
    ),  # offered, not among
    Example("Is there a liability cap?", "cuad:cap-on-liability", 0, "catalogue", "tune"),  # routed
    Example("Who pays for shipping?", "none", -1, "outside", "tune"),  # offered one
    Example("Is there a dress code?", "none", -1, "outside", "tune"),  # offered none
    Example("Is liability capped at ten times fees?", "none", -1, "qualified", "tune"),  # a detail
]
PREDICTED = Predictions(
    routes=np.array(
        [
            [0.45, 0.25, 0.30],
            [0.50, 0.20, 0.30],
            [0.90, 0.05, 0.05],
            [0.35, 0.05, 0.60],
            [0.10, 0.05, 0.85],
            [0.55, 0.05, 0.40],
        ],
        dtype=np.float32,
    ),
    absent=np.full(6, 0.1, dtype=np.float32),
    detail=np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.9], dtype=np.float32),
)
THRESHOLDS = {"route_at": 0.6, "detail_at": 0.7, "polarity_band": 0.3}


def test_the_tally_counts_offers_among_unrouted_outside_and_qualified_questions() -> None:
    at_30 = offer_tally(EXAMPLES, PREDICTED, CLASSES, THRESHOLDS, 0.3)
    assert at_30 == {
        "unrouted": 2,
        "unrouted_offered": 1.0,
        "unrouted_provision_offered": 0.5,  # the uncapped question is offered the cap alone
        "outside_offered": 0.5,
        "qualified_offered": 0.0,  # a detail is never offered back
    }
    at_20 = offer_tally(EXAMPLES, PREDICTED, CLASSES, THRESHOLDS, 0.2)
    assert at_20["unrouted_provision_offered"] == 1.0  # both offered, 0.25 now reaches the threshold


def test_the_benchmark_reads_the_same_figures_from_its_rows() -> None:
    rows = [
        {
            "group": "catalogue",
            "outcome": "none",
            "expected": "cuad:Cap on Liability",
            "options": ["cuad:Cap on Liability"],
        },
        {
            "group": "catalogue",
            "outcome": "none",
            "expected": "cuad:Exclusivity",
            "options": ["cuad:Non-Compete"],
        },
        {"group": "catalogue", "outcome": "none", "expected": "cuad:Insurance", "options": []},
        {"group": "catalogue", "outcome": "right", "expected": "cuad:Insurance", "options": []},
        {"group": "outside", "outcome": "none", "expected": "", "options": ["cuad:Source Code Escrow"]},
        {"group": "outside", "outcome": "none", "expected": "", "options": []},
        {"group": "qualified", "outcome": "none", "expected": "", "options": []},
    ]
    figures = routing_bench.ask_back(rows)
    assert (figures["unrouted"], figures["unrouted_offered"], figures["unrouted_provision_offered"]) == (
        3,
        2,
        1,
    )
    assert figures["outside"] == {"n": 2, "offered": 1, "share": 0.5}
    assert figures["qualified"]["share"] == 0.0


def test_the_limits_of_the_rule_are_part_of_the_recipe() -> None:
    config = RouterTrainConfig()
    assert 0 < config.outside_offered_at_most <= config.qualified_offered_at_most < 1
