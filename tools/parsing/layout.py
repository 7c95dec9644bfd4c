"""From positioned words to normalized text: reading order, running headers/footers, hyphenation
and paragraphs. Shared by the PDF text layer and OCR, which only differ in where words come from.

Output text has one paragraph per line ("\\n" between paragraphs, single spaces inside), and every
word keeps its box and its offsets into that text.
"""

from __future__ import annotations

import json
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from clausewise.core.domain import Block, PageInfo, WordBoxes
from clausewise.core.resources import asset_dir
from tools.structure.labels import opens_item


@dataclass
class Word:
    text: str
    x0: float
    y0: float
    x1: float
    y1: float


@dataclass
class Line:
    words: list[Word]
    bold: bool = False
    size: float = 0.0

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def y0(self) -> float:
        return min(w.y0 for w in self.words)

    @property
    def y1(self) -> float:
        return max(w.y1 for w in self.words)

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


@dataclass
class PageLines:
    """The lines of one page in reading order, with the page's geometry and provenance."""

    number: int
    width: float
    height: float
    lines: list[Line] = field(default_factory=list)
    source: str = "text"
    ocr_confidence: float | None = None
    column_left: list[float] = field(default_factory=list)  # left edge of each line's column
    column_right: list[float] = field(default_factory=list)


# --- visual lines and columns ------------------------------------------------------------------


def group_into_lines(words: list[Word], gap_chars: float = 4.0) -> list[Line]:
    """Cluster words into visual lines by vertical overlap, split at wide horizontal gaps
    (column gutters, tab stops), so a line never straddles two columns."""
    if not words:
        return []
    ordered = sorted(words, key=lambda w: ((w.y0 + w.y1) / 2, w.x0))
    rows: list[list[Word]] = []
    for word in ordered:
        mid = (word.y0 + word.y1) / 2
        if rows:
            row = rows[-1]
            top = statistics.median(w.y0 for w in row[-3:])
            bottom = statistics.median(w.y1 for w in row[-3:])
            if top - 1 <= mid <= bottom + 1:
                row.append(word)
                continue
        rows.append([word])
    lines: list[Line] = []
    for row in rows:
        row.sort(key=lambda w: w.x0)
        char_width = statistics.median((w.x1 - w.x0) / max(len(w.text), 1) for w in row)
        current = [row[0]]
        for word in row[1:]:
            if word.x0 - current[-1].x1 > max(gap_chars * char_width, 15.0):
                lines.append(Line(current))
                current = [word]
            else:
                current.append(word)
        lines.append(Line(current))
    return lines


def _find_gutter(lines: list[Line], width: float) -> float | None:
    """x of an empty vertical band in the middle of the page with text on both sides."""
    if len(lines) < 8 or width <= 0:
        return None
    step = 2.0
    bins = int(width / step) + 1
    coverage = [0] * bins
    for line in lines:
        for b in range(max(int(line.x0 / step), 0), min(int(line.x1 / step) + 1, bins)):
            coverage[b] += 1
    limit = max(1, int(0.06 * len(lines)))
    lo, hi = int(0.3 * bins), int(0.7 * bins)
    best: tuple[int, int] | None = None
    run_start = None
    for b in range(lo, hi + 1):
        if coverage[b] <= limit:
            run_start = b if run_start is None else run_start
            if best is None or (b - run_start) > (best[1] - best[0]):
                best = (run_start, b)
        else:
            run_start = None
    if best is None or (best[1] - best[0] + 1) * step < 8:
        return None
    gutter = (best[0] + best[1] + 1) * step / 2
    left = sum(1 for line in lines if line.x1 <= gutter)
    right = sum(1 for line in lines if line.x0 >= gutter)
    if left < 0.25 * len(lines) or right < 0.25 * len(lines):
        return None
    return gutter


