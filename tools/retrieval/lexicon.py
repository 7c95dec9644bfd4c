"""Legal query expansion: everyday question words -> the words contracts use for them.

People ask "how long must I keep it confidential?"; the contract says "the obligations ...
survive ... for three (3) years". Neither BM25 nor a small embedder links "how long" to
"survive", so the clause is missed. A lexicon of concepts (trigger phrases -> contract terms)
adds one more lexical ranking for the concepts a question asks about in other words than the
contract's; fusion weighs it like the other rankings, so it can lift a clause but never remove
one. A question that already uses one of a concept's terms is not expanded for it: BM25 finds
those clauses, and in a contract about that very concept (confidentiality in an NDA) the
concept's words are everywhere, so expanding only adds noise (on ten development questions,
expanding them anyway halved the gold evidence the reports cited). The built-in lexicon is
``clausewise/core/suites/legal-terms.yaml``; a user's YAML of the same shape replaces it.
"""

from __future__ import annotations

import re
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from indexes.bm25 import bm25_tokens
from tools.playbooks import load_playbook

BUILTIN_LEXICONS = ("legal-terms",)
_HINT = 'each concept needs "when" (trigger phrases, a trailing * matches any ending) and "terms"'


class Concept(BaseModel):
    model_config = ConfigDict(extra="forbid")

    when: list[str] = Field(min_length=1, description="Trigger phrases; a trailing * matches any ending.")
    terms: list[str] = Field(min_length=1, description="Words contracts use for the concept.")


def _trigger_pattern(phrases: list[str]) -> re.Pattern[str]:
    """One regex for a concept's triggers: whole words, spaces as any whitespace, ``*`` suffix."""
    alternatives = []
    for phrase in phrases:
        words = phrase.lower().split()
        parts = [re.escape(w[:-1]) + r"[\w-]*" if w.endswith("*") else re.escape(w) for w in words]
        alternatives.append(r"\s+".join(parts))
    return re.compile(r"(?<![\w-])(?:" + "|".join(alternatives) + r")(?![\w-])")


class Lexicon(BaseModel):
    model_config = ConfigDict(extra="forbid")

    concepts: dict[str, Concept] = Field(min_length=1)

    @cached_property
    def _patterns(self) -> list[tuple[str, re.Pattern[str]]]:
        return [(name, _trigger_pattern(c.when)) for name, c in self.concepts.items()]

    @cached_property
    def _term_tokens(self) -> dict[str, set[str]]:
        return {name: {t for term in c.terms for t in bm25_tokens(term)} for name, c in self.concepts.items()}

    def concepts_in(self, question: str) -> list[str]:
        """Names of the concepts ``question`` asks about in other words than the contract's: its
        triggers occur, none of the concept's terms does (a question that already says
        "terminate" needs no help finding termination clauses), in lexicon order."""
        lowered = question.lower()
        words = set(bm25_tokens(question))
        return [
            name
            for name, pattern in self._patterns
            if pattern.search(lowered) and not words & self._term_tokens[name]
        ]

    def expansion(self, question: str) -> list[str]:
        """The contract terms of every concept the question touches (no duplicates)."""
        terms = [t for name in self.concepts_in(question) for t in self.concepts[name].terms]
        return list(dict.fromkeys(terms))


def load_lexicon(name_or_path: str | Path) -> Lexicon:
    """The built-in lexicon by name, or a user's YAML file (errors name the file and the fix)."""
    return load_playbook(name_or_path, BUILTIN_LEXICONS, Lexicon, _HINT)
