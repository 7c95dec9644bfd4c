"""Deterministic clause-tree builder.

The document is first cut into regions (preamble, table of contents, recitals, body, signature
block, schedules); each region's blocks are then nested with a stack of open numbering levels:
a label continues the level whose last value it follows ("(b)" after "(a)"), opens a new level
when it is a first value ("(i)" under "(h)"... unless "(i)" follows "(h)" as a letter), or sits
under the section its decimal path names ("4.2" under "4"/"Article IV"). Indentation breaks
ties and closes levels for unlabelled paragraphs. Finally multi-sentence paragraphs get sentence
leaves and inline "(a) ...; (b) ..." enumerations get list-item children, so that the smallest
node around any clause is close to the clause itself.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from dataclasses import dataclass, field

from clausewise.core.config import StructureSettings
from clausewise.core.domain import ClauseNode, ClauseTree, FileType, NodeKind, ParsedDocument
from tools.structure.blocks import BlockFacts, analyze_blocks, is_all_caps, is_title_case, split_title
from tools.structure.fallback import fallback_tree
from tools.structure.inline_sections import split_inline_sections
from tools.structure.labels import Label, Reading, parse_label
from tools.structure.sentences import sentence_spans

ROOT_ID = "document"


@dataclass(eq=False)
class Proto:
    """A node under construction."""

    kind: NodeKind
    start: int
    own_end: int
    label: Label | None = None
    reading: Reading | None = None
    title: str = ""
    body_start: int = 0
    x0: float = 0.0
    heading_level: int = 0
    defined_term: str | None = None
    children: list[Proto] = field(default_factory=list)
    parent: Proto | None = None
    node_id: str = ""

    def add(self, child: Proto) -> Proto:
        child.parent = self
        self.children.append(child)
        return child

    @property
    def end(self) -> int:
        return max([self.own_end, *(c.end for c in self.children)])

    @property
    def path(self) -> tuple[int, ...] | None:
        if self.reading is not None and self.reading.style in {"decimal", "article"}:
            return self.reading.path
        return None


@dataclass
class Frame:
    proto: Proto
    container: bool = False  # root, schedule, article or heading: holds a level of its own
    lead_in: bool = False  # an unnumbered paragraph ending in ":" that owns the list after it

    @property
    def reading(self) -> Reading | None:
        return self.proto.reading


def _paragraph(facts: BlockFacts) -> Proto:
    kind = NodeKind.DEFINITION if facts.defined_term else NodeKind.PARAGRAPH
    return Proto(
        kind, facts.start, facts.end, body_start=facts.start, x0=facts.x0, defined_term=facts.defined_term
    )


# --- regions -----------------------------------------------------------------------------------


@dataclass
class Region:
    kind: str  # preamble | toc | recitals | body | signatures | schedule
    facts: list[BlockFacts] = field(default_factory=list)


def _starts_body(f: BlockFacts) -> bool:
    return f.label is not None and f.label.readings[0].style not in {"bullet", "schedule"}


def segment(facts: list[BlockFacts]) -> list[Region]:
    """Cut the block sequence into top-level regions."""
    regions: list[Region] = []
    state = "preamble"
    body_seen = False

    def open_region(kind: str) -> Region:
        region = Region(kind)
        regions.append(region)
        return region

    current = open_region("preamble")
    for f in facts:
        if (f.furniture or f.continuation) and current.facts:
            current.facts.append(f)  # page furniture and run-on text never change the region
            continue
        if state == "toc":
            if not f.recitals_start and (f.toc_entry or f.words < 25):
                current.facts.append(f)
                continue
            # The first real paragraph ends the contents; the title lines just above it
            # ("AGREEMENT AND PLAN OF MERGER") belong to the preamble that follows.
            carried: list[BlockFacts] = []
            while len(current.facts) > 1 and current.facts[-1].heading and not current.facts[-1].toc_entry:
                carried.insert(0, current.facts.pop())
            state = "preamble"
            current = open_region("preamble")
            current.facts.extend(carried)
        if f.toc_heading and state in {"preamble", "body"}:
            state = "toc"
            current = open_region("toc")
            current.facts.append(f)
            continue
        if state == "signatures" and _opens_numbered_section(f) and not _numbered_body(regions):
            # a signature page printed before the terms: the numbered terms are the body
            carried = []
            while len(current.facts) > 1 and current.facts[-1].heading:
                carried.insert(0, current.facts.pop())
            state = "body"
            current = open_region("body")
            current.facts.extend([*carried, f])
            continue
        if f.schedule_start and (body_seen or state in {"signatures", "schedule"}):
            state = "schedule"
            current = open_region("schedule")
            current.facts.append(f)
            continue
        if (
            f.signature_start
            and state in {"preamble", "recitals", "body"}
            and (body_seen or state != "preamble")
        ):
            state = "signatures"
            current = open_region("signatures")
            current.facts.append(f)
            continue
        if f.signature_line and state == "body" and body_seen:
            # party names printed above "By: ____" belong to the signature block
            names: list[BlockFacts] = []
            while current.facts and current.facts[-1].heading and current.facts[-1].words <= 8:
                names.insert(0, current.facts.pop())
            state = "signatures"
            current = open_region("signatures")
            current.facts.extend([*names, f])
            continue
        if state == "preamble":
            if f.recitals_start:
                state = "recitals"
                current = open_region("recitals")
            elif _starts_body(f) or (f.heading and any(g.words >= 15 for g in current.facts)):
                state = "body"
                current = open_region("body")
                body_seen = True
            current.facts.append(f)
            if state == "preamble" and f.recitals_end:
                state = "body"
                current = open_region("body")
                body_seen = True
            continue
        if state == "recitals":
            ends_here = f.recitals_end
            titled_section = _starts_body(f) and (
                f.title or (f.label is not None and f.label.keyword in {"article", "section"})
            )
            if (titled_section or (f.heading and not f.recitals_start)) and current.facts:
                state = "body"
                current = open_region("body")
                body_seen = True
                current.facts.append(f)
                continue
            current.facts.append(f)
            if ends_here:
                state = "body"
                current = open_region("body")
                body_seen = True
            continue
        if state == "body" and f.recitals_start and not _numbered_body(regions):
            # "SPONSORSHIP AGREEMENT" after a legend opened the body too early: recitals still
            # come before the terms
            state = "recitals"
            current = open_region("recitals")
        current.facts.append(f)
    return [r for r in regions if r.facts]


#: A body with fewer numbered sections than this has not printed its terms yet ("This Agreement
#: consists of this signature page and the following: 1. Terms and Conditions ...").
_TERMS_SECTIONS = 3


def _numbered_body(regions: list[Region]) -> bool:
    """Whether the terms have been printed: the body so far has a few numbered sections."""
    numbered = sum(_opens_numbered_section(g) for r in regions if r.kind == "body" for g in r.facts)
    return numbered >= _TERMS_SECTIONS


def _opens_numbered_section(f: BlockFacts) -> bool:
    """A block that starts a numbered section of the terms ("1. LOCATION. During the Term ...",
    "ARTICLE I"), not a list item or a bare number."""
    if f.label is None:
        return False
    style = f.label.readings[0].style
    return style == "article" or (style == "decimal" and (bool(f.title) or f.words >= 8))


# --- nesting -----------------------------------------------------------------------------------


class Nester:
    """Nests the blocks of one region under a container node."""

    def __init__(self, container: Proto, indent_tolerance: float, text: str | None = None) -> None:
        self._text = text
        self.stack = [Frame(container, container=True)]
        self.tolerance = indent_tolerance
        self.last_top: dict[str, int] = {}  # last value per style placed directly in a container
        self.last: Proto | None = None  # the most recently created node

    def _container_index(self) -> int:
        return max(i for i, frame in enumerate(self.stack) if frame.container)

    def _evaluate(self, reading: Reading, f: BlockFacts) -> tuple[float, int] | None:
        """(score, index of the parent frame) for one reading of the block's label."""
        stack = self.stack
        style = reading.style
        if style == "schedule":
            return None
        if style == "decimal" and len(reading.path) >= 2:
            return self._place_decimal_path(reading, f)
        top = len(stack) - 1
        for j in range(top, 0, -1):
            other = stack[j].reading
            if other is None or other.style != style or (style == "decimal" and len(other.path) != 1):
                continue
            step = reading.value - other.value
            sibling_score: float | None = None
            if style == "bullet":
                sibling_score = 4.0 if abs(f.x0 - stack[j].proto.x0) <= self.tolerance else None
            elif step == 1:
                sibling_score = 5.0
            elif style in {"article", "decimal"} and 1 < step <= _NEAR_STEPS:
                sibling_score = 3.0
            elif 1 < step <= _NEAR_STEPS or (
                style in {"article", "decimal"} and step > _NEAR_STEPS and _far_jump_allowed(f)
            ):
                sibling_score = 2.0
            elif reading.value == 1 and j < top and stack[j].proto.title and not f.title:
                # "1. there was a technically feasible ..." deep inside "3.0 General Terms": an
                # untitled "1." is a list under the current item, not a restart beside a titled section
                return 4.0, top
            elif reading.value == 1:
                sibling_score = 1.5  # a list restarting at the same level
            if sibling_score is None:
                break
            if f.x0 - stack[j].proto.x0 > self.tolerance:
                sibling_score -= 1.0  # clearly deeper than the would-be sibling
            return sibling_score, j - 1
        if (resumed := self._resumes_list(reading)) is not None:
            return resumed
        if style == "decimal" and (major := self._next_major(reading)) is not None:
            return major
        container = self._container_index()
        if style in self.last_top and reading.value == self.last_top[style] + 1:
            return 4.5, container  # numbering continuing after an unnumbered heading
        if reading.value == 1 or style == "bullet":
            score = 4.0
            delta = f.x0 - stack[top].proto.x0
            if top > 0 and delta > self.tolerance:
                score += 0.5
            elif top > 0 and delta < -self.tolerance:
                score -= 1.5
            return score, top
        if style == "article" or (style == "decimal" and f.label is not None and f.label.keyword):
            return 2.0, container
        if (
            style == "decimal"
            and f.title
            and not any(fr.proto.path is not None for fr in stack[1:])
            and not self._far_past_last_section(reading, f)
        ):
            # a titled top-level section whose predecessors we missed, even after a lettered
            # list ("(e) NOW THEREFORE ... agree as follows." then "2. Grant of License.")
            return 2.0, container
        return None

    def _place_decimal_path(self, reading: Reading, f: BlockFacts) -> tuple[float, int] | None:
        """Where "4.2.1" goes: under "4.2" (or "Article IV" for "4.2"), beside "4.2.0"-style
        siblings, or under the nearest ancestor its path extends."""
        stack = self.stack
        path = reading.path
        decimal_frames = [j for j in range(len(stack) - 1, 0, -1) if stack[j].proto.path is not None]
        for j in decimal_frames:
            if stack[j].proto.path == path[:-1]:
                return 5.0, j
        for j in decimal_frames:
            other = stack[j].proto.path
            assert other is not None
            if (
                stack[j].reading is not None
                and stack[j].reading.style == "decimal"
                and len(other) == len(path)
            ):
                if other[:-1] == path[:-1] and other[-1] < path[-1]:
                    return 4.0, j - 1
                if other[-1] + 1 == path[-1]:
                    return 2.5, j - 1  # "11.7" between "12.6" and "12.8": a typo, still a sibling
        for j in decimal_frames:
            other = stack[j].proto.path
            assert other is not None
            if len(other) < len(path) and path[: len(other)] == other:
                return 3.0, j
        if decimal_frames and (opened := self._opens_next_major(reading, f)) is not None:
            return opened
        if decimal_frames:
            return None  # "2.4" amid section 8: a wrapped cross-reference, not a heading
        return 1.0, self._container_index()

    def _opens_next_major(self, reading: Reading, f: BlockFacts) -> tuple[float, int] | None:
        """Rule "a section may open at its first sub-section": a titled "3.1 Communications
        Features" right after "2.6", where no "3" heading was printed (or the text lost it), is
        the first clause of section 3, beside section 2 (or beside "2.6" when "2" was never
        seen either), not a paragraph of 2.6. Untitled, it may be a wrapped cross-reference
        ("... as set out in Section" / "3.1 of Schedule B"), so it stays in its paragraph."""
        path = reading.path
        if len(path) != 2 or path[1] != 1 or not f.title:
            return None
        outer = self._outer_numbered_frame()
        if outer is None or outer[1][0] + 1 != path[0]:
            return None
        return 3.0, outer[0] - 1

    def _resumes_list(self, reading: Reading) -> tuple[float, int] | None:
        """Rule "a list resumes after a paragraph that interrupts it": "(a) If the Company ...",
        then "Notwithstanding the foregoing, ..." at the margin (which closed the list), then "(b)".
        The top node's last labelled child is "(a)" and only unlabelled paragraphs follow it: "(b)"
        is its sibling, not an unnumbered paragraph."""
        if reading.style in {"decimal", "article", "bullet"}:
            return None
        top = len(self.stack) - 1
        children = self.stack[top].proto.children
        labelled = [i for i, child in enumerate(children) if child.reading is not None]
        if not labelled or labelled[-1] == len(children) - 1:
            return None  # no list, or nothing interrupts it (its own frame would be on the stack)
        last = children[labelled[-1]].reading
        assert last is not None
        if last.style == reading.style and last.value + 1 == reading.value:
            return 4.0, top
        return None

    def _next_major(self, reading: Reading) -> tuple[float, int] | None:
        """ "6." right after "5.3": the next top-level section even though "5." was never seen."""
        outer = self._outer_numbered_frame()
        if outer is not None and outer[1][0] + 1 == reading.value:
            return 4.5, outer[0] - 1
        return None

    def _far_past_last_section(self, reading: Reading, f: BlockFacts) -> bool:
        """Rule "a number far past the last section is not a section unless it looks like one":
        where every numbered frame was closed (a heading in capitals, a postcode "TW8 9.1.1" in
        the notices, opened a container), a titled number is taken as a section whose
        predecessors were missed. After section 12, though, "90 High Street Burnham" or "152
        Proes Street" (addresses in the notices) or a cover page's "13 October 2005" is no
        section: more than :data:`_NEAR_STEPS` past the last number placed in a container, it
        must read like one (a dotted or keyword label, a title), as a far sibling must
        (:func:`_far_jump_allowed`)."""
        last = self.last_top.get(reading.style)
        return last is not None and reading.value - last > _NEAR_STEPS and not _far_jump_allowed(f)

    def _outer_numbered_frame(self) -> tuple[int, tuple[int, ...]] | None:
        """The outermost open frame with a decimal number, and that number: the section the next
        major number ("6." after "5.3", "3.1" after "2.6") follows."""
        for j in range(1, len(self.stack)):
            if (path := self.stack[j].proto.path) is not None:
                return j, path
        return None

    def _place(self, f: BlockFacts) -> tuple[Reading, int] | None:
        assert f.label is not None
        best: tuple[float, int, Reading] | None = None
        for reading in f.label.readings:
            result = self._evaluate(reading, f)
            if result is not None and (best is None or result[0] > best[0]):
                best = (result[0], result[1], reading)
        if best is None or best[0] < 1.0:
            return None
        return best[2], best[1]

    def add(self, f: BlockFacts) -> None:
        if extend_previous(self.last, f):
            return
        self.last = self._add(f)

    def _add(self, f: BlockFacts) -> Proto:
        if f.label is not None and (placed := self._place(f)) is not None:
            reading, parent_index = placed
            if (
                parent_index == len(self.stack) - 1
                and not f.title
                and self._opens_list_under_lead_in(reading)
            ):
                assert self.last is not None
                self.stack.append(Frame(self.last, lead_in=True))
                parent_index += 1
            del self.stack[parent_index + 1 :]
            parent = self.stack[-1]
            proto = Proto(
                _kind_for(reading, f.label, parent.proto),
                f.start,
                f.end,
                label=f.label,
                reading=reading,
                title=f.title,
                body_start=f.body_start,
                x0=f.x0,
                defined_term=f.defined_term,
            )
            parent.proto.add(proto)
            if parent.container:
                self.last_top[reading.style] = (
                    reading.path[0] if reading.style == "decimal" else reading.value
                )
            self.stack.append(Frame(proto, container=reading.style == "article"))
            return proto
        if self._titles_bare_section(f):
            top = self.stack[-1].proto
            top.title = f.text.rstrip(" .:")
            top.own_end = top.body_start = f.end
            return top
        if f.heading:
            return self._add_heading(f)
        return self._add_paragraph(f)

    def _titles_bare_section(self, f: BlockFacts) -> bool:
        """ "2." on a line of its own (a PDF's number column), then "Exclusivity": the short
        capitalised line is the title of the section whose bare number precedes it."""
        top = self.stack[-1].proto
        return (
            f.label is None
            and not f.heading
            and top.kind in {NodeKind.SECTION, NodeKind.ARTICLE}
            and top.label is not None
            and not top.title
            and not top.children
            and top.body_start >= top.own_end
            and f.words <= 8
            and not f.text.rstrip().endswith((".", ";", ","))
            and (is_title_case(f.text) or is_all_caps(f.text))
        )

    def _opens_list_under_lead_in(self, reading: Reading) -> bool:
        """'"Confidential Information" means ..., including:' followed by "(a)": the list belongs
        to that paragraph, not to the section around it. (A titled label, "I. APPOINTMENT AND
        FRANCHISE FEE" after "We and you agree as follows:", opens a section instead: the caller
        asks only for untitled labels.)"""
        last = self.last
        return (
            last is not None
            and reading.value == 1
            and last.kind in {NodeKind.PARAGRAPH, NodeKind.DEFINITION}
            and last.parent is self.stack[-1].proto
            and not last.children
            and self._text is not None
            and self._text[last.start : last.own_end].rstrip().endswith(":")
        )

    def _add_heading(self, f: BlockFacts) -> Proto:
        top = self.stack[-1].proto
        bare_label = top.label is not None and not top.title and top.body_start >= top.own_end
        if (
            bare_label
            and not top.children
            and top.kind in {NodeKind.ARTICLE, NodeKind.SECTION, NodeKind.SCHEDULE}
        ):
            top.title = f.title  # "ARTICLE V" on one line, "COVENANTS" on the next
            top.own_end = f.end
            top.body_start = f.end
            return top
        numbered = [i for i, frame in enumerate(self.stack) if _numbered_section(frame.proto)]
        sub_heading = bool(numbered) and not f.heading_level and not is_all_caps(f.text)
        if sub_heading:
            # "Choice of Law" inside "14.0 MISCELLANEOUS", "If to Sponsor:" or "Houston, Texas
            # 77019" inside the notices section: a sub-heading of the numbered section it falls
            # in (headings in capitals may group sections: "TERMS AND CONDITIONS")
            del self.stack[numbered[-1] + 1 :]
        while len(self.stack) > 1 and not sub_heading:
            frame = self.stack[-1]
            if frame.container and frame.proto.kind != NodeKind.HEADING:
                break
            if (
                frame.proto.kind == NodeKind.HEADING
                and frame.proto.heading_level
                and (f.heading_level > frame.proto.heading_level)
            ):
                break
            self.stack.pop()
        heading = Proto(
            NodeKind.HEADING,
            f.start,
            f.end,
            title=f.title,
            body_start=f.end,
            x0=f.x0,
            heading_level=f.heading_level,
        )
        self.stack[-1].proto.add(heading)
        self.stack.append(Frame(heading, container=True))
        return heading

    def _keeps_margin_text(self) -> bool:
        """Rule "a section keeps its text at the margin": a titled numbered section (" 3.3
        Other Sources" directly in a container, or "   2.6. Warranty." under section 2, its
        heading indented, its paragraphs at the margin) owns the paragraphs after it, however
        indented, until the next label. Backing out of it, as out of an indented list, files
        them under no number at all ("p9" beside "3.3") or under the parent section ("2/p1"
        for the rest of 2.6's sentence after a page break, "5/p1" for 5.2's second paragraph).
        Lists are not sections: "(a)" or an untitled "1." still ends where the margin returns."""
        return _numbered_section(self.stack[-1].proto) and bool(self.stack[-1].proto.title)

    def _add_paragraph(self, f: BlockFacts) -> Proto:
        # "  2. INVESTMENT BY YEC" indented on its line, then its text at the margin: the text is
        # the section's own, however it is indented (nothing else has been printed under it)
        keeps_heading = _heading_only_section(self.stack[-1].proto) and bool(self.stack[-1].proto.title)
        while (
            not keeps_heading
            and len(self.stack) > 1
            and not self.stack[-1].container
            and (
                (self.stack[-1].proto.x0 > f.x0 + self.tolerance and not self._keeps_margin_text())
                or (self.stack[-1].lead_in and self.stack[-1].proto.x0 >= f.x0 - self.tolerance)
            )
        ):
            self.stack.pop()  # back out of an indented list (or a lead-in's list) to the text it interrupts
        top = self.stack[-1].proto
        if _heading_only_section(top) and not f.defined_term:
            top.own_end = f.end  # "10. GOVERNING LAW" on its line, then its text: one clause
            top.title = top.title or split_title(f.text, False)  # "3.2" then "Sublicenses. Subject ..."
            return top
        return top.add(_paragraph(f))


