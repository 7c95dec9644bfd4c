"""Where a span of the contract is on its pages: one rectangle per line of text, built from the
word boxes kept at ingest, in PDF points (a viewer scales them to the page image it shows).

A citation is a verified character span; its words are known, so its highlight is exact: every
word the span touches, and nothing else, line by line, on every page it crosses (a quote that
runs over a page break is highlighted on both pages). Documents without page geometry (text,
DOCX, HTML) have no boxes: their viewer highlights the characters themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clausewise.core.domain import ParsedDocument, Span

Box = tuple[float, float, float, float]


@dataclass
class PageHighlight:
    page: int
    width: float
    height: float
    rects: list[Box] = field(default_factory=list)


def same_line(a: Box, b: Box) -> bool:
    """Two word boxes on one visual line: their vertical extents overlap by half the smaller."""
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0.5 * min(a[3] - a[1], b[3] - b[1]) and b[0] >= a[0] - 1.0


def line_rects(boxes: list[Box]) -> list[Box]:
    """Consecutive word boxes (in text order) merged into one rectangle per visual line."""
    rects: list[Box] = []
    for box in boxes:
        if rects and same_line(rects[-1], box):
            x0, y0, x1, y1 = rects[-1]
            rects[-1] = (min(x0, box[0]), min(y0, box[1]), max(x1, box[2]), max(y1, box[3]))
        else:
            rects.append(box)
    return rects


def highlight(document: ParsedDocument, span: Span) -> list[PageHighlight]:
    """The rectangles to draw for ``span``, page by page (empty for a document without boxes)."""
    if document.words is None or not len(document.words):
        return []
    sizes = {p.number: (p.width, p.height) for p in document.pages}
    by_page: dict[int, list[Box]] = {}
    for page, box in document.words.boxes_for(span):
        by_page.setdefault(page, []).append(box)
    return [
        PageHighlight(page, *sizes.get(page, (0.0, 0.0)), rects=line_rects(boxes))
        for page, boxes in sorted(by_page.items())
    ]
