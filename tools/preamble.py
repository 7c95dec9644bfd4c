"""What a contract calls itself and whom it binds, read from its first lines: the title and the
parties its preamble names. The library lists contracts by these rather than by file slugs: a
reader recognises "Supply Agreement" between two named companies where "ex-10-3-v2" says
little."""

from __future__ import annotations

import re

from tools.value_reading import PREAMBLE_CHARS, party_reading

#: Words that make a short opening line a document's title.
_DOCUMENT_WORDS = re.compile(
    r"\b(agreement|contract|deed|lease|licen[cs]e|addendum|amendment|memorandum|terms|conditions|"
    r"statement of work|order|charter|policy|undertaking|nda|mou)\b",
    re.I,
)
#: How many opening lines may hold the title, and how long it may be.
TITLE_LINES = 12
TITLE_CHARS = 120


def contract_title(text: str) -> str:
    """The first short opening line written in capitals or naming a kind of document ("MASTER
    SERVICES AGREEMENT"); empty when none of the first lines looks like a title."""
    lines = [" ".join(line.split()) for line in text[:3000].splitlines()]
    for line in [line for line in lines if line][:TITLE_LINES]:
        letters = [ch for ch in line if ch.isalpha()]
        if not letters or len(line) > TITLE_CHARS:
            continue
        capitals = sum(ch.isupper() for ch in letters) / len(letters)
        if capitals > 0.8 or (_DOCUMENT_WORDS.search(line) and not line.endswith((".", ";", ","))):
            return line.strip(" :")
    return ""


def contract_parties(text: str) -> list[str]:
    """The parties the preamble names ("between A and B"), in its order; empty when it names none."""
    reading = party_reading(text, 0, min(len(text), PREAMBLE_CHARS))
    return [name for name, _defined in reading.parties] if reading else []
