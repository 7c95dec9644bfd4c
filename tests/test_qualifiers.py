"""Rule "a dropped condition": a restatement that does without a condition its source imposes is
a contradiction, checked on the example services agreement, NDA and supply agreement."""

from __future__ import annotations

import pytest

from tests.helpers import example_line, quoted_source
from tools.claim_check import contradictions
from tools.qualifiers import contradicted_conditions, dropped_conditions, imposes


@pytest.mark.parametrize(
    ("text", "dropped"),
    [
        ("Either party may terminate without giving any prior written notice.", {"notice"}),
        ("Can we end it without notifying them?", {"notice"}),
        ("The Customer may assign without the Supplier's consent.", {"consent"}),
        ("No prior written notice is required.", {"notice"}),
        ("Neither Party may assign this Agreement without the prior written consent of the other.", set()),
        ("The Supplier shall not subcontract without consent; it may terminate without cause.", {"cause"}),
        ("including, without limitation, fees and costs", set()),
        ("The Customer may terminate on thirty (30) days' notice.", set()),
    ],
)
def test_dropped_conditions_read_the_act_and_whether_it_is_forbidden(text: str, dropped: set[str]) -> None:
    assert dropped_conditions(text) == dropped


def test_a_source_imposes_what_it_names_and_never_does_without() -> None:
    services_t4c = example_line("services-agreement", "Section 4.2")
    assert imposes(services_t4c, "notice") and not imposes(services_t4c, "consent")
    assert imposes(example_line("supply-agreement", "8.1"), "consent")  # "may not assign ... without consent"
    assert not imposes("Either party may terminate without notice.", "notice")


SERVICES, NDA, SUPPLY = "services-agreement", "mutual-nda", "supply-agreement"


@pytest.mark.parametrize(
    ("contract", "opening", "claim", "contradicted"),
    [
        # the services agreement's termination for convenience needs sixty days' notice
        (SERVICES, "Section 4.2", "The Customer may terminate without notice [1].", True),
        (SERVICES, "Section 4.2", "The Customer may terminate on sixty (60) days' notice [1].", False),
        (SERVICES, "Section 4.2", "The Customer may terminate without paying a fee [1].", True),
        # the NDA ends early only on thirty days' written notice
        (NDA, "6.1", "Either Party may terminate the Agreement early without notice [1].", True),
        (NDA, "6.1", "Either Party may end it early on thirty (30) days' written notice [1].", False),
        # assignment needs consent in the NDA and the supply agreement
        (NDA, "9.4", "Either Party may assign this Agreement without consent [1].", True),
        (
            NDA,
            "9.4",
            "Neither Party may assign it without the other's prior written consent, except to an Affiliate "
            "that agrees in writing to be bound by it [1].",
            False,
        ),
        (SUPPLY, "8.1", "A Party may freely transfer the Agreement without the other's consent [1].", True),
    ],
)
def test_a_restatement_that_drops_its_sources_condition_is_contradicted(
    contract: str, opening: str, claim: str, contradicted: bool
) -> None:
    source = quoted_source(1, example_line(contract, opening), 0, node_id="1.1")
    found = contradictions([claim], [source], "Can a party terminate or assign this agreement?")
    assert bool(found) == contradicted
    if contradicted:
        condition = contradicted_conditions(claim, source.quote)[0]
        assert f"does without {condition}" in found[0].reason
