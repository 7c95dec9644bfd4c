"""``eval room``'s measures by hand (gold from a contract's annotations, the grader's view of a
cell, an unsupported cell read against the dataset text, the figures), then the whole benchmark
on two check-half CUAD contracts x one question, bounded (real redis-server and workers)."""

from __future__ import annotations

import shutil

import pytest

from clausewise.core.report import Source
from clausewise.core.room import RoomCell
from clausewise_lab.evals import room_bench
from clausewise_lab.evals.bank import BankQuestion

TEXT = "1. This Agreement is governed by the laws of the State of New York. 2. Either party may terminate it."
LAW = "This Agreement is governed by the laws of the State of New York."
CONTRACT = ("Acme Supply Agreement", TEXT, {"Governing Law": [("the State of New York", (51, 72))]})


def _source(quote: str, number: int = 1, shift: int = 0) -> Source:
    start = TEXT.index(quote) + shift
    return Source(
        number=number, contract_id="c", node_id="1", pages=[1], span=(start, start + len(quote)), quote=quote
    )


def _cell(
    answer: str, value: str = "", sources=(), cited=(), question: str = "Which law governs?"
) -> RoomCell:
    return RoomCell(
        key="q1",
        question=question,
        answer=answer,
        value=value,
        value_type="law" if value else "",
        line=f"{value or answer} [1]",
        sources=list(sources),
        cited=list(cited),
    )


def _asked(kind: str, category: str) -> BankQuestion:
    return BankQuestion(
        id="x", kind=kind, source="cuad", contract="other", question="Which law governs?", gold="?",
        category=category, reading="law" if kind == "value" else "",
    )  # fmt: skip


def test_gold_comes_from_the_contracts_own_annotations() -> None:
    value = room_bench.gold_question(_asked("value", "Governing Law"), CONTRACT)
    assert (value.gold, value.contract, value.gold_texts) == (
        "stated",
        CONTRACT[0],
        ("the State of New York",),
    )
    assert room_bench.gold_question(_asked("yes/no", "Governing Law"), CONTRACT).gold == "yes"
    assert room_bench.gold_question(_asked("yes/no", "Non-Compete"), CONTRACT).gold == "no"
    assert room_bench.gold_question(_asked("value", "Renewal Term"), CONTRACT).gold == "not stated"


def test_a_cell_is_graded_as_the_user_sees_it() -> None:
    asked = {"Which law governs?": _asked("value", "Governing Law")}
    contracts = {"acme": CONTRACT}
    rows = [
        {
            "contract_id": "acme",
            "result": _cell("value", "New York", [_source(LAW)], [1]).model_dump(mode="json"),
        },
        {"contract_id": "acme", "result": _cell("unclear").model_dump(mode="json")},
        {
            "contract_id": "acme",
            "result": _cell("value", "Delaware", [_source(LAW)], [1]).model_dump(mode="json"),
        },
        {"contract_id": "broken.pdf", "error": "corrupt"},
    ]
    graded = room_bench.grade_cells(rows, asked, contracts)
    assert [g.get("outcome") for g in graded] == ["right", "abstained", "wrong", None]
    assert [g.get("unsupported") for g in graded[:3]] == ["", "", "the value is not in its cited sources"]
    figures = room_bench.cell_figures(graded)
    assert figures["all"] == {
        "cells": 3,
        "right": 1,
        "wrong": 1,
        "abstained": 1,
        "accuracy": 0.3333,
        "committed_accuracy": 0.5,
        "abstention_rate": 0.3333,
    }
    assert figures["unsupported_cells_shown"] == 1 and figures["errors"] == 1


def test_an_unsupported_cell_is_read_against_the_dataset_text() -> None:
    assert room_bench.unsupported(_cell("yes", sources=[_source(LAW)], cited=[1]), TEXT) == ""
    assert room_bench.unsupported(_cell("yes"), TEXT) == "asserts without a cited source"
    moved = _source(LAW, shift=3)
    assert "is not the text at" in room_bench.unsupported(_cell("yes", sources=[moved], cited=[1]), TEXT)
    assert room_bench.unsupported(_cell("no"), TEXT) == ""  # absence needs no quote
    assert room_bench.unsupported(_cell("not addressed"), TEXT) == ""


def test_parties_are_supported_by_their_words_in_the_source_not_its_punctuation() -> None:
    text = 'Agreement by and between Newegg Inc. ("Newegg"), a Delaware corporation, and Allied Inc.'
    source = Source(number=1, contract_id="c", node_id="p1", pages=[1], span=(0, len(text)), quote=text)

    def party(value: str) -> RoomCell:
        cell = _cell("value", value=value, sources=[source], cited=[1])
        return cell.model_copy(update={"value_type": "party"})

    assert room_bench.unsupported(party('Newegg Inc. ("Newegg") and Allied Inc.'), text) == ""
    assert (
        room_bench.unsupported(party("Newegg Inc. and Zynga Inc."), text)
        == "the value is not in its cited sources"
    )


@pytest.mark.bench_data
@pytest.mark.timeout(1200)
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="redis-server is not installed")
def test_the_benchmark_runs_bounded_end_to_end(bench_data, tmp_path) -> None:
    from clausewise.core.config import load_settings

    settings = load_settings(
        overrides={"paths": {"data_dir": str(tmp_path / "unused")}, "decision": {"model_decides": False}}
    )
    results = room_bench.run(settings, bench_data, contracts=2, questions=1, wide=3, threads=1, minutes=5)
    assert results["contracts"] == 2 and len(results["questions"]) == 1
    runs = results["throughput"]
    assert set(runs) == {"local", "celery-1", "celery-2"}
    for run in runs.values():
        assert (
            run["status"] == "done" and run["cells"] == 2 and 0 < run["first_row_seconds"] <= run["seconds"]
        )
    assert (
        runs["celery-1"]["cells_differing_from_local"] == runs["celery-2"]["cells_differing_from_local"] == 0
    )
    assert all(peak > 100 for peak in runs["celery-2"]["worker_peak_rss_mb"])
    # where the cores went: the workers answered the cells, so their CPU time shows it
    assert runs["celery-2"]["cpu_seconds"]["workers"] > 0 and runs["celery-2"]["cpu_seconds"]["redis"] >= 0
    local = runs["local"]["cpu_seconds"]
    assert local["service_and_client"] > 0 and local["workers"] == 0
    assert results["wide"]["status"] == "done" and results["wide"]["cells"] == 3
    cells = results["cells"]
    assert cells["all"]["cells"] == 2 and cells["unsupported_cells_shown"] == 0
    assert all(g["outcome"] in ("right", "wrong", "abstained") for g in results["graded"])


@pytest.mark.parametrize(("count", "sizes"), [(1, [1]), (50, [50]), (51, [26, 25]), (145, [49, 48, 48])])
def test_a_longer_checklist_is_asked_as_rooms_within_the_services_limit(count, sizes) -> None:
    questions = [f"q{n}" for n in range(count)]
    rooms = room_bench.question_columns(questions)
    assert [len(room) for room in rooms] == sizes
    assert [q for room in rooms for q in room] == questions  # every question once, in order
