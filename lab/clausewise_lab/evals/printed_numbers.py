"""The section numbers a contract prints, read from its text alone: the scorer of clause trees.

``clausewise eval ingest`` asks of every gold clause whether the clause tree files it under the
number a lawyer sees printed above it. That number is read here, from the raw text, by rules of
their own: this module imports nothing from ``tools.structure`` (the tree builder it scores), so a
mistake shared by the builder and its judge cannot hide. Its readings are checked by hand on a
sample kept in ``tests/test_printed_numbers.py``.

What counts as a printed section number:

- a decimal number "10.", "10.5", "4.2.1", a keyword number "Section 4.10", "ARTICLE IV",
  "Article 3", or a roman numeral before a heading in capitals at a line start ("XVII.  RIGHTS
  AND DUTIES", when the contract prints at least three), standing where a heading stands: at a
  line start, after a wide gap (a flattened page), after a sentence end ("... obligations. 10.
  Limitation of Liability."), or, for multi-level numbers and keyword numbers, right after a
  heading's capitalised last word ("1. TERMS OF AGREEMENT 1.1 Commencement", "1. Grant of
  Rights 1.1 Subject to ...");
- followed by a capitalised word or a quoted term, not by a lowercase word (then it is an amount
  or a cross-reference: "1.5 million", "Article 3 of the Lease"), unless it stands at a line
  start with its text set off by a wide space ("1.       mPhase may apply ..."); a number without a dot
  ("14     GENERAL PROVISIONS", "2 TERM AND RENEWAL") only before an all-caps heading on the
  same line;
- not preceded by a referring word ("Section", "and", "to", "under", "$"...);
- continuing the numbering already read (10.4 then 10.5 or 11 or 10.4.1, a restart at 1, or a
  skip of one number that was missed), so that a stray "2." in running text is not read.

A table of contents is not read (runs of numbers each followed by a short title only). An "IN
WITNESS WHEREOF" or an exhibit heading at a line start ("EXHIBIT B", "ATTACHMENT A
ACKNOWLEDGEMENT OF SUPPORT ...", not one repeated on every page) or at a sentence start with a
title ("... disclosed. Schedule 1 Brand Development and Launch To ...") ends the numbering: what follows
sits under no printed number until the next one.

Lettered items ("A.", "B.", "(a)", "(b)", "(xxxvi)" at a line start) are not section numbers,
but they end a numbered list printed inside the item before them: "B. ... the following
conditions: 1. ... 7. ...", then "C. Within ninety (90) days ...": "C." continues the letters, so
the number above it is again the one above "B." (section II), not the list's "7".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Path = tuple[str, ...]

_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty"
).split()


@dataclass(frozen=True)
class PrintedNumber:
    """A section number printed in the text (``kind`` "article" or "section"), or the end of the
    numbered body (``kind`` "reset": signatures, an exhibit)."""

    start: int
    kind: Literal["article", "section", "reset"]
    path: Path = ()

    @property
    def label(self) -> str:
        if self.kind == "reset":
            return ""
        return ("Article " if self.kind == "article" else "") + ".".join(self.path)


def roman_value(token: str) -> int | None:
    """The value of a roman numeral of i, v, x, l, c (the scorer's own reading, apart from the
    tree builder's); None when ``token`` has other letters."""
    token = token.lower()
    if not token or any(ch not in _ROMAN for ch in token):
        return None
    total = 0
    for i, ch in enumerate(token):
        value = _ROMAN[ch]
        total += -value if i + 1 < len(token) and _ROMAN[token[i + 1]] > value else value
    return total


def _article_value(token: str) -> str | None:
    if token.isdigit():
        return str(int(token))
    if token.lower() in _WORDS:
        return str(_WORDS.index(token.lower()) + 1)
    value = roman_value(token)
    return str(value) if value and 0 < value < 100 else None


_KEYWORD = re.compile(
    r"(?:(?P<kw>ARTICLE|Article|PART|Part|CHAPTER|Chapter|SECTION|Section)\s+|(?P<short>Sec\.|§)\s*)"
    r"(?P<num>\d{1,3}(?:\.\d{1,3}){0,3}|[IVXLivxl]{1,7}|[A-Za-z]{3,9})\b(?P<punct>[.:)]?)"
)
#: "XVII.  RIGHTS AND DUTIES OF PARTIES": an upper-case roman numeral and a dot at a line start,
#: then a heading in capitals
_ROMAN_HEADING = re.compile(r"(?m)^[ \t]*(?P<num>[IVXL]{1,7})\.[ \t]+(?=[A-Z][A-Z&'’,-]{2,}(?:[\s,;:.]|$))")
#: a contract numbers its sections in roman numerals when it prints this many such headings
_ROMAN_HEADINGS = 3
_DECIMAL = re.compile(r"(?P<num>\d{1,3}(?:\.\d{1,3}){0,3}(?:\.[A-Z](?![A-Za-z]))?)(?P<punct>\.?)")
_RESET = re.compile(
    r"IN WITNESS WHEREOF|In Witness Whereof|(?:EXHIBIT|SCHEDULE|ANNEX|APPENDIX|ATTACHMENT|Exhibit|Schedule"
    r"|Annex|Appendix|Attachment)\s+[A-Z0-9][A-Z0-9.-]{0,5}[ \t]*(?:\n|$|[-–—:]|\s{3,})"
    r"|(?:EXHIBIT|SCHEDULE|ANNEX|APPENDIX|ATTACHMENT)\s+[A-Z0-9][A-Z0-9.-]{0,5}\s+[A-Z][A-Z]+\b"
)
#: "... disclosed. Schedule 1 Brand Development and Launch To facilitate ...": a run-on exhibit title
_RUN_ON_RESET = re.compile(
    r"(?:Exhibit|Schedule|Annex|Appendix|Attachment)\s+[A-Z0-9][A-Z0-9.-]{0,5}\s+[A-Z][a-z]+\s+[A-Z][a-z]+"
)
_REFERRING = re.compile(
    r"(?:\b(?:sections?|articles?|clauses?|paragraphs?|subsections?|schedules?|exhibits?|annex|no|nos|and|or|to"
    r"|of|in|under|per|through|with|by|see|than|about|this|that|such|said|its|their|approximately|least|page|pages|rule|item|form|act|code"
    r"|u\.s\.c|cfr|chapter|title|version|v|vol|usd|us|rmb|eur|gbp|inr|hk|dollars?)\.?|[$€£¥#/,&+=-])\s*$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?:[.;:!?][\"”’)\]*]*|:-)\s+$")
_CAPITAL_WORD_END = re.compile(r"(?:^|\s)[A-Z][A-Za-z&'’,-]*[A-Za-z][)\"”]?\s+$")
_LINE_START = re.compile(r"(?:^|\n)[ \t]*$")
_WIDE_GAP = re.compile(r"\S[ \t\u00a0]{3,}$")
_CAPITALS_AFTER = re.compile(
    r"[ \t\u00a0]+(?!(?:ARTICLE|SECTION|EXHIBIT|SCHEDULE|ANNEX|APPENDIX|ATTACHMENT|PART|PAGE|TABLE)\b)"
    r"[A-Z][A-Z&'’-]{2,}(?:[\s,;:.]|$)"
)
#: "1.       mPhase may apply ...": a numbered paragraph at a line start, its text set off by a
#: wide space, may open with a lowercase name
_SET_OFF_TEXT = re.compile(r"(?:[ \t\u00a0]{2,}|\t)[A-Za-z]")
#: what follows a section number: its heading or text, capitalised, perhaps quoted or bracketed
#: ("Section 9.11  [Governing Law]. Governing Law. This Agreement ...")
_FOLLOWER = re.compile(r"\s+(?:[-–—:]\s*)?[\"“'‘(\[]?[A-Z]")


def _position(text: str, start: int) -> str | None:
    """How the text just before ``start`` sets a number apart: "line", "gap", "sentence", "word"
    (after a capitalised word: the end of a heading), or None (inside running text)."""
    before = text[max(0, start - 60) : start]
    if _LINE_START.search(before):
        return "line"
    if _SENTENCE_END.search(before):
        return "sentence"
    if _REFERRING.search(before):
        return None
    if _WIDE_GAP.search(before):
        return "gap"
    if _CAPITAL_WORD_END.search(before):
        return "word"
    return None


def _followed_by_heading_or_text(text: str, end: int, allow_newline: bool) -> bool:
    m = _FOLLOWER.match(text, end)
    if m is None:
        return False
    return allow_newline or "\n" not in text[end : m.end()]


def _candidates(text: str) -> list[PrintedNumber]:
    found: dict[int, PrintedNumber] = {}
    for m in _KEYWORD.finditer(text):
        position = _position(text, m.start())
        tight = m.group("punct") == "." and text[m.end() : m.end() + 1].isupper()  # "Article 4.Effectiveness"
        if position is None or not (tight or _followed_by_heading_or_text(text, m.end(), True)):
            continue
        keyword = (m.group("kw") or m.group("short")).lower()
        raw = m.group("num")
        if keyword in {"article", "part", "chapter"}:
            value = _article_value(raw)
            if value is None or "." in raw:
                continue
            found[m.start()] = PrintedNumber(m.start(), "article", (value,))
        elif raw[0].isdigit():
            found[m.start()] = PrintedNumber(m.start(), "section", tuple(str(int(p)) for p in raw.split(".")))
    romans = [(m, roman_value(m.group("num"))) for m in _ROMAN_HEADING.finditer(text)]
    romans = [(m, value) for m, value in romans if value and value < 100]
    if len(romans) >= _ROMAN_HEADINGS:
        for m, value in romans:
            found[m.start("num")] = PrintedNumber(m.start("num"), "article", (str(value),))
    for m in _DECIMAL.finditer(text):
        if m.start() in found or (
            m.start() > 0 and (text[m.start() - 1].isalnum() or text[m.start() - 1] in ".")
        ):
            continue
        raw = m.group("num")
        parts = raw.split(".")
        dotted = bool(m.group("punct")) or len(parts) > 1
        if text[m.end() : m.end() + 1].isalnum():
            continue  # "2.5%"
        if not dotted and not _CAPITALS_AFTER.match(text, m.end()):
            continue  # "10 days": a bare number is a quantity, unless an all-caps heading follows
        position = _position(text, m.start())
        if position is None or (position == "word" and len(parts) == 1):
            continue
        if not dotted and position == "gap":
            continue  # "2    3    CONFIDENTIAL": page numbers and a running header
        set_off = position == "line" and bool(m.group("punct")) and _SET_OFF_TEXT.match(text, m.end())
        if not set_off and not _followed_by_heading_or_text(text, m.end(), allow_newline=True):
            continue
        path = tuple(p if p.isalpha() else str(int(p)) for p in parts)
        if path[0] == "0" or int(path[0]) > 150:
            continue
        found[m.start()] = PrintedNumber(m.start(), "section", path)
    lines: dict[str, int] = {}
    for line in text.split("\n"):
        key = " ".join(line.split()).lower()
        lines[key] = lines.get(key, 0) + 1
    for m in _RESET.finditer(text):
        line_end = text.find("\n", m.start())
        line = " ".join(text[m.start() : line_end if line_end >= 0 else len(text)].split()).lower()
        if lines.get(line, 0) >= _RUNNING_REPEATS:
            continue  # "Exhibit 10.38" at the top of every page: a running header
        if _position(text, m.start()) in {"line", "gap"} or m.group(0).lower().startswith("in witness"):
            found.setdefault(m.start(), PrintedNumber(m.start(), "reset"))
    for m in _RUN_ON_RESET.finditer(text):
        if _position(text, m.start()) == "sentence":
            found.setdefault(m.start(), PrintedNumber(m.start(), "reset"))
    return [found[k] for k in sorted(found)]


def _key(path: Path) -> Path:
    """ "2.0" numbers section 2 in the style of its sub-sections: it follows and is followed as 2."""
    return path[:1] if len(path) == 2 and path[1] == "0" else path


def _successors(path: Path) -> set[Path]:
    """Numbers that may follow ``path``: the next at any level (one may have been missed), the
    first below it, and the next at a level above followed by first sub-numbers."""
    result: set[Path] = {(*path, "1")}
    for level, part in enumerate(path):
        if not part.isdigit():
            continue
        for step in (1, 2):
            bumped = (*path[:level], str(int(part) + step))
            result.add(bumped)
            result.add((*bumped, "1"))
            result.add((*bumped, "1", "1"))
    return result


def _is_first(path: Path) -> bool:
    return path[0] == "1" and all(part in {"0", "1", "A"} for part in path[1:])


#: A line printed this many times is a running header, never the start of an exhibit.
_RUNNING_REPEATS = 3
#: A table of contents: this many numbers in a row, each followed by at most a title.
_CONTENTS_RUN = 4
_CONTENTS_ENTRY_WORDS = 15
#: "ARTICLE 15 Miscellaneous 43": an entry of a contents page, a title and its page number, or
#: with the page number run into a title in capitals ("ARTICLE I : DEFINITIONS1"), perhaps after
#: its sections' entries on the same line ("... 2.3 Owner Cooperation    5")
_PAGE_NUMBERED_LINE = re.compile(r"[^\n]{0,600}?(?:[A-Za-z)][ \t.]+|[A-Z]{2})\d{1,3}[ \t]*(?:\n|$)")
#: The body starts at the first number followed by this many words: contents come before it.
_BODY_WORDS = 60


def _without_contents(text: str, candidates: list[PrintedNumber]) -> list[PrintedNumber]:
    """Runs of numbers each followed only by a short title and the next entry on the same line
    ("22.1 Governing Law   22.2 Venue ...") or by a title and a page number ("ARTICLE 1
    Definitions 1"), before the first number followed by a real section, are a table of
    contents: dropped, with a reset where the run ends, so that the cover and preamble after the
    contents sit under no number."""
    short = [
        candidate.kind != "reset"
        and (
            _PAGE_NUMBERED_LINE.match(text, candidate.start) is not None
            or (
                _words_after(text, candidates, index) <= _CONTENTS_ENTRY_WORDS
                and _shares_line(text, candidates, index)
            )
        )
        for index, candidate in enumerate(candidates)
    ]
    kept: list[PrintedNumber] = []
    index = 0
    body = next(
        (
            i
            for i, c in enumerate(candidates)
            if c.kind != "reset" and not short[i] and _words_after(text, candidates, i) > _BODY_WORDS
        ),
        0,
    )
    while index < body:
        run_end = index
        while run_end < len(candidates) and short[run_end]:
            run_end += 1
        if run_end - index >= _CONTENTS_RUN:
            last = candidates[run_end - 1]
            kept.append(PrintedNumber(last.start + 1, "reset"))
            index = run_end
            continue
        kept.append(candidates[index])
        index += 1
    return kept + candidates[max(index, body) :]


def _shares_line(text: str, candidates: list[PrintedNumber], index: int) -> bool:
    """The next number is on the same line: a contents page flattened onto one line."""
    return (
        index + 1 < len(candidates)
        and "\n" not in text[candidates[index].start : candidates[index + 1].start]
    )


def _words_after(text: str, candidates: list[PrintedNumber], index: int) -> int:
    end = candidates[index + 1].start if index + 1 < len(candidates) else len(text)
    return len(text[candidates[index].start : end].split())


#: "C.   Within ninety (90) days": a capital letter and a dot at a line start, then text
_LETTER_ITEM = re.compile(
    r"(?m)^[ \t]*(?:(?P<upper>[A-Z])\.[ \t]+(?=[\"“A-Z])|\((?P<lower>[a-z]|[ivxl]{1,7})\)[ \t]+(?=\S))"
)  # "(p) The deposit accounts ...", "(xxxvi) To the knowledge of ...": items in parentheses


@dataclass
class _Letters:
    """The lettered items of the current section: the last letter, the number in force when it
    was printed, and whether numbers were printed since (a list inside the item)."""

    last: int | None = None
    number: PrintedNumber | None = None
    numbers_since: bool = False
    nested: bool = False  # the numbers since the last letter are a list restarting at 1

    def number_read(self, path: Path) -> None:
        """A number after the last letter: a list inside its item when it restarts at 1 and stays
        one level deep ("1.", "2."); a new section ("5.", "5.01") otherwise."""
        if self.last is None:
            return
        self.nested = path == ("1",) if not self.numbers_since else self.nested and len(path) == 1
        self.numbers_since = True

    def after(self, value: int, current: PrintedNumber | None, start: int) -> PrintedNumber | None:
        """Read the letter ``value``; returns the number it brings back, if it ends a list."""
        back = None
        if value != 1 and (self.last is None or value != self.last + 1):
            return None
        if value != 1 and self.numbers_since and self.nested and self.number is not None:
            back = PrintedNumber(start, self.number.kind, self.number.path)
        else:
            self.number = current  # the number in force where the previous letter was printed
        self.last = value
        self.numbers_since = False
        return back


def _fresh_letters() -> dict[str, _Letters]:
    """No lettered items read yet, in any of the sequences an item label may continue."""
    return {"upper": _Letters(), "lower": _Letters(), "roman": _Letters()}


def _item_readings(m: re.Match[str]) -> list[tuple[str, int]]:
    """The sequences an item label may continue: "C." the capitals, "(c)" the letters, "(xxxvi)"
    the roman numerals; "(v)", "(x)", "(i)" either of the last two (the numbering decides)."""
    if m.group("upper"):
        return [("upper", ord(m.group("upper")) - 64)]
    token = m.group("lower")
    readings = [("lower", ord(token) - 96)] if len(token) == 1 else []
    if set(token) <= set("ivxl") and (value := roman_value(token)):
        readings.append(("roman", value))
    return readings


def printed_numbers(text: str) -> list[PrintedNumber]:
    """The section numbers printed in ``text`` and the resets, in text order (see module doc)."""
    accepted: list[PrintedNumber] = []
    recent: list[Path] = []  # the latest numbers, innermost last
    deepest: Path | None = None  # the latest multi-level number: lists inside it never hide it
    last_article: str | None = None
    letters = _fresh_letters()
    candidates = _without_contents(text, _candidates(text))
    taken = {c.start for c in candidates}
    items = [(m.start(), item) for m in _LETTER_ITEM.finditer(text) for item in _item_readings(m)]
    events = sorted(
        [(c.start, c) for c in candidates] + [i for i in items if i[0] not in taken], key=lambda e: e[0]
    )
    for start, event in events:
        if isinstance(event, tuple):
            current = accepted[-1] if accepted and accepted[-1].kind != "reset" else None
            style, value = event
            if (back := letters[style].after(value, current, start)) is not None:
                accepted.append(back)
                recent = [*recent[-7:], back.path]
            continue
        candidate = event
        if candidate.kind == "reset":
            if accepted and accepted[-1].kind != "reset":
                accepted.append(candidate)
            letters = _fresh_letters()
            continue
        if candidate.kind == "article":
            value = candidate.path[0]
            if last_article is None or value in {"1", str(int(last_article) + 1), str(int(last_article) + 2)}:
                accepted.append(candidate)
                last_article = value
                recent = [candidate.path]
                letters = _fresh_letters()
            continue
        path = candidate.path
        context = recent[-6:] + ([deepest] if deepest else [])
        fits = _is_first(_key(path)) or any(_key(path) in _successors(_key(p)) for p in context)
        if not fits:
            continue
        accepted.append(candidate)
        for style in letters.values():
            style.number_read(path)
        recent = [*recent[-7:], path]
        if len(_key(path)) > 1 or deepest is None or len(deepest) == 1:
            deepest = path
    return accepted


def number_above(numbers: list[PrintedNumber], start: int, end: int) -> PrintedNumber | None:
    """The number printed above a clause ``[start, end)`` (or at its very start); when the clause
    runs over further numbers, their common ancestor ("10.4" and "10.5": "10"); None when nothing
    numbered is above it, the last marker above is a reset, or the numbers it runs over share no
    ancestor."""
    above = None
    inside: list[PrintedNumber] = []
    for number in numbers:
        if number.start <= start:
            above = number
        elif number.start < end:
            inside.append(number)
        else:
            break
    if above is None or above.kind == "reset":
        return None
    if any(n.kind == "reset" for n in inside):
        return None
    path = above.path
    kind = above.kind
    for other in inside:
        if other.kind == "article":
            if kind != "article" or other.path != path:
                return None
            continue
        common = 0
        while common < min(len(path), len(other.path)) and path[common] == other.path[common]:
            common += 1
        if kind == "article":
            if other.path[:1] != path:
                return None
            continue
        path = path[:common]
        if not path:
            return None
    return PrintedNumber(above.start, kind, path)
