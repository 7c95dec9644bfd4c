"""Whose side a clause is on (tools/party_roles.py): the parties and their sides on the two example
commercial contracts, and each rule on clauses of both; then ``clausewise eval parties``'s scoring
with scripted readers, so that the scorer is checked apart from what it scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.party_roles import EACH, ClauseRoles, Party, clause_roles, contract_parties, side_of

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def supply() -> tuple[str, list[Party]]:
    text = (EXAMPLES / "supply-agreement.txt").read_text(encoding="utf-8")
    return text, contract_parties(text)


@pytest.fixture(scope="module")
def services() -> tuple[str, list[Party]]:
    text = (EXAMPLES / "services-agreement.txt").read_text(encoding="utf-8")
    return text, contract_parties(text)


def _clause(text: str, start: str) -> str:
    line = next(line for line in text.splitlines() if line.strip().startswith(start))
    return line.strip()


def test_the_parties_and_their_sides_by_role_words(supply, services) -> None:
    assert [(p.term, p.side) for p in supply[1]] == [("Buyer", "customer"), ("Supplier", "supplier")]
    assert [(p.term, p.side) for p in services[1]] == [("Customer", "customer"), ("Supplier", "supplier")]
    assert supply[1][0].name == "Larkfield Foods Inc."
    assert (side_of("Service Provider"), side_of("Licensee"), side_of("Company")) == (
        "supplier",
        "customer",
        None,
    )


@pytest.mark.parametrize(
    ("contract", "clause", "binds", "benefits"),
    [
        ("supply", "3.3 Late delivery", ("Supplier",), ("Buyer",)),  # the subject binds, the paid benefits
        ("supply", "7.3 Insurance", ("Supplier",), ("Buyer",)),  # the other party benefits
        ("supply", "2.2 Exclusive purchasing", ("Buyer",), ("Supplier",)),  # "any other supplier" is no party
        ("supply", "8.1 Assignment", (EACH,), (EACH,)),
        ("supply", "7.1 Limitation of liability", (EACH,), (EACH,)),  # each party's liability limited
        ("services", "Section 4.2 Termination for convenience", ("Supplier",), ("Customer",)),  # a right
        ("services", "Section 11.3 Assignment", (EACH,), (EACH,)),
        ("services", "Section 9.1", (EACH,), (EACH,)),
    ],
)
def test_each_rule_on_both_contracts(request, contract, clause, binds, benefits) -> None:
    text, parties = request.getfixturevalue(contract)
    assert clause_roles(_clause(text, clause), parties) == ClauseRoles(binds, benefits)


def test_liability_excused_and_sentences_in_capitals(supply, services) -> None:
    for _text, parties in (supply, services):
        supplier = next(p.label for p in parties if p.side == "supplier")
        customer = next(p.label for p in parties if p.side == "customer")
        excused = clause_roles(f"The {supplier} shall not be liable for any indirect loss.", parties)
        assert excused == ClauseRoles((customer,), (supplier,))
        capitals = clause_roles("NEITHER PARTY SHALL BE LIABLE FOR LOST PROFITS.", parties)
        assert capitals == ClauseRoles((EACH,), (EACH,))
        assert clause_roles("All rights granted herein are not assignable.", parties) == ClauseRoles((), ())


def test_the_benchmark_scores_what_scripted_readers_say(bench_data: Path) -> None:
    """A reader that finds no party and calls every clause mutual is right exactly where the labels
    say each party is bound and benefits, and finds no party."""
    from clausewise_lab.evals import parties_bench

    results = parties_bench.run(
        bench_data,
        "tune",
        parties_of=lambda text: [],
        roles_of=lambda clause, parties: ClauseRoles((EACH,), (EACH,)),
        side_of=lambda party: party.side,
        label_of=lambda party: party.label,
    )
    rows = results["rows"]
    mutual = sum(r["gold_binds"] == [EACH] and r["gold_benefits"] == [EACH] for r in rows)
    assert results["clauses"] == len(rows) > 200 and results["contracts"] == 20
    assert results["both_right"] == pytest.approx(mutual / len(rows), abs=1e-4)
    assert results["binds_right"] == pytest.approx(
        sum(r["gold_binds"] == [EACH] for r in rows) / len(rows), abs=1e-4
    )
    assert results["parties_found"] == 0.0
