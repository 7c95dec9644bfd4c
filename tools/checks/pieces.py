"""Evidence pieces: the sentence-sized spans a hypothesis is judged against.

ContractNLI marks evidence as sentences and list items, and a contradiction usually sits in one
sentence of a longer clause ("... provided that the Receiving Party may retain one copy"). The
NLI classifier therefore reads pieces, not whole clauses: each retrieved span is cut at line
breaks and sentence ends. Training (``clausewise train nli``) cuts documents with this same
function, so the model sees at run time the kind of passage it was trained on.
"""

from __future__ import annotations

import re

from clausewise.core.domain import Span
from tools.structure.sentences import sentence_spans

_LINE_BREAK = re.compile(r"\n\s*")
MIN_PIECE_CHARS = 25


def evidence_pieces(text: str, span: Span | None = None, min_chars: int = MIN_PIECE_CHARS) -> list[Span]:
    """Sentence-level spans of ``text[span]``: lines cut into sentences, short fragments merged.

    A line shorter than ``min_chars`` (a heading, "(a)") is merged into the next line so that
    it keeps its context instead of becoming a piece that no hypothesis can be judged against.
    """
    start, end = span if span is not None else (0, len(text))
    lines: list[Span] = []
    position = start
    for match in _LINE_BREAK.finditer(text, start, end):
        lines.append((position, match.start()))
        position = match.end()
    lines.append((position, end))
    merged: list[Span] = []
    pending: int | None = None
    for line_start, line_end in lines:
        if not text[line_start:line_end].strip():
            continue
        first = line_start if pending is None else pending
        if len(text[first:line_end].strip()) < min_chars:
            pending = first
            continue
        merged.append((first, line_end))
        pending = None
    if pending is not None:
        if merged:
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((pending, end))
    pieces: list[Span] = []
    for line_start, line_end in merged:
        pieces.extend(
            sentence_spans(text, line_start, line_end, min_chars=min_chars) or [(line_start, line_end)]
        )
    return [trimmed(text, piece) for piece in pieces if text[piece[0] : piece[1]].strip()]


def trimmed(text: str, span: Span) -> Span:
    """``span`` without the whitespace at either end."""
    start, end = span
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
