"""The installed Clausewise version (from package metadata, falling back to the source tree's)."""

from __future__ import annotations

from importlib import metadata


def clausewise_version() -> str:
    try:
        return metadata.version("clausewise")
    except metadata.PackageNotFoundError:
        return "0.0.0+source"
