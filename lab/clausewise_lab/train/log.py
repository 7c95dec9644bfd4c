"""The progress log of a training run: each step of a pipeline reports in lines of text, which
``clausewise train ...`` prints as they are and a library call sends to the logger."""

from __future__ import annotations

from collections.abc import Callable

#: Where a training step reports its progress: one line of text a call.
Log = Callable[[str], None]
