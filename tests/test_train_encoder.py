"""Contract-encoder training: the triplets on a tiny synthetic data folder (the layout of
../shared/data, built in a tmp dir), the calibration quarter, and the command."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from pathlib import Path

import pytest

from clausewise_lab.evals import folds
from clausewise_lab.evals.cuad_bench import cuad_contracts
from clausewise_lab.train import encoder_data as ed
from clausewise_lab.train.reranker_data import cuad_descriptions
from tests.test_train_reranker import train_help, write_bench


def names_by_role(prefix: str) -> list[str]:
    """One held-out, one calibration and two training names (the rules are hashes: search)."""
    names = [f"{prefix}-{i}" for i in range(400)]
    heldout = [n for n in names if folds.is_heldout(n)][:1]
    calibration = [n for n in names if folds.is_calibration(n)][:1]
    training = [n for n in names if ed.trains_on(n)][:2]
    return heldout + calibration + training


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_bench(tmp_path_factory.mktemp("bench"), names_by_role)


@pytest.fixture(scope="module")
def triplets(data_root: Path) -> list[ed.Triplet]:
    return ed.build_training_rows(data_root, seed=7).triplets


def test_the_calibration_quarter_is_stable_and_apart_from_the_heldout_fold() -> None:
    names = [f"contract {i}" for i in range(4000)]
    calibration = [n for n in names if folds.is_calibration(n)]
    assert not any(folds.is_heldout(n) for n in calibration)
    share = len(calibration) / sum(not folds.is_heldout(n) for n in names)
    assert 0.22 < share < 0.28
    assert [folds.is_calibration(n) for n in names[:50]] == [folds.is_calibration(n) for n in names[:50]]
    assert folds.is_calibration("Some Contract.PDF") == folds.is_calibration("some contract")


def _markers(names: list[str]) -> list[str]:
    return [n.replace("-", "") for n in names]


def test_no_heldout_or_calibration_document_reaches_a_triplet(triplets: list[ed.Triplet]) -> None:
    assert triplets
    kept_out = [
        n
        for prefix in ("cuad-contract", "lb-contract", "nda")
        for n in names_by_role(prefix)
        if not ed.trains_on(n)
    ]
    assert len(kept_out) == 6
    for triplet in triplets:
        assert triplet.source == "acord" or ed.trains_on(triplet.document)
        for marker in _markers(kept_out):
            for text in (triplet.positive, triplet.negative):
                assert not re.search(rf"\b{marker}", text, flags=re.IGNORECASE), (marker, text)


def test_clause_triplets_set_the_provision_apart_from_its_neighbours(data_root: Path) -> None:
    """On each of two training contracts: the insurance query's positive is the insurance clause
    and its negative another clause of the same contract, never overlapping the answer."""
    descriptions = cuad_descriptions(data_root)
    contracts = [c for c in cuad_contracts(data_root) if ed.trains_on(c.title)]
    assert len(contracts) == 2
    categories = ["Governing Law", "Insurance"]
    for contract in contracts:
        table = ed.ClauseTable.of(contract, categories)
        made = ed.clause_triplets(table, categories, descriptions, ed.TripletConfig(), random.Random(3))
        insurance = [t for t in made if t.anchor.startswith("Insurance:")]
        assert len(insurance) == 1
        assert "shall maintain" in insurance[0].positive
        assert "shall maintain" not in insurance[0].negative
        assert (
            insurance[0].negative in contract.text or insurance[0].negative.split("\n")[-1] in contract.text
        )
        law = [t for t in made if t.anchor.startswith("Governing Law:")]
        assert law and "governed by the laws" in law[0].positive
        assert "governed by the laws" not in law[0].negative
        assert {t.document for t in made} == {contract.title}


def test_query_triplets_pair_a_question_with_its_gold_passage(triplets: list[ed.Triplet]) -> None:
    legal = [t for t in triplets if t.source == "legalbenchrag"]
    assert len(legal) == 2
    for triplet in legal:
        assert "terminate" in triplet.positive and "terminate" not in triplet.negative
    acord = [t for t in triplets if t.source == "acord"]
    assert [t.positive for t in acord] == [
        "This Agreement shall be governed by the laws of the State of Delaware."
    ]
    nli = [t for t in triplets if t.source == "contractnli"]
    assert nli and all("confidential information secret" in t.positive for t in nli)


def test_triplets_are_seeded_and_counted(data_root: Path, triplets: list[ed.Triplet]) -> None:
    again = ed.build_training_rows(data_root, seed=7).triplets
    assert again == triplets
    counts = ed.triplet_counts(triplets)
    assert sum(row["triplets"] for row in counts.values()) == len(triplets)
    assert counts["cuad-clause"]["documents"] == 2
    assert len(ed.build_training_rows(data_root, seed=7, max_triplets=3).triplets) == 3


def test_labelled_clauses_carry_every_category_and_the_confusable_unlabelled_clause(data_root: Path) -> None:
    """On each of two training contracts: the insurance clause is a row labelled Insurance alone,
    the governing-law clause one labelled Governing Law alone, and the clause BM25 ranks first for
    a category's query without being labelled is a row with no category (the one to tell apart)."""
    descriptions = cuad_descriptions(data_root)
    contracts = [c for c in cuad_contracts(data_root) if ed.trains_on(c.title)]
    categories = ["Governing Law", "Insurance"]
    assert len(contracts) == 2
    for contract in contracts:
        table = ed.ClauseTable.of(contract, categories)
        rows = ed.labelled_clauses(table, categories, descriptions, ed.TripletConfig())
        by_labels = {
            labels: [r.text for r in rows if r.labels == labels] for labels in {r.labels for r in rows}
        }
        assert any("shall maintain" in text for text in by_labels[(0, 1)])
        assert any("governed by the laws" in text for text in by_labels[(1, 0)])
        assert by_labels.get((0, 0)), "no unlabelled clause among the rows"
        assert all("shall maintain" not in t and "governed by the laws" not in t for t in by_labels[(0, 0)])
        assert {r.document for r in rows} == {contract.title}
        assert len({r.text for r in rows}) == len(rows)


