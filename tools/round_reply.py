"""The answer to the other side's round, in their own Word file: their tracked changes kept, ours
added under our author, so Word shows both and either side can accept or reject each.

To reject one of their changes is, in Word's terms, a change of ours on top of theirs:

- their insertion (``w:ins``, or the new place of moved text, ``w:moveTo``): its runs wrapped in a
  deletion of ours inside it (``w:ins`` > ``w:del``), their inserted paragraph mark deleted too;
- their deletion (``w:del``, or the old place of moved text, ``w:moveFrom``): the deleted words put
  back as an insertion of ours right after it; a paragraph they struck whole is put back as a new
  paragraph of ours (formatted and numbered like it) right after it, since a struck paragraph
  mark cannot be restored in place.

Each rejection carries a Word comment by our author with its reason, anchored on the words it
touches. The reply is read back before it is returned (:func:`checked_texts`): with every change
accepted it must read as their text with the rejected changes undone, and with only ours
rejected, as their text as proposed.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from docx import Document
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from clausewise.core.comparison import RoundAssessment
from clausewise.core.domain import TextVersion, TrackedText
from clausewise.core.results import RedlineEdit
from tools.clause_compare import spans_meet
from tools.parsing.docx import DELETED, INSERTED, body_lines
from tools.parsing.word_revisions import change_elements
from tools.tracked_docx import RevisionMarks
from tools.xml_text import xml_safe


class NotAnswerable(ValueError):
    """The reply cannot be written in this file (the reason says why)."""


@dataclass(frozen=True)
class Rejection:
    """Their change ``change_id`` (a :class:`~clausewise.core.domain.TrackedChange` id) rejected,
    with the reason our comment gives; ``instead``: words of ours put in the place of their
    insertion (a fallback offered) rather than nothing."""

    change_id: int
    reason: str
    instead: str = ""


def _is_mark(element: Any) -> bool:
    """A change of a paragraph mark (in ``w:pPr/w:rPr``) rather than of runs."""
    parent = element.getparent()
    return parent is not None and parent.tag == qn("w:rPr") and parent.getparent().tag == qn("w:pPr")


def _nested(element: Any) -> bool:
    """A change inside another change, or holding one (its words are in neither text, or only
    partly in the one its kind says)."""
    kinds = (*INSERTED, *DELETED)
    ancestor = element.getparent()
    while ancestor is not None:
        if ancestor.tag in kinds:
            return True
        ancestor = ancestor.getparent()
    return any(inner is not element for inner in element.iter(*kinds))


def _paragraph_of(element: Any) -> Any:
    current = element
    while current is not None and current.tag != qn("w:p"):
        current = current.getparent()
    return current


def _reject_insertion(element: Any, marks: RevisionMarks) -> Any:
    """Their inserted runs deleted by us (inside their insertion); an inserted paragraph mark or
    table row deleted too."""
    if _is_mark(element):
        element.addnext(marks.element("w:del"))
        return _paragraph_of(element)
    if element.getparent().tag == qn("w:trPr"):
        element.addnext(marks.element("w:del"))
        return next(element.getparent().getparent().iter(qn("w:p")))
    ours = marks.element("w:del")
    for child in list(element):
        ours.append(child)
    for text in ours.iter(qn("w:t")):
        text.tag = qn("w:delText")
    element.append(ours)
    return ours


def _restored_runs(element: Any) -> list[Any]:
    runs = [copy.deepcopy(run) for run in element.iter(qn("w:r"))]
    for run in runs:
        for text in run.iter(qn("w:delText")):
            text.tag = qn("w:t")
    return runs


def _reject_deletion(element: Any, marks: RevisionMarks) -> Any:
    """Their deleted words put back by us after their deletion; a struck paragraph put back whole
    as a new paragraph of ours after it."""
    if element.getparent().tag == qn("w:trPr"):
        raise NotAnswerable("a table row they struck cannot be put back as a change here: answer it in Word")
    if _is_mark(element):
        struck = _paragraph_of(element)
        restored = OxmlElement("w:p")
        properties = copy.deepcopy(struck.find(qn("w:pPr")))
        for change in properties.iter(*INSERTED, *DELETED):
            change.getparent().remove(change)
        mark_properties = properties.find(qn("w:rPr"))
        if mark_properties is None:
            mark_properties = OxmlElement("w:rPr")
            properties.append(mark_properties)
        mark_properties.append(marks.element("w:ins"))
        restored.append(properties)
        ours = marks.element("w:ins")
        for deleted in struck.iter(*DELETED):
            if not _is_mark(deleted):
                for run in _restored_runs(deleted):
                    ours.append(run)
        restored.append(ours)
        struck.addnext(restored)
        return restored
    ours = marks.element("w:ins")
    for run in _restored_runs(element):
        ours.append(run)
    element.addnext(ours)
    return ours


def _offer_after(element: Any, words: str, marks: RevisionMarks) -> None:
    """Our words inserted right after their insertion ``element`` (already deleted by us), in the
    formatting of its first run."""
    run = OxmlElement("w:r")
    first = next(element.iter(qn("w:r")), None)
    properties = first.find(qn("w:rPr")) if first is not None else None
    if properties is not None:
        run.append(copy.deepcopy(properties))
    text = OxmlElement("w:t")
    text.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    text.text = xml_safe(words)
    run.append(text)
    ours = marks.element("w:ins")
    ours.append(run)
    element.addnext(ours)


def _comment(document: Any, anchor: Any, reason: str, author: str) -> None:
    """A comment of ours on ``anchor`` (an element inside a paragraph, or a paragraph)."""
    comment = document.comments.add_comment(text=xml_safe(reason), author=xml_safe(author), initials="")
    start, end = OxmlElement("w:commentRangeStart"), OxmlElement("w:commentRangeEnd")
    for mark in (start, end):
        mark.set(qn("w:id"), str(comment.comment_id))
    reference_run = OxmlElement("w:r")
    reference = OxmlElement("w:commentReference")
    reference.set(qn("w:id"), str(comment.comment_id))
    reference_run.append(reference)
    if anchor.tag == qn("w:p"):
        content = [c for c in anchor if c.tag != qn("w:pPr")]
        if content:
            content[0].addprevious(start)
            content[-1].addnext(end)
        else:
            anchor.append(start)
            anchor.append(end)
        end.addnext(reference_run)
        return
    while anchor.getparent().tag != qn("w:p"):  # range marks sit among the paragraph's runs
        anchor = anchor.getparent()
    anchor.addprevious(start)
    anchor.addnext(end)
    end.addnext(reference_run)


def reply_docx(
    original: bytes, rejections: Sequence[Rejection], *, author: str, when: datetime
) -> tuple[bytes, list[Any]]:
    """Their Word file (``original``) with each of ``rejections`` made as a tracked change of ours
    and commented; the bytes and our revision elements (for reading back)."""
    document = Document(io.BytesIO(original))
    elements = change_elements(document)
    used = [int(v) for v in document.element.body.xpath(".//@w:id") if str(v).isdigit()]
    marks = RevisionMarks(author, when, max(used, default=0) + 1000)
    for rejection in rejections:
        if rejection.change_id not in elements:
            raise NotAnswerable(f"change {rejection.change_id} is not a change of the file's body")
        if any(_nested(e) for e in elements[rejection.change_id]):
            raise NotAnswerable(
                f"change {rejection.change_id} lies inside another change (an insertion deleted again): "
                "answer it in Word"
            )
        struck = {  # paragraphs struck whole: put back whole, not word by word
            _paragraph_of(e) for e in elements[rejection.change_id] if e.tag in DELETED and _is_mark(e)
        }
        anchors = []
        for element in elements[rejection.change_id]:
            if element.tag in INSERTED:
                anchors.append(_reject_insertion(element, marks))
                if rejection.instead:
                    _offer_after(element, rejection.instead, marks)
            elif element.tag in DELETED and (_is_mark(element) or _paragraph_of(element) not in struck):
                anchors.append(_reject_deletion(element, marks))
        if not anchors:
            raise NotAnswerable(f"change {rejection.change_id} changes formatting only")
        _comment(document, anchors[0], rejection.reason, author)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue(), marks.made


def without_ours(data: bytes, author: str) -> bytes:
    """The reply with our changes rejected (ours undone, theirs kept): it must read as theirs."""
    document = Document(io.BytesIO(data))
    body = document.element.body
    for element in list(body.iter(qn("w:ins"), qn("w:del"))):
        if element.get(qn("w:author")) != author or element.getparent() is None:
            continue
        if _is_mark(element):
            if element.tag == qn("w:ins"):  # our new paragraph: gone with its mark
                paragraph = _paragraph_of(element)
                paragraph.getparent().remove(paragraph)
            else:
                element.getparent().remove(element)
        elif element.tag == qn("w:ins"):
            element.getparent().remove(element)
        else:
            for text in element.iter(qn("w:delText")):
                text.tag = qn("w:t")
            for child in list(element):
                element.addprevious(child)
            element.getparent().remove(element)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


_LABEL = re.compile(r"^(?:\d{1,3}(?:\.\d{1,3})*\.?|\([a-z0-9]{1,4}\))\s+")


def text_of(data: bytes, version: TextVersion) -> str:
    """A Word file's text as ``version``, read as the parser reads it."""
    return "\n".join(line.line for line in body_lines(Document(io.BytesIO(data)), None, version) if line.line)