def reading_order(lines: list[Line], width: float) -> tuple[list[Line], list[tuple[float, float]]]:
    """Lines in reading order and each line's column extent (left, right).

    On two-column pages, full-width lines (titles) separate bands; inside a band the left column
    is read before the right one.
    """
    lines = sorted(lines, key=lambda ln: (ln.y0, ln.x0))
    gutter = _find_gutter(lines, width)
    if gutter is None:
        if not lines:
            return [], []
        extent = (min(ln.x0 for ln in lines), max(ln.x1 for ln in lines))
        return lines, [extent] * len(lines)
    ordered: list[Line] = []
    extents: list[tuple[float, float]] = []
    left_lines = [ln for ln in lines if ln.x1 <= gutter]
    right_lines = [ln for ln in lines if ln.x0 >= gutter]
    left_extent = (min(ln.x0 for ln in left_lines), gutter)
    right_extent = (gutter, max(ln.x1 for ln in right_lines))
    band_left: list[Line] = []
    band_right: list[Line] = []

    def flush() -> None:
        ordered.extend(band_left)
        extents.extend([left_extent] * len(band_left))
        ordered.extend(band_right)
        extents.extend([right_extent] * len(band_right))
        band_left.clear()
        band_right.clear()

    for line in lines:
        if line.x1 <= gutter:
            band_left.append(line)
        elif line.x0 >= gutter:
            band_right.append(line)
        else:
            flush()
            ordered.append(line)
            extents.append((left_extent[0], right_extent[1]))
    flush()
    return ordered, extents


# --- running headers, footers and page numbers -------------------------------------------------

_PAGE_NUMBER = re.compile(
    r"^(?:page\s*)?[-–—(\[]?\s*(?:\d{1,4}|[ivxlc]{1,7})\s*[-–—)\]]?(?:\s*(?:of|/)\s*\d{1,4})?\.?$",
    re.IGNORECASE,
)


def _furniture_key(text: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"\s+", " ", text.strip().lower()))


def _in_margin(line: Line, page: PageLines) -> bool:
    return line.y1 < 0.12 * page.height or line.y0 > 0.88 * page.height


def remove_page_furniture(pages: list[PageLines], edge_lines: int = 2) -> int:
    """Drop running headers/footers (the same text in the top or bottom margin of many pages)
    and page numbers at page edges. Returns how many lines were removed."""
    candidate_keys: Counter[str] = Counter()
    for page in pages:
        edges = page.lines[:edge_lines] + page.lines[-edge_lines:]
        candidate_keys.update({_furniture_key(line.text) for line in edges if _in_margin(line, page)})
    threshold = max(3, int(0.4 * len(pages)) + 1)
    repeated = {key for key, count in candidate_keys.items() if count >= threshold and key}
    removed = 0
    for page in pages:
        keep: list[int] = []
        n = len(page.lines)
        for i, line in enumerate(page.lines):
            at_edge = i < edge_lines or i >= n - edge_lines
            text = line.text.strip()
            margin = _in_margin(line, page)
            is_furniture = at_edge and (
                (margin and _furniture_key(text) in repeated)
                or (_PAGE_NUMBER.match(text) is not None and (margin or n > 3))
            )
            if is_furniture:
                removed += 1
            else:
                keep.append(i)
        page.lines = [page.lines[i] for i in keep]
        page.column_left = [page.column_left[i] for i in keep]
        page.column_right = [page.column_right[i] for i in keep]
    return removed


# --- paragraphs --------------------------------------------------------------------------------

_TERMINAL = re.compile(r"[.:;?!][\"”’)\]]*$")
_HYPHENATED = re.compile(r"[A-Za-z]-$")
_WORD_CHARS = re.compile(r"[A-Za-z]+")


def _is_heading_like(line: Line) -> bool:
    letters = [ch for ch in line.text if ch.isalpha()]
    return (
        bool(letters)
        and len(line.words) <= 12
        and (sum(ch.isupper() for ch in letters) >= 0.8 * len(letters) or line.bold)
    )


def _line_pitch(page: PageLines) -> float:
    pitches = [
        b.y0 - a.y0
        for a, b in zip(page.lines, page.lines[1:], strict=False)
        if 0 < b.y0 - a.y0 < 3 * max(a.height, 1)
    ]
    if pitches:
        return statistics.median(pitches)
    heights = [line.height for line in page.lines]
    return 1.2 * statistics.median(heights) if heights else 12.0


