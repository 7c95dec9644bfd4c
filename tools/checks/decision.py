"""The label decision of a hypothesis check: the model's judgement, overruled only by evidence.

Pure functions, so every rule is testable without a model:
- when no retrieved passage reaches the reranker's ``not_mentioned_below`` probability, the
  contract is taken not to address the hypothesis and the model is not asked;
- a label other than NotMentioned needs at least one cited passage that exists among the
  evidence; a judgement citing nothing verifiable becomes NotMentioned;
- the confidence is the model's, capped by the retrieval signal when it is weak.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Label = Literal["Entailment", "Contradiction", "NotMentioned"]
LABELS: tuple[Label, ...] = ("Entailment", "Contradiction", "NotMentioned")


class Judgement(BaseModel):
    """What the judge model answers (structured output)."""

    label: Label
    confidence: float = Field(default=0.5, ge=0, le=1)
    evidence: list[int] = Field(default_factory=list, description="Numbers of the deciding passages.")
    rationale: str = ""


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
