"""The lab's evaluation data are data files with a schema: each reads and checks; a file that
breaks its schema is refused naming the file and the place (a wording without its register, a
provision with fifteen wordings, a hand mark that ends before it starts, a kind no one defined)."""

from __future__ import annotations

import pytest

from clausewise_lab.evals.data_files import (
    BankPhrasings,
    DataFileError,
    OpenBankFile,
    RoutingPhrasings,
    bank_phrasings,
    data_file,
    open_bank_file,
    parse_data,
    routing_phrasings,
)


def test_every_data_file_reads_and_says_where_it_came_from() -> None:
    routing, bank, marks = routing_phrasings(), bank_phrasings(), open_bank_file()
    assert len(routing.routes) == 58 and routing.outside and routing.qualified
    assert len(bank.yes_no) == 41 and bank.values and bank.both
    assert len(marks.kinds) >= 12 and marks.contracts
    for name in ("routing-phrasings.yaml", "bank-phrasings.yaml", "open-bank.yaml"):
        header = data_file(name).read_text(encoding="utf-8").split("\nformat:", 1)[0]
        assert "Provenance:" in header, name


def _broken(name: str, old: str, new: str) -> str:
    text = data_file(name).read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("name", "model", "old", "new", "said"),
    [
        (
            "routing-phrasings.yaml",
            RoutingPhrasings,
            "  - ['What''s this contract called?', client, present, value]\n",
            "",
            "has 15 wordings, not 16",
        ),
        (
            "routing-phrasings.yaml",
            RoutingPhrasings,
            "['Is this titled as an MSA?', abbreviation, present, yes/no]",
            "['Is this titled as an MSA?', acronym, present, yes/no]",
            "routes.cuad:Document Name",
        ),
        ("bank-phrasings.yaml", BankPhrasings, "reading: law", "reading: place", "values.Governing Law"),
        ("open-bank.yaml", OpenBankFile, "{start: 7043, end: 7519", "{start: 7519, end: 7043", "ends after"),
        ("open-bank.yaml", OpenBankFile, "      payment:\n", "      payments:\n", "unknown kind payments"),
    ],
    ids=["fifteen wordings", "unknown register", "unknown reading", "mark ends first", "unknown kind"],
)
def test_a_file_that_breaks_its_schema_is_refused_naming_the_place(name, model, old, new, said) -> None:
    with pytest.raises(DataFileError) as refused:
        parse_data(name, _broken(name, old, new), model)
    assert name in str(refused.value) and said in str(refused.value)
