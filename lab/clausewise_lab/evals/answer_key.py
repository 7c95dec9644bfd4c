"""The scorer's own reading of values: durations, dates, governing laws and party names.

The question bank's scorer compares the product's short answers with what CUAD's annotators
marked. It must not read values with the code whose answers it scores (``tools.values`` and
``tools.value_reading``): a shared bug would then count as right on both sides. So this module
reads values its own way, written apart, and shares nothing with the product but the standard
library.

Every reader returns a set of comparable keys:

- durations as ``(amount, unit)`` with years counted as months and weeks as days
  ("three (3) years" and "36 months" are both ``(36, "month")``);
- dates as ``"YYYY-MM-DD"`` (or ``"YYYY-MM"`` where the day is left blank);
- laws as the lower-cased places whose law is chosen ("new york", "england");
- party names as lower-cased names without punctuation or a corporate suffix.
"""

from __future__ import annotations

import re

_UNITS = {
    "day": ("day", 1),
    "business day": ("day", 1),
    "calendar day": ("day", 1),
    "week": ("day", 7),
    "month": ("month", 1),
    "year": ("month", 12),
}
_SMALL = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
_TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}  # fmt: skip
_NUMBER_WORD = (
    r"(?:(?:" + "|".join(_TENS) + r")(?:[\s-](?:" + "|".join(list(_SMALL)[:9]) + r"))?"
    r"|" + "|".join(sorted(_SMALL, key=len, reverse=True)) + r"|one\s+hundred(?:\s+and)?(?:\s+\w+)?|a|an)"
)
_DURATION = re.compile(
    rf"\b(?P<words>{_NUMBER_WORD})?\s*(?:\(\s*(?P<paren>\d{{1,4}})\s*\)|(?P<digits>\d{{1,4}}))?"
    r"[\s-]*(?P<unit>(?:business\s+|calendar\s+)?(?:day|week|month|year))s?\b",
    re.IGNORECASE,
)
_MONTHS = {
    m: n
    for n, names in enumerate(
        [
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
            ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"),
            ("october", "oct"), ("november", "nov"), ("december", "dec"),
        ],
        start=1,
    )
    for m in names
}  # fmt: skip
_MONTH = r"(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2}|_+|\[\s*\])\s*(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_DATES = (
    re.compile(rf"\b{_MONTH}\s+{_DAY}\s*,?\s*{_YEAR}\b", re.IGNORECASE),
    re.compile(
        rf"\b{_DAY}\s+(?:day\s+of\s+)?{_MONTH}\s*,?\s*(?:in\s+the\s+year\s+)?{_YEAR}\b", re.IGNORECASE
    ),
    re.compile(r"\b(?P<m>\d{1,2})/(?P<d>\d{1,2})/(?P<y>(?:19|20)?\d\d)\b"),
    re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<m>\d\d)-(?P<d>\d\d)\b"),
    re.compile(rf"\b{_MONTH}\s*,?\s*{_YEAR}\b", re.IGNORECASE),
)
#: Places whose law contracts choose: US states and territories, Canadian provinces, Australian
#: states, and countries and cities that appear as governing laws.
PLACES = (
    "alabama", "alaska", "arizona", "arkansas", "california", "colorado", "connecticut", "delaware",
    "district of columbia", "florida", "georgia", "hawaii", "idaho", "illinois", "indiana", "iowa",
    "kansas", "kentucky", "louisiana", "maine", "maryland", "massachusetts", "michigan", "minnesota",
    "mississippi", "missouri", "montana", "nebraska", "nevada", "new hampshire", "new jersey",
    "new mexico", "new york", "north carolina", "north dakota", "ohio", "oklahoma", "oregon",
    "pennsylvania", "rhode island", "south carolina", "south dakota", "tennessee", "texas", "utah",
    "vermont", "virginia", "washington", "west virginia", "wisconsin", "wyoming", "puerto rico",
    "ontario", "quebec", "british columbia", "alberta", "manitoba", "nova scotia", "saskatchewan",
    "victoria", "new south wales", "queensland", "western australia", "england", "wales",
    "scotland", "northern ireland", "ireland", "united kingdom", "germany", "france", "switzerland",
    "netherlands", "sweden", "norway", "denmark", "finland", "spain", "italy", "israel", "india",
    "china", "hong kong", "singapore", "japan", "korea", "taiwan", "canada", "australia",
    "new zealand", "mexico", "brazil", "luxembourg", "belgium", "austria", "cayman islands",
    "bermuda", "british virgin islands", "united states",
)  # fmt: skip
_PLACE = re.compile(r"\b(" + "|".join(sorted(PLACES, key=len, reverse=True)) + r")\b", re.IGNORECASE)
_LAW_CUE = re.compile(r"\blaws?\s+(?:of|in\s+force\s+in)\b|\bgoverned\b|\bgoverning\b", re.IGNORECASE)
_SUFFIX = re.compile(
    r"\b(?:incorporated|inc|corporation|corp|company|co|limited|ltd|llc|l\s?l\s?c|plc|lp|l\s?p|llp|"
    r"gmbh|ag|sa|s\s?a\s?s|nv|bv|pty)\b",
)
#: Defined-term roles that name no party by themselves ("Company", "Licensee").
ROLES = frozenset(
    "company party parties licensee licensor distributor supplier customer client consultant "
    "vendor purchaser buyer seller sponsor investor manufacturer reseller contractor "
    "subcontractor provider agent franchisee franchisor lender borrower employer employee "
    "owner operator partner member shareholder developer publisher".split()
)


