"""The data room's answerer: a contract's questions answered by the quick answer, the contract's
indexes opened and its decider built once for all of them.

Building a decider is the costly part of a quick answer (the presence classifier scores every
clause of the contract, the retriever loads its indexes); deciding one more question is cheap. So
a data room's unit of work is one contract with all its questions, and this agent is what the
unit runs: each question decided (:meth:`agents.decider.AnswerDecider.decide`), its short answer
and sources made as ``ask --quick`` makes them, and the cell checked again by
:func:`tools.room.cells.cell_of` (a cell says less rather than show what its sources do not say).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from agents.decider import AnswerDecider
from agents.finishing import decision_finding, short_answer_of
from clausewise.core.room import RoomCell, question_key
from tools.report_checks import number_sources
from tools.room.cells import cell_of


class RoomAnswerer:
    def __init__(self, decider: AnswerDecider) -> None:
        self.decider = decider

    @property
    def contract_id(self) -> str:
        return self.decider.index.contract_id

    def answer(self, question: str, key: str | None = None) -> RoomCell:
        """One question's cell on this contract."""
        started = time.perf_counter()
        decision = self.decider.decide(question)
        sources = number_sources(decision_finding(decision))
        short = short_answer_of(decision, sources) if decision is not None else None
        seconds = round(time.perf_counter() - started, 3)
        return cell_of(
            key or question_key(question), question, short, sources, self.decider.verifier, seconds
        )

    def answer_all(self, questions: Sequence[tuple[str, str]]) -> Iterator[RoomCell]:
        """The cells of ``questions`` (key, question), in order, each as soon as it is decided."""
        for key, question in questions:
            yield self.answer(question, key)
