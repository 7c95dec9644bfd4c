"""The installed Clausewise version (from package metadata, falling back to the source tree's)."""

from __future__ import annotations

from functools import cache
from importlib import metadata


@cache  # read from the installed metadata once per process (a trace span asks for it each time)
def clausewise_version() -> str:
    try:
        return metadata.version("clausewise")
    except metadata.PackageNotFoundError:
        return "0.0.0+source"
