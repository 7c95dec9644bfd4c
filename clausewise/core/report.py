"""The legal report: a pydantic model rendered to Markdown, JSON and HTML.

Sections follow PAKTON: Title; Summary of the topic (the question restated); Legal reasoning and
key findings; Preliminary answer and direction for further research; Gaps and next questions;
Sources. In-text references ``[n]`` point into Sources, and every source quote is the
contract's own text at the span it names.
"""

from __future__ import annotations

import html
import re
from typing import Literal

from pydantic import BaseModel, Field, computed_field

from clausewise.core.domain import EvidenceSpan

REFERENCE = re.compile(r"\[(\d{1,3})\]")
#: How a source whose quote is the sentence a near-miss (or missing) quote was grounded in is marked.
NOT_EXACT = " (the sentence the model's words were matched to)"


def _pages(source: Source) -> str:
    return f"p. {source.pages[0]}" if len(source.pages) == 1 else f"pp. {source.pages[0]}-{source.pages[-1]}"


class Source(EvidenceSpan):
    """A numbered source of a report: a verified span of the contract (the clause, its pages,
    the quote at its span)."""

    number: int
    contract_id: str
    exact: bool = Field(
        default=True,
        description="False when the quote is the sentence a near-miss (or missing) quote was grounded in.",
    )


Verdict = Literal["yes", "no", "partly", "not addressed", "unclear"]
DecidedBy = Literal["provision classifier", "hypothesis classifier", "value reader", "model", "none"]


class RouteChoice(BaseModel):
    """A known provision a question the router could not place may still mean, offered back to
    the asker; asked again with ``key`` as its provision, its own decider answers."""

    key: str = Field(description="The provision's key, e.g. cuad:cap-on-liability (ask again with it).")
    name: str = Field(description="The provision's name, as the choice is shown.")
    probability: float = Field(description="The router's probability that the question means it.")


class ShortAnswer(BaseModel):
    """The bottom line, shown before the prose: a verdict for a yes/no question, the value for a
    question asking for one (a duration, date, law, amount, party or notice period), or, where
    the contract states it as a condition or a reference, the sentence that does
    (``value_type`` "condition"). "unclear" when no decider was confident: the closest clauses
    are shown instead of a guess."""

    form: Literal["verdict", "value"]
    verdict: Verdict | None = None
    value: str = Field(default="", description="The value in the contract's own words.")
    value_type: str = ""
    normalized: str = Field(default="", description="The value in a comparable form (3 years, 1999-06-21).")
    sources: list[int] = Field(default_factory=list, description="Numbers of the sources behind it.")
    closest: list[int] = Field(
        default_factory=list, description="Where it is unclear or not stated: the closest clauses' sources."
    )
    decided_by: DecidedBy = "model"
    provision: str = Field(default="", description="The known provision the question was tied to.")
    rationale: str = ""
    disagreement: str = Field(
        default="", description="Where the writer model and the deciding component disagreed, what each said."
    )
    qualification: str = Field(
        default="",
        description="The words of the value's own sentence that qualify it (\"however, obligations "
        'relating to trade secrets continue ..."), verbatim from the source.',
    )
    leaning: Literal["yes", "no"] | None = Field(
        default=None, description="Where unclear: the answer the evidence leans to (never the answer)."
    )
    leaning_probability: float | None = Field(
        default=None, description="The calibrated probability of the leaning answer."
    )
    deferred: bool = Field(
        default=False, description="No trained decider covers the question: left to the full report."
    )
    found: Literal["present", "absent"] | None = Field(
        default=None,
        description="Where unclear which way round the question asks: what the provision's decider found.",
    )
    options: list[RouteChoice] = Field(
        default_factory=list,
        description="Where the question could not be placed: the provisions it may mean, the likeliest "
        "first; ask again choosing one (its key) and that provision's decider answers.",
    )

    def text(self) -> str:
        """One line: "Yes [2]", "three (3) years [4]", with a qualification
        'three (3) years [4]; "however, obligations relating to trade secrets continue ..." [4]',
        a condition quoted as the contract states it, or "Unclear ..." with the closest clauses."""
        refs = "".join(f" [{n}]" for n in self.sources)
        closest = "".join(f" [{n}]" for n in self.closest)
        nearest = f" (closest clauses:{closest})" if closest else ""
        if self.verdict == "unclear":
            if self.options:
                choices = " / ".join(o.name for o in self.options)
                return (
                    f"Unclear which provision the question asks about; read as {self.options[0].name}. "
                    f"Did you mean: {choices}?"
                )
            if self.deferred:
                return f"Unclear: no trained decider covers this question; left to the full report{nearest}"
            if self.found and self.provision:
                has = "has" if self.found == "present" else "has no"
                shown = f" (clauses:{closest})" if closest else ""
                return (
                    f"Unclear which way round the question asks; the contract {has} a {self.provision} "
                    f"provision{shown}"
                )
            if self.leaning and self.leaning_probability is not None:
                return (
                    f"Unclear: leans {self.leaning}, {self.leaning_probability:.2f}; the contract does not "
                    f"settle this{nearest}"
                )
            return f"Unclear: the contract does not settle this{nearest}"
        qualified = f'; "{self.qualification}"{refs}' if self.qualification else ""
        if self.form == "verdict":
            verdict = (self.verdict or "not addressed").capitalize()
            if self.value and self.value_type == "condition":
                return f'{verdict}: as the contract states it, "{self.value}"{refs}'
            if self.value:
                return f"{verdict}: {self.value}{refs}{qualified}"
            return f"{verdict}{refs}"
        if not self.value:
            return f"Not stated in the contract{nearest}"
        if self.value_type == "condition":
            return f'As the contract states it: "{self.value}"{refs}'
        return f"{self.value}{refs}{qualified}"

    def notes(self) -> list[str]:
        """Who decided the short answer and, where the model and that component differed, how."""
        notes = [f"Decided by the {self.decided_by}" + (f": {self.rationale}" if self.rationale else ".")]
        if self.options:
            choices = "; ".join(f"{o.name} ({o.key})" for o in self.options)
            notes.append(f"Ask again choosing one, by its key, and its decider answers: {choices}")
        if self.disagreement:
            notes.append(f"Disagreement: {self.disagreement}")
        return notes

    @computed_field  # type: ignore[prop-decorator]
    @property
    def line(self) -> str:
        """:meth:`text`, sent with the JSON so that every client shows the same line."""
        return self.text()

    @computed_field  # type: ignore[prop-decorator]
    @property
    def note_lines(self) -> list[str]:
        """:meth:`notes`, sent with the JSON."""
        return self.notes()


