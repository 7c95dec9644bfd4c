"""The exemplar library: add, search (never a contract's own labels), persistence, seeding."""

from __future__ import annotations

import json
from pathlib import Path

from clausewise_lab.evals.exemplars import contractnli_exemplars
from tools.retrieval.exemplars import Exemplar, ExemplarLibrary

EXAMPLES = [
    Exemplar(
        text="The Recipient shall return or destroy all Confidential Information within 10 days.",
        label="Entailment",
        question="Receiving Party shall destroy or return Confidential Information.",
        source="nda-a.txt",
    ),
    Exemplar(
        text="Recipient may keep one archival copy for legal purposes.",
        label="Contradiction",
        question="Receiving Party shall destroy or return Confidential Information.",
        source="nda-b.txt",
    ),
    Exemplar(
        text="This Agreement is governed by the laws of Delaware.",
        label="NotMentioned",
        question="Receiving Party may share information with employees.",
        source="nda-c.txt",
    ),
]


def test_add_search_and_reload(tmp_path: Path, embedder) -> None:
    library = ExemplarLibrary(tmp_path / "exemplars", embedder)
    assert library.add(EXAMPLES) == 3
    assert library.add(EXAMPLES[:1]) == 0  # duplicates are ignored
    found = library.search("must the recipient give back or destroy the information?", k=2)
    assert {e.source for e in found} == {"nda-a.txt", "nda-b.txt"} and all(e.score is not None for e in found)
    assert found[0].score >= found[1].score
    excluded = library.search("give back or destroy", k=3, exclude_source="nda-a.txt")
    assert "nda-a.txt" not in {e.source for e in excluded} and len(excluded) == 2
    reopened = ExemplarLibrary(tmp_path / "exemplars", embedder)
    assert len(reopened.examples()) == 3
    assert reopened.search("governing law of the state", k=1)[0].source == "nda-c.txt"


def test_empty_library_returns_nothing(tmp_path: Path, embedder) -> None:
    assert ExemplarLibrary(tmp_path / "none", embedder).search("anything") == []


def test_seeding_from_contractnli(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "contractnli").mkdir(parents=True)
    text = "1. The Recipient shall return all materials. 2. Nothing here about employees."
    (root / "contractnli" / "dev.json").write_text(
        json.dumps(
            {
                "documents": [
                    {
                        "id": 1,
                        "file_name": "tiny.txt",
                        "text": text,
                        "spans": [[0, 44], [45, len(text)]],
                        "annotation_sets": [
                            {
                                "annotations": {
                                    "nda-1": {"choice": "Entailment", "spans": [0]},
                                    "nda-2": {"choice": "NotMentioned", "spans": []},
                                }
                            }
                        ],
                    }
                ],
                "labels": {
                    "nda-1": {"hypothesis": "Return of materials is required."},
                    "nda-2": {"hypothesis": "Employees may receive information."},
                },
            }
        ),
        encoding="utf-8",
    )
    examples = contractnli_exemplars(root)
    assert len(examples) == 1  # NotMentioned pairs have no evidence to show
    assert examples[0].label == "Entailment" and examples[0].text == text[:44]
    assert examples[0].source == "ContractNLI dev: tiny.txt"
