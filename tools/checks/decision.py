"""The label decision of a hypothesis check: the model's judgement, overruled only by evidence.

Pure functions, so every rule is testable without a model.

With the LLM judge (``checks.judge = "llm"``):
- when no retrieved passage reaches the reranker's ``not_mentioned_below`` probability, the
  contract is taken not to address the hypothesis and the model is not asked;
- a label other than NotMentioned needs at least one cited passage that exists among the
  evidence; a judgement citing nothing verifiable becomes NotMentioned;
- the confidence is the model's, capped by the retrieval signal when it is weak.

With the NLI classifier (``checks.judge = "nli"``, the default), every evidence piece has
P(Entailment), P(Contradiction), P(NotMentioned), and :func:`nli_decision` decides:
- Contradiction when some piece reaches ``contradiction_at``: one sentence that takes the
  hypothesis back ("... provided that the Receiving Party may retain one copy") outweighs the
  sentences that grant it, as ContractNLI's annotators label exceptions;
- else Entailment when some piece reaches ``entailment_at``;
- else NotMentioned. Both thresholds are calibrated on the development data
  (``clausewise eval contractnli --calibrate``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

Label = Literal["Entailment", "Contradiction", "NotMentioned"]
LABELS: tuple[Label, ...] = ("Entailment", "Contradiction", "NotMentioned")


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


def nli_label(
    best_entailment: float, best_contradiction: float, contradiction_at: float, entailment_at: float
) -> Label:
    """The label from the strongest sentence per label: the whole rule of :func:`nli_decision`,
    which is also how ``eval contractnli --calibrate`` relabels rows for other thresholds."""
    if best_contradiction >= contradiction_at:
        return "Contradiction"
    if best_entailment >= entailment_at:
        return "Entailment"
    return "NotMentioned"


def nli_decision(
    probabilities: Sequence[Sequence[float]],
    names: Sequence[str],
    contradiction_at: float,
    entailment_at: float,
    max_evidence: int = 3,
) -> Decision:
    """The label from per-piece probabilities (rows in :data:`LABELS` order, decided by
    :func:`nli_label`); ``names`` says where each piece is (e.g. "4.2, p. 3") for the rationale.
    Evidence: 1-based piece numbers of the strongest pieces for the label, at most
    ``max_evidence``."""
    entailment = [row[0] for row in probabilities]
    contradiction = [row[1] for row in probabilities]
    label = (
        nli_label(max(entailment), max(contradiction), contradiction_at, entailment_at)
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
