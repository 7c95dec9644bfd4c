"""HTML contracts: block-level elements become paragraphs, ordered list items keep their numbers.

Uses the standard library's HTMLParser (no extra dependency). Offsets are into the text we emit,
which is what a reader sees rendered, not into the HTML source.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from clausewise.core.domain import Block, FileType, ParsedDocument
from clausewise.core.errors import EmptyDocument
from tools.parsing.text import decode_bytes

_BLOCK_TAGS = {
    "p",
    "div",
    "li",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "tr",
    "table",
    "section",
    "article",
    "blockquote",
    "pre",
    "dt",
    "dd",
    "title",
    "header",
    "footer",
    "ul",
    "ol",
    "br",
    "hr",
}
_SKIP_TAGS = {"script", "style", "head", "noscript", "template", "svg"}
_HEADING_SIZES = {"h1": 24.0, "h2": 20.0, "h3": 16.0, "h4": 14.0, "h5": 13.0, "h6": 12.0}
_SPACES = re.compile(r"\s+")


class _BlockCollector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[tuple[str, bool, float, int]] = []  # text, bold, size, depth
        self._parts: list[str] = []
        self._skip = 0
        self._bold = 0
        self._heading: str | None = None
        self._lists: list[list[int | None]] = []  # per open list: [counter or None for <ul>]
        self._in_cell = False

    def _flush(self) -> None:
        text = _SPACES.sub(" ", "".join(self._parts)).strip()
        self._parts = []
        if text:
            size = _HEADING_SIZES.get(self._heading or "", 0.0)
            self.blocks.append((text, self._heading is not None or self._bold > 0, size, len(self._lists)))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP_TAGS:
            self._skip += 1
            return
        if tag in {"td", "th"}:
            if self._in_cell:
                self._parts.append(" | ")
            self._in_cell = True
            return
        if tag in _BLOCK_TAGS:
            self._flush()
        if tag in {"b", "strong"}:
            self._bold += 1
        elif tag in _HEADING_SIZES:
            self._heading = tag
        elif tag == "ol":
            start = dict(attrs).get("start") or "1"
            self._lists.append([int(start) - 1 if start.isdigit() else 0])
        elif tag == "ul":
            self._lists.append([None])
        elif tag == "li" and self._lists:
            counter = self._lists[-1]
            if counter[0] is None:
                self._parts.append("\u2022 ")
            else:
                counter[0] += 1
                self._parts.append(f"{counter[0]}. ")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP_TAGS:
            self._skip = max(self._skip - 1, 0)
            return
        if tag == "tr":
            self._in_cell = False
        if tag in _BLOCK_TAGS:
            self._flush()
        if tag in {"b", "strong"}:
            self._bold = max(self._bold - 1, 0)
        elif tag in _HEADING_SIZES:
            self._heading = None
        elif tag in {"ol", "ul"} and self._lists:
            self._lists.pop()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._parts.append(data)

    def close(self) -> None:
        super().close()
        self._flush()


def parse_html_file(path: Path) -> ParsedDocument:
    collector = _BlockCollector()
    decoded = decode_bytes(path.read_bytes(), path)
    collector.feed(decoded.text)
    collector.close()
    if not collector.blocks:
        raise EmptyDocument("the HTML page has no visible text", hint="check the export", path=path)
    text_parts: list[str] = []
    blocks: list[Block] = []
    offset = 0
    for text, bold, size, depth in collector.blocks:
        blocks.append(Block(start=offset, end=offset + len(text), x0=depth * 20.0, bold=bold, font_size=size))
        text_parts.append(text)
        offset += len(text) + 1
    text = "\n".join(text_parts)
    return ParsedDocument.unpaged(path.name, FileType.HTML, text, blocks, warnings=list(decoded.warnings))
