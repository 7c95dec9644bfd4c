"""A data room's grid: one question over many contracts, a cell per contract and question.

A cell is the question's quick answer on one contract (the decider's short answer and the sources
it rests on), as a lawyer reads it in a grid: a verdict (yes, no, partly), a value in the
contract's words, or one of the two answers that say less, "not addressed" and "unclear". A cell
is never blank and never shows a quote that is not the contract's own text at its span.

It lives on the ground floor because every layer above passes cells along: the agent that answers
a contract's questions makes them, the batch journal stores them, the service returns them, the
renderers and the roll-up read them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from clausewise.core.errors import ConfigError
from clausewise.core.report import Source

CellAnswer = Literal["yes", "no", "partly", "not addressed", "unclear", "value"]
#: The answers a cell may hold, in the order a roll-up lists them.
CELL_ANSWERS: tuple[CellAnswer, ...] = ("yes", "no", "partly", "value", "not addressed", "unclear")
#: Questions of one data room at most (a grid wider than this is a review, not a question).
MAX_QUESTIONS = 50
#: Characters of one question at most.
MAX_QUESTION_CHARS = 1000


class RoomCell(BaseModel):
    """One question answered on one contract. ``key`` names the question (its column); the
    answer rests on ``sources`` numbered ``cited``, or, for "unclear" and "not addressed", shows
    the ``closest`` clauses instead. ``note`` says why a cell says less than the decider did."""

    key: str = Field(description="The question's key: the same words always make the same key.")
    question: str
    answer: CellAnswer
    value: str = Field(default="", description="A value cell's value, in the contract's own words.")
    value_type: str = Field(default="", description="law, duration, date, party, condition ...")
    normalized: str = Field(default="", description="The value in a comparable form (3 years, new york).")
    line: str = Field(description='The answer as one line, with its source numbers ("Yes [1]").')
    sources: list[Source] = Field(default_factory=list, description="Verified quotes of the contract.")
    cited: list[int] = Field(default_factory=list, description="Numbers of the sources the answer rests on.")
    closest: list[int] = Field(default_factory=list, description="Unclear / not addressed: nearest clauses.")
    decided_by: str = "none"
    provision: str = ""
    rationale: str = ""
    note: str = ""
    seconds: float = 0.0

    def clauses(self) -> list[str]:
        """The clause ids the answer rests on (its closest clauses where it rests on none)."""
        numbers = self.cited or self.closest
        return list(dict.fromkeys(s.node_id for s in self.sources if s.number in numbers))

    def shown(self) -> str:
        """The cell as a grid shows it: the verdict or value, then its clauses."""
        said = self.value if self.answer == "value" else self.answer
        clauses = ", ".join(self.clauses())
        if self.answer in ("unclear", "not addressed"):
            return f"{said} (closest: {clauses})" if clauses else said
        return f"{said} ({clauses})" if clauses else said


def question_key(question: str) -> str:
    """A question's key: its words, case and spacing aside, hashed (stable across runs, so a
    journal or a stored result finds the cells of the same question again)."""
    words = " ".join(question.split()).lower()
    return "q" + hashlib.sha1(words.encode("utf-8")).hexdigest()[:10]


def room_questions(questions: Sequence[str]) -> list[tuple[str, str]]:
    """The questions of a data room as (key, question), in order, each once; refused when there
    is none, one is empty or too long, or there are too many."""
    found: dict[str, str] = {}
    for question in questions:
        text = " ".join(question.split())
        if not text:
            raise ConfigError("a question is empty", hint="give each question as one quoted argument")
        if len(text) > MAX_QUESTION_CHARS:
            raise ConfigError(
                f"a question is {len(text):,} characters (at most {MAX_QUESTION_CHARS:,})",
                hint="ask a shorter question",
            )
        found.setdefault(question_key(text), text)
    if not found:
        raise ConfigError("no question to ask", hint='give at least one question, e.g. "Which law governs?"')
    if len(found) > MAX_QUESTIONS:
        raise ConfigError(
            f"{len(found)} questions in one data room (at most {MAX_QUESTIONS})",
            hint="split them into several runs, or review provisions with `clausewise review`",
        )
    return list(found.items())
