"""A negotiation round held against a playbook: each position as decided on the text before and
on the text as proposed, the round's changes that lie in the clauses it was decided on, and an
order a lawyer reads in: positions the changes made worse first (meeting the position before, a
deviation as proposed), then those a decider could not settle, then the better, then the rest;
the changes no position's clause holds are listed apart, so nothing the other side did is hidden.

Pure: the reviews and the comparison come in, the assessment goes out; the deciders are run by
the caller on each text."""

from __future__ import annotations

from collections.abc import Sequence

from clausewise.core.comparison import Movement, PositionChange, RoundAssessment, TextChange, WordRound
from clausewise.core.domain import Span
from clausewise.core.results import PositionReview, RedlineEdit
from tools.clause_compare import spans_meet
from tools.playbook.positions import Playbook, Position
from tools.playbook.redlines import duration_words, normalized_duration
from tools.playbook.render import verdict_words

#: How far each verdict is from the position (refusals have no place: the movement is unclear).
_DISTANCE = {"meets_standard": 0, "meets_fallback": 1, "deviation": 2, "missing": 2}
_ORDER: dict[Movement, int] = {"worse": 0, "unclear": 1, "better": 2, "same": 3}
#: The longest quote a rationale shows of each text (the citations hold the whole clause).
QUOTE_CHARACTERS = 90


def movement(before: PositionReview, after: PositionReview) -> Movement:
    """Rule "movement": further from the position (a higher distance as proposed) is worse; a
    fallback met before and the standard as proposed is better; a refused side is unclear."""
    if before.verdict not in _DISTANCE or after.verdict not in _DISTANCE:
        return "same" if before.verdict == after.verdict else "unclear"
    low, high = _DISTANCE[before.verdict], _DISTANCE[after.verdict]
    if low == high and before.verdict == "meets_fallback" and after.verdict == "meets_fallback":
        low, high = before.fallback or 0, after.fallback or 0
    return "worse" if high > low else "better" if high < low else "same"


def _touches(span: Span, review: PositionReview) -> bool:
    return any(spans_meet(span, citation.span) for citation in review.citations)


def _quote(review: PositionReview) -> str:
    if not review.citations:
        return ""
    citation = review.citations[0]
    words = " ".join(citation.quote.split())
    shown = words if len(words) <= QUOTE_CHARACTERS else words[: QUOTE_CHARACTERS - 1].rsplit(" ", 1)[0] + "…"
    return f"{citation.node_id} “{shown}”"


def rationale(clause: str, before: PositionReview, after: PositionReview, numbers: Sequence[int]) -> str:
    """One sentence from the two decisions and their quotes, naming the changes by number."""
    sides = [
        f"{verdict_words(before).lower()} before" + (f" ({_quote(before)})" if before.citations else ""),
        f"{verdict_words(after).lower()} as proposed" + (f" ({_quote(after)})" if after.citations else ""),
    ]
    touched = f"; changes {', '.join(f'[{n}]' for n in numbers)} lie in its clause" if numbers else ""
    return f"{clause}: {sides[0]}, {sides[1]}{touched}."


def fallback_offer(position: Position, after: PositionReview) -> RedlineEdit | None:
    """Rule "fallback offered": where their text reads a duration that misses the standard and
    every fallback, the first fallback's bound written as their value writes its number, in their
    value's place (the value redline of the review as proposed, retargeted): a playbook's
    fallback is what the firm accepts, so it is what a reply offers instead of the old value.
    None for other forms (a law or a clause is not met halfway) and where no value was read."""
    if position.standard.form != "duration" or not position.fallbacks or after.verdict != "deviation":
        return None
    redline = after.redline
    if redline is None or redline.kind != "value" or len(redline.edits) != 1:
        return None
    bound = position.fallbacks[0].duration
    assert bound is not None  # a fallback has the standard's form (checked on load)
    edit = redline.edits[0]
    words = duration_words(normalized_duration(bound.at_least or bound.at_most or ""), edit.deleted)
    return RedlineEdit(span=edit.span, deleted=edit.deleted, inserted=words)


def assess(
    round_: WordRound,
    before: Sequence[PositionReview],
    after: Sequence[PositionReview],
    playbook: Playbook,
) -> RoundAssessment:
    """The round's positions (``before`` and ``after`` reviews, one per position of
    ``playbook``) with their movement, the changes in their clauses and, for those the round made
    worse, the fallback a reply offers, in reading order."""
    changes: list[TextChange] = round_.comparison.changes
    by_position = {review.position_id: review for review in after}
    positions_by_id = {position.id: position for position in playbook.positions}
    positions: list[PositionChange] = []
    covered: set[int] = set()
    for old in before:
        new = by_position.get(old.position_id)
        if new is None:
            continue
        numbers = [
            number
            for number, change in enumerate(changes, start=1)
            if _touches(change.before, old) or _touches(change.after, new)
        ]
        covered.update(numbers)
        positions.append(
            PositionChange(
                position_id=old.position_id,
                clause=old.clause,
                risk=new.risk,
                before=old,
                after=new,
                movement=movement(old, new),
                changes=numbers,
                rationale=rationale(old.clause, old, new, numbers),
                offer=fallback_offer(positions_by_id[old.position_id], new)
                if old.position_id in positions_by_id and movement(old, new) == "worse"
                else None,
            )
        )
    risk_rank = {"high": 0, "medium": 1, "low": 2}
    positions.sort(key=lambda p: (_ORDER[p.movement], not p.changes, risk_rank.get(p.risk, 3)))
    return RoundAssessment(
        round=round_,
        playbook=playbook.name,
        playbook_version=playbook.version,
        positions=positions,
        not_covered=[n for n in range(1, len(changes) + 1) if n not in covered],
    )
