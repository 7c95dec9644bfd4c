"""Tracked changes made in the contract's own Word file, so the lawyer gets back their document:
its styles, numbering, fonts, tables and headers untouched, with the redlines as ``w:ins`` /
``w:del`` (author and date) to accept or reject.

The contract's text was read from that file line by line (:func:`tools.parsing.docx.body_lines`),
so an offset into the text finds its paragraph and, through the run that holds it, its character.
A run an edit starts or ends inside is split there (both halves keep its formatting); deleted
runs are wrapped in ``w:del``; inserted text is a new run formatted like the text it joins; a new
clause is a new paragraph styled (and numbered) like the clause it follows, its paragraph mark
tracked too.

What a Word file cannot take as a tracked change of our text (an edit inside a table row, a new
line in the middle of a paragraph, a file that no longer reads as the contract, text Word shows
from outside the body) raises :class:`NotPlaceable`; the caller then exports the contract's text
instead. What the original could run or fetch when opened is taken out before it is saved
(:mod:`tools.word_active_content`) unless the caller keeps it. Every document made here is read
back before it is returned: with our changes rejected it must read as the contract exactly, with
them accepted as the edited contract (list numbers aside, which Word renumbers), and nothing
active may be left in it unless kept.
"""

from __future__ import annotations

import copy
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from docx import Document
from docx.oxml import OxmlElement
from docx.oxml.ns import qn

from tools.parsing.docx import BodyLine, body_lines, paragraph_runs, run_pieces
from tools.playbook.redlines import NUMBER_LABEL, Edit, apply_edits, next_label
from tools.tracked_docx import RevisionMarks, text_run
from tools.word_active_content import hidden_content, strip_active_content

#: The number :func:`tools.playbook.redlines.insertion` types before a new clause, dropped where
#: Word numbers the paragraph itself.
_TYPED_LABEL = re.compile(rf"^{NUMBER_LABEL}\s+")
_WRAPPERS = {qn("w:ins"), qn("w:del")}


class NotPlaceable(ValueError):
    """The edits cannot be made as tracked changes in this Word file (the reason says why)."""


@dataclass
class _Char:
    """One character of a paragraph as python-docx reads it: the run holding it, the element
    (``w:t``, ``w:tab``, ...) and, inside a ``w:t``, its index."""

    run: Any
    node: Any
    index: int | None


@dataclass
class _Line:
    """A line of the contract placed in the Word file."""

    body: BodyLine
    start: int
    end: int
    prefix: int  # characters of the number Word shows (and its space) at the line's start
    raw_at: list[int]  # per character after the prefix, the index of the raw character it stands for
    chars: list[_Char] = field(default_factory=list)
    last_added: Any = None  # the last new paragraph put after this line's (new clauses keep their order)

    def raw(self, offset: int) -> int:
        """The raw index where the text at contract ``offset`` (inside this line) starts."""
        local = max(offset - self.start - self.prefix, 0)
        return self.raw_at[local] if local < len(self.raw_at) else len(self.body.text)

    def raw_end(self, offset: int) -> int:
        """The raw index just past a range of this line that ends at contract ``offset``."""
        local = min(offset, self.end) - self.start - self.prefix
        return self.raw_at[local - 1] + 1 if local > 0 else 0


def _collapsed(raw: str) -> tuple[str, list[int]]:
    """``raw`` with runs of spaces made one and the ends trimmed (as the parser does), and for
    each character kept the index of the raw character it stands for (a collapsed space: the
    first of its run)."""
    out: list[str] = []
    at: list[int] = []
    previous_end = 0
    for match in re.finditer(r"\S+", raw):
        if out:
            out.append(" ")
            at.append(previous_end)
        out.append(match.group(0))
        at.extend(range(match.start(), match.end()))
        previous_end = match.end()
    return "".join(out), at


def _chars(paragraph: Any) -> tuple[list[_Char], str]:
    """The paragraph's characters as the parser reads them, and that text."""
    chars: list[_Char] = []
    pieces: list[str] = []
    for run in paragraph_runs(paragraph):
        for node, piece in run_pieces(run):
            pieces.append(piece)
            index = node.tag == qn("w:t")
            chars.extend(_Char(run, node, i if index else None) for i in range(len(piece)))
    return chars, "".join(pieces)


