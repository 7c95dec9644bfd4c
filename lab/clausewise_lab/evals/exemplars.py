"""Labelled exemplars from the benchmark data: the ContractNLI development evidence, for
``clausewise exemplars seed`` and for the LLM judge of ``eval contractnli``.

Benchmark data enters the exemplar library only through here, an entry point: product code never
reads benchmark files.
"""

from __future__ import annotations

from pathlib import Path

from clausewise_lab.evals.data import contractnli
from tools.retrieval.exemplars import Exemplar

CONTRACTNLI_EXEMPLAR_SOURCE = "ContractNLI dev: "


def contractnli_exemplars(root: Path) -> list[Exemplar]:
    """Evidence spans of ContractNLI development pairs, labelled (NotMentioned pairs have none)."""
    data = contractnli(root)
    examples = []
    for document in data.documents:
        for key, (label, span_ids) in document.annotations.items():
            if not span_ids:
                continue
            text = " ... ".join(document.text[document.spans[i][0] : document.spans[i][1]] for i in span_ids)
            examples.append(
                Exemplar(
                    text=text[:1500],
                    label=label,
                    question=data.hypotheses[key],
                    source=f"{CONTRACTNLI_EXEMPLAR_SOURCE}{document.file_name}",
                )
            )
    return examples
