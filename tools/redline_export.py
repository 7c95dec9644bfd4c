"""The redline DOCX a reviewer downloads: the contract's own Word file with the tracked changes
when it came as one and they can be placed there, else a DOCX of the contract's text."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from tools.playbook.redlines import Edit
from tools.tracked_docx import tracked_docx
from tools.tracked_original_docx import NotPlaceable, tracked_original_docx


@dataclass(frozen=True)
class RedlineDocx:
    """The DOCX bytes, what they were made from, and (for the text) why not the Word file."""

    data: bytes
    base: Literal["original", "text"]
    reason: str = ""
    #: what was taken out of the original because it could run or fetch when opened (in words)
    removed: tuple[str, ...] = ()


def redline_export(
    text: str,
    edits: Sequence[Edit],
    *,
    original: Path | None,
    author: str,
    when: datetime,
    title: str = "",
    keep_active: bool = False,
) -> RedlineDocx:
    """The redline of ``text`` (the contract as read from ``original``, its ingested file); what
    the original could run or fetch when opened is removed unless ``keep_active``."""
    reason = "the contract did not come as a Word file"
    if original is not None and original.suffix.lower() == ".docx":
        try:
            made = tracked_original_docx(
                original.read_bytes(), text, edits, author=author, when=when, keep_active=keep_active
            )
            return RedlineDocx(made.data, "original", removed=made.removed)
        except NotPlaceable as exc:
            reason = f"the changes could not be made in the Word file: {exc}"
    return RedlineDocx(tracked_docx(text, edits, author=author, when=when, title=title), "text", reason)