def _placed(document: Any, text: str) -> list[_Line]:
    """Every line of the contract with its place in the Word file; a file that does not read as
    ``text`` any more is not placeable."""
    lines: list[_Line] = []
    offset = 0
    for body in body_lines(document):
        line = body.line
        if not line:
            continue
        if text[offset : offset + len(line)] != line:
            raise NotPlaceable("the Word file does not read as the contract's text")
        collapsed, raw_at = _collapsed(body.text)
        if not line.endswith(collapsed):
            raise NotPlaceable("a paragraph's number could not be told from its text")
        placed = _Line(body, offset, offset + len(line), len(line) - len(collapsed), raw_at)
        if not body.is_row:
            placed.chars, read = _chars(body.element)
            if read != body.text:
                raise NotPlaceable("a paragraph's runs do not read as its text")
        lines.append(placed)
        offset += len(line) + 1
    if offset - 1 != len(text):
        raise NotPlaceable("the Word file does not read as the contract's text")
    return lines


def _cut(line: _Line, at: int) -> None:
    """Make raw index ``at`` of the line's paragraph the start of a run, splitting the run (and
    the ``w:t``) it falls inside; both halves keep the run's formatting."""
    if at <= 0 or at >= len(line.chars):
        return
    here, before = line.chars[at], line.chars[at - 1]
    if here.run is not before.run:
        return
    run = here.run
    tail = OxmlElement("w:r")
    if run.rPr is not None:
        tail.append(copy.deepcopy(run.rPr))
    moving = [node for node in run.iterchildren() if node.tag != qn("w:rPr")]
    split_node = here.node if here.node is before.node else None
    if split_node is not None:
        rest = OxmlElement("w:t")
        rest.set(qn("xml:space"), "preserve")
        rest.text = split_node.text[here.index :]
        split_node.text = split_node.text[: here.index]
        split_node.set(qn("xml:space"), "preserve")
        tail.append(rest)
        for char in line.chars[at:]:
            if char.node is split_node:
                char.node, char.index = rest, char.index - len(split_node.text)  # type: ignore[operator]
    started = False
    for node in moving:
        if node is here.node:
            started = True
            if split_node is not None:
                continue
        if started:
            tail.append(node)
    run.addnext(tail)
    for char in line.chars[at:]:
        if char.run is run:
            char.run = tail


def _outer(run: Any) -> Any:
    """The run, or the change wrapping it."""
    parent = run.getparent()
    return parent if parent.tag in _WRAPPERS else run


def _delete_runs(line: _Line, start: int, end: int, marks: RevisionMarks) -> None:
    _cut(line, start)
    _cut(line, end)
    runs: list[Any] = []
    for char in line.chars[start:end]:
        if not runs or runs[-1] is not char.run:
            runs.append(char.run)
    wrapper = None
    for run in runs:
        if run.getparent().tag in _WRAPPERS:
            raise NotPlaceable("two edits change the same words")
        for node in run.iter(qn("w:t")):
            node.tag = qn("w:delText")
        if wrapper is None or wrapper.getnext() is not run:
            wrapper = marks.element("w:del")
            run.addprevious(wrapper)
        wrapper.append(run)


def _new_run(words: str, like: Any | None, marks: RevisionMarks) -> Any:
    """An inserted run of ``words`` formatted like the run ``like``."""
    run = text_run("ins", words)
    if like is not None and like.rPr is not None:
        run.insert(0, copy.deepcopy(like.rPr))
    change = marks.element("w:ins")
    change.append(run)
    return change


def _insert_words(line: _Line, at: int, words: str, marks: RevisionMarks) -> None:
    """``words`` inserted at raw index ``at`` of the line's paragraph, formatted like the run
    before them (or after, at the paragraph's start)."""
    _cut(line, at)
    if at < len(line.chars):
        like = line.chars[at - 1].run if at > 0 else line.chars[at].run
        _outer(line.chars[at].run).addprevious(_new_run(words, like, marks))
    else:
        last = line.chars[-1].run
        _outer(last).addnext(_new_run(words, last, marks))


