"""The question bank and its grader: the bank split by contract, and answers graded by the
grader's own reading of values (never the product's)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from clausewise_lab.evals import answer_key
from clausewise_lab.evals.bank import BankQuestion, build_bank, sample
from clausewise_lab.evals.data_files import bank_phrasings
from clausewise_lab.evals.folds import is_heldout
from clausewise_lab.evals.grading import Shown, grade

REPO = Path(__file__).resolve().parents[1]


def question(
    kind: str, gold: str, reading: str = "", texts=(), spans=(), category: str = "c"
) -> BankQuestion:
    return BankQuestion(
        id="q",
        kind=kind,
        source="cuad",
        contract="t",
        question="?",
        gold=gold,
        category=category,
        reading=reading,
        gold_texts=tuple(texts),
        gold_spans=tuple(spans),
    )


def test_the_grader_reads_values_its_own_way() -> None:
    assert answer_key.durations("three (3) years, thirty-six (36) months and ninety (90) days") == {
        (36, "month"),
        (90, "day"),
    }
    assert answer_key.dates("this 15th day of December, 1997 and 03/01/2005") == {"1997-12-15", "2005-03-01"}
    assert answer_key.laws("governed by the laws of the State of New York; courts of Delaware") == {
        "new york"
    }
    assert answer_key.party_names(["Snap Technologies, Inc.", "Company", "United Airlines, Inc."]) == [
        "snap technologies",
        "united airlines",
    ]


def test_the_grader_shares_no_code_with_the_deciders() -> None:
    for module in ("grading.py", "answer_key.py", "bank.py", "data_files.py"):
        tree = ast.parse((REPO / "lab" / "clausewise_lab" / "evals" / module).read_text(encoding="utf-8"))
        imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
            alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        }
        assert not any(name.startswith(("tools", "agents", "graphs", "indexes")) for name in imported), module


@pytest.mark.parametrize(
    ("verdict", "gold", "outcome"),
    [
        ("yes", "yes", "right"),
        ("no", "yes", "wrong"),
        ("not addressed", "no", "right"),  # the contract does not provide for it: no
        ("unclear", "no", "abstained"),
        ("", "yes", "abstained"),
    ],
)
def test_yes_no_answers(verdict: str, gold: str, outcome: str) -> None:
    assert grade(question("yes/no", gold), Shown(verdict, verdict, False)) == outcome


def test_a_value_must_be_the_gold_value_and_cite_a_source() -> None:
    law = question("value", "stated", "law", ["governed by the laws of the State of Delaware"])
    assert grade(law, Shown("", "Delaware [1]", True, [(0, 5)])) == "right"
    assert grade(law, Shown("", "Delaware", True, [])) == "wrong"  # no source
    assert grade(law, Shown("", "Delaware and New York [1]", True, [(0, 5)])) == "wrong"  # a place too many
    term = question("value", "stated", "duration", ["for successive one (1) year terms"])
    assert grade(term, Shown("", "twelve (12) months [2]", True, [(0, 5)])) == "right"
    assert grade(term, Shown("unclear", "Unclear", False)) == "abstained"
    assert grade(term, Shown("not addressed", "Not stated in the contract", False)) == "wrong"


def test_a_condition_is_right_when_it_quotes_the_annotated_clause() -> None:
    expiry = question(
        "value",
        "stated",
        "date-or-duration",
        ["until the last day of the last warranty period"],
        [(100, 160)],
    )
    quoted = 'As the contract states it: "until the last day of the last warranty period" [1]'
    assert grade(expiry, Shown("", quoted, True, [(90, 170)])) == "right"
    assert grade(expiry, Shown("", quoted, True, [(300, 340)])) == "wrong"  # another clause
    assert grade(expiry, Shown("", "five (5) years [1]", True, [(90, 170)])) == "wrong"  # a value made up


def test_a_value_the_contract_does_not_state_is_right_only_unstated() -> None:
    absent = question("value", "not stated", "duration")
    assert grade(absent, Shown("not addressed", "Not stated in the contract", False)) == "right"
    assert grade(absent, Shown("", "one (1) year [1]", True, [(0, 4)])) == "wrong"


def test_a_verdict_and_a_value_is_right_only_with_both() -> None:
    renews = question("verdict+value", "yes", "duration", ["renews for successive one (1) year terms"])
    assert grade(renews, Shown("yes", "Yes: one (1) year [1]", True, [(0, 4)])) == "right"
    assert grade(renews, Shown("yes", "Yes [1]", False, [(0, 4)])) == "wrong"  # half the question unanswered
    assert grade(renews, Shown("yes", "Yes: two (2) years [1]", True, [(0, 4)])) == "wrong"
    assert grade(renews, Shown("unclear", "Unclear: leans yes, 0.70", False)) == "abstained"
    lapses = question("verdict+value", "no", "duration")
    assert grade(lapses, Shown("no", "No", False)) == "right"
    assert grade(lapses, Shown("no", "No: one (1) year [1]", True, [(0, 4)])) == "wrong"


def test_parties_need_two_of_the_annotated_names() -> None:
    parties = question("value", "stated", "parties", ["Acme Corp.", "Beta LLC", "Company"])
    assert grade(parties, Shown("", 'Acme Corp. ("Company") and Beta LLC [1]', True, [(0, 1)])) == "right"
    assert grade(parties, Shown("", "Acme Corp. [1]", True, [(0, 1)])) == "wrong"


def test_the_bank_asks_every_category_three_ways() -> None:
    phrasings = bank_phrasings()
    assert len(phrasings.yes_no) == 41 and all(len(set(w)) == 3 for w in phrasings.yes_no.values())
    assert all(len(set(entry.wordings)) == 3 for entry in phrasings.values.values())


@pytest.mark.bench_data
def test_the_bank_is_split_by_contract_and_balanced(bench_data) -> None:
    tune, check = build_bank(bench_data, "tune"), build_bank(bench_data, "check")
    cuad = [q for q in check.questions if q.source == "cuad"]
    assert all(is_heldout(q.contract) for q in cuad)
    assert not {q.contract for q in cuad} & {q.contract for q in tune.questions}
    yes_no = [q for q in check.questions if q.kind == "yes/no"]
    assert abs(sum(q.gold == "yes" for q in yes_no) - sum(q.gold == "no" for q in yes_no)) < len(yes_no) * 0.2
    chosen = sample(check.questions, 40)
    assert len(chosen) == 40 and {q.kind for q in chosen} == {
        "yes/no",
        "value",
        "verdict+value",
        "verdict",
        "open",
    }
    assert build_bank(bench_data, "check").questions == check.questions  # the same seed, the same bank


def test_documents_whose_names_cut_to_one_slug_get_ids_of_their_own() -> None:
    from clausewise_lab.evals.data import document_ids

    names = [
        "KUBIENT,INC_07_02_2020-EX-10.14-MASTER SERVICES AGREEMENT_Part1",
        "KUBIENT,INC_07_02_2020-EX-10.14-MASTER SERVICES AGREEMENT_Part2",
        "ACME CORP_2019-EX-10.1-SUPPLY AGREEMENT",
    ]
    ids = document_ids(names, "bank-cuad", label=lambda name: Path(name).stem)
    assert len(set(ids.values())) == 3
    assert ids[names[2]] == "bank-cuad-acme-corp-2019-ex-10"  # a unique slug keeps its plain id
    assert ids[names[0]].startswith("bank-cuad-kubient-inc-07-02-2020-ex-10-")


def test_a_bounded_run_stops_asking_at_its_time_limit_and_says_what_it_left(bench_data, monkeypatch) -> None:
    """``--minutes``: no question is started after the limit; the answers so far are reported."""
    from types import SimpleNamespace

    from clausewise_lab.evals import bank_bench

    clock = [0.0]
    ingests: list[str] = []

    def ingested(runtime, texts, questions, ids):
        for contract, asked in bank_bench._by_contract(questions).items():
            ingests.append(ids[contract])
            yield ids[contract], asked

    def answered(runtime, api, cid, question, turns):
        clock[0] += 40.0  # each report takes 40 s on the fake clock
        return {"line": None, "verdict": None, "decided_by": None, "outcome": "abstained", "seconds": 40.0}

    monkeypatch.setattr(bank_bench, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(bank_bench, "_ingested", ingested)
    monkeypatch.setattr(bank_bench, "_product_full", answered)
    monkeypatch.setattr(bank_bench, "figures", lambda rows, side: {})
    monkeypatch.setattr(bank_bench, "report_figures", lambda rows: {})
    runtime = SimpleNamespace(settings=None, ledger=SimpleNamespace(records=[]))
    bounded = bank_bench.run(runtime, bench_data, limit=6, baseline=False, minutes=2.0)
    assert (bounded["questions"], bounded["unasked"]) == (3, 3)  # started at 0, 40 and 80 s
    assert ingests == list(dict.fromkeys(row["contract_id"] for row in bounded["rows"]))  # none after
    ingests.clear()
    whole = bank_bench.run(runtime, bench_data, limit=6, baseline=False)
    assert (whole["questions"], whole["unasked"]) == (6, 0)


def test_a_quick_row_keeps_why_the_decider_left_a_question_unclear() -> None:
    """The JSON of a quick run says which step refused a verdict, so an experiment on the deciders
    (such as the model breaking the presence classifier's ties) can be read from its rows."""
    from types import SimpleNamespace

    from clausewise.core.results import Decision
    from clausewise_lab.evals import bank_bench

    why = "the provision classifier is not confident either way; the model's answer did not stand"
    decider = SimpleNamespace(
        decide=lambda text: Decision(question=text, form="verdict", verdict="unclear", rationale=why)
    )
    row = bank_bench._product_quick(decider, question("yes/no", "no"))
    assert row["outcome"] == "abstained"
    assert row["rationale"] == why
    undecided = bank_bench._product_quick(SimpleNamespace(decide=lambda text: None), question("yes/no", "no"))
    assert undecided["rationale"] == ""
