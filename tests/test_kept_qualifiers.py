"""Rule "a restatement keeps its qualifiers", and the party rules that read a restatement's
parties wherever they stand: a restated sentence that drops or widens its source's condition or
scope, names a party the contract does not have, or has an act fall on the other party, is
contradicted; checked on the example NDA, services and supply agreements."""

from __future__ import annotations

import pytest

from tests.helpers import example_line, example_text, quoted_source
from tools.claim_check import contradictions
from tools.kept_qualifiers import added_condition, content_words, dropped_qualifier, qualifiers_of
from tools.party_roles import contract_parties

NDA, SERVICES, SUPPLY = "mutual-nda", "services-agreement", "supply-agreement"


def test_a_sentences_qualifiers_are_its_lead_in_and_its_scopes() -> None:
    line = example_line(SUPPLY, "4.3").removeprefix("4.3 Effects of termination. ")
    assert [q.text for q in qualifiers_of(line)] == ["On expiry or termination of this Agreement"]
    nda = example_line(NDA, "9.2")
    texts = [q.text for q in qualifiers_of(nda)]
    assert any(t.startswith("except that either Party may seek injunctive relief") for t in texts)
    # precedence over other clauses is no condition of the act
    assert qualifiers_of("Notwithstanding the foregoing, the Supplier shall deliver the Products.") == []
    # the next clause's number a span ran into is no word of the qualifier
    assert content_words("unless Company otherwise indicates in writing 3.02") >= {"company", "writing"}
    assert (
        dropped_qualifier(
            "Company shall ship, unless Company otherwise indicates in writing.",
            "Company shall ship, unless Company otherwise indicates in writing 3.02",
        )
        is None
    )


def _checked(contract: str, opening: str, claim: str) -> list:
    """The contradictions found in ``claim`` against the line of ``contract`` that ``opening`` opens."""
    source = quoted_source(1, example_line(contract, opening), 0, node_id="1.1")
    return contradictions([claim], [source], "What does the contract say?")


@pytest.mark.parametrize(
    ("contract", "opening", "claim", "contradicted"),
    [
        (
            SUPPLY,
            "4.3",
            "The Buyer shall pay for all Products delivered before the date of termination [1].",
            True,
        ),
        (
            SUPPLY,
            "4.3",
            "On expiry or termination of the Agreement, the Buyer must pay for all Products delivered before "
            "the date of termination [1].",
            False,
        ),
        (SUPPLY, "8.6", "No amendment of this Agreement is effective [1].", True),
        (
            SUPPLY,
            "8.6",
            "No amendment of this Agreement is effective unless in writing signed by both Parties [1].",
            False,
        ),
        (
            SERVICES,
            "Section 3.4",
            "The Customer may withhold payment of any amount that it disputes in good faith [1].",
            True,
        ),
        (
            SERVICES,
            "Section 3.4",
            "The Customer may withhold payment of any amount that it disputes in good faith, provided that "
            "it "
            "notifies the Supplier of the dispute and its reasons within fifteen (15) Business Days after "
            "receiving the invoice [1].",
            False,
        ),
        (
            NDA,
            "9.2",
            "The courts of England and Wales have exclusive jurisdiction over any dispute arising out of "
            "or in "
            "connection with this Agreement [1].",
            True,
        ),
        (
            NDA,
            "2.3",
            "The Receiving Party may disclose Confidential Information, provided that, to the extent "
            "permitted by "
            "law, it gives notice [1].",
            True,
        ),
    ],
)
def test_a_restatement_that_drops_a_condition_or_scope_is_contradicted(
    contract: str, opening: str, claim: str, contradicted: bool
) -> None:
    found = _checked(contract, opening, claim)
    assert bool(found) == contradicted
    if contradicted:
        assert "makes it depend on" in found[0].reason


@pytest.mark.parametrize(
    ("contract", "opening", "claim", "contradicted"),
    [
        (
            SUPPLY,
            "3.3",
            "If the Supplier delivers defective Products or delivers Products more than ten (10) days "
            "after the "
            "agreed delivery date, the Supplier shall pay the Buyer, as liquidated damages, two percent "
            "(2%) of "
            "the price of the late Products for each week of delay [1].",
            True,
        ),
        (
            NDA,
            "2.3",
            "If the Receiving Party is required or requested by law, regulation or order of a competent "
            "court to "
            "disclose any Confidential Information, it may do so, provided that, to the extent permitted "
            "by law, "
            "it gives notice [1].",
            True,
        ),
        (
            NDA,
            "2.3",
            "If the Receiving Party is required by law, regulation or court order to disclose Confidential "
            "Information, it may do so, provided that, to the extent permitted by law, it gives notice [1].",
            False,
        ),
    ],
)
def test_a_restatement_that_widens_its_condition_is_contradicted(
    contract: str, opening: str, claim: str, contradicted: bool
) -> None:
    found = _checked(contract, opening, claim)
    assert bool(found) == contradicted
    if contradicted:
        assert "adds a condition" in found[0].reason
        assert added_condition(claim, example_line(contract, opening))