def _mark_paragraph(paragraph: Any, tag: str, marks: RevisionMarks) -> None:
    """Track the paragraph's own mark (the end of the paragraph) as inserted or deleted."""
    properties = paragraph.get_or_add_pPr()
    run_properties = properties.find(qn("w:rPr"))
    if run_properties is None:
        run_properties = OxmlElement("w:rPr")
        following = [properties.find(qn(t)) for t in ("w:sectPr", "w:pPrChange")]
        anchor = next((f for f in following if f is not None), None)
        if anchor is not None:
            anchor.addprevious(run_properties)
        else:
            properties.append(run_properties)
    run_properties.insert(0, marks.element(tag))


def _template(lines: Sequence[_Line], anchor: int, label: str) -> _Line:
    """The paragraph a new clause is styled after: the one its number follows (``label`` is the
    number typed on the new clause), else the paragraph it goes after."""
    if label:
        for line in reversed(lines[max(anchor - 200, 0) : anchor + 1]):
            first = line.body.line.split(" ", 1)[0]
            if not line.body.is_row and next_label(first) == label:
                return line
    return lines[anchor]


def _insert_paragraphs(lines: Sequence[_Line], anchor: int, words: str, marks: RevisionMarks) -> None:
    """New paragraphs (one per line of ``words``) after the paragraph of line ``anchor``."""
    after = lines[anchor].last_added if lines[anchor].last_added is not None else lines[anchor].body.element
    if lines[anchor].body.is_row:
        raise NotPlaceable("a clause cannot be inserted inside a table")
    for text in [t for t in words.split("\n") if t.strip()]:
        typed = _TYPED_LABEL.match(text)
        template = _template(lines, anchor, typed.group(0).strip() if typed else "")
        paragraph = OxmlElement("w:p")
        if template.body.element.pPr is not None:
            properties = copy.deepcopy(template.body.element.pPr)
            for stale in properties.findall(qn("w:sectPr")) + properties.findall(qn("w:pPrChange")):
                properties.remove(stale)
            for stale in properties.findall(qn("w:rPr")):
                properties.remove(stale)
            paragraph.append(properties)
        if typed and template.prefix:  # Word numbers it: the typed number would show twice
            text = text[typed.end() :]
        like = template.chars[-1].run if template.chars else None
        paragraph.append(_new_run(text, like, marks))
        _mark_paragraph(paragraph, "w:ins", marks)
        after.addnext(paragraph)
        after = lines[anchor].last_added = paragraph


def _line_at(lines: Sequence[_Line], offset: int) -> int:
    """The index of the line holding contract ``offset`` (its end counts as inside it)."""
    low, high = 0, len(lines) - 1
    while low < high:
        middle = (low + high + 1) // 2
        if lines[middle].start <= offset:
            low = middle
        else:
            high = middle - 1
    return low


def _make(lines: Sequence[_Line], edit: Edit, marks: RevisionMarks) -> None:
    """One edit as tracked changes: its deletion line by line (a paragraph mark inside it
    deleted; whole paragraphs struck lose their mark too, so accepting removes them), then its
    insertion where the deletion ends."""
    first, last = _line_at(lines, edit.start), _line_at(lines, edit.end)
    start_line = lines[first]
    if edit.start < edit.end:
        whole_lines = (
            not edit.insert
            and edit.start <= start_line.start + start_line.prefix
            and edit.end >= lines[last].end
        )
        for number in range(first, last + 1):
            line = lines[number]
            if line.body.is_row:
                raise NotPlaceable("an edit falls inside a table")
            low, high = line.raw(max(edit.start, line.start)), line.raw_end(edit.end)
            if high > low:
                _delete_runs(line, low, high, marks)
            mark_inside = edit.start <= line.end < edit.end
            if number + 1 < len(lines) and (mark_inside or (whole_lines and line.end <= edit.end)):
                _mark_paragraph(line.body.element, "w:del", marks)
    if not edit.insert:
        return
    if "\n" in edit.insert:
        if edit.start != edit.end or edit.start != start_line.end or not edit.insert.startswith("\n"):
            raise NotPlaceable("a new line can only be inserted after a paragraph")
        _insert_paragraphs(lines, first, edit.insert, marks)
        return
    if start_line.body.is_row:
        raise NotPlaceable("an edit falls inside a table")
    at = start_line.raw(edit.end) if first == last else len(start_line.chars)
    _insert_words(start_line, at, edit.insert, marks)


# -- reading the result back (our changes only) ----------------------------------------------------


