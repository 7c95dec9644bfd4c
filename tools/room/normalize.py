"""Values of a data room's cells put in comparable form, so the roll-up groups the contracts
that say the same thing in different words.

Deterministic and small on purpose: a lawyer reads the groups as "these twelve contracts say New
York", so two wordings of one value must fall together ("the laws of the State of New York", "New
York law") and two different values must not. Per kind of value:

- a governing law: by jurisdiction (:func:`tools.values.normalize_place`: "the State of New
  York" -> "new york", "English" -> "england");
- a duration (a term, a renewal, a notice period): by days, a year counting 365.25 and a month
  30.4375, so "36 months", "three (3) years" and "3 years" are one group, and "30 days" and "one
  (1) month" another; business or working days are their own unit, never calendar days;
- a date: by the calendar date (ISO);
- an amount: by currency and number ("USD 1000000");
- the parties: by their names, lower-cased;
- anything else (a condition quoted as the contract states it): by its words, case, spacing and
  punctuation aside.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tools.values import find_values, normalize_place

#: Days of each unit of a duration (years and months in their mean length, so 12 months is 1 year).
DAYS = {"day": 1.0, "week": 7.0, "month": 30.4375, "year": 365.25}
_DURATION = re.compile(r"^(?P<count>\d+) (?P<kind>business |working )?(?P<unit>day|week|month|year)s?$")
_WORDS = re.compile(r"[a-z0-9]+")
DURATION_TYPES = frozenset({"duration", "notice period", "renewal", "term", "expiry"})


@dataclass(frozen=True)
class ValueKey:
    """The group a value falls in (``key``) and how the group is named (``label``)."""

    key: str
    label: str


def _duration(normalized: str) -> ValueKey | None:
    found = _DURATION.match(normalized.strip().lower())
    if found is None:
        return None
    count, unit = int(found.group("count")), found.group("unit")
    label = f"{count} {found.group('kind') or ''}{unit}{'s' if count != 1 else ''}"
    if found.group("kind"):
        return ValueKey(f"business-days:{count * (5 if unit == 'week' else 1)}", label)
    return ValueKey(f"days:{round(count * DAYS[unit])}", label)


def _law(value: str, normalized: str) -> ValueKey:
    places = [m.normalized for m in find_values(value, ("law",))]
    place = normalized or (places[0] if places else normalize_place(value))
    return ValueKey(f"law:{place}", place.title())


def value_key(value: str, value_type: str = "", normalized: str = "") -> ValueKey:
    """The group of one value (see the module docstring); ``normalized`` is the value reader's
    comparable form when it gave one."""
    if value_type == "law":
        return _law(value, normalized)
    if value_type in DURATION_TYPES or value_type == "date" or not value_type:
        if normalized:
            duration = _duration(normalized)
            if duration is not None:
                return duration
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", normalized):
                return ValueKey(f"date:{normalized}", normalized)
        for mention in find_values(value, ("duration", "date")):
            if mention.type == "duration":
                duration = _duration(mention.normalized)
                if duration is not None and mention.text.strip() == value.strip():
                    return duration
            elif mention.text.strip() == value.strip():
                return ValueKey(f"date:{mention.normalized}", mention.normalized)
    if value_type == "amount" and normalized:
        return ValueKey(f"amount:{normalized}", normalized)
    if value_type == "party" and normalized:
        return ValueKey(f"party:{normalized.lower()}", value)
    words = " ".join(_WORDS.findall(value.lower()))
    return ValueKey(f"text:{words}", " ".join(value.split()))
