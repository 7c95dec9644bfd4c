"""``clausewise eval parties``: which party a clause binds and which it benefits, and which party
is the customer, read by the product (:mod:`tools.party_roles`) on CUAD clauses of the commercial
playbook's categories, against hand labels (``data/clause-parties.yaml``).

The scorer compares sets of parties by name: the product names a party by the term the preamble
defines it as, the labels by the term its clauses use (with aliases); "each" stands for every
party. A clause is right on a side (binds, benefits) when the two sets are equal. Tune: the
contracts outside the held-out fold; check: the held-out fold, read once the rules are settled.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from clausewise_lab.evals.data import cuad_documents
from clausewise_lab.evals.data_files import PartiesContract, clause_parties
from clausewise_lab.evals.folds import is_heldout
from clausewise_lab.evals.shares import share

GOALS = {"both_right": 0.95}
EACH = "each"


def _key(name: str) -> str:
    return re.sub(r"^the\s+", "", " ".join(name.lower().split()))


def _gold_names(contract: PartiesContract) -> dict[str, str]:
    """Every way the labels name a party (its name, its aliases) -> its name."""
    names: dict[str, str] = {}
    for party in contract.parties:
        for way in (party.name, *party.aliases):
            names[_key(way)] = party.name
    return names


def _as_gold(found: Sequence[str], names: dict[str, str], everyone: set[str]) -> frozenset[str]:
    """The product's parties in the labels' names ("each" for every party; a term the labels do
    not know stays as it is, and is then wrong)."""
    mapped = {EACH if item == EACH else names.get(_key(item), f"?{item}") for item in found}
    if EACH in mapped or (len(everyone) > 1 and mapped >= everyone):
        return frozenset({EACH})
    return frozenset(mapped)


def _labelled(items: Sequence[str], everyone: set[str]) -> frozenset[str]:
    found = set(items)
    if EACH in found or (len(everyone) > 1 and found >= everyone):
        return frozenset({EACH})
    return frozenset(found)


def run(
    root: Path,
    half: str,
    parties_of: Callable[[str], Sequence[Any]],
    roles_of: Callable[[str, Sequence[Any]], Any],
    side_of: Callable[[Any], str | None],
    label_of: Callable[[Any], str],
) -> dict[str, Any]:
    """Score the product's readings (``parties_of`` a text, ``roles_of`` a clause among them,
    each party's ``side_of`` and ``label_of``) on the labelled contracts of ``half``."""
    texts = {document.name: document.text for document in cuad_documents(root)}
    rows: list[dict[str, Any]] = []
    party_rows: list[dict[str, Any]] = []
    for contract in clause_parties().contracts:
        if is_heldout(contract.title) != (half == "check") or contract.title not in texts:
            continue
        text = texts[contract.title]
        if hashlib.sha256(text.encode("utf-8")).hexdigest() != contract.sha256:
            continue  # another text than the one labelled
        names = _gold_names(contract)
        everyone = {party.name for party in contract.parties}
        found = list(parties_of(text))
        for party in contract.parties:
            match = next((p for p in found if names.get(_key(label_of(p))) == party.name), None)
            party_rows.append(
                {
                    "contract": contract.title,
                    "party": party.name,
                    "found": match is not None,
                    "side": party.side,
                    "side_read": (side_of(match) or "neither") if match is not None else None,
                }
            )
        for mark in contract.marks:
            roles = roles_of(text[mark.span[0] : mark.span[1]], found)
            binds, benefits = (
                _as_gold(roles.binds, names, everyone),
                _as_gold(roles.benefits, names, everyone),
            )
            gold_binds, gold_benefits = _labelled(mark.binds, everyone), _labelled(mark.benefits, everyone)
            rows.append(
                {
                    "contract": contract.title,
                    "category": mark.category,
                    "span": list(mark.span),
                    "binds": sorted(binds),
                    "gold_binds": sorted(gold_binds),
                    "benefits": sorted(benefits),
                    "gold_benefits": sorted(gold_benefits),
                    "binds_right": binds == gold_binds,
                    "benefits_right": benefits == gold_benefits,
                }
            )
    by_category: dict[str, dict[str, Any]] = {}
    for category in sorted({row["category"] for row in rows}):
        chosen = [row for row in rows if row["category"] == category]
        by_category[category] = {
            "clauses": len(chosen),
            "both_right": share(sum(r["binds_right"] and r["benefits_right"] for r in chosen), len(chosen)),
        }
    read = [p for p in party_rows if p["found"]]
    # what rule "whose clause" would rest on: a clause read as binding one party alone
    alone = [r for r in rows if len(r["binds"]) == 1 and r["binds"] != [EACH]]
    return {
        "benchmark": "parties",
        "half": half,
        "goals": GOALS,
        "contracts": len({row["contract"] for row in party_rows}),
        "clauses": len(rows),
        "binds_right": share(sum(r["binds_right"] for r in rows), len(rows)),
        "benefits_right": share(sum(r["benefits_right"] for r in rows), len(rows)),
        "both_right": share(sum(r["binds_right"] and r["benefits_right"] for r in rows), len(rows)),
        "binds_one_read": len(alone),
        "binds_one_precision": share(sum(r["binds"] == r["gold_binds"] for r in alone), len(alone)),
        "parties_found": share(len(read), len(party_rows)),
        "sides_right_of_found": share(sum(p["side"] == p["side_read"] for p in read), len(read)),
        "sides_told_right": share(
            sum(p["side"] == p["side_read"] for p in read if p["side_read"] != "neither"),
            sum(p["side_read"] != "neither" for p in read),
        ),
        "by_category": by_category,
        "rows": rows,
        "parties": party_rows,
    }