DEVELOPMENT = (
    "This Technology Development Agreement is made between Document Security Systems, Inc., a New York "
    'corporation ("DSS"), and HF Enterprises Inc., a Delaware corporation ("Developer").\n\n'
    "1.1 DSS hereby grants to Developer a non-exclusive license to use the Technology.\n\n"
    "1.2 DSS shall own all right, title and interest in the Improvements.\n\n"
    "2.1 Developer shall deliver the Improvements to DSS. Developer shall keep the Technology secret.\n\n"
    "2.2 DSS may terminate this Agreement on thirty (30) days' notice."
)


@pytest.mark.parametrize(
    ("text", "opening", "claim", "contradicted"),
    [
        (DEVELOPMENT, "1.2", "The Improvements are owned by the Supplier [1].", True),
        (DEVELOPMENT, "1.2", "The Improvements are owned by DSS [1].", False),
        ("supply", "2.4", "The Products are delivered to the Licensee at the Supplier's facility [1].", True),
        ("supply", "2.4", "The Products are delivered by the Supplier at its facility [1].", False),
    ],
)
def test_a_party_the_contract_does_not_have_is_contradicted_wherever_it_stands(
    text: str, opening: str, claim: str, contradicted: bool
) -> None:
    """Rule "a party the contract does not have", read beyond the acts: a passive sentence names
    its party after "by" or "to", where no act has it as its subject."""
    text = example_text(SUPPLY) if text == "supply" else text
    line = next(line for line in text.split("\n") if line.startswith(opening))
    parties = contract_parties(text)
    assert len(parties) == 2
    found = contradictions([claim], [quoted_source(1, line, 0)], "Who owns it?", parties=parties)
    assert bool(found) == contradicted
    if contradicted:
        assert "neither the contract's parties nor its source" in found[0].reason


@pytest.mark.parametrize(
    ("contract", "opening", "claim", "contradicted"),
    [
        (
            SUPPLY,
            "3.3",
            "If the Supplier delivers Products more than ten (10) days after the agreed delivery date, it "
            "shall pay "
            "the Supplier, as liquidated damages and not as a penalty, two percent (2%) of the price [1].",
            True,
        ),
        (
            SUPPLY,
            "3.3",
            "If the Supplier delivers Products more than ten (10) days after the agreed delivery date, it "
            "shall pay "
            "the Buyer, as liquidated damages and not as a penalty, two percent (2%) of the price [1].",
            False,
        ),
        (
            SERVICES,
            "Section 3.4",
            "The Customer may withhold payment of any amount that it disputes in good faith, provided that "
            "it "
            "notifies the Customer of the dispute and its reasons within fifteen (15) Business Days after "
            "receiving the invoice [1].",
            True,
        ),
    ],
)
def test_an_act_that_falls_on_the_other_party_is_contradicted(
    contract: str, opening: str, claim: str, contradicted: bool
) -> None:
    """Rule "a party swapped", of the party acted on ("pay the Supplier" restating "pay the Buyer")."""
    source = quoted_source(1, example_line(contract, opening), 0)
    parties = contract_parties(example_text(contract))
    found = contradictions([claim], [source], "Who pays whom?", parties=parties)
    assert bool(found) == contradicted
    if contradicted:
        assert "fall on" in found[0].reason


@pytest.mark.parametrize(
    ("contract", "item", "lead_in", "claim"),
    [
        (
            SERVICES,
            "the Supplier shall, at the Customer's option, return or delete all Customer Data",
            "On expiry or termination of this Agreement for any reason:",
            "The Supplier shall, at the Customer's option, return or delete all Customer Data within thirty "
            "(30) days [1].",
        ),
        (
            NDA,
            "gives the Disclosing Party prompt written notice of the requirement;",
            "If the Receiving Party is required by law, regulation or order of a competent court to disclose "
            "any Confidential Information, it may do so, provided that, to the extent permitted by law, it:",
            "The Receiving Party gives the Disclosing Party prompt written notice of the requirement [1].",
        ),
    ],
)
def test_a_list_item_is_read_under_its_lead_in(contract: str, item: str, lead_in: str, claim: str) -> None:
    """Rule "a list item is read under its lead-in": the item's condition is its lead-in's; a
    restatement of the item without it is contradicted, and the quoted item is shown after it."""
    from agents.finishing import filled_answer
    from tools.list_lead_ins import lead_in_of

    text = example_text(contract)
    start = text.index(item)
    end = text.index("\n", start)
    assert lead_in_of(text, (start, end)) == lead_in
    assert lead_in_of(text, (text.index(lead_in[:20]), start)) is None  # the lead-in is no item
    source = quoted_source(1, text[start:end], start)
    assert contradictions([claim], [source], "What happens?") == []  # the item alone holds it
    found = contradictions([claim], [source], "What happens?", lead_ins={1: lead_in})
    assert found and "makes it depend on" in found[0].reason
    condition = lead_in.split(", it may")[0].removesuffix(":")  # the lead-in's condition, whole
    kept = f"{condition}, {claim[0].lower()}{claim[1:]}"
    assert contradictions([kept], [source], "What happens?", lead_ins={1: lead_in}) == []
    (line,) = filled_answer([source], "What happens?", lead_ins={1: lead_in})
    assert f'after "{lead_in}", the contract provides: "{text[start:end].strip()}" [1].' in line
