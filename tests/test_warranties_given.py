"""Rule "every warranty given" and rule "the subject warrants": a question about what the contract
warrants is planned from every sentence in which a party represents, warrants or guarantees, a
warranty's period, and its disclaimers, on the example services and supply agreements and on a
development agreement's representations."""

from __future__ import annotations

import pytest

from clausewise.core.config import StructureSettings
from tests.helpers import example_text, example_tree
from tools.parsing.text import document_from_text
from tools.party_roles import EACH, Party, warrantors
from tools.structure.sentences import clause_bodies
from tools.structure.tree_builder import build_tree
from tools.text_plans import EveryWarrantyGiven, plan_for
from tools.warranties_given import WARRANTIES_PER_PARTY, asks_warranties, warranties_given


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What warranties are given?", True),
        ("What representations and warranties does each party make?", True),
        ("What does the contract warrant, and are any warranties disclaimed?", True),
        ("Does the Supplier warrant the Products?", False),  # one warranty, yes or no: a decider's
        ("What are the payment terms?", False),
        ("How is liability limited?", False),
    ],
)
def test_a_question_about_the_warranties_is_recognised(question: str, asks: bool) -> None:
    assert asks_warranties(question) is asks
    assert isinstance(plan_for(question), EveryWarrantyGiven) is asks


@pytest.mark.parametrize(
    ("contract", "expected"),
    [
        ("services-agreement", [("Supplier", "The Supplier warrants that the Services will be performed")]),
        (
            "supply-agreement",
            [
                ("Supplier", "The Supplier warrants that the Products will conform"),
                ("disclaimer", "the Supplier makes no other warranty, express or implied"),
            ],
        ),
    ],
)
def test_every_warranty_is_gathered_with_its_part(contract: str, expected: list[tuple[str, str]]) -> None:
    text = example_text(contract)
    found = warranties_given(text)
    assert [
        (w.part, words in " ".join(text[w.span[0] : w.span[1]].split()))
        for w, (_, words) in zip(found, expected, strict=True)
    ] == [(part, True) for part, _ in expected]
    tree = example_tree(contract)
    planned = EveryWarrantyGiven().spans(text, tree)
    assert planned == [w.span for w in warranties_given(text, clause_bodies(text, tree))]
    assert all(any(a <= p[0] and p[1] <= b for a, b in (w.span for w in found)) for p in planned)


DEVELOPMENT = """DEVELOPMENT AGREEMENT

This Development Agreement is made between Document Security Systems, Inc. ("DSS") and HotApp
International Ltd ("Developer").

1. Services. Developer shall provide the development services. DSS shall pay Developer monthly.
Developer shall deliver the source code. DSS shall review each delivery.

7. DSS's Representations and Warranties.

7.1. Power and Authority. DSS represents and warrants that it has the right, power and authority to
enter into this Agreement.

7.2. Right to Technology. DSS represents and warrants to Developer that it owns the technology.

7.3. No Claims. DSS warrants that no claim has been made against the technology.

7.4. Filings. DSS represents that its filings are complete.

8. Developer's Representations, Warranties and Covenants.

8.1 Power and Authority. Developer represents and warrants that it has the right, power and
authority to enter into this Agreement.

8.2 Services. Developer warrants to DSS that its services will be performed in a workmanlike manner
for a period of ninety (90) days.

8.3 Reverse Engineering. Developer covenants that it shall not attempt to reverse engineer the
technology.

8.4 Warranty period. The warranty period for the deliverables is twelve (12) months from delivery.

9. Disclaimer. EXCEPT AS SET OUT ABOVE, NEITHER PARTY MAKES ANY OTHER REPRESENTATIONS OR WARRANTIES,
EXPRESS OR IMPLIED. Each party represents and warrants to the other party that this Agreement is
binding on it.
"""


def test_each_partys_warranties_come_grouped_and_bounded() -> None:
    """Every party's warranties are reached though one gives many: each keeps at most
    :data:`WARRANTIES_PER_PARTY` places, in the order the parties are named, "each party" last,
    then the warranty's period and the disclaimer; a covenant of conduct is a duty, no warranty."""
    tree = build_tree(document_from_text(DEVELOPMENT, "development.txt"), StructureSettings())
    found = warranties_given(DEVELOPMENT, clause_bodies(DEVELOPMENT, tree))
    parts = [w.part for w in found]
    assert parts == ["DSS"] * WARRANTIES_PER_PARTY + ["Developer", "Developer", EACH, "term", "disclaimer"]
    quotes = [DEVELOPMENT[a:b] for a, b in (w.span for w in found)]
    assert not any("DSS represents that its filings" in q for q in quotes)  # DSS's fourth
    assert not any("covenants" in q for q in quotes)
    assert "The warranty period for the deliverables" in quotes[-2]


@pytest.mark.parametrize(
    ("sentence", "givers"),
    [
        ("CRO warrants to Client that the Services will be performed in a professional manner.", ("CRO",)),
        ("DSS hereby represents and warrants to Developer that it owns the technology.", ("DSS",)),
        ("Each party represents and warrants to the other party that it is duly organised.", (EACH,)),
        ("The Manufacturer further guarantees that the Products are packaged safely.", ("Manufacturer",)),
        ("The Manufacturer covenants that it is and will remain in compliance with all laws.", ()),
        ("This Agreement represents the entire agreement of the parties.", ()),
        ("Distributor shall not make any representations on behalf of the Company.", ()),
    ],
)
def test_the_subject_of_a_warranty_is_its_giver(sentence: str, givers: tuple[str, ...]) -> None:
    """Rule "the subject warrants" (:func:`tools.party_roles.warrantors`)."""
    parties = [
        Party(name, name, None)
        for name in ("CRO", "Client", "DSS", "Developer", "Manufacturer", "Distributor")
    ]
    assert warrantors(sentence, parties) == givers