def _view(body: Any, made: Sequence[Any], accept: bool) -> None:
    """Accept or reject the changes in ``made`` in ``body`` (a copy): a kept change is unwrapped,
    a dropped one removed; a paragraph whose mark goes is merged into the next."""
    ids = {element.get(qn("w:id")) for element in made}
    keep, drop = ("w:ins", "w:del") if accept else ("w:del", "w:ins")
    merged: list[Any] = []
    for element in list(body.iter(qn(keep), qn(drop))):
        if element.get(qn("w:id")) not in ids:
            continue
        in_mark = element.getparent().tag == qn("w:rPr")
        if element.tag == qn(keep):
            if in_mark:
                element.getparent().remove(element)
                continue
            for node in element.iter(qn("w:delText")):
                node.tag = qn("w:t")
            for child in list(element):
                element.addprevious(child)
            element.getparent().remove(element)
        elif in_mark:
            merged.append(element.getparent().getparent().getparent())
            element.getparent().remove(element)
        else:
            element.getparent().remove(element)
    for paragraph in merged:
        following = paragraph.getnext()
        content = [c for c in paragraph if c.tag != qn("w:pPr")]
        if following is None or following.tag != qn("w:p"):
            continue
        anchor = following.find(qn("w:pPr"))
        for child in reversed(content):
            if anchor is not None:
                anchor.addnext(child)
            else:
                following.insert(0, child)
        paragraph.getparent().remove(paragraph)


def _lines_of(document: Any) -> list[BodyLine]:
    return [line for line in body_lines(document) if line.line]


_NOT_EDITED = "with the changes accepted the Word file would not read as the edited contract"


def _checked(data: bytes, text: str, edits: Sequence[Edit], made: Sequence[Any]) -> None:
    """Read the document back: our changes rejected, it reads as the contract exactly; accepted,
    as the edited contract, except that a line Word numbers need only end with its own text
    (Word renumbers the clauses after a struck or inserted one)."""
    rejected = Document(io.BytesIO(data))
    _view(rejected.element.body, made, accept=False)
    if "\n".join(line.line for line in _lines_of(rejected)) != text:
        raise NotPlaceable("with the changes rejected the Word file would not read as the contract")
    accepted = Document(io.BytesIO(data))
    _view(accepted.element.body, made, accept=True)
    wanted = [" ".join(t.split()) for t in apply_edits(text, edits).split("\n") if t.strip()]
    got = _lines_of(accepted)
    if len(got) != len(wanted):
        raise NotPlaceable(_NOT_EDITED)
    for line, expected in zip(got, wanted, strict=True):
        own = " ".join(line.text.split())
        if expected != line.line and not (line.label and expected.endswith(own)):
            raise NotPlaceable(
                "with the changes accepted the Word file would not read as the edited contract"
            )


@dataclass(frozen=True)
class TrackedOriginal:
    """The Word file with the tracked changes, and what was taken out of it (in words)."""

    data: bytes
    removed: tuple[str, ...] = ()


def tracked_original_docx(
    original: bytes,
    text: str,
    edits: Sequence[Edit],
    *,
    author: str,
    when: datetime,
    keep_active: bool = False,
) -> TrackedOriginal:
    """The contract's own Word file (``original``, which reads as ``text``) with ``edits`` as
    tracked changes by ``author`` at ``when``, and without what it could run or fetch when
    opened unless ``keep_active``; :class:`NotPlaceable` when the changes cannot be made."""
    document = Document(io.BytesIO(original))
    hidden = hidden_content(document)
    if hidden:
        raise NotPlaceable("the Word file shows text that is not in its body (" + "; ".join(hidden) + ")")
    lines = _placed(document, text)
    used = [int(v) for v in document.element.body.xpath(".//@w:id") if str(v).isdigit()]
    marks = RevisionMarks(author, when, max(used, default=0) + 1)
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):  # two insertions at one point keep their order
        _make(lines, edit, marks)
    removed = () if keep_active else tuple(strip_active_content(document))
    out = io.BytesIO()
    document.save(out)
    data = out.getvalue()
    _checked(data, text, edits, marks.made)
    if not keep_active and strip_active_content(Document(io.BytesIO(data))):
        raise NotPlaceable("the Word file's active content could not all be removed")
    return TrackedOriginal(data, removed)