def _numbered_section(proto: Proto) -> bool:
    """A section with a decimal number of its own ("12", "14.0", "3.17")."""
    return proto.kind in {NodeKind.SECTION, NodeKind.CLAUSE} and proto.path is not None


def _heading_only_section(proto: Proto) -> bool:
    """A numbered section printed as a heading on a line of its own ("10. GOVERNING LAW",
    "Section 4.4. Grant of License", or a PDF's bare "3.2" in its number column), with nothing
    under it yet: the paragraph that follows is the section's own text, the clause a lawyer cites
    as "Section 10", not an unnumbered paragraph "10/p1" beside it. Rule "a bare label owns the
    text after it" extends this to list items: a PDF's label column prints "a." or "(A)" alone on
    its line, and the item's text follows ("1(a)", not "1(a)/p1")."""
    return (
        proto.kind in {NodeKind.SECTION, NodeKind.CLAUSE, NodeKind.LIST_ITEM}
        and proto.label is not None
        and not proto.children
        and proto.body_start >= proto.own_end
    )


#: A number at most this many past its would-be sibling follows it (the ones between were missed:
#: "10." then "12."); further on it must look like a section (:func:`_far_jump_allowed`).
_NEAR_STEPS = 3


def _far_jump_allowed(f: BlockFacts) -> bool:
    """A number more than :data:`_NEAR_STEPS` past its would-be sibling ("12." then "27.") is
    taken as the next section only when it looks like one: a dotted or keyword label with a title.
    A bare number on a short line ("90 High Street Burnham" in an address after section 12) is not
    a section."""
    assert f.label is not None
    return bool(f.title) and ("." in f.label.raw or bool(f.label.keyword))


