"""The known provisions: what the trained deciders cover, as the matcher compares questions with
them (CUAD's 41 categories from the built-in provision list, the NDA suite's 17 hypotheses)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tools.checks.suites import load_suite
from tools.review.provisions import load_provisions

Family = Literal["cuad", "nda"]


@dataclass(frozen=True)
class KnownProvision:
    """A provision a trained decider covers: a CUAD category (``family`` "cuad", ``name`` the
    category) or an NDA hypothesis ("nda", ``hypothesis`` its text). ``texts`` describe it (its
    name, aliases, description, question); ``examples`` are questions asking about it ("yes" =
    present), ``inverse_examples`` questions asking it the other way round ("yes" = absent)."""

    key: str
    family: Family
    name: str
    texts: tuple[str, ...]
    hypothesis: str = ""
    answer: str = "none"  # what value the provision has (date, duration, law, parties, name, none)
    kind: str = "constraint"  # constraint, permission or fact: how "Can we ...?" reads (the router)
    examples: tuple[str, ...] = ()
    inverse_examples: tuple[str, ...] = ()


def known_provisions() -> list[KnownProvision]:
    """Each CUAD category with its name, aliases, description and question; each NDA hypothesis
    with its text and topic."""
    known = [
        KnownProvision(
            key=f"cuad:{p.key}",
            family="cuad",
            name=p.name,
            texts=(p.name, *p.aliases, p.description, p.question),
            answer=p.answer,
            kind=p.kind,
            examples=tuple(p.examples),
            inverse_examples=tuple(p.inverse_examples),
        )
        for p in load_provisions("cuad").provisions
    ]
    known += [
        KnownProvision(
            key=f"nda:{h.key}",
            family="nda",
            name=h.topic or h.key,
            texts=(h.text, h.topic) if h.topic else (h.text,),
            hypothesis=h.text,
            kind=h.kind,
            examples=tuple(h.examples),
            inverse_examples=tuple(h.inverse_examples),
        )
        for h in load_suite("nda").hypotheses
    ]
    return known