class ReportMetadata(BaseModel):
    contract_id: str
    contract_version: int | None = Field(
        default=None,
        description="The contract's version the report read: its spans are offsets into that version's text.",
    )
    file_name: str = ""
    turns_used: int = 0
    max_turns: int = 0
    questions_asked: list[str] = Field(default_factory=list)
    stopped_because: Literal["confident", "decided", "turn limit", "not addressed", ""] = ""
    confidence: float | None = None
    models: list[str] = Field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    removed_citations: list[str] = Field(default_factory=list)
    repaired_claims: list[str] = Field(
        default_factory=list, description="Claims their sources contradicted that one repair fixed."
    )
    removed_claims: list[str] = Field(
        default_factory=list,
        description="Claims their sources contradicted or did not support, removed after the repair.",
    )
    checks: list[str] = Field(
        default_factory=list,
        description="What the finishing checks did to the writer's text (repairs, removals), for the reader.",
    )


class Report(BaseModel):
    question: str
    short_answer: ShortAnswer | None = None
    title: str
    summary: str
    reasoning: list[str] = Field(default_factory=list, description="Legal reasoning and key findings.")
    preliminary_answer: str
    gaps: list[str] = Field(default_factory=list, description="Gaps and next questions.")
    sources: list[Source] = Field(default_factory=list)
    addressed: bool = True
    metadata: ReportMetadata

    def referenced_numbers(self) -> set[int]:
        text = " ".join([self.summary, *self.reasoning, self.preliminary_answer, *self.gaps])
        numbers = {int(n) for n in REFERENCE.findall(text)}
        short = self.short_answer
        return numbers | set(short.sources + short.closest if short else [])

    # --- renderers ---------------------------------------------------------------------------

    def to_json(self) -> str:
        return self.model_dump_json(indent=2)

    def to_markdown(self) -> str:
        lines = [f"# {self.title}", ""]
        if self.short_answer:
            notes = [f"_{note}_" for note in self.short_answer_notes()]
            lines += ["## Short answer", "", f"**{self.short_answer.text()}**", "", *notes, ""]
        lines += [
            "## Summary",
            "",
            self.summary,
            "",
            "## Legal reasoning and key findings",
            "",
        ]
        lines += [f"- {item}" for item in self.reasoning] or ["- (none)"]
        lines += [
            "",
            "## Preliminary answer",
            "",
            self.preliminary_answer,
            "",
            "## Gaps and next questions",
            "",
        ]
        lines += [f"- {item}" for item in self.gaps] or ["- (none)"]
        lines += ["", "## Sources", ""]
        for source in self.sources:
            heading = f"{source.node_id}" + (f" {source.title}" if source.title else "")
            lines.append(
                f"[{source.number}] **{heading}**, {_pages(source)}, characters "
                f'{source.span[0]}-{source.span[1]}{NOT_EXACT if not source.exact else ""}: "{source.quote}"'
            )
            lines.append("")
        if not self.sources:
            lines += ["(no verified quotations)", ""]
        meta = self.metadata
        lines += [
            "---",
            f"*{meta.turns_used} of {meta.max_turns} turn(s), stopped: {meta.stopped_because or 'n/a'}; "
            f"{meta.llm_calls} model calls, {meta.prompt_tokens + meta.completion_tokens} tokens, "
            f"{meta.seconds:.0f} s; models: {', '.join(meta.models) or 'n/a'}.*",
        ]
        if meta.checks:
            lines += ["", f"*Checks: {' '.join(meta.checks)}*"]
        return "\n".join(lines) + "\n"

    def short_answer_notes(self) -> list[str]:
        """Who decided the short answer and, where the model and that component differed, how."""
        return self.short_answer.notes() if self.short_answer else []

    def to_html(self) -> str:
        def paragraph(text: str) -> str:
            escaped = html.escape(text)
            return REFERENCE.sub(lambda m: f'<a href="#source-{m.group(1)}">[{m.group(1)}]</a>', escaped)

        def items(values: list[str]) -> str:
            return "".join(f"<li>{paragraph(v)}</li>" for v in values) or "<li>(none)</li>"

        sources = "".join(
            f'<li id="source-{s.number}"><strong>[{s.number}] {html.escape(s.node_id)} '
            f"{html.escape(s.title)}</strong>"
            f" (pages {', '.join(map(str, s.pages))}; characters {s.span[0]}-{s.span[1]}"
            f"{NOT_EXACT if not s.exact else ''})"
            f"<blockquote>{html.escape(s.quote)}</blockquote></li>"
            for s in self.sources
        )
        short = ""
        if self.short_answer:
            notes = "".join(f"<p><em>{html.escape(n)}</em></p>" for n in self.short_answer_notes())
            short = (
                f"<h2>Short answer</h2><p><strong>{paragraph(self.short_answer.text())}</strong></p>{notes}"
            )
        meta = self.metadata
        checks = f"<br>Checks: {html.escape(' '.join(meta.checks))}" if meta.checks else ""
        return (
            '<!DOCTYPE html><html><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title>"
            "<style>body{font-family:Georgia,serif;max-width:52rem;margin:2rem auto;line-height:1.5}"
            "blockquote{border-left:3px solid #888;margin:.3rem 0;padding-left:.8rem;color:#333}"
            "footer{color:#666;font-size:.9rem}</style></head><body>"
            f"<h1>{html.escape(self.title)}</h1>"
            f"{short}"
            f"<h2>Summary</h2><p>{paragraph(self.summary)}</p>"
            f"<h2>Legal reasoning and key findings</h2><ul>{items(self.reasoning)}</ul>"
            f"<h2>Preliminary answer</h2><p>{paragraph(self.preliminary_answer)}</p>"
            f"<h2>Gaps and next questions</h2><ul>{items(self.gaps)}</ul>"
            '<h2>Sources</h2><ol style="list-style:none;padding:0">'
            f"{sources or '<li>(no verified quotations)</li>'}</ol>"
            f"<footer>{meta.turns_used} of {meta.max_turns} turn(s); {meta.llm_calls} model calls; "
            f"{meta.prompt_tokens + meta.completion_tokens} tokens; {meta.seconds:.0f} s; "
            f"{html.escape(', '.join(meta.models))}{checks}</footer></body></html>"
        )

    def render(self, fmt: str) -> str:
        return {
            "md": self.to_markdown,
            "markdown": self.to_markdown,
            "json": self.to_json,
            "html": self.to_html,
        }[fmt]()


class QuickAnswer(BaseModel):
    """The short answer alone, as the decider settled it, with the sources behind it: what ``ask
    --quick`` returns in seconds, and the unit a question over a data room runs per contract."""

    question: str
    contract_id: str
    short_answer: ShortAnswer | None = Field(default=None, description="None: a list or open question.")
    sources: list[Source] = Field(default_factory=list)
    seconds: float = 0.0

    def to_markdown(self) -> str:
        if self.short_answer is None:
            return f"**{self.question}**\n\nNo short answer: this question needs the full report (`ask`).\n"
        lines = [f"**{self.short_answer.text()}**", "", *(f"_{n}_" for n in self.short_answer.notes()), ""]
        for source in self.sources:
            heading = source.node_id + (f" {source.title}" if source.title else "")
            lines += [f'[{source.number}] **{heading}**, {_pages(source)}: "{source.quote}"', ""]
        return "\n".join(lines)