def extend_previous(last: Proto | None, f: BlockFacts) -> bool:
    """Fold page furniture and run-on text into the node before it, so a paragraph broken by a
    page number stays one node. Only a childless node can grow (its own text must precede
    its children)."""
    if last is None or last.children or not (f.furniture or f.continuation):
        return False
    last.own_end = f.end
    return True


def _kind_for(reading: Reading, label: Label, parent: Proto) -> NodeKind:
    if reading.style == "article":
        # "ARTICLE IV" groups sections; "IV. EXPENSES" (no keyword) is a section with its own text
        return NodeKind.ARTICLE if label.keyword else NodeKind.SECTION
    if reading.style == "decimal":
        return NodeKind.SECTION if len(reading.path) <= 2 or label.keyword == "section" else NodeKind.CLAUSE
    if (
        parent.kind in {NodeKind.DOCUMENT, NodeKind.SCHEDULE, NodeKind.HEADING}
        and reading.style.endswith(("roman-upper", "alpha-upper"))
        and reading.style.startswith("dot-")
    ):
        return NodeKind.SECTION  # "I. DEFINITIONS", "A. Scope" at the top of a region
    return NodeKind.LIST_ITEM


# --- inline enumerations and sentences ---------------------------------------------------------

_INLINE_LABEL = re.compile(r"(?:(?<=\s)|(?<=^)|(?<=[:;,—–-]))\(([a-z]{1,2}|[ivx]{1,5}|\d{1,2}|[A-Z])\)\s")


