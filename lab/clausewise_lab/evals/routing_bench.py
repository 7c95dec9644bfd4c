"""``clausewise eval routing``: does a question in anyone's words reach the decider trained for it?

The phrasing set (``data/routing-phrasings.yaml``, written apart from the product's
provision list and its example questions) asks about each known provision (CUAD's 41 categories,
ContractNLI's 17 NDA topics) in sixteen wordings across registers (lawyer, client, in-house,
abbreviations, negated and "without X" forms, "is there ...", "can we ...", "must they ...", "what
happens if ..."), some of them inverted ("Can we assign freely?" is "yes" when the contract has
*no* anti-assignment clause), and holds questions about things outside the catalogue and questions
that narrow a provision by a qualifier its decider does not settle ("terminate *without notice*").

Halves: each provision's wordings come in pairs of one register; the first of a pair is in the
**tune** half, the second in the **check** half (likewise every other outside and qualified
question), so both halves hold every register. Rules, thresholds and the router's training read
the tune half only; the check half is read for figures.

Outcomes of a catalogue question: ``right`` (the provision expected), ``wrong`` (another one),
``none`` (routed nowhere); and, for a yes/no question sent to its provision, which way round it
was taken: ``right``, ``wrong`` or ``unsure`` (the decider then says what the contract has and
leaves the yes or no open). An outside question is ``matched`` when routed anywhere; a qualified
one is ``routed away`` when routed nowhere.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

from clausewise_lab.evals.data_files import routing_phrasings

Half = Literal["tune", "check"]
Group = Literal["catalogue", "outside", "qualified"]
GOALS = {"right": 0.97, "wrong": 0.01, "outside_matched": 0.02}
#: Keys of the phrasing set that ask the same question of two deciders: either is right.
SAME_QUESTION = {frozenset({"cuad:No-Solicit of Employees", "nda:nda-18"})}


@dataclass(frozen=True)
class RoutingCase:
    """One question of the phrasing set and where it should go (``expected`` "" = nowhere)."""

    text: str
    group: Group
    expected: str
    register: str
    polarity: str = "present"
    form: str = "yes/no"
    note: str = ""  # an outside question's topic; a qualified one's near provision


@dataclass(frozen=True)
class Routed:
    """Where the product sent a question: a phrasing-set key ("" = nowhere) and its polarity."""

    key: str
    polarity: str = "present"
    confidence: float | None = None
    options: tuple[str, ...] = ()  # phrasing-set keys offered back when routed nowhere


def half_of(index: int) -> Half:
    return "tune" if index % 2 == 0 else "check"


def cases(half: Half | None = None) -> list[RoutingCase]:
    """The phrasing set's questions of one half (None: both)."""
    found: list[RoutingCase] = []
    phrasings = routing_phrasings()
    for key, wordings in phrasings.routes.items():
        for index, (text, register, polarity, form) in enumerate(wordings):
            if half is None or half_of(index) == half:
                found.append(RoutingCase(text, "catalogue", key, register, polarity, form))
    for index, (text, register, topic) in enumerate(phrasings.outside):
        if half is None or half_of(index) == half:
            found.append(RoutingCase(text, "outside", "", register, note=topic))
    for index, (text, near, _reason) in enumerate(phrasings.qualified):
        if half is None or half_of(index) == half:
            found.append(RoutingCase(text, "qualified", "", "qualified", note=near))
    return found


def same_provision(expected: str, routed: str) -> bool:
    return expected == routed or frozenset({expected, routed}) in SAME_QUESTION


def outcome(case: RoutingCase, routed: Routed) -> str:
    """right / wrong / none (the provision) for a catalogue question; matched / none for the
    others."""
    if case.group != "catalogue":
        return "matched" if routed.key else "none"
    if not routed.key:
        return "none"
    return "right" if same_provision(case.expected, routed.key) else "wrong"


def way_round(case: RoutingCase, routed: Routed) -> str:
    """For a yes/no question sent to its provision: taken the right way round, the wrong way, or
    unsure (the decider then shows what the contract has, with no yes or no); "" otherwise."""
    if case.group != "catalogue" or case.form != "yes/no" or outcome(case, routed) != "right":
        return ""
    if routed.polarity == "unsure":
        return "unsure"
    return "right" if routed.polarity == case.polarity else "wrong"


def _shares(outcomes: Iterable[str]) -> dict[str, Any]:
    counted = Counter(outcomes)
    total = sum(counted.values())
    return {
        "n": total,
        **{name: counted[name] for name in ("right", "wrong", "none", "matched")},
        **{
            f"{name}_share": round(counted[name] / total, 4) if total else None
            for name in ("right", "wrong", "none", "matched")
        },
    }


def figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    catalogue = [r for r in rows if r["group"] == "catalogue"]
    outside = [r for r in rows if r["group"] == "outside"]
    qualified = [r for r in rows if r["group"] == "qualified"]

    def grouped(field: str, chosen: Sequence[dict[str, Any]]) -> dict[str, Any]:
        groups: dict[str, list[str]] = defaultdict(list)
        for row in chosen:
            groups[row[field]].append(row["outcome"])
        return {name: _shares(found) for name, found in sorted(groups.items())}

    seconds = sorted(r["seconds"] for r in rows)
    ways = [r for r in catalogue if r["way_round"]]

    def way_shares(chosen: Sequence[dict[str, Any]]) -> dict[str, Any]:
        counted = Counter(r["way_round"] for r in chosen)
        total = sum(counted.values())
        return {
            "n": total,
            **{k: round(counted[k] / total, 4) if total else None for k in ("right", "wrong", "unsure")},
        }

    by_register_way: dict[str, list] = defaultdict(list)
    for row in ways:
        by_register_way[row["register"]].append(row)
    return {
        "ask_back": ask_back(rows),
        "catalogue": _shares(r["outcome"] for r in catalogue),
        "way_round": way_shares(ways),
        "way_round_by_register": {k: way_shares(v) for k, v in sorted(by_register_way.items())},
        "outside": _shares(r["outcome"] for r in outside),
        "qualified_routed_away": _shares(r["outcome"] for r in qualified),
        "by_register": grouped("register", catalogue),
        "outside_by_register": grouped("register", outside),
        "by_form": grouped("form", catalogue),
        "by_polarity": grouped("polarity", catalogue),
        "by_provision": grouped("expected", catalogue),
        "seconds": {
            "mean": round(statistics.fmean(seconds), 4) if seconds else None,
            "p50": seconds[len(seconds) // 2] if seconds else None,
            "p95": seconds[min(len(seconds) - 1, int(len(seconds) * 0.95))] if seconds else None,
        },
    }


def ask_back(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Rule "ask back": of the catalogue questions routed nowhere, the share offered a choice and
    the share whose provision is among the choices; of outside and qualified questions, the share
    offered any."""
    unrouted = [r for r in rows if r["group"] == "catalogue" and r["outcome"] == "none"]
    among = [r for r in unrouted if any(same_provision(r["expected"], key) for key in r["options"])]

    def offered(group: str) -> dict[str, Any]:
        chosen = [r for r in rows if r["group"] == group]
        hits = sum(bool(r["options"]) for r in chosen)
        return {"n": len(chosen), "offered": hits, "share": round(hits / len(chosen), 4) if chosen else None}

    return {
        "unrouted": len(unrouted),
        "unrouted_offered": sum(bool(r["options"]) for r in unrouted),
        "unrouted_provision_offered": len(among),
        "unrouted_provision_offered_share": round(len(among) / len(unrouted), 4) if unrouted else None,
        "outside": offered("outside"),
        "qualified": offered("qualified"),
    }


def run(route: Callable[[str], Routed], halves: Sequence[Half] = ("check",)) -> dict[str, Any]:
    """Route every question of ``halves`` with ``route`` and score where each went."""
    results: dict[str, Any] = {"benchmark": "routing", "goals": GOALS, "halves": {}}
    for half in halves:
        rows = []
        for case in cases(half):
            started = time.perf_counter()
            routed = route(case.text)
            seconds = time.perf_counter() - started
            rows.append(
                {
                    **asdict(case),
                    "routed": routed.key,
                    "routed_polarity": routed.polarity,
                    "confidence": routed.confidence,
                    "options": list(routed.options),
                    "outcome": outcome(case, routed),
                    "way_round": way_round(case, routed),
                    "seconds": round(seconds, 4),
                }
            )
        results["halves"][half] = {"figures": figures(rows), "rows": rows}
    return results


def routed_by(router: Any, text: str) -> Routed:
    """Where the product's router sends ``text``, as a phrasing-set key."""
    route = router.route(text)
    if route is None:
        return Routed("", options=tuple(phrasing_key(o.provision) for o in router.options(text)))
    provision = route.provision
    return Routed(phrasing_key(provision), route.polarity, round(route.confidence, 4))


def phrasing_key(provision: Any) -> str:
    """The phrasing set's key of a known provision: "cuad:" and the CUAD category, "nda:" and the
    ContractNLI hypothesis the NDA suite's topic stands for."""
    if provision.family == "cuad":
        return f"cuad:{provision.name}"
    return f"nda:{_contractnli_keys().get(provision.key.split(':', 1)[-1], provision.key)}"


def _contractnli_keys() -> dict[str, str]:
    from tools.checks.suites import load_suite

    return {h.key: h.contractnli or h.key for h in load_suite("nda").hypotheses}
