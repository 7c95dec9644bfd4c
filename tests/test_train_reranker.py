"""Reranker training: pair builders on a tiny synthetic data folder, and the shipped int8 model.

The pair tests build the layout of ../shared/data with a few short contracts in a tmp dir, so
they run in seconds without the benchmark data; the model tests load the shipped ONNX file with
onnxruntime and tokenizers only (no torch).
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from clausewise_lab.evals import folds
from clausewise_lab.evals.acord_bench import ndcg
from clausewise_lab.train import reranker_data as rd
from clausewise_lab.train.reranker import (
    ASSETS_DIR,
    OnnxReranker,
    length_grouped_batches,
    pairwise_accuracy,
    roc_auc,
    sha256_of,
)
from tests.acord_files import write_acord as write_acord_folder

# --- a synthetic data folder --------------------------------------------------------------------

SECTIONS = [
    ("Definitions", "In this Agreement the term {m} Product means the goods listed in Schedule A."),
    ("Governing Law", "This Agreement is governed by the laws of the State of {state}."),
    (
        "Termination",
        "Either party may terminate this Agreement on thirty days written notice to the other party.",
    ),
    (
        "Confidentiality",
        "The {m} receiving party shall keep all confidential information secret for five years.",
    ),
    ("Payment", "The customer shall pay each {m} invoice within forty five days of receipt."),
    ("Assignment", "Neither party may assign this Agreement without the prior written consent of the other."),
    ("Insurance", "The supplier shall maintain {m} general liability insurance of two million dollars."),
]


STATES = ("New York", "Delaware", "California", "Texas")


def contract_text(marker: str, state: str = "New York") -> str:
    """A small numbered contract; ``marker`` makes each document's text unique and traceable."""
    lines = [f"{marker.upper()} SUPPLY AGREEMENT", ""]
    for number, (title, body) in enumerate(SECTIONS, start=1):
        lines += [f"{number}. {title}. {body.format(m=marker, state=state)}", ""]
    return "\n".join(lines)


def mentions(text: str, marker: str) -> bool:
    """``marker`` as a word ("nda1" is not in "nda11nli")."""
    return re.search(rf"\b{marker}(?!\d)", text, flags=re.IGNORECASE) is not None


def pick_names(prefix: str) -> tuple[list[str], list[str]]:
    """Two held-out and two training document names (the rule is a hash: search a few).

    Two per fold, so that random negatives (drawn from other documents of the same fold) exist.
    """
    names = [f"{prefix}-{i}" for i in range(200)]
    heldout = [n for n in names if folds.is_heldout(n)][:2]
    train = [n for n in names if not folds.is_heldout(n)][:2]
    return heldout, train


def all_names(prefix: str) -> list[str]:
    heldout, train = pick_names(prefix)
    return heldout + train


def _write_json(path: Path, payload: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload), encoding="utf-8")


def _span(text: str, needle: str) -> list[int]:
    start = text.index(needle)
    return [start, start + len(needle)]


def write_cuad(root: Path, names: list[str]) -> None:
    with (root / "cuad" / "category_descriptions.csv").open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["Category (incl. context and answer)", "Description", "Answer Format", "Group"])
        writer.writerow(
            [
                "Category: Governing Law",
                "Description: Which state/country's law governs the interpretation of the contract?",
                "Answer Format: Name of a US State / non-US Province, Country",
                "Group: -",
            ]
        )
        writer.writerow(
            [
                "Category: Insurance",
                "Description: Is there a requirement for insurance that must be maintained by one party "
                "for the benefit of the counterparty?",
                "Answer Format: Yes/No",
                "Group: -",
            ]
        )
    data = []
    for name, state in zip(names, STATES, strict=False):
        text = contract_text(name.replace("-", ""), state)
        answer = state
        insurance = text[slice(*_span(text, "The supplier shall maintain"))]
        qas = [
            {
                "id": f"{name}__Governing Law",
                "question": "q",
                "answers": [{"text": answer, "answer_start": text.index(answer)}],
            },
            {
                "id": f"{name}__Insurance",
                "question": "q",
                "answers": [{"text": insurance, "answer_start": text.index(insurance)}],
            },
            {"id": f"{name}__Audit Rights", "question": "q", "answers": []},
        ]
        data.append({"title": name, "paragraphs": [{"context": text, "qas": qas}]})
    _write_json(root / "cuad" / "cuad_dev.json", {"data": data})