def _inline_items(text: str, start: int, end: int) -> list[int]:
    """Start offsets of an inline enumeration "(a) ... (b) ... (c) ..." inside ``text[start:end]``,
    if the labels run in order from a first value; [] otherwise."""
    candidates: list[tuple[int, Label]] = []
    for m in _INLINE_LABEL.finditer(text, start, end):
        label = parse_label(text[m.start() : m.end()])
        if label is not None:
            candidates.append((m.start(), label))
    for style_prefix in ("paren-alpha-lower", "paren-roman-lower", "paren-digit", "paren-alpha-upper"):
        sequence: list[int] = []
        expected = 1
        for position, label in candidates:
            reading = next((r for r in label.readings if r.style == style_prefix), None)
            if reading is not None and reading.value == expected:
                sequence.append(position)
                expected += 1
        if len(sequence) >= 2:
            return sequence
    return []


def _add_leaves(proto: Proto, text: str, settings: StructureSettings) -> None:
    """Give a node's own body text list-item and sentence children (before its other children)."""
    body_start = max(proto.body_start, proto.start)
    body_end = proto.own_end
    if body_end - body_start < 2 or proto.kind in {NodeKind.TABLE_OF_CONTENTS, NodeKind.SENTENCE}:
        return
    leaves: list[Proto] = []
    items = _inline_items(text, body_start, body_end)
    if items:
        lead_end = items[0]
        leaves.extend(_sentences(text, body_start, lead_end, settings, minimum=2))
        bounds = [*items, body_end]
        for a, b in itertools.pairwise(bounds):
            piece_end = a + len(text[a:b].rstrip())
            label = parse_label(text[a:piece_end])
            item = Proto(
                NodeKind.LIST_ITEM,
                a,
                piece_end,
                label=label,
                reading=label.readings[0] if label else None,
                body_start=a + (label.end if label else 0),
            )
            item.children = _sentences(text, item.body_start, piece_end, settings, minimum=2)
            for child in item.children:
                child.parent = item
            if item.children:
                item.own_end = item.children[0].start
            leaves.append(item)
    else:
        leaves.extend(_sentences(text, body_start, body_end, settings, minimum=2))
    if not leaves:
        return
    if items:
        _absorb_list_continuation(proto, leaves[-1], text)
    for leaf in leaves:
        leaf.parent = proto
    proto.children = leaves + proto.children
    proto.own_end = leaves[0].start