def _number(words: str) -> int | None:
    words = words.lower().replace("-", " ").split()
    if not words:
        return None
    if words[0] in ("a", "an"):
        return 1
    if words[:2] == ["one", "hundred"]:
        rest = [w for w in words[2:] if w != "and"]
        return 100 + (_number(" ".join(rest)) or 0) if rest else 100
    total = 0
    for word in words:
        if word in _TENS:
            total += _TENS[word]
        elif word in _SMALL:
            total += _SMALL[word]
        else:
            return None
    return total


def durations(text: str) -> set[tuple[int, str]]:
    """Every duration stated in ``text`` as ``(amount, unit)`` with unit "day" or "month"."""
    found: set[tuple[int, str]] = set()
    for match in _DURATION.finditer(text):
        amount = None
        if match.group("paren"):
            amount = int(match.group("paren"))
        elif match.group("digits"):
            amount = int(match.group("digits"))
        elif match.group("words"):
            amount = _number(match.group("words"))
        if amount is None or amount == 0:
            continue
        unit_words = " ".join(match.group("unit").lower().split())
        unit, factor = _UNITS.get(unit_words, _UNITS[unit_words.split()[-1]])
        found.add((amount * factor, unit))
    return found


def dates(text: str) -> set[str]:
    """Every date stated in ``text``, "YYYY-MM-DD", or "YYYY-MM" when the day is blank or absent."""
    found: set[str] = set()
    taken: list[tuple[int, int]] = []
    for pattern in _DATES:
        for match in pattern.finditer(text):
            if any(a < match.end() and match.start() < b for a, b in taken):
                continue
            groups = match.groupdict()
            if groups.get("month") is not None:
                month = _MONTHS[groups["month"].lower().rstrip(".")]
                year = int(groups["year"])
                day_text = groups.get("day") or ""
                day = int(day_text) if day_text.isdigit() else 0
            else:
                year, month, day = int(groups["y"]), int(groups["m"]), int(groups["d"])
                year += 2000 if year < 50 else (1900 if year < 100 else 0)
            if not 1 <= month <= 12 or day > 31:
                continue
            taken.append(match.span())
            found.add(f"{year:04d}-{month:02d}-{day:02d}" if day else f"{year:04d}-{month:02d}")
    return found


def places(text: str) -> set[str]:
    """Every place ``text`` names (lower case)."""
    return {m.group(1).lower() for m in _PLACE.finditer(text)}


def laws(text: str) -> set[str]:
    """The places whose law ``text`` chooses: the first place named within a few words after each
    "laws of" or "governed" ("the laws of the State of New York", not the courts of Delaware
    named later), else every place it names."""
    chosen: set[str] = set()
    for cue in _LAW_CUE.finditer(text):
        first = _PLACE.search(text[cue.end() : cue.end() + 90])
        if first is not None:
            chosen.add(first.group(1).lower())
    return chosen or places(text)


def name_key(name: str) -> str:
    """A party name comparable across spellings: lower case, no punctuation, no corporate suffix."""
    plain = re.sub(r"[^a-z0-9]+", " ", name.lower())
    return " ".join(_SUFFIX.sub(" ", plain).split())


def party_names(gold_texts: list[str]) -> list[str]:
    """The annotated names that name a party (not a bare role such as "Company"), as keys."""
    keys = []
    for text in gold_texts:
        key = name_key(text)
        if not key or len(text) > 80 or set(key.split()) <= ROLES:
            continue
        keys.append(key)
    return list(dict.fromkeys(keys))