def write_legalbench(root: Path, names: list[str]) -> None:
    tests = []
    for name in names:
        path = f"cuad/{name}.txt"
        text = contract_text(name.replace("-", "") + "lb")
        (root / "legalbenchrag" / "corpus" / "cuad").mkdir(parents=True, exist_ok=True)
        (root / "legalbenchrag" / "corpus" / path).write_text(text, encoding="utf-8")
        needle = "Either party may terminate this Agreement on thirty days written notice to the other party."
        tests.append(
            {
                "query": f'Consider the contract "{name}"; how can a party terminate the agreement?',
                "snippets": [{"file_path": path, "span": _span(text, needle), "answer": needle}],
            }
        )
    _write_json(root / "legalbenchrag" / "benchmarks" / "cuad.json", {"tests": tests})
    for dataset in ("contractnli", "maud", "privacy_qa"):
        _write_json(root / "legalbenchrag" / "benchmarks" / f"{dataset}.json", {"tests": []})


def write_contractnli(root: Path, names: list[str]) -> None:
    documents = []
    for number, name in enumerate(names):
        text = contract_text(name.replace("-", "") + "nli")
        spans = []
        for _title, body in SECTIONS:
            sentence = body.format(m=name.replace("-", "") + "nli", state="New York")
            spans.append(_span(text, sentence))
        annotations = {
            "nda-1": {"choice": "Entailment", "spans": [3]},
            "nda-2": {"choice": "NotMentioned", "spans": []},
        }
        documents.append(
            {
                "id": number,
                "file_name": f"{name}.pdf",
                "text": text,
                "spans": spans,
                "annotation_sets": [{"annotations": annotations}],
            }
        )
    labels = {
        "nda-1": {
            "short_description": "cci",
            "hypothesis": "The receiving party shall keep confidential information secret.",
        },
        "nda-2": {"short_description": "x", "hypothesis": "The agreement mentions pets."},
    }
    _write_json(root / "contractnli" / "dev.json", {"documents": documents, "labels": labels})


ACORD_CLAUSES = {
    "c1": "This Agreement shall be governed by the laws of the State of Delaware.",
    "c2": "The laws of England govern this Agreement and any dispute arising from it.",
    "c3": "Supplier shall deliver the goods to the address stated in the order.",
    "c4": "Either party may terminate for convenience on ninety days notice.",
    "c5": "Neither party shall be liable for indirect or consequential damages.",
    "c6": "Customer shall pay all invoices within thirty days.",
    "c7": "The liability of each party is capped at the fees paid in the prior year.",
}


def write_acord(root: Path) -> None:
    write_acord_folder(
        root,
        ACORD_CLAUSES,
        {'"as is" governing law': "governing law clause", "liability cap": "cap on liability"},
        {
            "train.tsv": {'"as is" governing law': {"c1": 4, "c2": 2, "c3": 0, "c6": 0}},
            "valid.tsv": {"liability cap": {"c7": 3, "c5": 1, "c4": 0}},
        },
    )


def write_bench(root: Path, names: Callable[[str], list[str]]) -> Path:
    """The whole synthetic data folder at ``root``: each source's contracts named by ``names``
    (the reranker's and the encoder's folds pick them differently), and ACORD."""
    (root / "cuad").mkdir()
    write_cuad(root, names("cuad-contract"))
    write_legalbench(root, names("lb-contract"))
    write_contractnli(root, names("nda"))
    write_acord(root)
    return root


@pytest.fixture(scope="module")
def data_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_bench(tmp_path_factory.mktemp("bench"), all_names)


@pytest.fixture(scope="module")
def pair_set(data_root: Path) -> rd.PairSet:
    return rd.build_pairs(data_root, seed=7)


# --- the held-out rule --------------------------------------------------------------------------


def test_heldout_rule_is_a_stable_sha1_bucket() -> None:
    name = "ABILITYINC_06_15_2020-EX-4.25-SERVICES AGREEMENT"
    key = folds.document_key(name)
    assert key == "abilityinc06152020ex425servicesagreement"
    assert folds.is_heldout(name) == (int(hashlib.sha1(key.encode()).hexdigest(), 16) % 5 == 0)
    # a CUAD title and the LegalBench-RAG file of the same contract share the fold
    assert folds.document_key(f"cuad/{name}.txt") == key
    share = np.mean([folds.is_heldout(f"document {i}") for i in range(2000)])
    assert 0.17 < share < 0.23


