"""A playbook review as JSON or Markdown (the CLI's ``--format``, the service's downloads)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from clausewise.core.results import PlaybookSummary, PositionReview
from tools.result_rows import md_cell, md_table_head

VERDICT_WORDS = {
    "meets_standard": "meets standard",
    "meets_fallback": "meets fallback",
    "deviation": "deviation",
    "missing": "missing",
    "refused_ambiguous": "refused: ambiguous",
    "refused_not_covered": "refused: not covered",
}


def verdict_words(review: PositionReview) -> str:
    words = VERDICT_WORDS[review.verdict]
    return f"{words} {review.fallback}" if review.fallback else words


def clause_ref(review: PositionReview) -> str:
    refs = [f"{c.node_id} (p. {c.pages[0]})" if c.pages else c.node_id for c in review.citations]
    return ", ".join(refs)


def to_json(contract: str, reviews: Sequence[PositionReview], summary: PlaybookSummary) -> str:
    return json.dumps(
        {
            "contract": contract,
            "summary": summary.model_dump(),
            "positions": [r.model_dump() for r in reviews],
        },
        indent=2,
    )


def to_markdown(contract: str, reviews: Sequence[PositionReview], summary: PlaybookSummary) -> str:
    lines = [
        f"# Playbook review: {contract}",
        "",
        f"Overall risk: **{summary.overall_risk}**; "
        + ", ".join(f"{VERDICT_WORDS[k]} {v}" for k, v in summary.counts.items()),
        "",
        *md_table_head(("position", "verdict", "risk", "clause", "rationale", "redline")),
    ]
    for r in reviews:
        edits = len(r.redline.edits) if r.redline else 0
        redline = f"{edits} edit(s){' (drafted)' if r.redline and r.redline.kind == 'drafted' else ''}"
        lines.append(
            f"| {r.position_id} | {verdict_words(r)} | {r.risk} | {md_cell(clause_ref(r)) or '-'} | "
            f"{md_cell(r.rationale)} | {redline if edits else '-'} |"
        )
    drafting = [r for r in reviews if r.drafting]
    if drafting:
        lines += ["", "## Drafted redlines", ""]
        lines += [f"- {r.position_id}: {r.drafting}" for r in drafting]
    return "\n".join(lines) + "\n"
