"""Values stated in contract text: durations, dates, governing laws and amounts, each with its
span and a normalized form, so two wordings of one value compare equal ("three (3) years" and
"3 years" are both ``3 years``; "June 21, 1999" and "21st day of June, 1999" are both
``1999-06-21``).

Deterministic on purpose. A report's short answer to "how long ...?" or "which law ...?" is read
from the verified sources with these patterns, and a claim stating a value its sources do not
state is caught by comparing normalized values, which the small embedded model and the
ContractNLI-trained classifier cannot do reliably (the classifier sees no contradiction between
"two years" and "three (3) years": it was trained on seventeen NDA hypotheses, not on numbers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from tools.retrieval.spans import overlap

ValueType = Literal["duration", "date", "law", "amount"]
VALUE_TYPES: tuple[ValueType, ...] = ("duration", "date", "law", "amount")

_UNITS = {"day": "days", "week": "weeks", "month": "months", "year": "years"}
_SMALL = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen"
).split()
_TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
_ORDINAL_WORDS = {"a": 1, "an": 1, "one hundred": 100, "hundred": 100}
_NUMBER_WORD = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[- ](?:one|two|three|four|five|six|"
    r"seven|eight|nine))?|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
    r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|one hundred|hundred|an?)"
)
_DURATION = re.compile(
    rf"\b(?:(?P<word>{_NUMBER_WORD})\s*(?:\(\s*(?P<paren>\d{{1,4}})\s*\)\s*)?|(?P<digits>\d{{1,4}})\s*)"
    r"(?:-\s*)?(?P<kind>calendar\s+|business\s+|working\s+)?(?P<unit>day|week|month|year)s?\b",
    re.IGNORECASE,
)
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DATE_PATTERNS = (
    re.compile(
        rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>(?:19|20)\d\d)\b", re.IGNORECASE
    ),
    re.compile(
        rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?{_MONTH},?\s+(?P<year>(?:19|20)\d\d)\b",
        re.IGNORECASE,
    ),
    re.compile(r"\b(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<year>(?:19|20)\d\d)\b"),
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<m>\d\d)-(?P<d>\d\d)\b"),
)
#: A place of up to four capitalised words; a dot only inside a word ("U.S"), so that a
#: sentence's full stop ends the place ("the People's Republic of China. If ..." is China).
_PLACE_WORD = r"[A-Z][A-Za-z'-]*(?:\.[A-Za-z]+)*"
_PLACE = rf"{_PLACE_WORD}(?:\s+(?:of\s+)?{_PLACE_WORD}){{0,3}}"
_LAW_PATTERNS = (
    re.compile(
        rf"\blaws?\s+(?:in\s+force\s+in\s+|of\s+)(?:the\s+)?(?:(?:State|Commonwealth|Province|Republic|"
        rf"Kingdom|Federal\s+Republic)\s+of\s+)?(?P<place>{_PLACE})"
    ),
    re.compile(rf"\b(?:governed\s+by|subject\s+to)\s+(?:the\s+)?(?P<place>{_PLACE})\s+law\b"),
)
_NOT_PLACES = {"this", "such", "the", "any", "all", "each", "that", "applicable", "said"}
_AMOUNT = re.compile(
    r"(?P<symbol>US\$|\$|€|£|USD|EUR|GBP)\s?(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?:\s*(?P<scale>million|billion|thousand))?",
)
_CURRENCY = {"$": "USD", "US$": "USD", "USD": "USD", "€": "EUR", "EUR": "EUR", "£": "GBP", "GBP": "GBP"}
_SCALE = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}


@dataclass(frozen=True)
class ValueMention:
    """A value stated in a text: its type, its words there (``span`` into that text) and its
    normalized form, equal for equal values whatever the wording."""

    type: ValueType
    text: str
    normalized: str
    span: tuple[int, int]


def word_number(words: str) -> int | None:
    """``"thirty-six"`` -> 36, ``"a"`` -> 1; None for words that are no number."""
    words = " ".join(words.lower().replace("-", " ").split())
    if words in _ORDINAL_WORDS:
        return _ORDINAL_WORDS[words]
    if words in _SMALL:
        return _SMALL.index(words)
    parts = words.split()
    if parts and parts[0] in _TENS:
        rest = parts[1:]
        if not rest:
            return _TENS[parts[0]]
        if len(rest) == 1 and rest[0] in _SMALL[1:10]:
            return _TENS[parts[0]] + _SMALL.index(rest[0])
    return None


def number_words(number: int) -> str:
    """``90`` -> ``"ninety"``, the inverse of :func:`word_number`; numbers from 0 to 999."""
    if not 0 <= number <= 999:
        raise ValueError(f"{number} is outside 0..999")
    if number < 20:
        return _SMALL[number]
    if number < 100:
        tens, rest = divmod(number, 10)
        name = next(word for word, value in _TENS.items() if value == tens * 10)
        return name + (f"-{_SMALL[rest]}" if rest else "")
    hundreds, rest = divmod(number, 100)
    return f"{_SMALL[hundreds]} hundred" + (f" and {number_words(rest)}" if rest else "")


def _durations(text: str) -> list[ValueMention]:
    found = []
    for match in _DURATION.finditer(text):
        number = None
        if match.group("paren"):
            number = int(match.group("paren"))
        elif match.group("digits"):
            number = int(match.group("digits"))
        elif match.group("word"):
            number = word_number(match.group("word"))
        if number is None:
            continue
        unit = _UNITS[match.group("unit").lower()]
        kind = (match.group("kind") or "").split()
        unit = f"{kind[0].lower()} {unit}" if kind and kind[0].lower() != "calendar" else unit
        if number == 1:
            unit = unit[:-1]
        found.append(ValueMention("duration", match.group(0), f"{number} {unit}", match.span()))
    return found


def _dates(text: str) -> list[ValueMention]:
    found: list[ValueMention] = []
    for pattern in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            groups = match.groupdict()
            month = _MONTHS[groups["month"].lower()] if groups.get("month") else int(groups["m"])
            day = int(groups.get("day") or groups["d"])
            try:
                value = date(int(groups["year"]), month, day)
            except ValueError:
                continue
            if not any(overlap(match.span(), m.span) > 0 for m in found):
                found.append(ValueMention("date", match.group(0), value.isoformat(), match.span()))
    return found


def _laws(text: str) -> list[ValueMention]:
    found: list[ValueMention] = []
    for pattern in _LAW_PATTERNS:
        for match in pattern.finditer(text):
            place = re.sub(r"[.,;:]+$", "", match.group("place")).strip()
            words = place.split()
            while words and words[-1].lower() in {"and", "or", "without", "excluding", "including"}:
                words.pop()
            if not words or words[0].lower() in _NOT_PLACES:
                continue
            place = " ".join(words)
            span = (match.start("place"), match.start("place") + len(place))
            if not any(overlap(span, m.span) > 0 for m in found):
                found.append(ValueMention("law", place, normalize_place(place), span))
    return found


#: A law named by its adjective ("English law") is the law of the place ("England").
_PLACE_OF_ADJECTIVE = {
    "english": "england",
    "scottish": "scotland",
    "irish": "ireland",
    "welsh": "wales",
    "german": "germany",
    "french": "france",
    "dutch": "netherlands",
    "swiss": "switzerland",
    "chinese": "china",
    "prc": "china",
    "japanese": "japan",
    "canadian": "canada",
    "australian": "australia",
    "indian": "india",
    "israeli": "israel",
    "singaporean": "singapore",
}


def normalize_place(place: str) -> str:
    """``"the State of New York"`` and ``"New York"`` -> ``"new york"``; ``"English"`` ->
    ``"england"``; ``"the People's Republic of China"`` -> ``"china"``."""
    place = re.sub(
        r"^(?:the\s+)?(?:people'?s\s+republic|state|commonwealth|province|republic|kingdom)\s+of\s+",
        "",
        place.strip(),
        flags=re.I,
    )
    place = " ".join(place.lower().replace(".", "").split())
    return _PLACE_OF_ADJECTIVE.get(place, place)


def _amounts(text: str) -> list[ValueMention]:
    found = []
    for match in _AMOUNT.finditer(text):
        number = float(match.group("number").replace(",", ""))
        number *= _SCALE.get((match.group("scale") or "").lower(), 1)
        shown = f"{number:.2f}".rstrip("0").rstrip(".")
        found.append(
            ValueMention(
                "amount", match.group(0), f"{_CURRENCY[match.group('symbol')]} {shown}", match.span()
            )
        )
    return found


_READERS = {"duration": _durations, "date": _dates, "law": _laws, "amount": _amounts}


def find_values(text: str, types: tuple[ValueType, ...] = VALUE_TYPES) -> list[ValueMention]:
    """Every value of ``types`` stated in ``text``, in order of appearance."""
    found = [mention for kind in types for mention in _READERS[kind](text)]
    return sorted(found, key=lambda m: m.span)


def comparable(mention_type: ValueType, normalized: str) -> str:
    """The form two values are compared in: a year is twelve months, a week seven days."""
    if mention_type != "duration":
        return normalized
    number, unit = normalized.split(" ", 1)
    count, unit = int(number), unit.rstrip("s")
    if unit == "year":
        return f"{count * 12} month"
    if unit == "week":
        return f"{count * 7} day"
    return f"{count} {unit}"


def same_value(a: ValueMention, b: ValueMention) -> bool:
    return a.type == b.type and comparable(a.type, a.normalized) == comparable(b.type, b.normalized)
