"""The evaluation's data files (``lab/clausewise_lab/data/``), read and checked against their
schema on load.

- ``routing-phrasings.yaml``: every catalogue provision's sixteen labelled wordings, questions
  outside the catalogue, qualified questions (the routing benchmark, the router's tune half);
- ``bank-phrasings.yaml``: CUAD's categories asked yes/no, for their value, and for both (the
  question bank);
- ``open-bank.yaml``: the open-question bank's kinds and its gold clauses marked by hand;
- ``clause-parties.yaml``: for CUAD spans of the playbook's categories, which party each clause binds
  and which it benefits, labelled by hand (the gold of the party-detection benchmark).

They are data written apart from the product; each file says where it came from in its header
and names its format (``format: clausewise-lab/<name>/<version>``). A file that does not match
its schema (a wording with a missing field, a register or polarity not in the lists below, a
provision with other than sixteen wordings, a mark whose end is before its start, a clause said to
bind or benefit someone who is not among its contract's parties) is refused when it is read, naming
the file and the place.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Literal, TypeVar

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator, model_validator

Register = Literal[
    "lawyer", "client", "in-house", "abbreviation", "negated", "is-there", "can-we", "must-they", "what-if"
]
Polarity = Literal["present", "absent"]
Form = Literal["yes/no", "value", "verdict+value"]
Reading = Literal["law", "date", "duration", "date-or-duration", "parties", "name"]
#: (wording, register, polarity, form)
Phrasing = tuple[str, Register, Polarity, Form]
#: Wordings per catalogue provision: eight pairs, the even ones the tune half, the odd the check.
WORDINGS_PER_ROUTE = 16


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RoutingPhrasings(_Strict):
    """``routes``: provision -> its wordings; ``outside``: (wording, register, topic) that no
    provision covers; ``qualified``: (wording, the provision it is near, why it is not that
    provision)."""

    format: Literal["clausewise-lab/routing-phrasings/1"]
    routes: dict[str, tuple[Phrasing, ...]]
    outside: tuple[tuple[str, Register, str], ...]
    qualified: tuple[tuple[str, str, str], ...]

    @field_validator("routes")
    @classmethod
    def _sixteen_each(cls, routes: dict[str, tuple[Phrasing, ...]]) -> dict[str, tuple[Phrasing, ...]]:
        for key, wordings in routes.items():
            if not key.startswith(("cuad:", "nda:")):
                raise ValueError(f"{key!r}: a route is 'cuad:<category>' or 'nda:<hypothesis id>'")
            if len(wordings) != WORDINGS_PER_ROUTE:
                raise ValueError(f"{key!r} has {len(wordings)} wordings, not {WORDINGS_PER_ROUTE}")
        return routes


class ValueWordings(_Strict):
    reading: Reading
    wordings: tuple[str, str, str]


class Mark(_Strict):
    start: int
    end: int
    reason: str

    @field_validator("end")
    @classmethod
    def _after_start(cls, end: int, info: ValidationInfo) -> int:
        if end <= info.data.get("start", -1):
            raise ValueError("a mark ends after it starts")
        return end


class OpenKindEntry(_Strict):
    name: str
    wordings: tuple[str, ...]
    cuad: tuple[str, ...] = ()


class MarkedContract(_Strict):
    title: str
    sha256: str
    marks: dict[str, tuple[Mark, ...]]


class OpenBankFile(_Strict):
    """The open bank's kinds (two or three wordings each, the CUAD categories that hold gold
    spans for it) and its contracts' hand marks, per kind."""

    format: Literal["clausewise-lab/open-bank/1"]
    kinds: tuple[OpenKindEntry, ...]
    contracts: tuple[MarkedContract, ...]

    @field_validator("contracts")
    @classmethod
    def _known_kinds(cls, contracts: tuple[MarkedContract, ...], info: ValidationInfo) -> tuple:
        known = {kind.name for kind in info.data.get("kinds", ())}
        for contract in contracts:
            unknown = set(contract.marks) - known
            if unknown:
                raise ValueError(f"{contract.title}: unknown kind {', '.join(sorted(unknown))}")
        return contracts


class BankPhrasings(_Strict):
    """``yes_no``: category -> three yes/no wordings ("yes" = present); ``values``: category ->
    how its gold value is read and three value wordings; ``both``: the same, for questions that
    ask whether and what at once."""

    format: Literal["clausewise-lab/bank-phrasings/1"]
    yes_no: dict[str, tuple[str, str, str]]
    values: dict[str, ValueWordings]
    both: dict[str, ValueWordings]


Side = Literal["customer", "supplier", "neither"]
#: The playbook's CUAD categories whose spans ``clause-parties.yaml`` labels (CUAD's own spelling).
PARTY_CATEGORIES = (
    "Cap on Liability",
    "Uncapped Liability",
    "Anti-Assignment",
    "Change of Control",
    "Non-Compete",
    "Exclusivity",
    "No-Solicit of Customers",
    "Notice Period to Terminate Renewal",
    "Termination for Convenience",
    "Audit Rights",
    "Insurance",
    "Liquidated Damages",
    "Warranty Duration",
    "Third Party Beneficiary",
)
#: In ``binds``/``benefits``: every party alike.
EACH = "each"