def _comparable(text: str) -> list[str]:
    """Lines without their list numbers (Word renumbers after a clause put back or taken out)."""
    return [_LABEL.sub("", " ".join(line.split())) for line in text.split("\n") if line.strip()]


def intended(tracked: TrackedText, proposed: str, before: str, rejections: Sequence[Rejection]) -> str:
    """Their ``proposed`` text with the rejected changes undone: an insertion taken out (or our
    words in its place), a deletion put back at its point (a paragraph struck whole, as a line of
    its own) with its words from their text ``before``."""
    instead = {r.change_id: r.instead for r in rejections}
    edits: list[tuple[int, int, str]] = []
    for change in tracked.changes:
        if change.id not in instead or change.proposed is None or change.before is None:
            continue
        if change.kind == "insert":
            edits.append((change.proposed[0], change.proposed[1], instead[change.id]))
        elif change.kind in ("delete", "move"):
            words = before[change.before[0] : change.before[1]]
            whole = change.before[0] == 0 or before[change.before[0] - 1] == "\n"
            point = change.departure[0] if change.kind == "move" and change.departure else change.proposed[0]
            edits.append((point, point, words + "\n" if whole else " " + words + " "))
            if change.kind == "move":
                edits.append((change.proposed[0], change.proposed[1], ""))
    text = proposed
    # from the end; at one point, the words taken out before those put back
    for start, end, words in sorted(edits, key=lambda e: (e[0], 0 if e[2] else 1), reverse=True):
        text = text[:start] + words + text[end:]
    return text


