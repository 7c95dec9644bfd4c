"""The clause-to-categories objective's loss: a multi-label head on the encoder's sentence vectors.

Imported only by the training run (it imports torch at the top); the head is thrown away after
training: what ships is the encoder, whose vectors the product's own presence head then reads.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch
from torch import Tensor, nn

#: The sentence vectors are unit length; scaled so that a fresh head's logits can reach the
#: ranges a category needs without the head's weights growing first.
VECTOR_SCALE = 10.0


class ClauseCategoryLoss(nn.Module):
    """Binary cross-entropy of a linear head over the (scaled) sentence vector, one output per
    category, summed over the categories and averaged over the clauses (a mean over 41 mostly
    absent categories would leave the encoder a gradient a hundred times smaller than the
    contrastive loss's). The head's bias starts at each category's log-odds among the rows, so the
    first steps move the encoder rather than learn the base rates."""

    def __init__(self, model: nn.Module, dimension: int, prevalence: Iterable[float]) -> None:
        super().__init__()
        self.model = model
        rates = torch.tensor(list(prevalence), dtype=torch.float32).clamp(1e-4, 1 - 1e-4)
        self.classifier = nn.Linear(dimension, len(rates))
        with torch.no_grad():
            self.classifier.bias.copy_(torch.log(rates / (1 - rates)))
        self.loss = nn.BCEWithLogitsLoss(reduction="none")

    def forward(self, sentence_features: Iterable[dict[str, Tensor]], labels: Tensor) -> Tensor:
        (features,) = list(sentence_features)
        vectors = self.model(features)["sentence_embedding"]
        logits = self.classifier(VECTOR_SCALE * vectors)
        return self.loss(logits, labels.to(logits.dtype)).sum(dim=1).mean()
