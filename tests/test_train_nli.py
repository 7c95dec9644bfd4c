"""The NLI classifier's training pairs and its shipped files."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from clausewise.core.results import LABELS
from clausewise_lab.evals.data import ContractNliDocument
from clausewise_lab.train.nli_data import NliPairConfig, document_pairs, piece_label
from tools.checks.nli import NliClassifier, shipped_nli_dir


def test_a_piece_takes_the_label_only_when_it_covers_the_evidence() -> None:
    evidence = [(100, 200)]
    assert piece_label((90, 210), evidence, "Contradiction", 0.5) == "Contradiction"  # covers it
    assert piece_label((150, 180), evidence, "Entailment", 0.5) == "Entailment"  # inside it
    assert piece_label((180, 400), evidence, "Entailment", 0.5) is None  # touches 20 of 100: unclear
    assert piece_label((200, 300), evidence, "Entailment", 0.5) == "NotMentioned"  # half-open: no overlap
    assert (
        piece_label((90, 210), evidence, "NotMentioned", 0.5) is None
    )  # a NotMentioned label has no evidence


def test_a_document_gives_positives_from_its_evidence_and_hard_negatives() -> None:
    text = (
        "1. Confidentiality\nThe Recipient shall keep the Confidential Information secret.\n"
        "2. Return\nOn termination the Recipient shall return all Confidential Information.\n"
        "3. Copies\nThe Recipient may retain one archival copy of Confidential Information.\n"
        "4. Law\nThis Agreement is governed by the laws of Delaware.\n"
    )
    retain = text.index("The Recipient may retain")
    document = ContractNliDocument(
        id="7",
        file_name="doc.txt",
        text=text,
        spans=[(retain, text.index("\n", retain))],
        annotations={"nda-4": ("Contradiction", [0]), "nda-9": ("NotMentioned", [])},
    )
    hypotheses = {
        "nda-4": "The Recipient shall return all Confidential Information.",
        "nda-9": "The Recipient may share Confidential Information with employees.",
    }
    config = NliPairConfig(hard_negatives=2, random_negatives=1)
    pairs = document_pairs(document, hypotheses, config, random.Random(1))
    contradiction = [p for p in pairs if p.group == "7:nda-4" and p.label == LABELS.index("Contradiction")]
    assert [p.piece for p in contradiction] == [
        "3. Copies\nThe Recipient may retain one archival copy of Confidential Information."
    ]
    negatives = [p for p in pairs if p.group == "7:nda-4" and p.label == LABELS.index("NotMentioned")]
    assert len(negatives) == 3 and all("retain" not in p.piece for p in negatives)
    assert "shall return all" in negatives[0].piece  # BM25's best non-evidence piece comes first
    others = [p for p in pairs if p.group == "7:nda-9"]
    assert others and all(p.label == LABELS.index("NotMentioned") for p in others)


def test_the_shipped_classifier_matches_its_checksum_and_label_order() -> None:
    folder = shipped_nli_dir()
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    assert config["labels"] == list(LABELS)
    assert (folder / "model.onnx").stat().st_size <= 30_000_000
    assert (folder / "MODEL_CARD.md").exists()
    probabilities = NliClassifier(folder, threads=1).probabilities(
        "The Receiving Party shall return or destroy Confidential Information.",
        [
            "Upon termination, the Receiving Party shall return or destroy all Confidential Information.",
            "This Agreement is governed by the laws of the State of New York.",
        ],
    )
    assert probabilities.shape == (2, 3)
    assert probabilities.sum(axis=1) == pytest.approx([1.0, 1.0], abs=1e-5)
    assert probabilities[0, 0] > 3 * probabilities[1, 0]  # the return clause, not the law clause, entails
    assert probabilities[1, 2] > 0.9  # the law clause says nothing about returning information


def test_a_missing_classifier_says_how_to_get_it(tmp_path: Path) -> None:
    from clausewise.core.errors import ModelUnavailable

    with pytest.raises(ModelUnavailable, match="NLI classifier") as caught:
        NliClassifier(tmp_path).probabilities("h", ["a piece"])
    assert "train nli" in (caught.value.hint or "")
