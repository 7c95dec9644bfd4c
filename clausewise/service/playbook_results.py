"""A playbook review job's result: the batch rows its units sent (``contract_id``, the position's
review as ``result``, or the ``error`` of a contract that could not be reviewed), with the
playbook named and, per contract, the risk summary its rows add up to."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from clausewise.core.results import PositionReview
from tools.playbook.summary import summarise


def playbook_result(playbook: dict[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    by_contract: dict[str, list[PositionReview]] = defaultdict(list)
    for row in rows:
        if row.get("result"):
            by_contract[row["contract_id"]].append(PositionReview.model_validate(row["result"]))
    return {
        "kind": "playbook",
        "playbook": {"name": playbook["name"], "version": playbook["version"]},
        "rows": list(rows),
        "summaries": {contract: summarise(reviews).model_dump() for contract, reviews in by_contract.items()},
    }
