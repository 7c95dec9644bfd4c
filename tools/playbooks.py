"""YAML playbooks (hypothesis suites, provision lists): built-in by name or a user's file,
validated into a pydantic model, with errors that say which file, where, and how to fix it."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from clausewise.core.errors import ConfigError
from clausewise.core.resources import suite_file

ModelT = TypeVar("ModelT", bound=BaseModel)


def parse_playbook(text: str, origin: str, model: type[ModelT], hint: str) -> ModelT:
    """``model`` from YAML text; ``origin`` names the file in errors, ``hint`` says what a valid
    entry needs."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(f"{origin}: not valid YAML{where}", hint="fix the YAML syntax") from exc
    if not isinstance(raw, dict):
        raise ConfigError(f"{origin}: expected a mapping at the top level", hint=hint)
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'top level'}: {error['msg']}"
            for error in exc.errors()
        )
        raise ConfigError(f"{origin}: invalid ({problems})", hint=hint) from exc


def load_playbook(
    name_or_path: str | Path, builtin: tuple[str, ...], model: type[ModelT], hint: str
) -> ModelT:
    """A built-in playbook (``clausewise/core/suites/<name>.yaml``) or a user's YAML file."""
    if str(name_or_path) in builtin:
        text = suite_file(name_or_path).read_text(encoding="utf-8")
        return parse_playbook(text, f"built-in {name_or_path!r}", model, hint)
    path = Path(name_or_path)
    if not path.is_file():
        raise ConfigError(
            f"no playbook {str(name_or_path)!r}",
            hint=f"use a built-in one ({', '.join(builtin)}) or the path of a YAML file",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text", hint="save the file as UTF-8") from exc
    return parse_playbook(text, str(path), model, hint)