def checked(
    original: bytes, reply: bytes, tracked: TrackedText, rejections: Sequence[Rejection], author: str
) -> None:
    """Read the reply back: every change accepted, it reads as their text with ours undone
    (list numbers aside); ours rejected, as theirs as proposed; everything rejected, as theirs
    before. :class:`NotAnswerable` says which failed."""
    proposed, before = text_of(original, "proposed"), text_of(original, "before")
    if _comparable(text_of(reply, "proposed")) != _comparable(
        intended(tracked, proposed, before, rejections)
    ):
        raise NotAnswerable("with every change accepted the reply would not read as intended")
    if text_of(without_ours(reply, author), "proposed") != proposed:
        raise NotAnswerable("with our changes rejected the reply would not read as their proposal")
    if text_of(reply, "before") != before:
        raise NotAnswerable("with every change rejected the reply would not read as their text before")


def _offered(offer: RedlineEdit, tracked: TrackedText) -> tuple[int, str, set[int]] | None:
    """Where ``offer`` (their value, at its span in the text as proposed, and the fallback's words)
    can be made in their file: their one insertion inside the value, the words of ours that take
    its place (the value's words around it kept), and their deletions at the value's place (the
    old value, left deleted). None when the value is not one insertion of theirs."""
    start, end = offer.span
    inserted = [
        c
        for c in tracked.changes
        if c.kind == "insert"
        and c.part == "body"
        and c.proposed
        and start <= c.proposed[0] < c.proposed[1] <= end
    ]
    if len(inserted) != 1:
        return None
    change = inserted[0]
    assert change.proposed is not None
    head, tail = offer.deleted[: change.proposed[0] - start], offer.deleted[change.proposed[1] - start :]
    words = offer.inserted
    if not words.startswith(head) or not words.endswith(tail) or len(words) <= len(head) + len(tail):
        return None
    replaced = {
        c.id
        for c in tracked.changes
        if c.kind == "delete" and c.proposed is not None and start <= c.proposed[0] <= end
    }
    return change.id, words[len(head) : len(words) - len(tail)], replaced


def rejections_for(assessed: RoundAssessment, tracked: TrackedText) -> list[Rejection]:
    """Their changes to answer, for each position the round made worse:

    - rule "fallback accepted": where their text meets a fallback, their changes stay (the
      playbook accepts it);
    - rule "fallback offered": where the assessment offers a fallback (a duration missing every
      fallback) and their new value is one insertion, that insertion gives way to the fallback's
      words and their deletion of the old value stays;
    - otherwise every change of theirs in the position's clause is rejected.

    Each with the position's rationale and requirement as the reason. A change inside another
    (an insertion deleted again) is left to the lawyer."""
    changes = assessed.round.comparison.changes
    reasons: dict[int, list[str]] = {}
    instead: dict[int, str] = {}
    for position in assessed.positions:
        if position.movement != "worse" or position.after.verdict == "meets_fallback":
            continue
        reason = f"{position.rationale} Our position: {position.before.playbook.requirement}."
        left: set[int] = set()
        offered = None
        if position.offer is not None:
            reason += f" We can accept {position.offer.inserted} (our fallback)."
            offered = _offered(position.offer, tracked)
        if offered is not None:
            number, words, left = offered
            instead[number] = words
        for number in position.changes:
            change = changes[number - 1]
            for revision in tracked.changes:
                if revision.part != "body" or revision.kind == "formatting" or not revision.text:
                    continue
                if revision.before is None or revision.proposed is None or revision.id in left:
                    continue
                if revision.before[1] == revision.before[0] and revision.proposed[1] == revision.proposed[0]:
                    continue  # in neither text: an insertion deleted again
                if spans_meet(change.before, revision.before) or spans_meet(change.after, revision.proposed):
                    reasons.setdefault(revision.id, [])
                    if reason not in reasons[revision.id]:
                        reasons[revision.id].append(reason)
    return [
        Rejection(number, " ".join(texts), instead.get(number, ""))
        for number, texts in sorted(reasons.items())
    ]
