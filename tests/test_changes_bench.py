"""``clausewise eval changes``'s measures computed by hand: the playbook assessments' time (the
median, the slowest, the slowest of the contracts of at most 50 pages, the goal's size)."""

from __future__ import annotations

from clausewise_lab.evals.changes_bench import assessment_summary


def _row(contract: str, pages: float, seconds: float) -> dict:
    return {"contract": contract, "pages": pages, "assessment": {"seconds": seconds, "positions": 15}}


def test_the_assessment_time_is_summed_up_by_hand() -> None:
    rows = [_row("a", 12.0, 20.0), _row("b", 49.5, 41.0), _row("c", 112.0, 95.0)]
    summary = assessment_summary(rows)
    assert summary["seconds_median"] == 41.0
    assert summary["slowest"] == {"contract": "c", "pages": 112.0, "seconds": 95.0, "positions": 15}
    assert summary["slowest_up_to_50_pages"]["contract"] == "b"


def test_without_a_contract_up_to_50_pages_there_is_no_slowest_of_them() -> None:
    summary = assessment_summary([_row("c", 112.0, 95.0)])
    assert summary["slowest_up_to_50_pages"] is None and summary["seconds_median"] == 95.0
    empty = assessment_summary([])
    assert empty == {"seconds_median": None, "slowest": None, "slowest_up_to_50_pages": None}
