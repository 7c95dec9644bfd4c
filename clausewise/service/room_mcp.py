"""The MCP tool that asks a data room: questions over many contracts, through the same job queue
(and so the same workers) as ``POST /v1/rooms``; the caller's tenant and the server's error
handling come from :mod:`clausewise.service.mcp_server`, which registers it."""

from __future__ import annotations

import asyncio
from typing import Any

from clausewise.core.errors import ContractNotFound
from clausewise.core.room import RoomCell, room_questions
from clausewise.service.answers import check_question
from clausewise.service.mcp_tools import ToolHost
from clausewise.service.work import outcome, submit, wait_for


def _cell(row: dict[str, Any]) -> dict[str, Any]:
    """A row as the tool shows it: the answer, its line and clause ids, the quotes it rests on."""
    if not row.get("result"):
        return {"contract": row["contract_id"], "error": row.get("error")}
    cell = RoomCell.model_validate(row["result"])
    numbers = cell.cited or cell.closest
    return {
        "contract": row["contract_id"],
        "question": cell.question,
        "answer": cell.answer,
        "value": cell.value,
        "line": cell.line,
        "clauses": cell.clauses(),
        "quotes": [
            {
                "number": s.number,
                "node_id": s.node_id,
                "pages": s.pages,
                "span": list(s.span),
                "quote": s.quote,
            }
            for s in cell.sources
            if s.number in numbers
        ],
    }


def add_room_tool(host: ToolHost) -> None:
    """Register ``ask_data_room`` on the host's MCP server."""
    service, tenant_of = host.service, host.tenant_of

    @host.tool
    async def ask_data_room(questions: list[str], contracts: list[str] | None = None) -> dict[str, Any]:
        """Ask questions over many contracts (every one you have when ``contracts`` is omitted):
        per contract and question the verified quick answer (yes, no, a value, not addressed or
        unclear) with its clause ids and quotes, and a roll-up per question (how many say what,
        the distinct values with their contracts, the outliers)."""
        for question in questions:
            check_question(question, service)
        asked = room_questions(questions)
        tenant = tenant_of()

        def resolve() -> list[str]:
            store = service.runtime(tenant).store
            if contracts:
                return list(dict.fromkeys(store.resolve(c) for c in contracts))
            found = [m.contract_id for m in store.manifests()]
            if not found:
                raise ContractNotFound("you have no contracts yet", hint="upload some first")
            return found

        chosen = await asyncio.to_thread(resolve)
        job = submit(service, tenant, "room", {"contracts": chosen, "questions": asked})
        result = outcome(await wait_for(service, tenant, job.id, service.settings.service.wait_seconds))
        return {
            "questions": result["questions"],
            "cells": [_cell(row) for row in result["rows"]],
            "rollup": result["rollup"],
        }