def test_heldout_documents_never_reach_training(pair_set: rd.PairSet) -> None:
    prefixes = ("cuad-contract", "lb-contract", "nda")
    held_markers = [n.replace("-", "") for prefix in prefixes for n in pick_names(prefix)[0]]
    train_markers = [n.replace("-", "") for prefix in prefixes for n in pick_names(prefix)[1]]
    for pair in pair_set.train:
        assert not any(mentions(pair.passage, m) for m in held_markers), pair
    assert any(any(mentions(p.passage, m) for m in held_markers) for p in pair_set.heldout)
    for pair in pair_set.heldout:
        if pair.source != "acord":
            assert not any(mentions(pair.passage, m) for m in train_markers), pair


# --- labels -------------------------------------------------------------------------------------


def test_acord_labels_are_graded_and_valid_queries_are_held_out(pair_set: rd.PairSet) -> None:
    train = {p.passage: p.label for p in pair_set.train if p.source == "acord"}
    assert train[ACORD_CLAUSES["c1"]] == 1.0
    assert train[ACORD_CLAUSES["c2"]] == 0.5
    assert all(label in (0.0, 0.25, 0.5, 0.75, 1.0) for label in train.values())
    assert {p.query for p in pair_set.train if p.source == "acord"} == {"governing law clause"}
    held = {p.passage: p.label for p in pair_set.heldout if p.source == "acord"}
    assert held[ACORD_CLAUSES["c7"]] == 0.75
    assert held[ACORD_CLAUSES["c5"]] == 0.25
    assert held[ACORD_CLAUSES["c4"]] == 0.0  # judged 0: a hard negative


def test_cuad_query_wording_and_short_answers_widened(pair_set: rd.PairSet) -> None:
    cuad = [p for p in pair_set.train + pair_set.heldout if p.source == "cuad"]
    queries = {p.query for p in cuad}
    assert "Governing Law: Which state/country's law governs the interpretation of the contract?" in queries
    assert not any("Audit Rights" in q for q in queries)  # no answers -> no query
    positives = {p.passage for p in cuad if p.label == 1.0 and p.query.startswith("Governing Law")}
    assert positives == {f"This Agreement is governed by the laws of the State of {s}." for s in STATES}


def test_every_query_has_positives_and_negatives(pair_set: rd.PairSet) -> None:
    groups: dict[str, list[rd.Pair]] = {}
    for pair in pair_set.train + pair_set.heldout:
        groups.setdefault(pair.group, []).append(pair)
    for group, pairs in groups.items():
        assert any(p.label > 0 for p in pairs), group
        assert any(p.label == 0 for p in pairs), group  # BM25 may find no other match: random only
        assert all(0.0 <= p.label <= 1.0 for p in pairs)
        assert all((p.label > 0) == (p.role == "positive") for p in pairs)
    roles = rd.role_counts(pair_set.train)
    assert roles["random_negative"] > 0 and roles["hard_negative"] > 0


def test_negatives_never_overlap_positives(pair_set: rd.PairSet, data_root: Path) -> None:
    groups: dict[str, list[rd.Pair]] = {}
    for pair in pair_set.train + pair_set.heldout:
        groups.setdefault(pair.group, []).append(pair)
    for pairs in groups.values():
        positives = [p.passage.lower() for p in pairs if p.label > 0]
        for negative in (p.passage.lower() for p in pairs if p.label == 0):
            assert not any(pos in negative or negative in pos for pos in positives)
    # span level: the index never returns a passage overlapping a positive span
    text = contract_text("zeta")
    index = rd.node_passages(text, "zeta.txt")
    sentence = "Either party may terminate this Agreement on thirty days written notice to the other party."
    gold = [tuple(_span(text, sentence))]
    query = "may either party terminate the agreement by written notice to the other party"
    chosen = index.hard_negatives(query, gold, [sentence], rd.PairConfig())
    assert len(chosen) >= 2
    for passage in chosen:
        start = text.index(passage)
        assert not rd.overlaps((start, start + len(passage)), gold[0])


def test_contractnli_uses_evidence_only_for_entailment_or_contradiction(pair_set: rd.PairSet) -> None:
    nli = [p for p in pair_set.train + pair_set.heldout if p.source == "contractnli"]
    assert {p.query for p in nli} == {"The receiving party shall keep confidential information secret."}
    assert all("receiving party shall keep" in p.passage for p in nli if p.label == 1.0)


def test_boilerplate_repeating_a_positive_is_no_negative() -> None:
    positive = "This Agreement is governed by the laws of the State of New York."
    example = rd.QueryExample(
        "cuad", "g", "doc-a", "governing law", False, [(positive, 1.0)], [f"2. {positive}"]
    )
    pool = rd.RandomPool()
    pool.add("cuad", False, "doc-b", [f"9. Governing Law. {positive}"])
    pairs = rd._pairs_for(example, pool, rd.PairConfig(), random.Random(0))
    assert [p.role for p in pairs] == ["positive"]


