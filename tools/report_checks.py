"""Deterministic checks of a report before it reaches the user (used by the Interrogator).

Three kinds of failure, each named so the writer can repair it once:
- a source whose quote is not the contract's text at the source's span;
- an in-text reference ``[n]`` with no source n;
- a quotation written in the text itself that does not occur in the contract.
What a repair does not fix is removed, and the report says what was removed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from clausewise.core.report import REFERENCE, Source
from clausewise.core.results import Draft, Finding, VerifiedCitation
from tools.citations import QuoteVerifier

#: A quotation in report prose. Quotation marks pair in order, whatever the length between them:
#: a length bound in the pattern skipped the opening mark of a long quote (a clause quoted with
#: its list, up to 800 characters) and paired its closing mark with the next line's opening one.
_INLINE_QUOTE = re.compile(r"[\"“]([^\"”]*)[\"”]")
#: Shortest quotation checked: a quoted term ("Affiliate") is a name, not a claim on the text.
QUOTE_MIN_CHARS = 12
#: A break between two sentences: after . ; ! or ? (or a quotation they close), before a capital,
#: a parenthesis or a quotation mark (so "e.g. section 4" and "3.1 (a)" stay whole); never after
#: an initial, a capital letter standing alone before its full stop ("U. P. S.", "J. R. Smith"), as
#: the contract's own splitter reads it (:mod:`tools.structure.sentences`): a courier written
#: "(e.g., U. P. S.)" was three sentences, and the first was cited as "(e.g., U [1]." (rule "an
#: initial ends no sentence").
_SENTENCE = re.compile(r"(?:(?<=[.;!?])|(?<=[.;!?][\"”]))(?<![\s(.,][A-Z]\.)\s+(?=[A-Z(\"“])")


def plain_sentences(text: str) -> list[str]:
    """The sentences of a contract's text (a source's quote): broken at every sentence end."""
    return [s for s in _SENTENCE.split(text) if s.strip()]


def prose_sentences(text: str) -> list[str]:
    """The sentences of a report text, as the checks remove them (a claim each).

    Rule ``a quotation is part of its sentence``: no break inside a closed quotation, so
    '5.6 provides: "5.6 Ownership of IP. The Parties agree ..." [1]' is one claim, checked whole
    against its source; cut at the quote's own full stop, each piece had half a quotation and
    failed the quote rule. A sentence written after a closing quotation is a claim of its own
    ('... "will be Delaware." So either party may ...')."""
    quoted = [m.span() for m in _INLINE_QUOTE.finditer(text)]
    pieces: list[str] = []
    start = 0
    for gap in _SENTENCE.finditer(text):
        if any(a < gap.start() < b for a, b in quoted):
            continue
        pieces.append(text[start : gap.start()])
        start = gap.end()
    pieces.append(text[start:])
    return [s for s in pieces if s.strip()]


def rewrite_texts(draft: Draft, clean: Callable[[str], str]) -> Draft:
    """``draft`` with ``clean`` applied to every text it shows (short answer, summary, each
    finding, preliminary answer); a finding left empty is dropped. Gaps are the caller's: each
    removal states its own."""
    reasoning = [r for r in (clean(item) for item in draft.reasoning) if r]
    return draft.model_copy(
        update={
            "short_answer": clean(draft.short_answer),
            "summary": clean(draft.summary),
            "reasoning": reasoning,
            "preliminary_answer": clean(draft.preliminary_answer),
        }
    )


def number_sources(findings: list[Finding]) -> list[Source]:
    """Every verified citation of the findings, numbered [1..n] in order of first appearance
    (the same span cited twice is one source)."""
    sources: list[Source] = []
    seen: dict[tuple[str, tuple[int, int]], int] = {}
    for finding in findings:
        for citation in finding.citations:
            key = (citation.contract_id, citation.span)
            if key in seen:
                continue
            seen[key] = len(sources) + 1
            sources.append(_source(len(sources) + 1, citation))
    return sources


def _source(number: int, citation: VerifiedCitation) -> Source:
    return Source(
        number=number,
        contract_id=citation.contract_id,
        node_id=citation.node_id,
        title=citation.title,
        pages=citation.pages,
        span=citation.span,
        quote=citation.quote,
        exact=citation.exact,
    )


def evidence_findings(sources: list[Source], limit: int = 5, quote_chars: int = 300) -> list[str]:
    """Key findings stated from the verified sources themselves, one per clause: what the report
    shows when the writer model left its reasoning empty although evidence was found (small
    models do). Each quotes the contract verbatim (a long quote is cut at a word, the ellipsis
    outside the quotation marks) and points to its source."""
    findings = []
    for source in sources[:limit]:
        quote = " ".join(source.quote.split())
        if len(quote) > quote_chars:
            quote = quote[:quote_chars].rsplit(" ", 1)[0] + '" ...'
        else:
            quote += '"'
        place = source.node_id if source.title in ("", source.node_id) else f"{source.node_id} {source.title}"
        pages = f", p. {', '.join(str(p) for p in source.pages)}" if source.pages else ""
        findings.append(f'{place}{pages} provides: "{quote} [{source.number}]')
    return findings


def _texts(draft: Draft) -> list[str]:
    return [draft.short_answer, draft.summary, *draft.reasoning, draft.preliminary_answer, *draft.gaps]


@dataclass
class Failures:
    bad_sources: list[int] = field(default_factory=list)
    bad_references: list[int] = field(default_factory=list)
    bad_quotations: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.bad_sources or self.bad_references or self.bad_quotations)

    def describe(self) -> list[str]:
        return (
            [f"source [{n}]: its quote is not the contract's text at its span" for n in self.bad_sources]
            + [f"reference [{n}] points to no source" for n in self.bad_references]
            + [f'the quotation "{q}" does not occur in the contract' for q in self.bad_quotations]
        )


def check(draft: Draft, sources: list[Source], verifier: QuoteVerifier) -> Failures:
    failures = Failures()
    numbers = {s.number for s in sources}
    failures.bad_sources = [s.number for s in sources if not verifier.is_at(s.quote, s.span)]
    valid = numbers - set(failures.bad_sources)
    for text in _texts(draft):
        for match in REFERENCE.finditer(text):
            number = int(match.group(1))
            if number not in valid and number not in failures.bad_references:
                failures.bad_references.append(number)
        for match in _INLINE_QUOTE.finditer(text):
            quotation = match.group(1).strip()
            if len(quotation) < QUOTE_MIN_CHARS or len(quotation.split()) < 3:
                continue
            if verifier.verify(quotation) is None:
                failures.bad_quotations.append(quotation)
    return failures


def remove_failures(draft: Draft, failures: Failures) -> Draft:
    """Drop invalid references and every sentence carrying an unverifiable quotation."""

    def clean(text: str) -> str:
        text = REFERENCE.sub(
            lambda m: "" if int(m.group(1)) in failures.bad_references + failures.bad_sources else m.group(0),
            text,
        )
        sentences = [s for s in prose_sentences(text) if not any(q in s for q in failures.bad_quotations)]
        return re.sub(r"\s+([.,;])", r"\1", " ".join(sentences)).strip()

    gaps = [g for g in (clean(item) for item in draft.gaps) if g]
    removed = failures.describe()
    gaps.append(
        "Some statements were removed because their citations could not be verified against the "
        f"contract ({len(removed)} failure(s)); they should be researched again."
    )
    return rewrite_texts(draft, clean).model_copy(update={"gaps": gaps})
