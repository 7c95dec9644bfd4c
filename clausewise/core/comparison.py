"""Two texts of one contract compared clause by clause: what a lawyer reads in a negotiation
round (the other side's proposal against what was sent, or one stored version against another).

Every change has its kind and its span in both texts: the words it holds where they are, an empty
span where they would be in the other text. A clause that only moved, or was only renumbered, is
not a change of substance: a move is listed as such, a new number is counted, never as words.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from clausewise.core.domain import Span, TextVersion, TrackedChange, WordComment
from clausewise.core.results import PositionReview, RedlineEdit, RiskTier

ChangeKind = Literal[
    "value_changed",
    "words_replaced",
    "words_inserted",
    "words_deleted",
    "clause_inserted",
    "clause_struck",
    "clause_moved",
]
#: How each kind reads in a sentence.
KIND_WORDS: dict[str, str] = {
    "value_changed": "value changed",
    "words_replaced": "words replaced",
    "words_inserted": "words inserted",
    "words_deleted": "words deleted",
    "clause_inserted": "clause inserted",
    "clause_struck": "clause struck",
    "clause_moved": "clause moved",
}


class TextChange(BaseModel):
    """One change between the two texts, in the clause it touches in each."""

    kind: ChangeKind
    before_clause: str | None = Field(default=None, description="The clause's id in the text before.")
    after_clause: str | None = Field(default=None, description="The clause's id in the text after.")
    before: Span = Field(description="The changed words in the text before (empty where there are none).")
    after: Span = Field(description="The changed words in the text after (empty where there are none).")
    before_words: str = ""
    after_words: str = ""
    value_before: str = Field(default="", description="A changed value, normalized (e.g. '12 months').")
    value_after: str = ""
    authors: list[str] = Field(
        default_factory=list, description="Who made it, from the Word file's tracked changes (when known)."
    )

    @property
    def clause(self) -> str:
        """The clause it is in, named as the text after names it (before, for a struck clause)."""
        return self.after_clause or self.before_clause or ""


class Comparison(BaseModel):
    """The changes from one text of a contract to another, in the order of the text after."""

    before_name: str
    after_name: str
    changes: list[TextChange] = Field(default_factory=list)
    clauses_compared: int = Field(default=0, description="Clauses of the text after matched or new.")
    renumbered: int = Field(default=0, description="Clauses matched whose number alone changed.")

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = {}
        for change in self.changes:
            found[change.kind] = found.get(change.kind, 0) + 1
        return found


class TextReference(BaseModel):
    """One text of a stored contract: its live version or ``version``, and, for a Word file with
    tracked changes, which of its texts (``text``: before or proposed; default the one read)."""

    contract: str
    version: int | None = None
    text: TextVersion | None = None

    @classmethod
    def parse(cls, reference: str) -> TextReference:
        """``ID``, ``ID@3`` (its version 3), ``ID@before`` / ``ID@proposed`` (a text of its Word
        file's tracked changes), ``ID@3:before``."""
        contract, _, rest = reference.partition("@")
        version: int | None = None
        text: str | None = None
        number, _, named = rest.partition(":")
        if number in ("before", "proposed") and not named:
            text = number
        elif number:
            if not number.isdigit():
                raise ValueError(f"{reference!r}: after @ give a version number, before or proposed")
            version, text = int(number), named or None
        if text not in (None, "before", "proposed"):
            raise ValueError(f"{reference!r}: the text is before or proposed")
        return cls(contract=contract, version=version, text=text)  # type: ignore[arg-type]

    def describe(self) -> str:
        version = f"@{self.version}" if self.version is not None else ""
        text = (":" if version else "@") + self.text if self.text else ""
        return f"{self.contract}{version}{text}"


class WordRound(BaseModel):
    """A Word file's tracked changes read as a negotiation round: each change as Word recorded it
    (author, kind, its words in both texts), its comments, and the clause-level comparison of its
    text before with its text as proposed."""

    contract_id: str
    version: int
    read_as: TextVersion
    authors: dict[str, int] = Field(default_factory=dict)
    revisions: list[TrackedChange] = Field(default_factory=list)
    comments: list[WordComment] = Field(default_factory=list)
    comparison: Comparison


Movement = Literal["worse", "better", "unclear", "same"]


class PositionChange(BaseModel):
    """A playbook position decided on both texts of a round, and the changes that touch it."""

    position_id: str
    clause: str
    risk: RiskTier
    before: PositionReview
    after: PositionReview
    movement: Movement = Field(
        description="worse: further from the position as proposed (e.g. meets it before, a deviation "
        "after); better: closer; unclear: a side was refused; same: the same verdict."
    )
    changes: list[int] = Field(
        default_factory=list, description="The round's changes (1-based) in its clause in either text."
    )
    rationale: str = ""
    offer: RedlineEdit | None = Field(
        default=None,
        description="Where the round made the position worse and their value misses even the fallbacks: "
        "the first fallback's value written in their value's place (span and words in the text as "
        "proposed), what our reply offers.",
    )


class RoundAssessment(BaseModel):
    """A negotiation round held against a playbook: each position before and as proposed, those
    the changes made worse first, and the changes no position covers."""

    round: WordRound
    playbook: str
    playbook_version: str
    positions: list[PositionChange] = Field(default_factory=list)
    not_covered: list[int] = Field(
        default_factory=list, description="Changes (1-based) in no clause a position was decided on."
    )


class RoundReply(BaseModel):
    """Our answer to a round: their Word file with their changes kept and ours added (``data``),
    which of their changes we rejected (ids, with our reasons as the Word comments say them)."""

    assessment: RoundAssessment
    rejected: dict[int, str] = Field(default_factory=dict)
    offered: dict[int, str] = Field(
        default_factory=dict, description="Their insertions replaced by our words (a fallback offered)."
    )
    author: str
    data: bytes = Field(exclude=True, repr=False)
