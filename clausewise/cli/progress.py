"""Rich progress bars behind the :class:`clausewise.core.progress.Progress` interface."""

from __future__ import annotations

from types import TracebackType

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.progress import Progress as RichBar


class TerminalProgress:
    """One bar per file; its description shows the current stage."""

    def __init__(self, console: Console) -> None:
        self._bar = RichBar(
            SpinnerColumn(),
            TextColumn("[bold]{task.fields[item]}[/bold] {task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
        )
        self._task = None
        self._item = ""

    def __enter__(self) -> TerminalProgress:
        self._bar.__enter__()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._bar.__exit__(kind, value, traceback)

    def item(self, name: str) -> None:
        """Start reporting on a new file."""
        if self._task is not None:
            self._bar.remove_task(self._task)
        self._item = name
        self._task = self._bar.add_task("", total=None, item=name)

    def stage(self, name: str, total: int | None = None) -> None:
        if self._task is None:
            self.item("")
        assert self._task is not None
        self._bar.reset(self._task, total=total, description=name, item=self._item)

    def advance(self, amount: int = 1) -> None:
        if self._task is not None:
            self._bar.advance(self._task, amount)
