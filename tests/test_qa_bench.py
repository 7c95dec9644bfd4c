"""How ``eval qa`` scores one report: validity, and where gold evidence was cited or lost."""

from __future__ import annotations

from clausewise.core.report import Source
from clausewise_lab.evals.qa_bench import score_report
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
