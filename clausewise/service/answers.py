"""What the REST routes, the OpenAI-compatible endpoint and the MCP tools share about questions
and answers: the question's limits, a report as chat text, its references."""

from __future__ import annotations

from typing import Any

from clausewise.core.report import Report
from clausewise.service.errors import ApiError
from clausewise.service.state import Service


def check_question(text: str, service: Service) -> str:
    limit = service.settings.service.max_question_chars
    if len(text) > limit:
        raise ApiError(
            422,
            "question_too_long",
            f"the question is {len(text):,} characters, over the {limit:,} limit",
            hint="ask a shorter question; put background in 'context'",
        )
    if not text.strip():
        raise ApiError(
            422, "empty_question", "the question is empty", hint="ask a question about the contract"
        )
    return text


def answer_text(report: Report) -> str:
    """The report as a chat answer: the short answer, the answer, then the reasoning, the gaps
    and the numbered sources, ``[n]`` markers kept."""
    parts = [f"**{report.short_answer.text()}**", report.preliminary_answer] if report.short_answer else []
    parts = parts or [report.preliminary_answer]
    if report.reasoning:
        parts.append("\n".join(f"- {item}" for item in report.reasoning))
    if report.gaps:
        parts.append("Open questions:\n" + "\n".join(f"- {gap}" for gap in report.gaps))
    if report.sources:
        parts.append(
            "Sources:\n"
            + "\n".join(
                f'[{s.number}] {s.node_id} (p. {", ".join(map(str, s.pages))}): "{s.quote}"'
                for s in report.sources
            )
        )
    return "\n\n".join(parts)


def references(report: Report) -> list[dict[str, Any]]:
    """The report's verified sources for a client: each span is an offset into the contract's
    ``contract_version`` (``GET /v1/contracts/{id}/text?version=N`` shows it)."""
    return [
        {
            "number": s.number,
            "contract_id": s.contract_id,
            "contract_version": report.metadata.contract_version,
            "node_id": s.node_id,
            "title": s.title,
            "pages": s.pages,
            "span": list(s.span),
            "quote": s.quote,
        }
        for s in report.sources
    ]