def _absorb_list_continuation(proto: Proto, last_item: Proto, text: str) -> None:
    """ "(a) ...; (b) ...; and" in one paragraph, then "(c) ..." on its own: the paragraphs that
    continue an inline enumeration become its items."""
    if last_item.reading is None:
        return
    expected = last_item.reading.value + 1
    for child in proto.children:
        if child.kind not in {NodeKind.PARAGRAPH, NodeKind.DEFINITION} or child.label is not None:
            break
        label = parse_label(text[child.start : child.own_end])
        reading = (
            next((r for r in label.readings if r.style == last_item.reading.style), None) if label else None
        )
        if reading is None or reading.value != expected:
            break
        child.kind, child.label, child.reading = NodeKind.LIST_ITEM, label, reading
        child.body_start = child.start + label.end  # type: ignore[union-attr]
        expected += 1


def _sentences(text: str, start: int, end: int, settings: StructureSettings, minimum: int) -> list[Proto]:
    if not settings.sentence_leaves or end <= start:
        return []
    spans = sentence_spans(text, start, end)
    if len(spans) < minimum:
        return []
    return [Proto(NodeKind.SENTENCE, s, e, body_start=s) for s, e in spans]


# --- ids ---------------------------------------------------------------------------------------


def _slug(title: str, limit: int = 40) -> str:
    words = re.sub(r"[^\w\s&'-]", " ", title).split()
    slug = " ".join(words)[:limit].strip()
    return slug.title() if slug.isupper() else slug