def test_no_heldout_or_calibration_document_reaches_a_labelled_clause(data_root: Path) -> None:
    rows = ed.build_training_rows(data_root, seed=7)
    assert rows.clauses and rows.categories
    assert all(ed.trains_on(c.document) for c in rows.clauses)
    assert all(len(c.labels) == len(rows.categories) for c in rows.clauses)
    assert rows.triplets == ed.build_training_rows(data_root, seed=7).triplets


def test_the_clause_objective_trains_the_encoder_and_an_unknown_one_is_refused(
    data_root: Path, tmp_path: Path
) -> None:
    """Both objectives together on the tiny bench: the encoder's vectors move; the head starts at
    each category's base rate; an objective the recipe does not know stops before any training."""
    pytest.importorskip("datasets", reason="training needs the lab's train extra")
    import numpy as np
    import torch

    from clausewise_lab.train import encoder
    from clausewise_lab.train.encoder_losses import ClauseCategoryLoss
    from clausewise_lab.train.reranker import base_model_path

    rows = ed.build_training_rows(data_root, seed=7)
    model = encoder.load_encoder(base_model_path(), 64)
    text = rows.clauses[0].text
    before = model.encode([text])
    config = encoder.EncoderTrainConfig(
        data=data_root, work_dir=tmp_path, objectives=("triplets", "clauses"), batch_size=4, max_length=64
    )
    with pytest.raises(ValueError, match="objectives"):
        encoder.fit_encoder(model, rows, replace(config, objectives=("vibes",)), lambda _: None)
    assert np.allclose(model.encode([text]), before)
    encoder.fit_encoder(model, rows, config, lambda _: None)
    assert not np.allclose(model.encode([text]), before, atol=1e-4)
    head = ClauseCategoryLoss(model, 384, [0.5, 0.1])
    assert torch.allclose(head.classifier.bias, torch.tensor([0.0, -2.1972]), atol=1e-3)


def test_cli_registers_a_train_encoder_command() -> None:
    shown = train_help("encoder")
    for option in ("--max-triplets", "--batch-size", "--base", "--reuse-trained", "--seed", "--objective"):
        assert option in shown


def test_the_int8_export_embeds_as_the_float_model_does(tmp_path: Path) -> None:
    """The base model exported and quantized as the pipeline ships it, read by the product's own
    ONNX embedder: the same vectors, and the same choice of passage, as the torch model."""
    pytest.importorskip("onnx", reason="the export needs the lab's train extra")
    pytest.importorskip("sentence_transformers", reason="the export needs the lab's train extra")
    from clausewise_lab.train import encoder
    from clausewise_lab.train.reranker import base_model_path, quantize_int8

    base = base_model_path()
    model = encoder.load_encoder(base, 128)
    fp32 = encoder.export_onnx(model, tmp_path / "fp32.onnx")
    int8 = quantize_int8(fp32, tmp_path / "int8.onnx")
    encoder.write_folder(int8, tmp_path / "folder", base, "probe", 384)
    shipped = encoder.onnx_encoder(tmp_path / "folder", threads=1, max_length=128)
    triplets = [
        ed.Triplet(
            "Cap on Liability: Does the contract cap liability?",
            "In no event shall either party's aggregate liability exceed the fees paid in the prior year.",
            "This Agreement shall be governed by the laws of the State of New York.",
            "cuad-clause",
            "a",
        ),
        ed.Triplet(
            "Governing Law: Which state's law governs the contract?",
            "This Agreement is governed by the laws of England and Wales.",
            "The Supplier shall maintain general liability insurance of two million dollars.",
            "cuad-clause",
            "b",
        ),
    ]
    agreement = encoder.int8_agreement(
        encoder.EmbeddedTriplets.of(encoder.vectors_of(model), triplets),
        encoder.EmbeddedTriplets.of(shipped.embed, triplets),
    )
    assert agreement["mean_cosine"] >= 0.98
    assert agreement["same_choice"] == 1.0
    assert encoder.triplet_accuracy(shipped.embed, triplets)["accuracy"] == 1.0
