"""Provision lists for due-diligence review: CUAD's 41 categories built in, or a user's YAML.

Each provision is a query pack: a semantic ``question`` for dense retrieval and the reranker,
``keywords`` for BM25, what to extract when present (``answer``), and optionally its own
reranker ``threshold`` (used when the reranker decides presence; a provision named after a CUAD
category is decided by the presence classifier and its calibrated threshold by default)::

    name: our-review
    provisions:
      - key: governing-law
        name: Governing Law
        question: Which jurisdiction's law governs this agreement?
        keywords: [governed, laws of]
        answer: law
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from clausewise.core.domain import RetrievalQuery
from tools.playbooks import KeyedBy, KeyedPlaybook, load_playbook, parse_playbook

BUILTIN_PROVISIONS = ("cuad",)
AnswerKind = Literal["none", "name", "parties", "date", "duration", "law", "text"]
PROVISIONS_HINT = (
    "a provision list has 'name' and a 'provisions' list; each needs a unique 'key', a 'name' and a "
    "'question' (optional: keywords, answer, threshold)"
)


class Provision(BaseModel):
    key: str = Field(min_length=1, max_length=80)
    name: str = Field(min_length=1)
    description: str = Field(
        default="", description="What having the provision means, in plain words (matches questions to it)."
    )
    aliases: list[str] = Field(
        default_factory=list, description="Names lawyers give the provision (match questions to it)."
    )
    kind: Literal["constraint", "permission", "fact"] = Field(
        default="constraint",
        description='What the provision does: constrains a party ("Can we X?" asks it the other way '
        'round), permits it ("Can we X?" asks it straight) or states a fact (a date, the law).',
    )
    examples: list[str] = Field(
        default_factory=list,
        description='Questions that ask about the provision, "yes" meaning it is present (or asking for '
        "its value): the router learns the provision from them.",
    )
    inverse_examples: list[str] = Field(
        default_factory=list,
        description='Questions whose "yes" means the provision is absent ("Can we assign freely?").',
    )
    question: str = Field(min_length=5)
    keywords: list[str] = Field(default_factory=list)
    answer: AnswerKind = "none"
    threshold: float | None = Field(default=None, ge=0, le=1)

    def query(self) -> RetrievalQuery:
        return RetrievalQuery(question=self.question, keywords=self.keywords, semantic=self.question)


class ProvisionList(KeyedPlaybook):
    keyed_by = KeyedBy("provisions", "key", "provision keys")

    name: str = Field(min_length=1)
    description: str = ""
    provisions: list[Provision] = Field(min_length=1)


def parse_provisions(text: str, origin: str) -> ProvisionList:
    return parse_playbook(text, origin, ProvisionList, PROVISIONS_HINT)


def load_provisions(name_or_path: str | Path) -> ProvisionList:
    """A built-in list by name (``cuad``) or a YAML file."""
    return load_playbook(name_or_path, BUILTIN_PROVISIONS, ProvisionList, PROVISIONS_HINT)
