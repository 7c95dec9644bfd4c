"""A tiny progress interface, so agents report long work without knowing about terminals."""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    def stage(self, name: str, total: int | None = None) -> None:
        """A new stage begins (``total`` units of work, if known)."""
        ...

    def advance(self, amount: int = 1) -> None:
        """``amount`` more units of the current stage are done."""
        ...


class NoProgress:
    """Reports nothing (library use, tests)."""

    def stage(self, name: str, total: int | None = None) -> None:
        return None

    def advance(self, amount: int = 1) -> None:
        return None
