"""The clause-parties gold set (``data/clause-parties.yaml``): which party each annotated CUAD clause
binds and benefits, labelled by hand. It reads and checks against its schema; a broken copy (a clause
said to bind someone who is not a party, a span that ends before it starts, an unknown side) is
refused naming the place; and, where the benchmark data is present, every contract's text is the one
that was labelled and every mark is a CUAD answer span of its category."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from clausewise_lab.evals.data_files import (
    EACH,
    PARTY_CATEGORIES,
    ClausePartiesFile,
    DataFileError,
    clause_parties,
    data_file,
    parse_data,
)
from clausewise_lab.evals.folds import is_heldout

NAME = "clause-parties.yaml"
PER_HALF = 20
MIN_SPANS = 3


def test_the_file_reads_and_says_where_it_came_from() -> None:
    gold = clause_parties()
    halves = Counter(is_heldout(contract.title) for contract in gold.contracts)
    assert halves == {False: PER_HALF, True: PER_HALF}
    for contract in gold.contracts:
        names = {party.name for party in contract.parties}
        assert contract.marks and contract.type
        for mark in contract.marks:
            assert mark.category in PARTY_CATEGORIES
            assert set(mark.binds) | set(mark.benefits) <= names | {EACH}
            assert mark.reason and len(mark.reason) <= 120
    header = data_file(NAME).read_text(encoding="utf-8").split("\nformat:", 1)[0]
    assert "Provenance:" in header and "is_heldout" in header


def _broken(old: str, new: str) -> str:
    text = data_file(NAME).read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    return text.replace(old, new, 1)


#: Each broken copy: (what the file says, what it says instead, what the refusal must name).
BROKEN = {
    "binds a stranger": (
        "span: [5782, 5884], binds: [i-Escrow]",
        "span: [5782, 5884], binds: [Escrow Agent]",
        "'Escrow Agent': not a party of this contract",
    ),
    "ends before it starts": ("span: [5782, 5884]", "span: [5884, 5782]", "contracts.0.marks.0.span"),
    "unknown side": (
        "{name: i-Escrow, side: customer",
        "{name: i-Escrow, side: buyer",
        "contracts.0.parties.0.side",
    ),
}


@pytest.mark.parametrize(("old", "new", "said"), list(BROKEN.values()), ids=list(BROKEN))
def test_a_broken_copy_is_refused_naming_the_place(old: str, new: str, said: str) -> None:
    with pytest.raises(DataFileError) as refused:
        parse_data(NAME, _broken(old, new), ClausePartiesFile)
    assert NAME in str(refused.value) and said in str(refused.value)
    assert "contracts.0" in str(refused.value)


def _cuad_spans(document: dict) -> set[tuple[str, int, int]]:
    """(category, start, end) of every CUAD answer span of the labelled categories."""
    spans = set()
    for qa in document["paragraphs"][0]["qas"]:
        category = re.search(r'related to "(.*?)"', qa["question"]).group(1)
        if category in PARTY_CATEGORIES:
            for answer in qa["answers"]:
                start = answer["answer_start"]
                spans.add((category, start, start + len(answer["text"])))
    return spans


@pytest.mark.bench_data
def test_every_mark_is_a_cuad_span_of_its_category_in_the_labelled_text(bench_data: Path) -> None:
    documents = json.loads((bench_data / "cuad" / "cuad_dev.json").read_text(encoding="utf-8"))["data"]
    by_title = {document["title"]: document for document in documents}
    gold = clause_parties()
    for contract in gold.contracts:
        document = by_title[contract.title]
        text = document["paragraphs"][0]["context"]
        assert hashlib.sha256(text.encode("utf-8")).hexdigest() == contract.sha256, contract.title
        cuad = _cuad_spans(document)
        marked = [(mark.category, *mark.span) for mark in contract.marks]
        for category, start, end in marked:
            assert 0 <= start < end <= len(text), (contract.title, start, end)
            assert (category, start, end) in cuad, (contract.title, category, start, end)
        assert len(set(marked)) == len(marked) and set(marked) == cuad, contract.title
    # the selection: per half, the first contracts in title order with enough annotated spans
    chosen = {False: [], True: []}
    for title in sorted(by_title):
        half = is_heldout(title)
        if len(chosen[half]) < PER_HALF and len(_cuad_spans(by_title[title])) >= MIN_SPANS:
            chosen[half].append(title)
    assert sorted(chosen[False] + chosen[True]) == sorted(contract.title for contract in gold.contracts)
