"""YAML playbooks (hypothesis suites, provision lists, positions): built-in by name or a user's
file, validated into a pydantic model, with errors that say which file, where, and how to fix it.

Every YAML we are sent is measured before it is built: PyYAML keeps an alias as a second
reference to the anchored object, so 40 KB of ``[&s xxx..., *s, *s, ...]`` loads in a blink and
becomes 100 MB only when the playbook is serialised (a response, a stored job). The measure walks
the parser's events (no recursion, so 3,000 levels of nesting cost nothing either) and counts what
the document *expands* to: each alias adds the size of what it names. A playbook may expand to
no more than :data:`MAX_YAML_CHARS` (the characters a literal one may have) and nest no deeper
than :data:`MAX_YAML_DEPTH`; past either it is refused with :class:`YamlTooComplex`.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar, NamedTuple, TypeVar

import yaml
from pydantic import BaseModel, ValidationError, model_validator

from clausewise.core.errors import ConfigError, YamlTooComplex
from clausewise.core.resources import suite_file

ModelT = TypeVar("ModelT", bound=BaseModel)

#: The most characters a playbook's YAML may have, and may expand to once its aliases are
#: followed: written out in full, every playbook we ship is under 70,000.
MAX_YAML_CHARS = 200_000
#: The deepest nesting of lists and mappings a playbook may have (ours nest five deep).
MAX_YAML_DEPTH = 32
#: libyaml's safe loader where PyYAML was built with it: twenty times faster than PyYAML's own
#: parser, with the same events and the same constructor (so the same Python values).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _expanded_size(text: str, origin: str) -> int:
    """What ``text`` expands to (scalar characters plus one per node, each alias counted as the
    node it names), refusing past :data:`MAX_YAML_CHARS` or :data:`MAX_YAML_DEPTH` as soon as
    the walk gets there. libyaml looks ahead through flow collections (``[[[...``) and stops at
    its own bound of 1,000 levels before the walk sees the 33rd: that is the same refusal.
    Syntax errors are left to the caller (their marks say where)."""
    try:
        return _walk(text, origin, _LOADER)
    except yaml.YAMLError as error:
        if "nesting depth" in str(getattr(error, "problem", "")):
            raise _too_deep(origin) from error
        raise


def _too_deep(origin: str) -> YamlTooComplex:
    return YamlTooComplex(
        f"{origin}: nested more than {MAX_YAML_DEPTH} levels deep",
        hint="a playbook's lists and mappings nest a few levels at most: flatten it",
    )


def _walk(text: str, origin: str, loader: type) -> int:
    anchored: dict[str, int] = {}
    open_nodes: list[tuple[str | None, int]] = []  # (anchor, size so far) per open collection
    total = 0
    for event in yaml.parse(text, Loader=loader):
        size = 0
        if isinstance(event, yaml.CollectionStartEvent):
            if len(open_nodes) >= MAX_YAML_DEPTH:
                raise _too_deep(origin)
            open_nodes.append((event.anchor, 1))
            continue
        if isinstance(event, yaml.ScalarEvent):
            size = 1 + len(event.value)
            if event.anchor:
                anchored[event.anchor] = size
        elif isinstance(event, yaml.AliasEvent):
            size = anchored.get(event.anchor or "", 0)
        elif isinstance(event, yaml.CollectionEndEvent):
            anchor, size = open_nodes.pop()
            if anchor:
                anchored[anchor] = size
        else:
            continue
        if open_nodes:
            anchor, so_far = open_nodes[-1]
            open_nodes[-1] = (anchor, so_far + size)
        else:
            total += size
        if total + sum(so_far for _, so_far in open_nodes) > MAX_YAML_CHARS:
            raise YamlTooComplex(
                f"{origin}: expands to more than {MAX_YAML_CHARS:,} characters once its aliases "
                "(*name) are followed",
                hint="write each value out once (an alias repeats the whole anchored value), "
                "or split the playbook",
            )
    return total


class KeyedBy(NamedTuple):
    """Which list of a playbook holds its entries, the attribute that keys each, and what the
    error calls the keys ("position ids")."""

    entries: str
    key: str
    keys_named: str


class KeyedPlaybook(BaseModel):
    """A playbook whose entries each have a key of their own (:attr:`keyed_by`): one that appears
    twice is refused, every repeated key named at once, so one fix covers them all."""

    keyed_by: ClassVar[KeyedBy]

    @model_validator(mode="after")
    def _unique_keys(self) -> KeyedPlaybook:
        keys = [getattr(entry, self.keyed_by.key) for entry in getattr(self, self.keyed_by.entries)]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        if twice:
            raise ValueError(f"{self.keyed_by.keys_named} appear twice: {', '.join(twice)}")
        return self


def parse_playbook(text: str, origin: str, model: type[ModelT], hint: str) -> ModelT:
    """``model`` from YAML text; ``origin`` names the file in errors, ``hint`` says what a valid
    entry needs. Text over :data:`MAX_YAML_CHARS`, or that expands past it, is refused."""
    if len(text) > MAX_YAML_CHARS:
        raise YamlTooComplex(
            f"{origin}: {len(text):,} characters, over the {MAX_YAML_CHARS:,} a playbook may have",
            hint="split the playbook",
        )
    try:
        _expanded_size(text, origin)
        raw = yaml.load(text, Loader=_LOADER)  # a safe loader: plain values only
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
    if path.stat().st_size > 4 * MAX_YAML_CHARS:  # (UTF-8: at most four bytes a character)
        raise YamlTooComplex(
            f"{path.name}: {path.stat().st_size:,} bytes, more than a playbook may have",
            hint="split the playbook",
        )
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text", hint="save the file as UTF-8") from exc
    return parse_playbook(text, str(path), model, hint)
