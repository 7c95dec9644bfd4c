"""Rule "each party's duties": a question about what each party must do is planned from the
contract's own sentences, grouped by party, on the example services and supply agreements."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import research_turn
from tests.helpers import ingested_example, scripted_researcher
from tools.party_duties import DUTIES_PER_PARTY, asks_each_partys_duties, is_a_main_duty, party_duties
from tools.structure.sentences import clause_bodies

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What are each party's main obligations?", True),
        ("What does each side have to do under this agreement?", True),
        ("Summarise the key duties of the parties.", True),
        ("What are the responsibilities of both parties?", True),
        ("What are the payment terms?", False),
        ("Does the Supplier have an obligation to insure?", False),  # one party's, one duty
        ("Can either party terminate?", False),
    ],
)
def test_a_question_about_what_each_party_must_do_is_recognised(question: str, asks: bool) -> None:
    assert asks_each_partys_duties(question) is asks


@pytest.mark.parametrize(
    ("contract", "parties", "first_duty"),
    [
        ("services-agreement", ["Customer", "Supplier"], "the Customer shall pay the Fees"),
        ("supply-agreement", ["Buyer", "Supplier"], "the Buyer shall purchase all of its requirements"),
    ],
)
def test_each_partys_first_duties_are_gathered_by_party(
    contract: str, parties: list[str], first_duty: str
) -> None:
    text = (EXAMPLES / f"{contract}.txt").read_text(encoding="utf-8")
    duties = party_duties(text)
    named = [d.party for d in duties]
    assert sorted(set(named)) == parties and named == sorted(named, key=named.index)  # grouped
    assert all(named.count(p) <= DUTIES_PER_PARTY for p in parties)
    for duty in duties:
        sentence = text[duty.span[0] : duty.span[1]]
        assert f"{duty.party} shall" in sentence or f"{duty.party} must" in sentence
    assert first_duty in " ".join(text[duties[0].span[0] : duties[0].span[1]].split())
    starts = [d.span[0] for d in duties if d.party == duties[0].party]
    assert starts == sorted(starts)  # in the contract's order


def test_a_contract_binding_both_parties_alike_has_no_party_duties() -> None:
    text = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
    assert all(d.party not in ("each", "") for d in party_duties(text))


def test_a_duties_question_is_answered_by_the_plan_without_a_model(unanswering_researcher) -> None:
    index, researcher, answerer = unanswering_researcher
    result = research_turn(researcher, "What are each party's main obligations?")
    duties = party_duties(index.document.text, clause_bodies(index.document.text, index.tree))
    assert [h.span for h in result.hits[: len(duties)]] == [d.span for d in duties]
    assert [c.span for c in result.citations] == [d.span for d in duties]  # in order, by party
    assert all(
        c.attributed and c.quote == index.document.text[c.span[0] : c.span[1]] for c in result.citations
    )
    assert result.addressed and answerer.calls == []
    # a later turn that read them plans nothing more, and retrieval's passages are read again
    later = research_turn(
        researcher, "What are each party's main obligations?", read=[d.span for d in duties]
    )
    assert not any(h.signals.get("planned") for h in later.hits)


def test_other_questions_read_retrieval_alone(services_example, embedder) -> None:
    settings, index = services_example
    reply = {"answer": "Forty-five days.", "addressed": True, "citations": []}
    researcher, _ = scripted_researcher(settings, index, embedder, reply)
    result = research_turn(researcher, "What does the contract say about insurance?")
    assert not any(h.signals.get("planned") for h in result.hits)


@pytest.mark.parametrize(
    ("contract", "first_party"), [("services-agreement", "Customer"), ("supply-agreement", "Buyer")]
)
def test_recitals_are_no_duties(contract: str, first_party: str) -> None:
    """Rule "recitals are no duties": "WHEREAS, the Customer wishes to appoint the Supplier" reads
    as the Customer's duty to appoint (its verb), but it is the background."""
    text = (EXAMPLES / f"{contract}.txt").read_text(encoding="utf-8")
    recital = f"RECITALS\n\nWHEREAS, the {first_party} wishes to appoint the Supplier to supply it.\n\n"
    with_recital = text.replace("BACKGROUND\n\n", recital, 1)
    assert recital in with_recital
    spans = [(d.party, with_recital[d.span[0] : d.span[1]]) for d in party_duties(with_recital)]
    assert spans and not any("WHEREAS" in sentence for _, sentence in spans)
    assert [p for p, _ in spans] == [d.party for d in party_duties(text)]


