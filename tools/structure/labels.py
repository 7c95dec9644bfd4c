"""Recognise the numbering label at the start of a block ("12.4", "(a)", "ARTICLE IV", "§ 3").

A label can be read several ways ("(i)" is roman one or the letter after "(h)"); this module only
lists the readings. The tree builder picks one from the numbering context.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        """one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen
        sixteen seventeen eighteen nineteen twenty""".split(),
        start=1,
    )
}


def roman_to_int(token: str) -> int | None:
    """Value of a lowercase/uppercase roman numeral made of i, v, x, l, c; None if malformed."""
    token = token.lower()
    if not token or any(ch not in _ROMAN_VALUES for ch in token):
        return None
    total = 0
    for i, ch in enumerate(token):
        value = _ROMAN_VALUES[ch]
        if i + 1 < len(token) and _ROMAN_VALUES[token[i + 1]] > value:
            total -= value
        else:
            total += value
    return total if int_to_roman(total) == token else None


def int_to_roman(value: int) -> str:
    parts = []
    for number, letters in (
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ):
        while value >= number:
            parts.append(letters)
            value -= number
    return "".join(parts)


def letter_value(token: str) -> int | None:
    """'a' -> 1 ... 'z' -> 26, 'aa' -> 27 (doubled letters continue some lists)."""
    token = token.lower()
    if len(token) == 1 and token.isalpha():
        return ord(token) - 96
    if len(token) == 2 and token[0] == token[1] and token.isalpha():
        return 26 + ord(token[0]) - 96
    return None


@dataclass(frozen=True)
class Reading:
    """One interpretation of a label.

    ``style`` groups labels that are siblings of each other ("paren-alpha", "decimal", ...);
    ``path`` is the number sequence (one element except for decimal paths like 4.2.1).
    """

    style: str
    path: tuple[int, ...]

    @property
    def value(self) -> int:
        return self.path[-1]


@dataclass(frozen=True)
class Label:
    raw: str
    end: int  # offset just after the label (and its trailing punctuation) within the block text
    readings: tuple[Reading, ...]
    keyword: str = ""  # "article", "section", "schedule", ... when the label has one

    @property
    def canonical(self) -> str:
        """The label as used in node ids: '4.2', '(a)', 'Article IV', 'Schedule B'; '' for bullets."""
        raw = self.raw.strip().rstrip(".:")
        style = self.readings[0].style
        if self.keyword in {"article", "schedule"}:
            word, _, ident = raw.partition(" ")
            ident = ident.strip()
            if self.keyword == "article" and not ident.isdigit():
                ident = ident.upper() if roman_to_int(ident) else ident.capitalize()
            return f"{word.capitalize()} {ident}"
        if self.keyword == "section":
            return _strip_keyword(raw)
        if style == "article":
            return raw.upper()  # "XVII. RIGHTS AND DUTIES ...": the numeral as printed
        if style == "bullet":
            return ""
        if style == "decimal":
            return raw.rstrip(".)")
        return "(" + raw.strip("().") + ")"

    def canonical_for(self, reading: Reading | None) -> str:
        """The label as named by the reading the tree builder chose: a roman section heading
        read as the ninth item of a lettered list ("I. INSURANCE" after "H.") is "(I)"."""
        if reading is not None and reading.style != "article" and self.readings[0].style == "article":
            return "(" + self.raw.strip().rstrip(".:") + ")"
        return self.canonical


def roman_section(label: Label, title: str) -> Label:
    """ "XVII.  RIGHTS AND DUTIES OF PARTIES", "II. INDEPENDENT CONTRACTOR": an upper-case roman
    numeral with a dot before an all-caps title numbers a top-level section, as "ARTICLE XVII"
    would, rather than an item of a list (a title in capitals is a heading, not a list entry).
    The list readings stay, so the numbering context still decides ("I. INSURANCE" after "H.")."""
    roman = next((r for r in label.readings if r.style == "dot-roman-upper"), None)
    if roman is None or label.keyword or not title or not _ALL_CAPS_TITLE.match(title):
        return label
    return Label(label.raw, label.end, (Reading("article", roman.path), *label.readings))


#: a title in capitals of at least one real word ("SERVICES", "RIGHTS AND DUTIES OF PARTIES")
_ALL_CAPS_TITLE = re.compile(r"^(?=[^a-z]*$)[^A-Za-z]*[A-Z]{3,}")


def _strip_keyword(raw: str) -> str:
    return re.sub(r"^(?:sections?|sec\.|clause|§+)\s*", "", raw, flags=re.IGNORECASE).strip()


_ARTICLE = re.compile(
    r"^(article|part|chapter)\s+([ivxlc]+|\d+|" + "|".join(_NUMBER_WORDS) + r")\b\.?:?",
    re.IGNORECASE,
)
_SECTION = re.compile(
    r"^(?:section|sec\.|clause|§+)\s*(\d+(?:\.\d+)*)([a-z])?((?:\([a-z0-9]{1,4}\))*)\.?:?", re.IGNORECASE
)
_SCHEDULE = re.compile(
    r"^((?:S(?i:chedule)|E(?i:xhibit)|A(?i:nnex|ppendix|ttachment|ddendum)))\s+"
    r"((?:[A-Z]{1,3}|\d{1,3}|[IVX]{1,5})(?:[-.]\d{1,3})?)\b\.?:?"
)
# 1.  1.1  1.1.1  1.1.  2.A.  10)   (decimal paths must be followed by whitespace)
_DECIMAL = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){0,4})(\.[A-Z])?(\.|\))?(?=\s|$)")
_PAREN = re.compile(r"^\(([a-zA-Z]{1,2}|[ivxlcIVXLC]{1,6}|\d{1,3})\)")
_LETTER = re.compile(r"^([a-zA-Z]{1,2}|[ivxlcIVXLC]{1,6})([.)])(?=\s|$)")
_BULLET = re.compile(r"^([\u2022\u25cf\u25aa\u25a0\u25e6\u2023\u2043\u2219\u00b7*\u2013\u2014-]|o)(?=\s)")


def _alpha_readings(token: str, prefix: str) -> list[Reading]:
    """Roman and/or letter readings of a token like 'i', 'iv', 'c', 'A'."""
    case = "upper" if token.isupper() else "lower"
    roman = roman_to_int(token) if set(token.lower()) <= {"i", "v", "x", "l"} else None
    letter = letter_value(token)
    as_roman = [Reading(f"{prefix}roman-{case}", (roman,))] if roman is not None else []
    as_letter = [Reading(f"{prefix}alpha-{case}", (letter,))] if letter is not None else []
    # "ii", "iv" and "i" are far more often roman; "v", "x", "l" alone more often letters.
    if len(token) > 1 or token.lower() == "i":
        return as_roman + as_letter
    return as_letter + as_roman


def _zero_subsection(path: tuple[int, ...]) -> tuple[int, ...]:
    """ "2.0 SCOPE OF RELATIONSHIP" is section 2 itself, numbered in the style of its sub-sections
    "2.1", "2.2": its path is (2,), so that 2.1 nests under it and it follows 1.62."""
    return path[:1] if len(path) == 2 and path[1] == 0 and path[0] > 0 else path


def parse_label(text: str) -> Label | None:
    """The label at the start of ``text`` (already stripped of leading spaces), or None."""
    if not text:
        return None
    if m := _ARTICLE.match(text):
        ident = m.group(2).lower()
        value = int(ident) if ident.isdigit() else _NUMBER_WORDS.get(ident) or roman_to_int(ident)
        if value:
            return Label(m.group(0), m.end(), (Reading("article", (value,)),), keyword="article")
    if m := _SECTION.match(text):
        path = _zero_subsection(tuple(int(p) for p in m.group(1).split(".")))
        style = "decimal"
        return Label(m.group(0), m.end(), (Reading(style, path),), keyword="section")
    if m := _SCHEDULE.match(text):
        return Label(m.group(0), m.end(), (Reading("schedule", (0,)),), keyword="schedule")
    if m := _DECIMAL.match(text):
        path = tuple(int(p) for p in m.group(1).split("."))
        if m.group(2):  # "2.A." : a lettered subdivision of section 2
            path = (*path, ord(m.group(2)[1]) - 64)
        closer = m.group(3) or ""
        if len(path) == 1 and not closer:
            return None  # a bare number ("10 days") is not a label
        if closer == ")" and len(path) == 1:
            return Label(m.group(0), m.end(), (Reading("digit-paren", path),))
        if max(path) == 0 or path[0] > 200:
            return None
        return Label(m.group(0), m.end(), (Reading("decimal", _zero_subsection(path)),))
    if m := _PAREN.match(text):
        token = m.group(1)
        if token.isdigit():
            return Label(m.group(0), m.end(), (Reading("paren-digit", (int(token),)),))
        readings = _alpha_readings(token, "paren-")
        return Label(m.group(0), m.end(), tuple(readings)) if readings else None
    if m := _LETTER.match(text):
        token, closer = m.group(1), m.group(2)
        suffix = "dot-" if closer == "." else "rparen-"
        readings = _alpha_readings(token, suffix)
        # Words like "A." or "I." at a sentence start are labels only when a capital follows.
        return Label(m.group(0), m.end(), tuple(readings)) if readings else None
    if m := _BULLET.match(text):
        return Label(m.group(0), m.end(), (Reading("bullet", (0,)),))
    return None


#: The space between a bare section number and its heading: a few spaces or a line break. A page
#: number with a running header far across the line ("2" + 50 spaces + "CONFIDENTIAL") is no heading.
_NUMBER_TITLE_GAP = r"(?:[ \t\u00a0]{1,12}|[ \t\u00a0]*\n\s*)"
_BARE_NUMBER_HEADING = re.compile(r"^(\d{1,3})" + _NUMBER_TITLE_GAP + r"(?=[A-Z])")


#: "2 TERM AND RENEWAL", "14     GENERAL PROVISIONS": a bare number before an all-caps heading word
#: (a page number before "ARTICLE IV" or "SECTION 2" is not a section number).
_CAPS_HEADING_AFTER_NUMBER = re.compile(
    r"^(\d{1,3})"
    + _NUMBER_TITLE_GAP
    + r"(?!(?:ARTICLE|SECTION|EXHIBIT|SCHEDULE|ANNEX|APPENDIX|ATTACHMENT|PART|PAGE|TABLE)\b)"
    r"(?=[A-Z][A-Z&'’-]{2,}(?:[\s,;:.]|$))"
)


def bare_number_before_capitals(text: str) -> bool:
    """Whether ``text`` opens with a bare number and an all-caps heading ("2 TERM AND RENEWAL")."""
    return _CAPS_HEADING_AFTER_NUMBER.match(text) is not None


def parse_heading_number(text: str) -> Label | None:
    """ "10 Governing Law": a bare section number, accepted only on a short heading-like line
    (parse_label refuses bare numbers, which in running text are quantities: "10 days"), or
    before an all-caps heading that runs on into the section's text ("2 TERM AND RENEWAL 2.1 ...",
    a page flattened onto one line): a quantity is not followed by a word in capitals."""
    words = text.split()
    m = _BARE_NUMBER_HEADING.match(text)
    short_heading = m is not None and len(words) <= 12 and not text.rstrip().endswith((".", ";", ","))
    if not short_heading:
        m = _CAPS_HEADING_AFTER_NUMBER.match(text)
    if m is None or not 0 < int(m.group(1)) <= 200:
        return None
    return Label(m.group(0).rstrip(), m.end(), (Reading("decimal", (int(m.group(1)),)),))


def is_first_value(reading: Reading) -> bool:
    """Whether a reading can open a new list level (1, a, i, A, I, or 1.1-style x.1)."""
    return reading.value == 1 or reading.style in {"bullet", "schedule"}


_NUMBER_WORD_END = re.compile(
    r"\b(?:" + "|".join(_NUMBER_WORDS) + r"|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|"
    r"thousand|million|billion)$",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"(?:[.:;?!][\"”’)\]]*|;\s*(?:and|or))$", re.IGNORECASE)


def opens_item(previous_line: str, line: str) -> bool:
    """Whether ``line``, which follows ``previous_line`` in the same flow, starts a new numbered
    item, rather than a wrapped sentence that happens to begin with a number.

    "thirty\n(30) days" and "pursuant to Section\n2.4 above" are wrapped text; "(b) a proceeding"
    after "...; or" and "2.4 NOTICES" after a full stop are new items.
    """
    label = parse_label(line)
    if label is None:
        return False
    previous = previous_line.rstrip()
    if not previous:
        return True
    style = label.readings[0].style
    if style in {"paren-digit", "digit-paren"} and _NUMBER_WORD_END.search(previous):
        return False
    # "... the addresses in\nSchedule 1, by courier": a reference running on, not a heading
    return not ((style == "decimal" or label.keyword) and not _CLAUSE_END.search(previous))
