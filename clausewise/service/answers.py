"""What the REST routes, the OpenAI-compatible endpoint and the MCP tools share about questions
and answers: the question's limits, the quick answer and a report as chat text, its references."""

from __future__ import annotations

from typing import Any

from clausewise.core.report import Report, ShortAnswer, Source
from clausewise.service.errors import ApiError
from clausewise.service.state import Service

#: The bounds every transport (the REST schemas, the MCP tools, the chat endpoint) holds a
#: request's free text to, so no door takes what another refuses.
MAX_CONTEXT_CHARS = 20_000
MAX_INSTRUCTIONS_CHARS = 5_000
MIN_HYPOTHESIS_CHARS, MAX_HYPOTHESIS_CHARS = 5, 2_000


def check_instructions(text: str) -> str:
    """Instructions (a chat's system messages) within :data:`MAX_INSTRUCTIONS_CHARS`."""
    if len(text) > MAX_INSTRUCTIONS_CHARS:
        raise ApiError(
            422,
            "instructions_too_long",
            f"the instructions are {len(text):,} characters, over the {MAX_INSTRUCTIONS_CHARS:,} limit",
            hint="say how the answer should be written in fewer words",
        )
    return text


def check_hypothesis_text(text: str) -> str:
    """A hypothesis typed in, within the bounds ``POST /v1/checks`` holds them to."""
    if not MIN_HYPOTHESIS_CHARS <= len(text.strip()) <= MAX_HYPOTHESIS_CHARS:
        raise ApiError(
            422,
            "hypothesis_length",
            f"a hypothesis is {MIN_HYPOTHESIS_CHARS} to {MAX_HYPOTHESIS_CHARS:,} characters; this one "
            f"is {len(text.strip()):,}",
            hint="state one provision as a sentence",
        )
    return text


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


def _source_lines(sources: list[Source]) -> str:
    return "\n".join(
        f'[{s.number}] {s.node_id} (p. {", ".join(map(str, s.pages))}): "{s.quote}"' for s in sources
    )


def quick_text(event: dict[str, Any]) -> str:
    """An ``answer`` event (the decided short answer, streamed before the report is written) as
    chat text: the line, how it was decided, and the verified sources its ``[n]`` point to (the
    report numbers them the same)."""
    short = ShortAnswer.model_validate(event["short_answer"])
    sources = [Source.model_validate(s) for s in event.get("sources", [])]
    parts = [f"**{short.text()}**", *(f"_{note}_" for note in short.notes())]
    if sources:
        parts.append(_source_lines(sources))
    return "\n\n".join(parts)


def rest_after(quick: str, report: Report) -> str:
    """The report's chat text for a client that was already sent the quick answer: the line is
    not repeated when the report confirms it; when it differs, the report says it corrects it."""
    text = answer_text(report)
    line = f"**{report.short_answer.text()}**" if report.short_answer else ""
    if line and quick.startswith(line):
        return text.removeprefix(line).lstrip()
    if line:
        return f"The report corrects the quick answer above: {text}"
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
        parts.append("Sources:\n" + _source_lines(report.sources))
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
