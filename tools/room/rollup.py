"""The roll-up under a data room's grid, per question: how many contracts say yes, no, a value,
not addressed or unclear; the distinct values with the contracts behind each; and the outliers.

Outliers are what a lawyer reviewing a data room looks at first, by two rules:

- **against the majority**: when one answer (yes, no, partly, a value, not addressed) holds at
  least :data:`MAJORITY` of the contracts that answered (unclear cells aside) and there are at
  least :data:`MIN_CONTRACTS` of them, every contract answering otherwise ("no" where nine in ten
  say "yes"; no governing law where the others state one);
- **a rare value**: among contracts stating a value, one held by at most :data:`RARE` of them
  (at least one contract) while another value is held by more (a Texas law among eleven New
  Yorks). A room where every value differs (the parties, say) has no rare value.

Values are grouped by :func:`tools.room.normalize.value_key`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, Field

from clausewise.core.room import CELL_ANSWERS, RoomCell
from tools.room.normalize import value_key

#: Share of the answering contracts an answer must hold to be the majority.
MAJORITY = 2 / 3
#: Contracts that must answer (unclear aside) before any answer is called the majority.
MIN_CONTRACTS = 3
#: Share of the value-stating contracts at most (and one at least) that makes a value rare.
RARE = 0.1


class ValueGroup(BaseModel):
    """One distinct value and the contracts that state it (in any of ``wordings``)."""

    key: str
    label: str
    wordings: list[str]
    contracts: list[str]


class Outlier(BaseModel):
    contract_id: str
    shown: str = Field(description="The cell as the grid shows it.")
    why: str


class QuestionRollup(BaseModel):
    key: str
    question: str
    contracts: int = Field(description="Contracts answered (files that could not be read aside).")
    counts: dict[str, int] = Field(description="Contracts per answer: yes, no, partly, value, ...")
    majority: str | None = Field(default=None, description="The answer most contracts give, if any does.")
    values: list[ValueGroup] = Field(default_factory=list, description="Most contracts first.")
    outliers: list[Outlier] = Field(default_factory=list)


class Rollup(BaseModel):
    questions: list[QuestionRollup]
    errors: list[str] = Field(default_factory=list, description="Files that could not be read.")


def _values(cells: Sequence[tuple[str, RoomCell]]) -> list[ValueGroup]:
    groups: dict[str, ValueGroup] = {}
    for contract, cell in cells:
        if cell.answer != "value":
            continue
        found = value_key(cell.value, cell.value_type, cell.normalized)
        group = groups.setdefault(
            found.key, ValueGroup(key=found.key, label=found.label, wordings=[], contracts=[])
        )
        wording = " ".join(cell.value.split())
        if wording not in group.wordings:
            group.wordings.append(wording)
        if contract not in group.contracts:
            group.contracts.append(contract)
    return sorted(groups.values(), key=lambda g: (-len(g.contracts), g.label.lower()))


def _against_majority(cells: Sequence[tuple[str, RoomCell]]) -> tuple[str | None, list[Outlier]]:
    answered = [(contract, cell) for contract, cell in cells if cell.answer != "unclear"]
    counts = Counter(cell.answer for _, cell in answered)
    if len(answered) < MIN_CONTRACTS or not counts:
        return None, []
    top, held = counts.most_common(1)[0]
    if held / len(answered) < MAJORITY:
        return None, []
    said = "state a value" if top == "value" else f"say {top}"
    outliers = [
        Outlier(contract_id=contract, shown=cell.shown(), why=f"{held} of {len(answered)} contracts {said}")
        for contract, cell in answered
        if cell.answer != top
    ]
    return top, outliers


def _rare(groups: Sequence[ValueGroup], shown: dict[str, str]) -> list[Outlier]:
    stating = sum(len(g.contracts) for g in groups)
    if len(groups) < 2 or len(groups[0].contracts) < 2:
        return []
    rare_at = max(1, int(RARE * stating))
    leader = groups[0]
    return [
        Outlier(
            contract_id=contract,
            shown=shown[contract],
            why=f"{group.label}: {len(group.contracts)} of {stating} contracts; "
            f"{len(leader.contracts)} state {leader.label}",
        )
        for group in groups
        if len(group.contracts) <= rare_at and len(group.contracts) < len(leader.contracts)
        for contract in group.contracts
    ]


def question_rollup(key: str, question: str, cells: Sequence[tuple[str, RoomCell]]) -> QuestionRollup:
    """The roll-up of one question over its cells ``(contract id, cell)``."""
    counts = Counter(cell.answer for _, cell in cells)
    values = _values(cells)
    majority, outliers = _against_majority(cells)
    outliers += _rare(values, {contract: cell.shown() for contract, cell in cells})
    return QuestionRollup(
        key=key,
        question=question,
        contracts=len(cells),
        counts={answer: counts[answer] for answer in CELL_ANSWERS},
        majority=majority,
        values=values,
        outliers=outliers,
    )


def rollup(
    questions: Sequence[tuple[str, str]],
    rows: Iterable[tuple[str, RoomCell | None]],
    errors: Sequence[str] = (),
) -> Rollup:
    """The roll-up of a whole grid: ``questions`` as (key, question), ``rows`` as (contract id,
    cell), ``errors`` the files that could not be read."""
    by_key: dict[str, list[tuple[str, RoomCell]]] = defaultdict(list)
    for contract, cell in rows:
        if cell is not None:
            by_key[cell.key].append((contract, cell))
    return Rollup(
        questions=[question_rollup(key, question, by_key.get(key, [])) for key, question in questions],
        errors=list(errors),
    )
