"""``clausewise eval support``: how far the NLI classifier's entailment can be trusted as support.

The support check (``tools/decision/support.py``) counts a sentence of a report as supported when
a sentence of its cited source entails it with P(Entailment) at or above ``decision.support_at``.
The classifier was trained on NDA hypotheses; the claims it judges here are about any provision.
So the threshold is chosen on CUAD, whose experts marked where each provision is:

- a supported pair: a provision's description (``clausewise/core/suites/cuad.yaml``: "A party may
  not compete with the other party ...") and a sentence inside a clause the annotators marked for
  that provision;
- an unsupported pair: the same description and a sentence of the same contract outside every
  clause marked for it.

Per threshold: the precision of "supported" over as many pairs of each kind (the share of
sentences the check would accept that do support the claim) and the recall. Contracts of one
half only (``--half tune`` to choose, ``check`` to confirm).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clausewise_lab.evals.cuad_bench import cuad_contracts
from clausewise_lab.evals.folds import is_heldout
from tools.review.provisions import load_provisions
from tools.structure.sentences import sentence_spans

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

THRESHOLDS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
#: Categories whose "clause" is a name or a date, not a provision a claim could state.
SKIPPED = frozenset({"Document Name", "Parties", "Agreement Date", "Effective Date"})


def pairs(
    root: Path, half: str, contracts: int, seed: int
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(supported, unsupported) pairs: one of each per annotated category of each contract sampled."""
    rng = random.Random(seed)
    described = {p.name: p.description for p in load_provisions("cuad").provisions}
    chosen = [c for c in cuad_contracts(root) if is_heldout(c.title) == (half == "check")]
    supported, unsupported = [], []
    for contract in rng.sample(chosen, min(contracts, len(chosen))):
        sentences = sentence_spans(contract.text)
        for category, answers in sorted(contract.answers.items()):
            if not answers or category in SKIPPED or category not in described:
                continue
            _, (start, end) = rng.choice(answers)
            inside = [s for s in sentences if s[0] < end and start < s[1]]
            outside = [s for s in sentences if not any(s[0] < b and a < s[1] for _, (a, b) in answers)]
            if inside and outside:
                supported.append((described[category], contract.text[slice(*rng.choice(inside))]))
                unsupported.append((described[category], contract.text[slice(*rng.choice(outside))]))
    return supported, unsupported


def run(
    runtime: Runtime, root: Path, *, half: str = "tune", contracts: int = 60, seed: int = 3
) -> dict[str, Any]:
    supported, unsupported = pairs(root, half, contracts, seed)
    scorer = runtime.nli()

    def entailment(pairs_: list[tuple[str, str]]) -> np.ndarray:
        return np.array([float(scorer.probabilities(claim, [sentence])[0][0]) for claim, sentence in pairs_])

    positive, negative = entailment(supported), entailment(unsupported)
    rows = []
    for threshold in THRESHOLDS:
        accepted, wrongly = int((positive >= threshold).sum()), int((negative >= threshold).sum())
        rows.append(
            {
                "threshold": threshold,
                "precision": round(accepted / (accepted + wrongly), 4) if accepted + wrongly else None,
                "recall": round(accepted / len(positive), 4) if len(positive) else None,
                "supported_accepted": accepted,
                "unsupported_accepted": wrongly,
            }
        )
    return {
        "benchmark": "support",
        "half": half,
        "contracts": contracts,
        "pairs": {"supported": len(supported), "unsupported": len(unsupported)},
        "support_at": runtime.settings.decision.support_at,
        "thresholds": rows,
    }