class ContractParty(_Strict):
    """A party by the defined role term its clauses use; ``side``: customer (buys or receives and
    pays), supplier (provides), neither (joint venture, cross-licence)."""

    name: str
    side: Side
    aliases: tuple[str, ...] = ()


class PartyMark(_Strict):
    """One annotated CUAD span [start, end) and the parties it binds and benefits."""

    category: str
    span: tuple[int, int]
    binds: tuple[str, ...]
    benefits: tuple[str, ...]
    reason: str

    @field_validator("category")
    @classmethod
    def _known_category(cls, category: str) -> str:
        if category not in PARTY_CATEGORIES:
            raise ValueError(f"{category!r} is not one of the labelled CUAD categories")
        return category

    @field_validator("span")
    @classmethod
    def _end_after_start(cls, span: tuple[int, int]) -> tuple[int, int]:
        if span[0] < 0 or span[1] <= span[0]:
            raise ValueError(f"span {list(span)}: a mark ends after it starts")
        return span

    @field_validator("binds", "benefits")
    @classmethod
    def _each_alone(cls, names: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        if EACH in names and len(names) > 1:
            raise ValueError(f"{info.field_name}: {EACH!r} stands alone")
        if len(set(names)) != len(names):
            raise ValueError(f"{info.field_name}: a party named twice")
        return names


class PartiesContract(_Strict):
    title: str
    sha256: str
    type: str
    parties: tuple[ContractParty, ...]
    marks: tuple[PartyMark, ...]

    @field_validator("sha256")
    @classmethod
    def _hex_digest(cls, sha256: str) -> str:
        if len(sha256) != 64 or any(c not in "0123456789abcdef" for c in sha256):
            raise ValueError("sha256 is 64 lowercase hex digits")
        return sha256

    @model_validator(mode="after")
    def _marks_name_parties(self) -> PartiesContract:
        names = [party.name for party in self.parties]
        if not names or len(set(names)) != len(names) or EACH in names:
            raise ValueError(f"{self.title}: parties must be named, once each, and none {EACH!r}")
        known = {*names, EACH}
        for index, mark in enumerate(self.marks):
            for field in ("binds", "benefits"):
                unknown = [name for name in getattr(mark, field) if name not in known]
                if unknown:
                    raise ValueError(
                        f"{self.title}: marks.{index} ({mark.category} {list(mark.span)}) {field} "
                        f"{', '.join(map(repr, unknown))}: not a party of this contract"
                    )
        return self


class ClausePartiesFile(_Strict):
    """Hand labels of which party each annotated CUAD clause binds and benefits, per contract."""

    format: Literal["clausewise-lab/clause-parties/1"]
    contracts: tuple[PartiesContract, ...]

    @field_validator("contracts")
    @classmethod
    def _titles_once(cls, contracts: tuple[PartiesContract, ...]) -> tuple[PartiesContract, ...]:
        titles = [contract.title for contract in contracts]
        repeated = sorted({title for title in titles if titles.count(title) > 1})
        if repeated:
            raise ValueError(f"contracts listed twice: {', '.join(repeated)}")
        return contracts


@dataclass(frozen=True)
class DataFileError(ValueError):
    """A data file that does not match its schema: which file, where, and what is wrong."""

    file: str
    problems: str

    def __str__(self) -> str:
        return f"{self.file}: does not match its schema ({self.problems})"


def data_file(name: str) -> Path:
    """The path of one of the lab's data files."""
    return Path(str(files("clausewise_lab").joinpath("data", name)))


ModelT = TypeVar("ModelT", bound=BaseModel)


def parse_data(name: str, text: str, model: type[ModelT]) -> ModelT:
    """``text`` (the contents of the data file ``name``) checked against ``model``."""
    raw = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in error.errors()[:5])
        raise DataFileError(name, problems) from error


def _read(name: str, model: type[ModelT]) -> ModelT:
    return parse_data(name, data_file(name).read_text(encoding="utf-8"), model)


def routing_phrasings() -> RoutingPhrasings:
    """The routing wordings (``data/routing-phrasings.yaml``), checked."""
    return _read("routing-phrasings.yaml", RoutingPhrasings)


def bank_phrasings() -> BankPhrasings:
    """The question bank's wordings (``data/bank-phrasings.yaml``), checked."""
    return _read("bank-phrasings.yaml", BankPhrasings)


def open_bank_file() -> OpenBankFile:
    """The open-question bank's kinds and hand marks (``data/open-bank.yaml``), checked."""
    return _read("open-bank.yaml", OpenBankFile)


def clause_parties() -> ClausePartiesFile:
    """Which party each labelled CUAD clause binds and benefits (``data/clause-parties.yaml``),
    checked."""
    return _read("clause-parties.yaml", ClausePartiesFile)
