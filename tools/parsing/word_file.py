"""The contract in a Word file: its text and layout blocks, and, when the file holds tracked
changes, which of its two texts was read, the other one, the changes and the comments.

The body is read by :mod:`tools.parsing.docx` (numbering replayed, runs as Word shows them) once
per text; :mod:`tools.parsing.word_revisions` places the changes in both.
"""

from __future__ import annotations

import time
from pathlib import Path

from clausewise.core.domain import Block, FileType, ParsedDocument, TextVersion, TrackedText
from clausewise.core.errors import EmptyDocument, HiddenText, TooSlowToRead
from tools.parsing.docx import BodyLine, body_lines, open_docx
from tools.parsing.word_revisions import has_tracked_content, tracked_text
from tools.word_active_content import hidden_content


def parse_docx_file(
    path: Path,
    max_unpacked_mb: float | None = None,
    max_seconds: float | None = None,
    read_as: TextVersion = "proposed",
) -> ParsedDocument:
    """The contract's text and blocks; a file over ``max_unpacked_mb`` unpacked, or whose body
    takes over ``max_seconds`` to read, is refused (:class:`FileTooLarge`). A file with tracked
    changes is read as ``read_as`` (proposed: their insertions in, their deletions out), and
    keeps its other text, its changes and its comments in :attr:`ParsedDocument.tracked`."""
    deadline = time.monotonic() + max_seconds if max_seconds is not None else None
    document = open_docx(path, max_unpacked_mb)
    hidden = hidden_content(document)
    if hidden:
        raise HiddenText(
            "the Word file shows text that is not in its body, which would not be read: " + "; ".join(hidden),
            hint="open it in Word and save it as a new .docx (Word then writes that text into the "
            "document), and ingest that file",
            path=path,
        )
    try:
        lines = list(body_lines(document, deadline, read_as))
        tracked = None
        if has_tracked_content(document):
            other: TextVersion = "before" if read_as == "proposed" else "proposed"
            other_lines = list(body_lines(document, deadline, other))
            tracked = tracked_text(document, read_as, {read_as: lines, other: other_lines})
            tracked.other_blocks = _text_and_blocks(other_lines)[1]
    except TooSlowToRead as error:
        error.path = path
        raise
    text, blocks = _text_and_blocks(lines)
    if not text:
        raise EmptyDocument(
            "the Word file has no text" + (f" as {read_as}" if tracked is not None else ""),
            hint="check the export" if tracked is None else "read its other text (parsing.tracked_changes)",
            path=path,
        )
    return ParsedDocument.unpaged(
        path.name,
        FileType.DOCX,
        text,
        blocks,
        tracked=tracked,
        warnings=[tracked_warning(tracked)]
        if tracked is not None and (tracked.changes or tracked.comments)
        else [],
    )


def _text_and_blocks(lines: list[BodyLine]) -> tuple[str, list[Block]]:
    """The contract's text (one line per body line) and a layout block per line."""
    parts: list[str] = []
    blocks: list[Block] = []
    offset = 0
    for body_line in lines:
        line = body_line.line
        if not line:
            continue
        blocks.append(
            Block(
                start=offset,
                end=offset + len(line),
                bold=body_line.bold,
                font_size=body_line.size,
                x0=body_line.indent,
            )
        )
        parts.append(line)
        offset += len(line) + 1
    return "\n".join(parts), blocks


def tracked_warning(tracked: TrackedText) -> str:
    """What the ingest says of a file with tracked changes: how many by whom, which text was read."""
    authors = ", ".join(f"{author} {count}" for author, count in tracked.authors().items())
    held = f"{len(tracked.changes)} tracked change{'s' if len(tracked.changes) != 1 else ''}"
    if authors:
        held += f" ({authors})"
    if tracked.comments:
        held += f" and {len(tracked.comments)} comment{'s' if len(tracked.comments) != 1 else ''}"
    reading = (
        "as proposed (their insertions in, their deletions out)"
        if tracked.read_as == "proposed"
        else "as before (their insertions out, their deletions in)"
    )
    return f"the Word file holds {held}; its text is read {reading}, and the other text is kept"
