"""Every settings field as a CLI flag: ``--section.field VALUE`` or ``--section.field=VALUE``.

The flags are derived from the :class:`~clausewise.core.config.Settings` model itself, so a new
setting is immediately a flag, an environment variable and a TOML key, with one name.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from clausewise.core.config import Settings
from clausewise.core.errors import ConfigError


def setting_keys(model: type[BaseModel] = Settings, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Dotted keys of every leaf field, with its FieldInfo."""
    for name, info in model.model_fields.items():
        annotation = info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            yield from setting_keys(annotation, f"{prefix}{name}.")
        else:
            yield f"{prefix}{name}", info


def _is_bool(info: Any) -> bool:
    return info.annotation is bool or bool in get_args(info.annotation)


def _is_choice(info: Any, value: str) -> bool:
    """Whether ``value`` is one of the field's literal choices (``--retrieval.reranker none``)."""

    def literals(annotation: Any) -> list[Any]:
        if get_origin(annotation) is Literal:
            return list(get_args(annotation))
        return [v for arg in get_args(annotation) for v in literals(arg)]

    return value in literals(info.annotation)


def split_overrides(argv: list[str]) -> tuple[list[str], dict[str, Any]]:
    """Pull ``--a.b[=v]`` flags out of argv; return the remaining args and a nested dict."""
    known = dict(setting_keys())
    remaining: list[str] = []
    overrides: dict[str, Any] = {}
    index = 0
    while index < len(argv):
        token = argv[index]
        name = token[2:].split("=", 1)[0] if token.startswith("--") else ""
        if "." not in name:
            remaining.append(token)
            index += 1
            continue
        key = name.replace("-", "_")
        if key not in known:
            close = difflib.get_close_matches(key, known, n=3)
            raise ConfigError(
                f"unknown setting --{name}",
                hint=f"did you mean {', '.join('--' + c.replace('_', '-') for c in close)}?"
                if close
                else "run `clausewise config show` for every setting",
            )
        if "=" in token:
            value: Any = token.split("=", 1)[1]
            index += 1
        elif _is_bool(known[key]) and (index + 1 == len(argv) or argv[index + 1].startswith("-")):
            value = "true"
            index += 1
        elif index + 1 < len(argv):
            value = argv[index + 1]
            index += 2
        else:
            raise ConfigError(f"--{name} needs a value", hint=f"write --{name}=VALUE")
        if isinstance(value, str) and value.lower() in {"none", "null"} and not _is_choice(known[key], value):
            value = None
        node = overrides
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return remaining, overrides
