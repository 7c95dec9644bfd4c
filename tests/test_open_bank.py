"""The open-question bank: a lawyer's everyday questions with gold clauses (CUAD's annotations and
hand marks), split by contract, and its run through the bank's benchmark."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from clausewise_lab.evals.bank import in_half
from clausewise_lab.evals.open_bank import hand_marks, merged, open_bank, open_kinds, text_sha256


def test_every_kind_is_asked_in_two_or_three_wordings() -> None:
    assert len(open_kinds()) >= 12
    assert len({kind.name for kind in open_kinds()}) == len(open_kinds())
    assert all(2 <= len(set(kind.wordings)) == len(kind.wordings) <= 3 for kind in open_kinds())


def test_hand_marks_are_offsets_with_reasons() -> None:
    contracts = hand_marks()
    assert len({c.title for c in contracts}) == len(contracts)
    for contract in contracts:
        assert len(contract.sha256) == 64
        for marks in contract.marks.values():
            for start, end, reason in marks:
                assert 0 <= start < end and reason.strip() and "\n" not in reason


def test_overlapping_gold_spans_count_once() -> None:
    assert merged([(10, 20), (0, 5), (15, 30), (30, 40)]) == ((0, 5), (10, 30), (30, 40))


@pytest.fixture(scope="module")
def halves(bench_data: Path) -> dict:
    return {half: open_bank(bench_data, half) for half in ("tune", "check")}


@pytest.mark.bench_data
def test_each_half_asks_every_kind_on_its_own_contracts(halves) -> None:
    kinds = {kind.name for kind in open_kinds()}
    overall: Counter = Counter()
    for half, (questions, texts) in halves.items():
        assert len(questions) >= 30
        per_kind = Counter(q.category for q in questions)
        assert set(per_kind) == kinds and min(per_kind.values()) >= 2
        overall += per_kind
        assert all(in_half(q.contract, half) for q in questions)
        assert {q.contract for q in questions} == set(texts)
        assert len({q.id for q in questions}) == len(questions)
        assert all(q.kind == "open" and q.source == "lawyer" and q.gold == "open" for q in questions)
    assert len(overall) >= 12 and min(overall.values()) >= 4
    tune, check = ({q.contract for q in halves[h][0]} for h in ("tune", "check"))
    assert not tune & check


@pytest.mark.bench_data
def test_every_gold_span_lies_in_its_contract(halves) -> None:
    for questions, texts in halves.values():
        for question in questions:
            text = texts[question.contract]
            assert question.gold_spans
            for start, end in question.gold_spans:
                assert 0 <= start < end <= len(text) and text[start:end].strip()


@pytest.mark.bench_data
def test_hand_marks_point_into_the_text_they_were_marked_on(halves) -> None:
    texts = {title: text for _, by_title in halves.values() for title, text in by_title.items()}
    for contract in hand_marks():
        assert contract.title in texts, f"{contract.title} is asked no question"
        text = texts[contract.title]
        assert text_sha256(text) == contract.sha256
        for marks in contract.marks.values():
            assert all(end <= len(text) and text[start:end].strip() for start, end, _ in marks)


@pytest.mark.bench_data
def test_the_bank_is_the_same_every_time(bench_data, halves) -> None:
    assert open_bank(bench_data, "check") == halves["check"]


@pytest.mark.bench_data
def test_a_changed_text_skips_its_hand_marked_questions(bench_data, monkeypatch) -> None:
    from clausewise_lab.evals import open_bank as module

    contracts = module._cuad(bench_data, "check")
    title = next(c.title for c in hand_marks() if in_half(c.title, "check"))
    assert title in {t for t, _, _ in contracts}
    changed = [(t, text + " " if t == title else text, answers) for t, text, answers in contracts]
    monkeypatch.setattr(module, "_cuad", lambda root, half: changed)
    with pytest.warns(UserWarning, match="sha256 differs"):
        questions, _ = module.open_bank(bench_data, "check")
    entry = next(c for c in hand_marks() if c.title == title)
    asked = {q.category for q in questions if q.contract == title}
    assert asked and not asked & set(entry.marks)  # only the kinds CUAD alone gives gold for


@pytest.mark.bench_data
def test_the_open_bank_runs_through_the_bank_benchmark(bench_data, monkeypatch) -> None:
    """``eval qa --questions open-bank``: the bank's run with these questions, figures per kind."""
    from types import SimpleNamespace

    from clausewise_lab.evals import bank_bench

    def ingested(runtime, texts, questions, ids):
        for contract, asked in bank_bench._by_contract(questions).items():
            assert texts[contract]
            yield ids[contract], asked

    def answered(runtime, api, cid, question, turns):
        cited, gold = bank_bench.evidence_recall(question.gold_spans, question.gold_spans[:1])
        return {
            "line": None,
            "verdict": None,
            "outcome": bank_bench.grade(question, None),
            "addressed": question.category != "notices",
            "seconds": 1.0,
            "gold_spans_cited": cited,
            "gold_spans": gold,
        }

    monkeypatch.setattr(bank_bench, "_ingested", ingested)
    monkeypatch.setattr(bank_bench, "_product_full", answered)
    monkeypatch.setattr(bank_bench, "report_figures", lambda rows: {})
    runtime = SimpleNamespace(settings=None, ledger=SimpleNamespace(records=[]))
    results = bank_bench.run(runtime, bench_data, limit=12, baseline=False, questions="open-bank")
    assert results["benchmark"] == "qa-open-bank" and results["by_kind"] == {"open": 12}
    assert {r["source"] for r in results["rows"]} == {"lawyer"}
    assert all(r["product"]["outcome"] == "ungraded" for r in results["rows"])
    by_kind = results["product"]["open_by_category"]
    assert set(by_kind) == {kind.name for kind in open_kinds()}  # a small run asks every kind
    assert by_kind["notices"]["answered"] == 0.0 and by_kind["payment"]["answered"] == 1.0
    assert 0 < results["product"]["open_evidence_recall"] <= 1
