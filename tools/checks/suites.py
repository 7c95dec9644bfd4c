"""Suites of hypotheses: the built-in NDA suite or a user's playbook in YAML.

A playbook is a YAML mapping with ``name`` and a list of ``hypotheses``, each with a ``key``
(unique), the hypothesis ``text`` and an optional ``topic``::

    name: our-nda-playbook
    hypotheses:
      - key: survival
        topic: Survival
        text: Confidentiality obligations continue for at least three years after termination.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from clausewise.errors import ConfigError

BUILTIN_SUITES = ("nda",)


class Hypothesis(BaseModel):
    key: str = Field(min_length=1, max_length=80)
    text: str = Field(min_length=5, max_length=2000)
    topic: str = ""
    contractnli: str | None = Field(default=None, description="The matching ContractNLI hypothesis key.")

    @field_validator("key", "text", "topic")
    @classmethod
    def _strip(cls, value: str) -> str:
        return " ".join(value.split())


class Suite(BaseModel):
    name: str = Field(min_length=1)
    description: str = ""
    hypotheses: list[Hypothesis] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_keys(self) -> Suite:
        seen: set[str] = set()
        for hypothesis in self.hypotheses:
            if hypothesis.key in seen:
                raise ValueError(f"hypothesis key {hypothesis.key!r} appears twice")
            seen.add(hypothesis.key)
        return self


def parse_suite(text: str, origin: str) -> Suite:
    """A suite from YAML text; ``origin`` names the file in errors."""
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise ConfigError(
            f"{origin}: not valid YAML{where}",
            hint="fix the YAML syntax (see the playbook example in the README)",
        ) from exc
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{origin}: a suite must be a mapping with 'name' and 'hypotheses'",
            hint="start the file with 'name: ...' and a 'hypotheses:' list",
        )
    try:
        return Suite.model_validate(raw)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error['loc']) or 'suite'}: {error['msg']}" for error in exc.errors()
        )
        raise ConfigError(
            f"{origin}: invalid suite ({problems})",
            hint="each hypothesis needs a unique 'key' and a 'text' of at least 5 characters",
        ) from exc


def load_suite(name_or_path: str | Path) -> Suite:
    """A built-in suite by name (``nda``) or a playbook file."""
    if str(name_or_path) in BUILTIN_SUITES:
        text = (resources.files("clausewise") / "suites" / f"{name_or_path}.yaml").read_text(encoding="utf-8")
        return parse_suite(text, f"built-in suite {name_or_path!r}")
    path = Path(name_or_path)
    if not path.is_file():
        raise ConfigError(
            f"no suite {str(name_or_path)!r}",
            hint=f"use a built-in suite ({', '.join(BUILTIN_SUITES)}) or the path of a YAML playbook",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text", hint="save the playbook as UTF-8") from exc
    return parse_suite(text, str(path))


def adhoc_suite(texts: list[str]) -> Suite:
    """Hypotheses given on the command line, keyed h1, h2, ..."""
    return Suite(name="adhoc", hypotheses=[Hypothesis(key=f"h{i}", text=t) for i, t in enumerate(texts, 1)])