class IdAssigner:
    """Legal-path ids: '12.4(a)', 'Article IV', 'Schedule B/3', 'Recitals/A', '7/p2', '7.1/s3'."""

    def __init__(self) -> None:
        self.used: Counter[str] = Counter()

    def unique(self, candidate: str) -> str:
        self.used[candidate] += 1
        return candidate if self.used[candidate] == 1 else f"{candidate}~{self.used[candidate]}"

    def assign(self, proto: Proto, parent_id: str, region_prefix: str) -> None:
        counters: Counter[str] = Counter()
        for child in proto.children:
            local = self._local(child, proto, counters)
            if child.kind in {
                NodeKind.PREAMBLE,
                NodeKind.RECITALS,
                NodeKind.SIGNATURES,
                NodeKind.SCHEDULE,
                NodeKind.TABLE_OF_CONTENTS,
            }:
                candidate = local
            elif proto.kind == NodeKind.RECITALS:
                candidate = f"{proto.node_id}/{local}"  # "Recitals/A"
            elif (
                child.label is not None
                and child.label.canonical_for(child.reading).startswith("(")
                and proto.node_id
                and proto.kind != NodeKind.DOCUMENT
            ):
                candidate = f"{proto.node_id}{local}"
            elif (
                child.path is not None
                and child.reading is not None
                and (
                    (child.reading.style == "decimal" and _extends(child.path, proto.path))
                    or proto.kind in {NodeKind.DOCUMENT, NodeKind.HEADING}
                )
            ):
                # "4.2" names itself, not "4/4.2"; nor does a heading above a numbered section
                # ("AGREEMENTS:" before "I. APPOINTMENT") become part of its citation
                candidate = f"{region_prefix}{local}"
            elif proto.kind == NodeKind.DOCUMENT:
                candidate = f"{region_prefix}{local}"
            else:
                candidate = f"{proto.node_id}/{local}"
            child.node_id = self.unique(candidate)
            prefix = f"{child.node_id}/" if child.kind == NodeKind.SCHEDULE else region_prefix
            self.assign(child, child.node_id, prefix)

    @staticmethod
    def _local(child: Proto, parent: Proto, counters: Counter[str]) -> str:
        fixed = {
            NodeKind.PREAMBLE: "Preamble",
            NodeKind.RECITALS: "Recitals",
            NodeKind.SIGNATURES: "Signatures",
            NodeKind.TABLE_OF_CONTENTS: "Contents",
            NodeKind.TITLE: "Title",
        }
        if child.node_id:
            return child.node_id  # set while building ("Cover")
        if child.kind in fixed:
            return fixed[child.kind]
        if child.label is not None and (canonical := child.label.canonical_for(child.reading)):
            if parent.kind == NodeKind.RECITALS:
                return canonical.strip("()")
            return canonical
        if child.kind == NodeKind.DEFINITION and child.defined_term:
            return _slug(child.defined_term, 60)
        if child.kind == NodeKind.HEADING and child.title:
            return _slug(child.title)
        prefix = {NodeKind.SENTENCE: "s", NodeKind.RECITAL: "", NodeKind.LIST_ITEM: "b"}.get(child.kind, "p")
        counters[prefix] += 1
        return f"{prefix}{counters[prefix]}"


