"""Rule "a party swapped": a claim that gives a party a duty or a right its sources give only to
another party is contradicted; checked on the example services and supply agreements."""

from __future__ import annotations

import pytest

from tests.helpers import example_line, example_text, quoted_source
from tools.claim_check import contradictions
from tools.party_roles import EACH, acts_of, contract_parties

SERVICES, SUPPLY = "services-agreement", "supply-agreement"


def parties_of(contract: str):
    return contract_parties(example_text(contract))


def test_acts_name_the_party_the_role_and_the_verb() -> None:
    parties = parties_of(SERVICES)
    acts = acts_of("The Customer may terminate this Agreement; the Supplier shall not subcontract.", parties)
    assert [(a.party, a.role, a.verb) for a in acts] == [
        ("Customer", "right", "terminate"),
        ("Supplier", "duty", "subcontract"),
    ]
    assert acts_of("Either Party may terminate this Agreement.", parties)[0].party == EACH


@pytest.mark.parametrize(
    ("contract", "opening", "claim", "contradicted"),
    [
        (SERVICES, "Section 4.2", "The Supplier may terminate the Agreement for convenience [1].", True),
        (SERVICES, "Section 4.2", "The Customer may terminate the Agreement for convenience [1].", False),
        (SUPPLY, "3.2", "The Supplier shall pay each undisputed invoice within 45 days [1].", True),
        (
            SUPPLY,
            "3.2",
            "The Buyer shall pay each undisputed invoice within forty-five (45) days [1].",
            False,
        ),
        # "either party" in the source covers each of them
        (SUPPLY, "4.2", "The Buyer may terminate for a material breach left unremedied [1].", False),
        # an act the source does not give anyone is not this rule's to judge
        (SUPPLY, "3.2", "The Supplier shall deliver the Products [1].", False),
    ],
)
def test_a_duty_or_right_moved_to_the_other_party_is_contradicted(
    contract: str, opening: str, claim: str, contradicted: bool
) -> None:
    source = quoted_source(1, example_line(contract, opening), 0, node_id="1.1")
    found = contradictions([claim], [source], "What may each party do?", parties=parties_of(contract))
    assert bool(found) == contradicted
    if contradicted:
        assert "what the source gives" in found[0].reason
        assert contradictions([claim], [source], "q") == []  # without the parties the rule reads nothing


DEVELOPMENT = (
    "This Technology Development Agreement is made between Document Security Systems, Inc., a New York "
    'corporation ("DSS"), and HF Enterprises Inc., a Delaware corporation ("Developer").\n\n'
    "1.1 DSS hereby grants to Developer a non-exclusive, limited and non-transferable license to use the "
    "Technology for the sole purpose of developing the Improvements.\n\n"
    "1.2 DSS shall pay Developer the sum of US $23,000 per month for the Term.\n\n"
    "2.1 Developer shall deliver the Improvements to DSS. Developer shall keep the Technology secret.\n\n"
    "2.2 DSS may terminate this Agreement on thirty (30) days' notice."
)


@pytest.mark.parametrize(
    ("text", "opening", "claim", "contradicted"),
    [
        # a role word the writer supplied for a party the contract calls by its acronym
        (DEVELOPMENT, "1.1", "The Supplier grants the Developer a non-exclusive license [1].", True),
        (DEVELOPMENT, "1.1", "DSS grants the Developer a non-exclusive license [1].", False),
        # a role word of the other side for a contract whose parties are role words
        ("supply", "2.4", "The Licensor shall deliver the Products FCA the Supplier's facility [1].", True),
        ("supply", "2.4", "The Supplier shall deliver the Products FCA its facility [1].", False),
    ],
)
def test_a_party_the_contract_does_not_call_so_is_contradicted(
    text: str, opening: str, claim: str, contradicted: bool
) -> None:
    text = example_text(SUPPLY) if text == "supply" else text
    line = next(line for line in text.split("\n") if line.startswith(opening))
    source = quoted_source(1, line, 0, node_id="1.1")
    parties = contract_parties(text)
    assert len(parties) == 2
    found = contradictions([claim], [source], "What does each party do?", parties=parties)
    assert bool(found) == contradicted


@pytest.mark.parametrize(
    ("text", "opening", "claim", "contradicted"),
    [
        # the writer's "Supplier" for a contract of DSS and a Developer, on a source with no such act
        (DEVELOPMENT, "1.1", "The Supplier may terminate this Agreement early [1].", True),
        (DEVELOPMENT, "2.2", "DSS may terminate this Agreement on thirty days' notice [1].", False),
        ("supply", "3.2", "The Licensor may terminate this Agreement early [1].", True),
        ("supply", "3.2", "The Supplier shall deliver the Products [1].", False),  # a party, not this rule's
    ],
)
def test_a_party_the_contract_does_not_have_is_contradicted(
    text: str, opening: str, claim: str, contradicted: bool
) -> None:
    """Rule "a party the contract does not have": a role word neither the contract's parties are
    called by nor the cited source uses is a party the writer made up."""
    text = example_text(SUPPLY) if text == "supply" else text
    line = next(line for line in text.split("\n") if line.startswith(opening))
    found = contradictions(
        [claim], [quoted_source(1, line, 0, node_id="1.1")], "q", parties=contract_parties(text)
    )
    assert bool(found) == contradicted
    if contradicted:
        assert "neither the contract's parties nor its source" in found[0].reason
