"""Rule "a number read as a duration": a claim's duration whose number its source gives bare, with
no unit of time, is a misreading; checked on a redacted payment schedule (as CUAD's filings print
one) and on the example supply agreement's product schedule."""

from __future__ import annotations

import pytest

from tests.helpers import example_line, quoted_source
from tools.claim_check import contradictions

REDACTED_SCHEDULE = "Payment Period 3 $ *** Minimum Payment Period 4 $ *** Payment Period 5 $ ***"


@pytest.mark.parametrize(
    ("quote", "claim", "misread"),
    [
        (REDACTED_SCHEDULE, "The payment period is 3 months [1].", True),
        (
            REDACTED_SCHEDULE,
            "A minimum payment applies in payment period 4 [1].",
            False,
        ),  # no duration claimed
        (REDACTED_SCHEDULE, "Payments run for 7 months [1].", False),  # no bare 7: unsupported, not misread
        (
            "2. Corrugated shipping cases, 12 and 24 count.",
            "Shipping cases are supplied for 12 months [1].",
            True,
        ),
        ("2. Corrugated shipping cases, 12 and 24 count.", "Cases come in counts of 12 and 24 [1].", False),
    ],
)
def test_a_bare_number_read_as_a_duration_is_contradicted(quote: str, claim: str, misread: bool) -> None:
    quote = (
        example_line("supply-agreement", "2. Corrugated shipping cases")
        if quote == "supply schedule A"
        else quote
    )
    found = contradictions([claim], [quote_source(quote)], "What are the payment terms?")
    assert bool(found) == misread
    if misread:
        assert "with no unit of time" in found[0].reason


def test_a_source_stating_a_duration_is_left_to_the_value_check() -> None:
    source = quote_source("Each Payment Period is 3 months; the first starts on the Effective Date.")
    assert contradictions(["The payment period is 3 months [1]."], [source], "q") == []
    found = contradictions(["The payment period is 6 months [1]."], [source], "q")
    assert found and "with no unit of time" not in found[0].reason  # the value check's own reason


def quote_source(quote: str):
    return quoted_source(1, quote, 0, node_id="1.1")