def _extends(path: tuple[int, ...], parent_path: tuple[int, ...] | None) -> bool:
    return (
        parent_path is not None and len(path) > len(parent_path) and path[: len(parent_path)] == parent_path
    )


# --- assembly ----------------------------------------------------------------------------------


def _build_region(region: Region, root: Proto, tolerance: float, text: str) -> None:
    facts = region.facts
    first = facts[0]
    if region.kind == "toc":
        root.add(
            Proto(
                NodeKind.TABLE_OF_CONTENTS,
                first.start,
                facts[-1].end,
                title="Table of contents",
                body_start=facts[-1].end,
            )
        )
        return
    if region.kind == "body":
        nester = Nester(root, tolerance, text)
        for f in facts:
            nester.add(f)
        return
    if region.kind == "schedule":
        assert first.label is not None
        schedule = root.add(
            Proto(
                NodeKind.SCHEDULE,
                first.start,
                first.end,
                label=first.label,
                reading=first.label.readings[0],
                title=first.title,
                body_start=first.body_start,
                x0=first.x0,
            )
        )
        rest = facts[1:]
        if rest and not schedule.title and rest[0].heading:
            schedule.title = rest[0].title
            schedule.own_end = rest[0].end
            schedule.body_start = rest[0].end
            rest = rest[1:]
        nester = Nester(schedule, tolerance, text)
        for f in rest:
            nester.add(f)
        return
    kind = {"preamble": NodeKind.PREAMBLE, "recitals": NodeKind.RECITALS, "signatures": NodeKind.SIGNATURES}[
        region.kind
    ]
    title = {"preamble": "", "recitals": "Recitals", "signatures": "Signatures"}[region.kind]
    container = root.add(Proto(kind, first.start, first.start, title=title, body_start=first.start))
    for position, f in enumerate(facts):
        if container.children and extend_previous(container.children[-1], f):
            continue
        if kind == NodeKind.PREAMBLE and position == 0 and f.heading:
            container.title = f.title
            container.add(Proto(NodeKind.TITLE, f.start, f.end, title=f.title, body_start=f.end))
        elif kind == NodeKind.RECITALS and f.heading and f.recitals_start and position == 0:
            container.title = f.title
            container.own_end = f.end
            container.body_start = f.end
        elif kind == NodeKind.RECITALS and (f.recitals_start or f.label is not None) and not f.recitals_end:
            container.add(
                Proto(
                    NodeKind.RECITAL,
                    f.start,
                    f.end,
                    label=f.label,
                    reading=f.label.readings[0] if f.label else None,
                    body_start=f.body_start if f.label else f.start,
                    x0=f.x0,
                )
            )
        elif f.heading:
            container.add(Proto(NodeKind.HEADING, f.start, f.end, title=f.title, body_start=f.end))
        else:
            container.add(_paragraph(f))


