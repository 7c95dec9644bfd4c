"""The firm's playbook: standard positions, each a requirement the deciders can settle.

A playbook is versioned YAML. Each position names the clause type it governs (one of CUAD's
categories, or the firm's own with a description), the standard position, ordered fallbacks in
the same form, the risk of a deviation, guidance for the reviewer and the firm's preferred
clause text::

    name: commercial
    version: "2026.1"
    positions:
      - id: liability-cap
        clause: Cap on Liability
        standard: {duration: {at_least: 12 months}}
        fallbacks: [{duration: {at_least: 6 months}}]
        risk: high
        guidance: Ask for a cap of at least a year's fees.
        preferred_text: Each Party's total liability ... the twelve (12) months before ...

A requirement has exactly one form, because each form is settled by one decider:

- ``require: present`` / ``require: absent``: the presence classifier (CUAD categories);
- ``law: [New York, Delaware]``: the governing law read from the clause is one of these;
- ``duration: {at_least: 90 days}`` (or ``at_most``): the duration read from the clause;
- ``hypothesis: "..."``: the hypothesis classifier rules it entailed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from tools.playbooks import KeyedBy, KeyedPlaybook, load_playbook, parse_playbook
from tools.values import comparable, find_values, normalize_place

BUILTIN_PLAYBOOKS = ("playbook-commercial", "playbook-nda")
PLAYBOOK_HINT = (
    "a playbook has 'name', 'version' and a 'positions' list; each position needs a unique 'id', the "
    "'clause' it governs, a 'standard' requirement (one of require: present|absent, law: [...], "
    "duration: {at_least|at_most: N days|months|years}, hypothesis: '...'), a 'risk' (low, medium, "
    "high) and optionally 'fallbacks', 'guidance', 'preferred_text' and 'question'"
)
Risk = Literal["low", "medium", "high"]


def duration_months(words: str) -> float:
    """``"90 days"`` -> about 2.96 months: durations compare in months (a year is twelve, a week
    seven days, a month 365/12 days), so "12 months" and "one (1) year" are equal."""
    found = find_values(words, ("duration",))
    if len(found) != 1:
        raise ValueError(f"{words!r} is not one duration (write e.g. '90 days', '12 months', '2 years')")
    count, unit = comparable("duration", found[0].normalized).split(" ", 1)
    per_month = {"month": 1.0, "day": 12 / 365, "business day": 12 / 261, "working day": 12 / 261}
    return int(count) * per_month[unit.rstrip("s")]


class DurationBound(BaseModel):
    at_least: str | None = None
    at_most: str | None = None

    @model_validator(mode="after")
    def _one_bound_at_least(self) -> DurationBound:
        if self.at_least is None and self.at_most is None:
            raise ValueError("a duration requirement needs at_least or at_most")
        for words in (self.at_least, self.at_most):
            if words is not None:
                duration_months(words)
        return self

    def holds(self, months: float) -> bool:
        low = duration_months(self.at_least) if self.at_least else None
        high = duration_months(self.at_most) if self.at_most else None
        return (low is None or months >= low - 1e-6) and (high is None or months <= high + 1e-6)

    def describe(self) -> str:
        parts = [
            f"at least {self.at_least}" if self.at_least else "",
            f"at most {self.at_most}" if self.at_most else "",
        ]
        return " and ".join(p for p in parts if p)


class Requirement(BaseModel):
    """One requirement: exactly one of its fields is set (see the module's docstring)."""

    require: Literal["present", "absent"] | None = None
    law: list[str] | None = Field(default=None, min_length=1)
    duration: DurationBound | None = None
    hypothesis: str | None = Field(default=None, min_length=5, max_length=2000)

    @model_validator(mode="after")
    def _exactly_one_form(self) -> Requirement:
        forms = [
            name for name in ("require", "law", "duration", "hypothesis") if getattr(self, name) is not None
        ]
        if len(forms) != 1:
            raise ValueError(
                "a requirement has exactly one of require, law, duration, hypothesis "
                f"(found: {', '.join(forms) or 'none'})"
            )
        return self

    @property
    def form(self) -> Literal["require", "law", "duration", "hypothesis"]:
        for name in ("require", "law", "duration", "hypothesis"):
            if getattr(self, name) is not None:
                return name  # type: ignore[return-value]
        raise AssertionError("validated to have one form")

    def laws(self) -> set[str]:
        return {normalize_place(place) for place in self.law or ()}

    def describe(self) -> str:
        """The requirement in words, as the playbook citation shows it."""
        if self.require is not None:
            return "the clause present" if self.require == "present" else "no such clause"
        if self.law is not None:
            return "governed by the law of " + " or ".join(self.law)
        if self.duration is not None:
            return self.duration.describe()
        return f'the contract provides that "{self.hypothesis}"'


class Position(BaseModel):
    id: str = Field(min_length=1, max_length=80, pattern=r"^[a-z0-9][a-z0-9-]*$")
    clause: str = Field(min_length=1, description="A CUAD category, or the firm's own clause type.")
    description: str = Field(default="", description="What the clause type is (needed for the firm's own).")
    examples: list[str] = Field(default_factory=list, description="Wordings of the clause type.")
    question: str = Field(
        default="", description="The question a value is read for (default: the clause type's own)."
    )
    standard: Requirement
    fallbacks: list[Requirement] = Field(default_factory=list)
    risk: Risk
    guidance: str = ""
    preferred_text: str = Field(default="", max_length=4000)

    @field_validator("clause", "description", "guidance", "preferred_text", "question")
    @classmethod
    def _squash(cls, value: str) -> str:
        return " ".join(value.split())

    @model_validator(mode="after")
    def _fallbacks_in_the_standards_form(self) -> Position:
        for number, fallback in enumerate(self.fallbacks, start=1):
            if fallback.form != self.standard.form:
                raise ValueError(
                    f"position {self.id!r}: fallback {number} is a {fallback.form} requirement but the "
                    f"standard is a {self.standard.form} requirement (a fallback relaxes the standard)"
                )
        return self


class Playbook(KeyedPlaybook):
    keyed_by = KeyedBy("positions", "id", "position ids")

    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    description: str = ""
    positions: list[Position] = Field(min_length=1)

    @field_validator("version", mode="before")
    @classmethod
    def _version_as_text(cls, value: object) -> object:
        return str(value) if isinstance(value, int | float) else value


def parse_positions(text: str, origin: str) -> Playbook:
    return parse_playbook(text, origin, Playbook, PLAYBOOK_HINT)


def load_positions(name_or_path: str | Path) -> Playbook:
    """A built-in playbook by name (``playbook-commercial``, ``playbook-nda``) or a YAML file."""
    return load_playbook(name_or_path, BUILTIN_PLAYBOOKS, Playbook, PLAYBOOK_HINT)
