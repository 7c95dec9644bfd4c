"""The deterministic query plan: keywords and a semantic query from a question, with no model.

The Researcher falls back to it when its rewriter model is off or unreadable; the hypothesis
checker and the benchmarks use it as is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from clausewise.core.results import QueryPlan
from indexes.bm25 import bm25_tokens

_QUESTION_WORDS = frozenset(
    """what which who whom whose when where why how does do did is are was were can could may might shall
    should will would must has have had any the a an of to in on for by with under this that these those
    there their its it agreement contract document consider please tell me about""".split()
)
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]")


def default_plan(question: str, defined_terms: Sequence[str] = ()) -> QueryPlan:
    """Keywords without a model: quoted phrases, defined terms the question mentions, then the
    question's content words; the question itself is the semantic query."""
    keywords: list[str] = [m.group(1) for m in _QUOTED.finditer(question)]
    lowered = question.lower()
    keywords += [t for t in defined_terms if len(t) > 2 and t.lower() in lowered]
    keywords += [
        w for w in re.findall(r"[A-Za-z][A-Za-z-]{2,}", question) if w.lower() not in _QUESTION_WORDS
    ]
    unique = list(dict.fromkeys(k for k in keywords if bm25_tokens(k)))
    return QueryPlan(keywords=unique[:12], semantic_query=question)
