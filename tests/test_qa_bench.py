"""How ``eval qa`` scores one report: validity, and where gold evidence was cited or lost."""

from __future__ import annotations

from clausewise.core.report import Source
from clausewise.evals.qa_bench import score_report
from tools.citations import QuoteVerifier

TEXT = (
    "The Supplier shall deliver the goods. Payment is due in thirty days. "
    "This Agreement is governed by English law."
)


def source(number: int, quote: str, start: int) -> Source:
    return Source(
        number=number, contract_id="c", node_id="n", pages=[1], span=(start, start + len(quote)), quote=quote
    )


def test_gold_spans_are_counted_as_cited_shown_and_both() -> None:
    delivery, payment, law = (TEXT.index(s) for s in ("The Supplier", "Payment", "This Agreement"))
    gold = [(delivery, payment - 1), (payment, law - 1), (law, len(TEXT))]
    sources = [
        source(1, "shall deliver the goods", TEXT.index("shall deliver")),
        source(2, "governed by French law", TEXT.index("governed by")),  # not the text at its span
    ]
    read = [(0, payment - 1), (payment + 3, payment + 10)]  # delivery and payment shown, law not

    counts = score_report(gold, sources, read, QuoteVerifier(TEXT))

    assert counts == {
        "sources": 2,
        "valid_sources": 1,
        "gold_spans": 3,
        "gold_spans_cited": 2,  # delivery (read) and law (cited without being read)
        "gold_spans_shown": 2,  # delivery and payment
        "gold_spans_shown_cited": 1,  # payment was read and not cited
    }


def test_a_value_answer_is_right_when_it_equals_a_gold_value_however_worded() -> None:
    from clausewise.evals.qa_bench import _gold_values, value_correct

    renewal = {
        "category": "Renewal Term",
        "gold_values": _gold_values("Renewal Term", ["for successive one (1) year terms"]),
    }
    assert renewal["gold_values"] == ["12 month"]
    assert value_correct(renewal, "twelve (12) months", "12 months")
    assert not value_correct(renewal, "two (2) years", "2 years") and not value_correct(renewal, "", "")
    law = {
        "category": "Governing Law",
        "gold_values": _gold_values("Governing Law", ["the laws of the State of Delaware"]),
    }
    assert value_correct(law, "governed by Delaware law", "delaware") and not value_correct(
        law, "laws of New York", ""
    )
    parties = {"category": "Parties", "gold_values": ["Acme Corp", "Beta LLC", "Acme"]}
    assert value_correct(parties, "Acme Corp and Beta LLC", "") and not value_correct(
        parties, "Gamma Inc", ""
    )


def test_verdicts_and_values_are_scored_per_class_and_per_category() -> None:
    from clausewise.evals.qa_bench import correctness

    def verdict(gold: str, said: str) -> dict:
        return {
            "gold_verdict": gold,
            "verdict": said,
            "decided_by": "hypothesis classifier",
            "contradicted_claims_shown": 0,
            "repaired_claims": 1,
            "removed_claims": 0,
        }

    rows = [
        verdict("yes", "yes"),
        verdict("no", "no"),
        verdict("no", "yes"),
        verdict("not addressed", "not addressed"),
    ]
    rows.append(
        {
            "gold_values": ["delaware"],
            "category": "Governing Law",
            "value_correct": False,
            "wrong_values_shown": 1,
            "contradicted_claims_shown": 1,
            "repaired_claims": 0,
            "removed_claims": 2,
        }
    )
    figures = correctness(rows)
    assert figures["verdict_accuracy"] == 0.75
    assert figures["contradiction_f1"] == round(2 * 1.0 * 0.5 / 1.5, 4)
    assert figures["verdict"]["per_class"]["Entailment"]["precision"] == 0.5
    assert (
        figures["value_accuracy"] == 0.0 and figures["value_accuracy_by_category"]["Governing Law"]["n"] == 1
    )
    assert (figures["contradicted_claims_shown"], figures["repaired_claims"], figures["removed_claims"]) == (
        1,
        4,
        2,
    )


def test_verdict_questions_take_a_third_of_each_label(bench_data) -> None:
    from clausewise.evals.qa_bench import verdict_questions

    items = verdict_questions(bench_data, 9, seed=3)
    assert sorted(i["gold_verdict"] for i in items).count("no") == 3 and len(items) == 9
    assert all(i["question"].startswith("Does the agreement provide that ") for i in items)
    assert all(i["gold"] == [] for i in items if i["gold_verdict"] == "not addressed")


def test_value_questions_state_a_readable_gold_value(bench_data) -> None:
    from clausewise.evals.qa_bench import VALUE_CATEGORIES, value_questions

    items = value_questions(bench_data, 12, seed=3)
    assert len(items) == 12 and all(i["gold_values"] for i in items)
    for item in items:
        assert item["question"] == VALUE_CATEGORIES[item["category"]][0]
        assert all(item["text"][a:b] for a, b in item["gold"])


def test_a_value_answer_is_scored_by_its_normalized_form_too() -> None:
    from clausewise.evals.qa_bench import value_correct

    law = {"category": "Governing Law", "gold_values": ["ohio"]}
    assert value_correct(law, "Ohio", "ohio") and not value_correct(law, "Texas", "texas")
    term = {"category": "Renewal Term", "gold_values": ["12 month"]}
    assert value_correct(term, "one (1) year", "1 year") and not value_correct(
        term, "sixty (60) days", "60 days"
    )