def _mark_definitions(proto: Proto) -> None:
    for child in proto.children:
        if child.kind in {NodeKind.SECTION, NodeKind.ARTICLE, NodeKind.HEADING} and re.search(
            r"\bdefinitions?\b|\bdefined terms\b|\binterpretation\b", child.title, re.IGNORECASE
        ):
            child.kind = NodeKind.DEFINITIONS
        if child.defined_term and child.kind in {
            NodeKind.PARAGRAPH,
            NodeKind.LIST_ITEM,
            NodeKind.SECTION,
            NodeKind.CLAUSE,
        }:
            child.kind = NodeKind.DEFINITION
        _mark_definitions(child)


def _structured_enough(facts: list[BlockFacts], text_length: int) -> bool:
    """Too little structure = a wall of text: almost no blocks, or huge unlabelled blocks."""
    if text_length < 2000:
        return True
    marked = sum(1 for f in facts if f.label is not None or f.heading)
    mean_length = sum(f.end - f.start for f in facts) / max(len(facts), 1)
    return len(facts) >= 4 and (marked >= 2 or mean_length <= 1200)


def build_tree(document: ParsedDocument, settings: StructureSettings) -> ClauseTree:
    """The clause tree of a parsed document (or flat passages when it has too little structure)."""
    text = document.text
    blocks = split_inline_sections(text, document.blocks)
    facts = analyze_blocks(text, blocks)
    if not _structured_enough(facts, len(text)):
        return fallback_tree(document, settings)
    tolerance = 0.9 if document.file_type in {FileType.TEXT, FileType.MARKDOWN} else 4.0
    root = Proto(NodeKind.DOCUMENT, 0, 0, title=document.source_name)
    regions = segment(facts)
    for position, region in enumerate(regions):
        _build_region(region, root, tolerance, text)
        if region.kind == "preamble" and position + 1 < len(regions) and regions[position + 1].kind == "toc":
            root.children[-1].title = root.children[-1].title or "Cover page"
            root.children[-1].label = None
            root.children[-1].node_id = "Cover"
    _mark_definitions(root)
    for proto in list(_walk(root)):
        if proto is not root:
            _add_leaves(proto, text, settings)
    root.node_id = ROOT_ID
    IdAssigner().assign(root, ROOT_ID, "")
    return _to_tree(root, document, "tree")


def _walk(proto: Proto):
    stack = [proto]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _to_tree(root: Proto, document: ParsedDocument, structure: str) -> ClauseTree:
    nodes: dict[str, ClauseNode] = {}
    text_length = len(document.text)
    for proto in _walk(root):
        if proto is root:
            start, end, own_end = 0, text_length, 0 if proto.children else text_length
        else:
            start, end = proto.start, proto.end
            own_end = proto.children[0].start if proto.children else end
        parent_id = proto.parent.node_id if proto.parent is not None else None
        depth = 0 if proto.parent is None else nodes[parent_id].depth + 1  # type: ignore[index]
        nodes[proto.node_id] = ClauseNode(
            id=proto.node_id,
            kind=proto.kind,
            label=proto.label.raw.strip() if proto.label else "",
            title=proto.title,
            start=start,
            end=end,
            own_end=min(max(own_end, start), end),
            pages=document.pages_for((start, max(end, start + 1))),
            parent=parent_id,
            children=[c.node_id for c in proto.children],
            depth=depth,
        )
    return ClauseTree(root_id=ROOT_ID, nodes=nodes, structure=structure)  # type: ignore[arg-type]