@pytest.mark.parametrize("contract", ["services-agreement.txt", "supply-agreement.txt"])
def test_a_duty_read_within_the_clause_tree_never_runs_into_the_next_heading(
    contract: str, tmp_path: Path, embedder
) -> None:
    """Read over the whole text, "The Buyer shall pay each undisputed invoice within forty-five
    (45) days of receipt, in US dollars." ran on into "3.3 Late delivery."; read within the tree's
    own texts, each duty lies inside one clause."""
    _, index = ingested_example(tmp_path, embedder, contract)
    try:
        units = clause_bodies(index.document.text, index.tree)
        duties = party_duties(index.document.text, units)
        assert duties
        assert all(any(a <= d.span[0] and d.span[1] <= b for a, b in units) for d in duties)
        # nor opens with its own clause's heading ("2.1 Supply. The Supplier shall ...")
        text = index.document.text
        assert not any(re.match(r"\d+(?:\.\d+)*\.?\s", text[d.span[0] : d.span[1]]) for d in duties)
    finally:
        index.close()


#: A distribution agreement written here: the Distributor's first duties are the ones every
#: contract carries (law, the other's marks, notice), its main duty to market comes later.
DISTRIBUTION = """DISTRIBUTION AGREEMENT

This Distribution Agreement is made between Northwind Foods Inc. (the "Company") and Harbour
Trading Ltd. (the "Distributor").

1. Appointment. The Company appoints the Distributor as its exclusive distributor in the Territory.

2. Conduct. The Distributor shall comply with all laws applicable to its business. The Distributor
shall not contest the Company's ownership of the Marks. The Distributor shall notify the Company of
any infringement of the Marks of which it becomes aware.

3. Sales. The Distributor shall use commercially reasonable efforts to market and promote the
Products in the Territory. The Distributor shall purchase at least 1,000 units in each quarter.

4. Supply. The Company shall supply the Products ordered by the Distributor within thirty (30) days.
The Company shall provide the Distributor with marketing materials at no charge.
"""


@pytest.mark.parametrize(
    ("contract", "party", "main", "passed_over"),
    [
        (
            "services-agreement",
            "Supplier",
            "the Supplier shall provide reasonable transition assistance",
            "The Supplier shall not subcontract",
        ),
        (
            "distribution",
            "Distributor",
            "The Distributor shall purchase at least 1,000 units",
            "The Distributor shall notify the Company",
        ),
    ],
)
def test_a_partys_main_duties_come_first(contract: str, party: str, main: str, passed_over: str) -> None:
    """Rule "a party's main duties come first": a party's duties to perform what the contract is
    for (supply, buy, market, provide) take its places before the duties every contract carries
    (comply with law, keep out of the other's rights, notify), and are shown in the contract's
    order."""
    text = (
        DISTRIBUTION
        if contract == "distribution"
        else (EXAMPLES / f"{contract}.txt").read_text(encoding="utf-8")
    )
    duties = [d for d in party_duties(text) if d.party == party]
    shown = [" ".join(text[d.span[0] : d.span[1]].split()) for d in duties]
    assert any(main in s for s in shown) and not any(passed_over in s for s in shown)
    assert [d.span for d in duties] == sorted(d.span for d in duties)
    assert is_a_main_duty(main) and not is_a_main_duty(passed_over + " any part of the Services.")