_COMPOUND = re.compile(r"[A-Za-z]+-[A-Za-z]+")


@lru_cache(maxsize=1)
def english_words() -> frozenset[str]:
    """Whole English words of the MiniLM WordPiece vocabulary (~20k), shipped with the package:
    "demand" and "forecasting" are words, "confi" and "dential" are not."""
    vocabulary = json.loads((asset_dir("minilm") / "tokenizer.json").read_text(encoding="utf-8"))["model"][
        "vocab"
    ]
    return frozenset(token for token in vocabulary if len(token) > 1 and token.isalpha() and token.isascii())


_PREFIXES = frozenset(
    "non co self pre re sub anti multi post inter cross third well long short full part first".split()
)


class _Vocabulary:
    """Words seen in the document, to decide whether a line-end hyphen is part of the word."""

    def __init__(self, pages: list[PageLines]) -> None:
        self.words: Counter[str] = Counter()
        self.compounds: Counter[str] = Counter()
        for page in pages:
            for line in page.lines:
                for word in line.words:
                    self.words.update(m.group(0).lower() for m in _WORD_CHARS.finditer(word.text))
                    self.compounds.update(m.group(0).lower() for m in _COMPOUND.finditer(word.text))

    def keep_hyphen(self, head: str, tail: str) -> bool:
        """Whether "head-" at a line end + "tail" is a real compound ("non-disclosure",
        "demand-forecasting") rather than a word broken across lines ("confi-dential").

        Evidence, strongest first: the joined word occurs in the document (break); the compound
        occurs unbroken (keep); a known prefix (keep); both halves are words of the document
        (keep; "confi" and "dential" are not)."""
        heads = _WORD_CHARS.findall(head)
        tail_match = _WORD_CHARS.match(tail)
        if not heads or not tail_match:
            return True
        head_word, tail_word = heads[-1].lower(), tail_match.group(0).lower()
        if self.words[head_word + tail_word] > 0:
            return False
        if self.compounds[f"{head_word}-{tail_word}"] > 0 or head_word in _PREFIXES:
            return True
        return self._known(head_word) and self._known(tail_word)

    def _known(self, word: str) -> bool:
        """A real word: in the English word list, or used elsewhere in this document (each half
        of the broken word is counted once by the break itself)."""
        return word in english_words() or self.words[word] > 1


@dataclass
class AssembledText:
    text: str
    pages: list[PageInfo]
    blocks: list[Block]
    words: WordBoxes


def assemble(pages: list[PageLines]) -> AssembledText:
    """Join the pages' lines into paragraphs and build text, page map, blocks and word boxes."""
    vocabulary = _Vocabulary(pages)
    text_parts: list[str] = []
    length = 0
    words = WordBoxes()
    blocks: list[Block] = []
    page_infos: list[PageInfo] = []
    block_start: int | None = None
    block_meta: tuple[int, float, bool, float, float] = (1, 0.0, False, 0.0, 0.0)
    prev: Line | None = None
    prev_right = 0.0
    prev_page = 0

    def append(fragment: str) -> None:
        nonlocal length
        text_parts.append(fragment)
        length += len(fragment)

    def close_block() -> None:
        nonlocal block_start
        if block_start is not None and length > block_start:
            page, x0, bold, size, gap = block_meta
            blocks.append(
                Block(
                    start=block_start, end=length, page=page, x0=x0, bold=bold, font_size=size, gap_before=gap
                )
            )
        block_start = None

    for page in pages:
        page_start = length
        pitch = _line_pitch(page)
        for index, line in enumerate(page.lines):
            left, right = page.column_left[index], page.column_right[index]
            if prev is None:
                joiner = ""
            else:
                joiner = _joiner(
                    prev,
                    line,
                    prev_right,
                    left,
                    pitch,
                    same_page=prev_page == page.number,
                    vocabulary=vocabulary,
                )
            if joiner == "\n":
                close_block()
                append("\n")
            elif joiner:
                append(joiner)
            if block_start is None:
                gap = (line.y0 - prev.y1) / pitch if prev is not None and prev_page == page.number else 1.0
                block_start = length
                block_meta = (
                    page.number,
                    round(line.x0 - left, 1),
                    line.bold,
                    round(line.size, 1),
                    round(max(gap, 0.0), 2),
                )
            for i, word in enumerate(line.words):
                token = word.text
                if i == len(line.words) - 1 and joiner_after_hyphen(line, pages, page, index, vocabulary):
                    token = token[:-1]
                if i > 0:
                    append(" ")
                words.add(length, length + len(token), page.number, (word.x0, word.y0, word.x1, word.y1))
                append(token)
            prev, prev_right, prev_page = line, right, page.number
        page_infos.append(
            PageInfo(
                number=page.number,
                start=page_start,
                end=length,
                width=page.width,
                height=page.height,
                source="empty" if not page.lines and page.source == "text" else page.source,
                ocr_confidence=page.ocr_confidence,
            )
        )
    close_block()
    return AssembledText("".join(text_parts), page_infos, blocks, words)


