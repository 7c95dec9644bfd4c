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

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from tools.playbooks import load_playbook, parse_playbook

BUILTIN_SUITES = ("nda",)


class Hypothesis(BaseModel):
    key: str = Field(min_length=1, max_length=80)
    text: str = Field(min_length=5, max_length=2000)
    topic: str = ""
    contractnli: str | None = Field(default=None, description="The matching ContractNLI hypothesis key.")
    kind: Literal["constraint", "permission", "fact"] = Field(
        default="constraint",
        description="What the hypothesis does: constrains the receiving party, permits it something, or "
        'states a fact (how the router reads "Can we X?").',
    )
    examples: list[str] = Field(
        default_factory=list,
        description='Questions whose "yes" means the hypothesis holds (the router learns the topic '
        "from them).",
    )
    inverse_examples: list[str] = Field(
        default_factory=list, description='Questions whose "yes" means the hypothesis does not hold.'
    )

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


SUITE_HINT = "a suite has 'name' and a 'hypotheses' list; each needs a unique 'key' and a 'text'"


def parse_suite(text: str, origin: str) -> Suite:
    """A suite from YAML text; ``origin`` names the file in errors."""
    return parse_playbook(text, origin, Suite, SUITE_HINT)


def load_suite(name_or_path: str | Path) -> Suite:
    """A built-in suite by name (``nda``) or a playbook file."""
    return load_playbook(name_or_path, BUILTIN_SUITES, Suite, SUITE_HINT)


def adhoc_suite(texts: list[str]) -> Suite:
    """Hypotheses given on the command line, keyed h1, h2, ..."""
    return Suite(name="adhoc", hypotheses=[Hypothesis(key=f"h{i}", text=t) for i, t in enumerate(texts, 1)])
