"""The known provisions: what the trained deciders cover, as the matcher compares questions with
them (CUAD's 41 categories from the built-in provision list, the NDA suite's 17 hypotheses)."""

from __future__ import annotations

from tools.checks.suites import load_suite
from tools.decision.matching import KnownProvision
from tools.review.provisions import load_provisions


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
        )
        for h in load_suite("nda").hypotheses
    ]
    return known
