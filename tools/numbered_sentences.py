"""The passages an answerer reads, shown as numbered sentences it can pick by number.

For an open question the research turn's only product is which sentences answer it (the report
restates them afterwards, :mod:`agents.finishing`). Asking a small model to copy them out costs
hundreds of generated tokens a turn (30 to 75 seconds on two cores) and some copies fail
verification; asked for their numbers instead, it writes a dozen tokens, and every pick is the
contract's own words by construction.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from clausewise.core.domain import Hit, Span
from indexes.store import ContractIndex
from tools.answering_sentences import passage_sentences
from tools.passages import excerpt_span
from tools.retrieval.spans import overlap


@dataclass(frozen=True)
class NumberedSentence:
    """Sentence ``number`` (1-based over all the passages shown) of passage ``passage``."""

    number: int
    span: Span
    passage: int


def numbered_sentences(
    text: str, hits: Sequence[Hit], passage_chars: int, focus: str = ""
) -> list[NumberedSentence]:
    """The citable sentences of each hit that lie in what a reader given ``passage_chars``
    characters around the sentence most related to ``focus`` sees (the window the answerer's
    passages show), numbered in reading order. A sentence the window cuts is shown whole."""
    windows = [excerpt_span(hit.span, hit.text, passage_chars, focus) for hit in hits]
    sentences = passage_sentences(text, [hit.span for hit in hits])
    shown = [(span, passage) for span, passage in sentences if overlap(span, windows[passage - 1])]
    return [NumberedSentence(n, span, passage) for n, (span, passage) in enumerate(shown, start=1)]


def render_numbered(index: ContractIndex, hits: Sequence[Hit], sentences: Sequence[NumberedSentence]) -> str:
    """The passages for a prompt: each one's heading and page, then its sentences one per line as
    "(n) text", whitespace collapsed."""
    text = index.document.text
    blocks = []
    for number, hit in enumerate(hits, start=1):
        own = [s for s in sentences if s.passage == number]
        if not own:
            continue
        node = index.tree.node(hit.node_id)
        heading = node.heading or hit.node_id
        lines = "\n".join(f"({s.number}) {' '.join(text[s.span[0] : s.span[1]].split())}" for s in own)
        blocks.append(f"Passage {number}: {heading} (p. {hit.pages[0]})\n{lines}")
    return "\n\n".join(blocks)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def picked_sentence(
    number: int, opens: str, sentences: Sequence[NumberedSentence], text: str
) -> NumberedSentence | None:
    """The sentence a pick names: sentence ``number`` when its words begin with the words of
    ``opens`` (or ``opens`` is empty), else the one sentence shown whose words begin with them (a
    small model miscounts more often than it miscopies), else None: the pick names no sentence."""
    wanted = _words(opens)

    def starts(s: NumberedSentence) -> bool:
        words = _words(text[s.span[0] : s.span[1]])
        return words[: len(wanted)] == wanted

    by_number = {s.number: s for s in sentences}
    named = by_number.get(number)
    if named is not None and (not wanted or starts(named)):
        return named
    if not wanted:
        return None
    matching = [s for s in sentences if starts(s)]
    return matching[0] if len(matching) == 1 else None