def _next_line(pages: list[PageLines], page: PageLines, index: int) -> Line | None:
    if index + 1 < len(page.lines):
        return page.lines[index + 1]
    position = pages.index(page)
    for later in pages[position + 1 :]:
        if later.lines:
            return later.lines[0]
    return None


def joiner_after_hyphen(
    line: Line, pages: list[PageLines], page: PageLines, index: int, vocabulary: _Vocabulary
) -> bool:
    """Whether the line's final hyphen is a line-break hyphen to drop."""
    last = line.words[-1].text
    if not _HYPHENATED.search(last):
        return False
    nxt = _next_line(pages, page, index)
    if nxt is None or not nxt.words[0].text[:1].islower():
        return False
    return not vocabulary.keep_hyphen(last[:-1], nxt.words[0].text)


def _joiner(
    prev: Line,
    line: Line,
    prev_right: float,
    left: float,
    pitch: float,
    *,
    same_page: bool,
    vocabulary: _Vocabulary,
) -> str:
    """ "" (hyphen join), " " (same paragraph) or "\\n" (new paragraph) between two lines."""
    prev_text = prev.text.rstrip()
    starts_lower = line.words[0].text[:1].islower()
    if _HYPHENATED.search(prev_text) and starts_lower:
        return ""  # "confi-|dential" (hyphen dropped while emitting) or "non-|disclosure" (kept)
    if opens_item(prev_text, line.text):
        return "\n"
    if starts_lower and not _TERMINAL.search(prev_text):
        return " "  # a sentence running on, across a gap, column or page break
    if not same_page:  # a paragraph cut by the page break continues unless it visibly ended
        return " " if not _TERMINAL.search(prev_text) and not _is_heading_like(prev) else "\n"
    if line.y0 - prev.y0 > 1.45 * pitch or line.y0 < prev.y0 - pitch:  # gap, or column change
        return "\n"
    width = max(prev_right - left, 1.0)
    heading_prev = _is_heading_like(prev) and prev.x1 < left + 0.6 * width
    if heading_prev or (prev.bold and not line.bold):
        return "\n"  # a short heading line, then text
    if _TERMINAL.search(prev_text) and _is_heading_like(line) and line.x1 < left + 0.6 * width:
        return "\n"  # a finished sentence, then a short heading line
    stopped_short = prev.x1 < prev_right - 0.15 * width
    if stopped_short and _TERMINAL.search(prev_text):
        return "\n"
    if prev.x1 < left + 0.5 * width and not prev_text.endswith((",", "and", "or")):
        return "\n"  # a line under half the column (signature, address) ends its paragraph
    if line.x0 - left > 0.04 * width and _TERMINAL.search(prev_text) and not starts_lower:
        return "\n"  # first-line indent after a finished sentence
    return " "