def test_extend_to_sentence_and_overlaps() -> None:
    text = "Preamble here. This Agreement is governed by the laws of Texas. Other text follows."
    start = text.index("Texas")
    widened = rd.extend_to_sentence(text, (start, start + 5))
    assert text[widened[0] : widened[1]] == "This Agreement is governed by the laws of Texas."
    long_span = (0, 60)
    assert rd.extend_to_sentence(text, long_span) == long_span
    assert rd.overlaps((0, 5), (4, 9)) and not rd.overlaps((0, 5), (5, 9))


def test_cap_keeps_whole_groups_and_is_seeded(pair_set: rd.PairSet, data_root: Path) -> None:
    pairs = pair_set.train + pair_set.heldout
    capped = rd.cap_groups(pairs, 20, random.Random(1))
    assert len(capped) <= 20
    kept = {p.group for p in capped}
    assert all(p in capped for p in pairs if p.group in kept)
    assert capped == rd.cap_groups(pairs, 20, random.Random(1))
    assert rd.build_pairs(data_root, seed=7).train == pair_set.train  # same seed, same pairs


# --- training helpers and metrics ---------------------------------------------------------------


def test_length_grouped_batches_cover_every_example_once() -> None:
    lengths = [random.Random(3).randint(10, 500) for _ in range(103)]
    batches = length_grouped_batches(lengths, 8, seed=5, megabatch=4)
    flat = [i for batch in batches for i in batch]
    assert sorted(flat) == list(range(103))
    assert batches == length_grouped_batches(lengths, 8, seed=5, megabatch=4)


def test_ranking_metrics() -> None:
    relevance = {"a": 3, "b": 1}
    assert ndcg(["a", "b", "c"], relevance, 5) == pytest.approx(1.0)
    assert ndcg(["c", "a"], relevance, 1) == 0.0
    assert roc_auc(np.array([1, 0, 1, 0]), np.array([0.9, 0.1, 0.8, 0.2])) == 1.0
    assert roc_auc(np.array([1, 0]), np.array([0.5, 0.5])) == 0.5
    pairs = [rd.Pair("q", p, label, "s", "g", "positive", False) for p, label in (("x", 1.0), ("y", 0.0))]
    assert pairwise_accuracy(pairs, np.array([2.0, 1.0])) == 1.0


def train_help(command: str) -> str:
    """``clausewise train <command> --help`` on an app holding only the lab's train commands."""
    import typer
    from typer.testing import CliRunner

    from clausewise_lab.cli import train as train_cmd

    app = typer.Typer()

    @app.callback()
    def root() -> None:
        """Root."""

    train_cmd.register(app)
    result = CliRunner().invoke(app, ["train", command, "--help"])
    assert result.exit_code == 0, result.output
    return result.output


def test_cli_registers_a_train_reranker_command() -> None:
    shown = train_help("reranker")
    for option in ("--data", "--out", "--max-pairs", "--epochs", "--batch-size", "--max-length", "--seed"):
        assert option in shown


# --- the shipped model --------------------------------------------------------------------------


def test_shipped_config_pins_the_model_file() -> None:
    config = json.loads((ASSETS_DIR / "config.json").read_text(encoding="utf-8"))
    assert set(config) >= {"max_length", "base_model", "sha256", "created"}
    assert sha256_of(ASSETS_DIR / "model.onnx") == config["sha256"]
    assert (ASSETS_DIR / "model.onnx").stat().st_size <= 30_000_000
    assert (ASSETS_DIR / "tokenizer.json").exists() and (ASSETS_DIR / "MODEL_CARD.md").exists()


def test_shipped_model_ranks_the_relevant_clause_first() -> None:
    reranker = OnnxReranker(ASSETS_DIR, threads=1, verify=True)
    inputs = {i.name for i in reranker.session.get_inputs()}
    assert inputs == {"input_ids", "attention_mask", "token_type_ids"}
    scores = reranker.score(
        "governing law",
        ["This Agreement is governed by the laws of New York.", "The Supplier shall deliver the goods."],
    )
    assert scores.shape == (2,)
    assert scores[0] > scores[1]
    assert scores[0] - scores[1] > 2.0  # a clear margin, not a coin toss
    # padding in a batch barely changes a pair's score (dynamic int8 quantization scales the
    # activations per batch, so a few hundredths of a logit are expected)
    alone = reranker.score("governing law", ["The Supplier shall deliver the goods."])
    assert alone[0] == pytest.approx(scores[1], abs=0.1)
