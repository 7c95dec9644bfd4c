"""The label decision of a hypothesis check: the model's judgement, overruled only by evidence.

Pure functions, so every rule is testable without a model.

With the LLM judge (``checks.judge = "llm"``):
- when no retrieved passage reaches the reranker's ``not_mentioned_below`` probability, the
  contract is taken not to address the hypothesis and the model is not asked;
- a label other than NotMentioned needs at least one cited passage that exists among the
  evidence; a judgement citing nothing verifiable becomes NotMentioned;
- the confidence is the model's, capped by the retrieval signal when it is weak.

With the NLI classifier (``checks.judge = "nli"``, the default), every evidence piece has
P(Entailment), P(Contradiction), P(NotMentioned), and :func:`nli_decision` decides. When one
sentence entails the hypothesis and another contradicts it, which wins depends on what the
hypothesis claims (:func:`precedence_for`, ``checks.nli_precedence = "wording"``):
- a hypothesis that something may or does happen in some case ("the Receiving Party may share
  some Confidential Information with its advisers") is entailed by one sentence that grants it,
  even where a general rule elsewhere seems to deny it: the grant is the exception that
  qualifies the rule. Entailment is checked first;
- a hypothesis that states an absolute rule ("all", "only", "any", "no", "never", "limited to" ...) is taken
  back by one exception ("... provided that the Receiving Party may retain one copy").
  Contradiction is checked first.
Then: the first label whose strongest sentence reaches its threshold (``entailment_at``,
``contradiction_at``), else NotMentioned. ``checks.nli_precedence`` may also fix the order for
every hypothesis. Thresholds and precedence are calibrated on the development data
(``clausewise eval contractnli --calibrate``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from clausewise.core.results import Label

Verdict = Literal["supported", "not addressed", "contradicted"]
VERDICT_LABELS: dict[str, Label] = {
    "supported": "Entailment",
    "not addressed": "NotMentioned",
    "contradicted": "Contradiction",
}


class Judgement(BaseModel):
    """What the judge model answers (structured output).

    The model answers in plain words (``verdict``), mapped to ContractNLI's labels: with the
    labels' own names the 1.5B model answered "Contradiction" for every one of 51 held-out
    hypotheses, with rationales saying the passage did not contradict them. The rationale
    comes first so that the verdict follows the reasoning (constrained decoding writes fields
    in schema order)."""

    rationale: str = ""
    verdict: Verdict
    confidence: float = Field(default=0.5, ge=0, le=1)
    evidence: list[int] = Field(default_factory=list, description="Numbers of the deciding passages.")

    @property
    def label(self) -> Label:
        return VERDICT_LABELS[self.verdict]


class Decision(BaseModel):
    label: Label
    confidence: float
    evidence: list[int] = Field(default_factory=list, description="1-based passage numbers kept.")
    rationale: str
    overruled: str = Field(default="", description="Why the model's label was changed, if it was.")


def nothing_relevant(best_relevance: float | None, not_mentioned_below: float) -> bool:
    """Whether retrieval alone says the contract does not address the hypothesis (``None`` = no
    reranker signal, which never decides)."""
    return best_relevance is not None and best_relevance < not_mentioned_below


def without_model(best_relevance: float) -> Decision:
    return Decision(
        label="NotMentioned",
        confidence=round(1.0 - best_relevance, 3),
        rationale="No passage of the contract is relevant enough to decide the hypothesis.",
    )


def decide(judgement: Judgement, passages: int, best_relevance: float | None) -> Decision:
    """The final label from the model's judgement over ``passages`` numbered passages."""
    cited = sorted({n for n in judgement.evidence if 1 <= n <= passages})
    if judgement.label == "NotMentioned":
        return Decision(
            label="NotMentioned", confidence=judgement.confidence, evidence=[], rationale=judgement.rationale
        )
    if not cited:
        return Decision(
            label="NotMentioned",
            confidence=round(1.0 - judgement.confidence / 2, 3),
            rationale=judgement.rationale,
            overruled=f"the model said {judgement.label} but cited no passage that exists",
        )
    confidence = judgement.confidence
    if best_relevance is not None:
        confidence = min(confidence, 0.5 + best_relevance / 2)
    return Decision(
        label=judgement.label, confidence=round(confidence, 3), evidence=cited, rationale=judgement.rationale
    )


Precedence = Literal["entailment", "contradiction"]
PrecedenceSetting = Literal["wording", "entailment", "contradiction"]
_ABSOLUTE = re.compile(
    r"\b(all|only|any|every|no|none|neither|never|solely|exclusively|limited\s+to)\b", re.IGNORECASE
)


def precedence_for(hypothesis: str, setting: PrecedenceSetting = "wording") -> Precedence:
    """Which label wins a tie of confident sentences: Contradiction for a hypothesis worded as an
    absolute rule (an exception takes it back), Entailment for one worded as a grant or a
    possibility (one grant establishes it); ``setting`` other than "wording" fixes it."""
    if setting != "wording":
        return setting
    return "contradiction" if _ABSOLUTE.search(hypothesis) else "entailment"


def nli_label(
    best_entailment: float,
    best_contradiction: float,
    contradiction_at: float,
    entailment_at: float,
    precedence: Precedence = "entailment",
) -> Label:
    """The label from the strongest sentence per label: the whole rule of :func:`nli_decision`,
    which is also how ``eval contractnli --calibrate`` relabels rows for other thresholds."""
    entailed = best_entailment >= entailment_at
    contradicted = best_contradiction >= contradiction_at
    if entailed and (precedence == "entailment" or not contradicted):
        return "Entailment"
    if contradicted:
        return "Contradiction"
    return "NotMentioned"


def nli_decision(
    probabilities: Sequence[Sequence[float]],
    names: Sequence[str],
    contradiction_at: float,
    entailment_at: float,
    max_evidence: int = 3,
    precedence: Precedence = "entailment",
) -> Decision:
    """The label from per-piece probabilities (rows in :data:`LABELS` order, decided by
    :func:`nli_label`); ``names`` says where each piece is (e.g. "4.2, p. 3") for the rationale.
    Evidence: 1-based piece numbers of the strongest pieces for the label, at most
    ``max_evidence``."""
    entailment = [row[0] for row in probabilities]
    contradiction = [row[1] for row in probabilities]
    label = (
        nli_label(max(entailment), max(contradiction), contradiction_at, entailment_at, precedence)
        if probabilities
        else "NotMentioned"
    )
    if label == "NotMentioned":
        strongest = max([*entailment, *contradiction], default=0.0)
        return Decision(
            label="NotMentioned",
            confidence=round(1.0 - float(strongest), 3),
            rationale="No passage of the contract supports or contradicts the hypothesis "
            f"(strongest probability {strongest:.2f}).",
        )
    scores, threshold, verb = (
        (contradiction, contradiction_at, "contradicts")
        if label == "Contradiction"
        else (entailment, entailment_at, "supports")
    )
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
    kept = [i for i in ranked if scores[i] >= threshold][:max_evidence]
    best = kept[0]
    others = f" (also {', '.join(names[i] for i in kept[1:])})" if len(kept) > 1 else ""
    return Decision(
        label=label,
        confidence=round(float(scores[best]), 3),
        evidence=[i + 1 for i in kept],
        rationale=f"{names[best]} {verb} the hypothesis (probability {scores[best]:.2f}){others}.",
    )
