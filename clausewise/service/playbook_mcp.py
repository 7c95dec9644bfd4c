"""The MCP tool that reviews a contract against a playbook, through the same job queue (and so
the same workers) as ``POST /v1/playbook-reviews``; the caller's tenant and the server's error
handling come from :mod:`clausewise.service.mcp_server`, which registers it."""

from __future__ import annotations

import asyncio
from typing import Any

from clausewise.core.results import PositionReview
from clausewise.service.mcp_tools import ToolHost
from clausewise.service.work import outcome, submit, wait_for
from tools.playbook.render import verdict_words
from tools.playbook.shelf import PlaybookShelf


def _position(review: PositionReview) -> dict[str, Any]:
    """A position as the tool shows it: verdict, risk, why, the clause quoted, the proposed edits."""
    return {
        "position": review.position_id,
        "clause_type": review.clause,
        "verdict": verdict_words(review),
        "risk": review.risk,
        "rationale": review.rationale,
        "playbook_requirement": review.playbook.requirement,
        "quotes": [
            {"node_id": c.node_id, "pages": c.pages, "span": list(c.span), "quote": c.quote}
            for c in review.citations
        ],
        "redline": [
            {"span": list(e.span), "delete": e.deleted, "insert": e.inserted}
            for e in (review.redline.edits if review.redline else [])
        ],
    }


def add_playbook_tool(host: ToolHost) -> None:
    """Register ``review_against_playbook`` on the host's MCP server."""
    service, tenant_of = host.service, host.tenant_of

    @host.tool
    async def review_against_playbook(contract: str, playbook: str = "playbook-commercial") -> dict[str, Any]:
        """Hold a contract to a playbook's positions (a built-in one: playbook-commercial,
        playbook-nda; or one of yours by name): per position meets standard, meets fallback N,
        deviation, missing or refused, with its risk, the clause quoted, one sentence of why, and
        the smallest edit that would bring the clause to the position; then the overall risk."""
        tenant = tenant_of()

        def prepare() -> tuple[str, dict[str, Any]]:
            runtime = service.runtime(tenant)
            chosen = PlaybookShelf(runtime.tenant_dir / "playbooks").get(playbook)
            return runtime.store.resolve_id(contract), chosen.model_dump()

        contract_id, positions = await asyncio.to_thread(prepare)
        job = submit(service, tenant, "playbook", {"contracts": [contract_id], "playbook": positions})
        result = outcome(await wait_for(service, tenant, job.id, service.settings.service.wait_seconds))
        reviews = [PositionReview.model_validate(r["result"]) for r in result["rows"] if r.get("result")]
        return {
            "contract": contract_id,
            "playbook": result["playbook"],
            "summary": result["summaries"].get(contract_id, {}),
            "positions": [_position(r) for r in reviews],
        }
