"""Provision presence by the shipped classifier head: clause selection, the head's file format and
integrity, the reviewer's use of it (and its fallback to the reranker), and its training steps."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.reviewer import ProvisionReviewer, clause_scores
from clausewise.core.domain import Chunk
from clausewise.core.errors import ModelIntegrityError, ModelUnavailable
from tests.conftest import ingested_sample
from tests.fakes import ConstantReranker
from tools.retrieval.contract_retriever import ContractRetriever
from tools.review.presence import (
    ClauseScores,
    PresenceClassifier,
    PresenceHead,
    Wording,
    clause_chunks,
    read_head,
    shipped_presence_dir,
    word_grams,
)
from tools.review.provisions import Provision, load_provisions


def _chunk(node: str, kind: str, start: int) -> Chunk:
    return Chunk(
        id=f"{node}#{kind}",
        contract_id="c",
        node_id=node,
        kind=kind,  # type: ignore[arg-type]
        text=f"{kind} of {node}",
        span=(start, start + 10),
        pages=[1],
        file_name="c.txt",
    )


def _head(categories: tuple[str, ...], thresholds: list[float], model: str = "m") -> PresenceHead:
    dimension = 4
    weights = np.eye(len(categories), dimension, dtype=np.float32) * 10
    return PresenceHead(
        categories, weights, np.full(len(categories), -5.0, np.float32), np.array(thresholds), model
    )


def test_each_clause_is_read_once_with_its_headings_when_it_has_them() -> None:
    chunks = [
        _chunk("2", "node", 20),
        _chunk("2", "descendant", 20),
        _chunk("1", "node", 0),
        _chunk("1", "ancestor", 0),
        _chunk("p", "passage", 40),
    ]
    chosen = clause_chunks(chunks)
    assert [(c.node_id, c.kind) for c in chosen] == [("1", "ancestor"), ("2", "node"), ("p", "passage")]


def test_the_head_scores_vectors_and_round_trips_through_its_files(tmp_path: Path) -> None:
    head = _head(("Governing Law", "Parties"), [0.5, 0.2])
    vectors = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], dtype=np.float32)
    probabilities = head.probabilities(vectors)
    assert probabilities.shape == (3, 2)
    assert probabilities[0, 0] > 0.99 and probabilities[0, 1] < 0.01 and probabilities[2].max() < 0.01
    assert head.category_index("governing law") == 0 and head.category_index("Audit Rights") is None
    head.save(tmp_path, {"note": "test"})
    loaded = read_head(tmp_path)
    assert loaded.categories == head.categories and loaded.embedding_model == "m"
    assert np.allclose(loaded.probabilities(vectors), probabilities)
    assert json.loads((tmp_path / "config.json").read_text())["note"] == "test"


def test_word_features_are_normalised_tf_idf_of_known_words_and_pairs() -> None:
    assert word_grams("Most Favored-Nation terms") == {
        "most",
        "favored-nation",
        "terms",
        "most favored-nation",
        "favored-nation terms",
    }
    wording = Wording(("escrow", "source code", "zebra"), np.array([2.0, 1.0, 3.0], np.float32), weight=0.5)
    matrix = wording.features(["The source code shall be placed in escrow.", "Nothing here.", ""]).toarray()
    assert matrix.shape == (3, 3)
    assert matrix[0, 2] == 0 and matrix[0, 0] == pytest.approx(2 * matrix[0, 1])
    assert np.linalg.norm(matrix[0]) == pytest.approx(0.5)
    assert not matrix[1:].any()


def test_a_head_that_reads_words_round_trips_and_needs_the_texts(tmp_path: Path) -> None:
    wording = Wording(("escrow", "source code"), np.array([1.0, 1.0], np.float32))
    weights = np.zeros((1, 4 + 2), np.float32)
    weights[0, 4] = 12.0  # "escrow" alone decides
    head = PresenceHead(("Source Code Escrow",), weights, np.array([-6.0]), np.array([0.5]), "m", wording)
    vectors = np.zeros((2, 4), np.float32)
    texts = ["Deposit in escrow.", "Payment terms."]
    probabilities = head.probabilities(vectors, texts)
    assert probabilities[0, 0] > 0.9 > 0.1 > probabilities[1, 0]
    head.save(tmp_path)
    loaded = read_head(tmp_path)
    assert loaded.wording is not None and loaded.wording.vocabulary == wording.vocabulary
    assert np.allclose(loaded.probabilities(vectors, texts), probabilities)
    with pytest.raises(ValueError, match="text"):
        loaded.probabilities(vectors)


def test_a_tampered_or_missing_head_gets_a_typed_error(tmp_path: Path) -> None:
    _head(("Governing Law",), [0.5]).save(tmp_path)
    with (tmp_path / "head.npz").open("ab") as handle:
        handle.write(b"x")
    with pytest.raises(ModelIntegrityError, match="checksum"):
        read_head(tmp_path)
    with pytest.raises(ModelUnavailable, match="train provisions"):
        _ = PresenceClassifier(tmp_path / "nowhere").head


def test_clause_scores_keep_the_most_probable_clauses_above_the_threshold() -> None:
    chunks = [_chunk(str(n), "node", 10 * n) for n in range(4)]
    scores = ClauseScores(chunks, np.array([[0.1], [0.8], [0.6], [0.9]], dtype=np.float32))
    assert scores.best(0) == pytest.approx(0.9)
    assert [(c.node_id, round(p, 1)) for c, p in scores.above(0, 0.5, 2)] == [("3", 0.9), ("1", 0.8)]
    assert ClauseScores([], np.zeros((0, 1))).best(0) == 0.0


@pytest.fixture(scope="module")
def nda(tmp_path_factory: pytest.TempPathFactory, embedder):
    overrides = {"review": {"extract_answers": False}}
    with ingested_sample(tmp_path_factory.mktemp("presence"), embedder, overrides) as ingested:
        yield ingested


def _provision(key: str) -> Provision:
    return next(p for p in load_provisions("cuad").provisions if p.key == key)


def test_the_classifier_decides_its_categories_and_the_reranker_the_rest(nda, embedder) -> None:
    settings, index = nda
    chunks = clause_chunks(index.chunks.values())
    law_row = next(
        i for i, c in enumerate(chunks) if "governed by" in index.document.text[c.span[0] : c.span[1]]
    )
    probabilities = np.full((len(chunks), 1), 0.01, dtype=np.float32)
    probabilities[law_row, 0] = 0.7
    head = _head(("Governing Law",), [0.4], model=index.manifest.embedding_model)
    presence = (head, ClauseScores(chunks, probabilities))
    # the reranker would call everything absent: what is found here, the classifier found
    retriever = ContractRetriever(index, embedder, settings.retrieval, ConstantReranker(0.0))
    reviewer = ProvisionReviewer(settings, index, retriever, None, presence)
    law = reviewer.review(_provision("governing-law"))
    assert law.present and law.decided_by == "classifier" and law.confidence == pytest.approx(0.7)
    assert [s.node_id for s in law.spans] == [chunks[law_row].node_id]
    assert "governed by" in law.spans[0].quote
    escrow = reviewer.review(_provision("source-code-escrow"))  # not one of the head's categories
    assert escrow.decided_by == "reranker" and not escrow.present
    stricter = ProvisionReviewer(
        settings,
        index,
        retriever,
        None,
        (_head(("Governing Law",), [0.8], index.manifest.embedding_model), presence[1]),
    )
    assert not stricter.review(_provision("governing-law")).present


def test_an_index_embedded_by_another_model_is_not_scored_by_the_head(nda) -> None:
    _settings, index = nda
    assert clause_scores(_head(("Governing Law",), [0.5], model="another-embedder"), index) is None


def test_the_shipped_head_matches_the_builtin_list_and_the_default_embedder(embedder) -> None:
    head = read_head(shipped_presence_dir())
    assert set(head.categories) == {p.name for p in load_provisions("cuad").provisions}
    assert head.embedding_model == embedder.model_id
    assert head.wording is not None and len(head.wording.vocabulary) > 10_000
    assert head.weights.shape == (41, embedder.dimension + len(head.wording.vocabulary))
    assert ((head.thresholds > 0) & (head.thresholds < 1)).all()


def test_the_shipped_head_finds_the_sample_ndas_governing_law_and_parties(nda, embedder) -> None:
    settings, index = nda
    head = read_head(shipped_presence_dir())
    scores = clause_scores(head, index)
    assert scores is not None and len(scores.chunks) == len(clause_chunks(index.chunks.values()))
    retriever = ContractRetriever(index, embedder, settings.retrieval, ConstantReranker(0.0))
    reviewer = ProvisionReviewer(settings, index, retriever, None, (head, scores))
    law = reviewer.review(_provision("governing-law"))
    assert law.present and any("governed by" in s.quote for s in law.spans)
    parties = reviewer.review(_provision("parties"))
    assert parties.present and any("Northwind" in s.quote or "Brightwater" in s.quote for s in parties.spans)


# -- training steps ------------------------------------------------------------------------------


def test_clause_labels_mark_the_clauses_an_answer_overlaps() -> None:
    from clausewise_lab.evals.cuad_bench import CuadContract
    from clausewise_lab.train.provisions import clause_labels

    clauses = [_chunk("1", "node", 0), _chunk("2", "node", 10), _chunk("3", "node", 20)]
    contract = CuadContract("t", "x" * 40, {"Parties": [("..", (8, 12))], "Audit Rights": []})
    labels = clause_labels(clauses, contract, ["Audit Rights", "Parties"])
    assert labels.tolist() == [[0, 1], [0, 1], [0, 0]]


def test_thresholds_are_calibrated_per_category_on_document_presence() -> None:
    from clausewise_lab.train.provisions import calibrate_thresholds

    gold = np.array([[True, True], [True, False], [False, False], [False, True]])
    best = np.array([[0.30, 0.9], [0.25, 0.8], [0.10, 0.1], [0.05, 0.95]])
    thresholds = calibrate_thresholds(gold, best)
    assert 0.10 < thresholds[0] <= 0.25  # separates 0.25/0.30 from 0.10/0.05
    assert 0.8 < thresholds[1] <= 0.9  # 0.95 and 0.9 are gold-present, 0.8 is not


def test_per_category_thresholds_are_kept_only_when_they_generalise() -> None:
    from clausewise_lab.train.provisions import choose_thresholds

    gold = np.array([[1, 1], [1, 0], [0, 0], [0, 1], [1, 1], [1, 0], [0, 0], [0, 1]], dtype=bool)
    separable = np.where(gold, 0.3, 0.1)  # every category splits at ~0.2, and 0.5 finds nothing
    thresholds, estimates = choose_thresholds(gold, separable, folds=2)
    assert estimates == {"per_category": 1.0, "all_at_0.5": 0.0}
    assert ((thresholds > 0.1) & (thresholds <= 0.3)).all()
    calibrated = np.where(gold, 0.8, 0.2)  # 0.5 is as good as anything: keep it
    thresholds, estimates = choose_thresholds(gold, calibrated, folds=2)
    assert estimates["all_at_0.5"] == 1.0 and (thresholds == 0.5).all()


def test_the_band_frontier_shows_what_a_classifier_can_and_cannot_commit_to() -> None:
    from clausewise_lab.train.provisions import band_frontier

    gold = np.tile(np.array([[True, False], [False, True]]), (20, 1))
    rng = np.random.default_rng(3)
    separable = np.where(gold, 0.9, 0.1) + rng.uniform(-0.05, 0.05, gold.shape)
    for point in band_frontier(gold, separable, folds=4):
        assert point["right_of_committed"] == 1.0 and point["unclear"] == 0.0
    noise = rng.uniform(0, 1, gold.shape)
    frontier = band_frontier(gold, noise, folds=4, rates=(0.01, 0.3))
    assert all(point["right_of_committed"] < 0.75 for point in frontier)  # a coin is no decider
    assert frontier[0]["unclear"] > frontier[1]["unclear"]  # a stricter rate leaves more unclear


def test_the_vocabulary_keeps_grams_of_enough_clauses() -> None:
    from clausewise_lab.train.provisions import EmbeddedContract, ProvisionTrainConfig, fit_wording

    texts = ["escrow agent", "escrow deposit", "royalty", "escrow"]
    contract = EmbeddedContract("t", False, np.zeros((4, 2)), np.zeros((4, 1)), np.array([True]), texts)
    wording = fit_wording([contract], ProvisionTrainConfig(data=Path(), min_df=2, ngram_weight=0.7))
    assert wording.vocabulary == ("escrow",) and wording.weight == 0.7
    assert wording.idf[0] == pytest.approx(np.log(5 / 4) + 1)


def test_the_head_is_fitted_on_clause_labels() -> None:
    pytest.importorskip("sklearn")
    from clausewise_lab.train.provisions import EmbeddedContract, ProvisionTrainConfig, fit_head

    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(200, 4)).astype(np.float32)
    labels = np.column_stack([(vectors[:, 0] > 1).astype(np.uint8), np.zeros(200, np.uint8)])
    contract = EmbeddedContract("t", False, vectors, labels, np.array([True, False]))
    weights, bias = fit_head([contract], ["A", "B"], ProvisionTrainConfig(data=Path()))
    head = PresenceHead(("A", "B"), weights, bias, np.array([0.5, 0.5]), "m")
    probabilities = head.probabilities(np.array([[3, 0, 0, 0], [-3, 0, 0, 0]], dtype=np.float32))
    assert probabilities[0, 0] > 0.9 > 0.1 > probabilities[1, 0]
    assert probabilities[:, 1].max() < 1e-6  # a category never marked is never present
