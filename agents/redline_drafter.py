"""A redline drafted by a language model where the rule-made one falls short, and kept only if
it holds (``playbook.draft``).

The rules make the smallest edits they can (a value rewritten, sentences struck, the preferred
text inserted), but some deviations get none (a hypothesis contradicted and no preferred text)
and some edits, decided again, still miss the position (the provision worded on in the sentence
left). For those, the drafter model is asked to rewrite the deciding clause to meet the
position. Its draft is only a proposal; in order, each step run once:

1. **ask** the drafter for the clause rewritten (``prompts/playbook_redraft.md``; the clause is
   data in ``<clause>``);
2. **diff** the draft against the clause word by word (:func:`tools.playbook.redlines.word_edits`),
   so unchanged words are never marked, and check that everything outside the edits is the
   contract's own text;
3. **re-decide** the edited clause with the deciders that decided the position
   (:meth:`agents.playbook_reviewer.PlaybookReviewer.redecided`): kept only if it meets the
   standard or a fallback; otherwise the rule-made redline stays and the review says why.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Protocol

from langchain_core.runnables import Runnable
from pydantic import BaseModel, Field

from clausewise.core.backends.structured import invoke_structured
from clausewise.core.domain import Span
from clausewise.core.errors import StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.results import PositionReview, Redline, RedlineEdit
from tools.playbook.positions import Position
from tools.playbook.redlines import Edit, apply_edits, word_edits

log = logging.getLogger(__name__)


class Redecides(Protocol):
    def redecided(self, position: Position, edits: Sequence[Edit], clause: Span) -> bool | None: ...


class Redraft(BaseModel):
    clause: str = Field(description="The whole clause, rewritten to meet the position.")


def wants_draft(review: PositionReview) -> bool:
    """A deviation whose clause is quoted and whose rule-made redline is missing or, read again,
    does not meet the position (a missing clause gets the preferred text; nothing to redraft)."""
    if review.verdict != "deviation" or not review.citations:
        return False
    return review.redline is None or review.redline.satisfies is not True


def outside_kept(text: str, edits: Sequence[Edit], clause: Span) -> bool:
    """Whether the edited contract is the contract's own text everywhere outside ``clause``."""
    if any(e.start < clause[0] or e.end > clause[1] for e in edits):
        return False
    edited = apply_edits(text, edits)
    tail = len(text) - clause[1]
    return edited[: clause[0]] == text[: clause[0]] and edited[len(edited) - tail :] == text[clause[1] :]


class RedlineDrafter:
    def __init__(self, model: Runnable, text: str, reviewer: Redecides) -> None:
        """``model`` drafts (the ``drafter`` role); ``text`` is the contract's; ``reviewer``
        decides an edited clause again."""
        self.model = model
        self.text = text
        self.reviewer = reviewer

    def draft(self, position: Position, review: PositionReview) -> PositionReview:
        """The review with the drafted redline where it holds, else saying why not; its seconds
        include the drafting."""
        if not wants_draft(review):
            return review
        started = time.perf_counter()
        drafted = self._drafted(position, review)
        return drafted.model_copy(
            update={"seconds": round(review.seconds + time.perf_counter() - started, 2)}
        )

    def _drafted(self, position: Position, review: PositionReview) -> PositionReview:
        clause = review.citations[0].span
        words = self.text[clause[0] : clause[1]]
        messages = load_prompt("playbook_redraft").messages(
            clause_type=position.clause,
            requirement=position.standard.describe(),
            guidance=position.guidance or "none",
            preferred=position.preferred_text or "none",
            clause=words,
        )
        try:
            drafted = " ".join(invoke_structured(self.model, messages, Redraft).clause.split())
        except StructuredOutputError as error:
            log.warning("the drafter's reply was unreadable for %s: %s", position.id, error)
            return self._refused(review, "the drafter's reply could not be read")
        if not drafted or drafted == " ".join(words.split()):
            return self._refused(review, "the drafter changed nothing")
        edits = word_edits(self.text, clause, drafted)
        if not edits or not outside_kept(self.text, edits, clause):
            return self._refused(review, "the drafted edit reached outside the clause")
        if self.reviewer.redecided(position, edits, clause) is not True:
            return self._refused(review, "the drafted clause, decided again, does not meet the position")
        redline = Redline(
            kind="drafted",
            edits=[
                RedlineEdit(span=(e.start, e.end), deleted=self.text[e.start : e.end], inserted=e.insert)
                for e in edits
            ],
            target=position.standard.describe(),
            satisfies=True,
        )
        return review.model_copy(
            update={
                "redline": redline,
                "drafting": "drafted by the model; decided again, it meets the position",
            }
        )

    @staticmethod
    def _refused(review: PositionReview, why: str) -> PositionReview:
        kept = "the rule-made redline is kept" if review.redline else "no redline is proposed"
        return review.model_copy(update={"drafting": f"a drafted edit was refused ({why}); {kept}"})
