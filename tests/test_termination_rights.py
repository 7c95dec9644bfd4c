"""Rule "every ground to terminate" and rule "what follows the end is no ground": a question about
how the contract may be ended is planned from every sentence that grants, limits or triggers its
end, on the example services and supply agreements."""

from __future__ import annotations

import pytest

from tests.conftest import research_turn
from tests.helpers import example_text
from tools.party_roles import EACH
from tools.structure.sentences import clause_bodies
from tools.termination_rights import (
    BY_ITS_TERMS,
    GROUNDS,
    asks_termination_rights,
    is_a_ground,
    termination_rights,
)
from tools.text_plans import EveryGroundToTerminate, plan_for


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("How can this agreement be terminated?", True),
        ("What are the termination rights?", True),
        ("Can either party end this contract early, and how?", True),
        ("Under what circumstances may the Supplier terminate?", True),
        ("When can we cancel the contract?", True),
        ("Can the Buyer terminate for convenience?", False),  # one right: a decider's question
        ("What are the consequences of termination or expiry?", False),
        ("What happens at the end of the agreement?", False),
        ("What obligations survive termination?", False),
        ("What are the payment terms?", False),
    ],
)
def test_a_question_about_how_the_contract_ends_is_recognised(question: str, asks: bool) -> None:
    assert asks_termination_rights(question) is asks
    assert isinstance(plan_for(question), EveryGroundToTerminate) is asks


@pytest.mark.parametrize(
    ("contract", "grounds"),
    [
        (
            "services-agreement",
            [
                (BY_ITS_TERMS, "written notice of non-renewal at least ninety (90) days"),
                ("Customer", "The Customer may terminate this Agreement for convenience"),
                (EACH, "Either Party may terminate this Agreement with immediate effect"),
                ("Customer", "undergoes a Change of Control"),
                (BY_ITS_TERMS, "the other Party may terminate this Agreement on written notice"),
            ],
        ),
        (
            "supply-agreement",
            [
                (BY_ITS_TERMS, "written notice of non-renewal at least fifteen (15) days"),
                (EACH, "Either Party may terminate this Agreement by written notice if the other Party"),
            ],
        ),
    ],
)
def test_every_ground_to_terminate_is_gathered_in_the_contracts_order(
    contract: str, grounds: list[tuple[str, str]]
) -> None:
    text = example_text(contract)
    found = termination_rights(text)
    assert len(found) == len(grounds) <= GROUNDS
    for ground, (holder, words) in zip(found, grounds, strict=True):
        assert ground.holder == holder
        assert words in " ".join(text[ground.span[0] : ground.span[1]].split())
    assert [g.span for g in found] == sorted(g.span for g in found)


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_what_follows_the_end_is_no_ground(contract: str) -> None:
    """Rule "what follows the end is no ground": "Upon termination, the Supplier shall ..." and
    "... shall terminate upon the termination of this Agreement" say what the end does."""
    text = example_text(contract)
    consequences = (
        "\n\nUpon termination of this Agreement for any reason, each Party shall return the other "
        "Party's Confidential Information.\n\nAll licences granted under this Agreement shall terminate "
        "upon the expiration or termination of this Agreement.\n"
    )
    assert not is_a_ground(consequences.split("\n\n")[1]) and not is_a_ground(consequences.split("\n\n")[2])
    with_consequences = text + consequences
    assert [g.holder for g in termination_rights(with_consequences)] == [
        g.holder for g in termination_rights(text)
    ]


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_only_the_contract_itself_ending_is_a_ground(contract: str) -> None:
    """Rule "the contract itself ends": ending a sublicence or one purchase order is no way to end
    the contract (a trademark licence's "any such sublicense shall terminate automatically")."""
    text = example_text(contract)
    others = (
        "Any such sublicense shall terminate automatically if the sublicensee ceases to be an affiliate.",
        "Either Party may terminate any Purchase Order on written notice before it is accepted.",
    )
    assert not any(is_a_ground(sentence) for sentence in others)
    with_others = text + "\n\n" + "\n\n".join(others) + "\n"
    assert len(termination_rights(with_others)) == len(termination_rights(text))


def test_a_limit_on_the_right_to_terminate_is_a_ground() -> None:
    """ "may not terminate" tells the reader when the contract cannot be ended: part of the answer."""
    assert is_a_ground("Neither party may terminate this Agreement during the Initial Term save under 4(b).")
    assert is_a_ground("Client which may, at its sole discretion, immediately terminate this Agreement.")


def test_a_termination_question_is_answered_by_the_plan_without_a_model(unanswering_researcher) -> None:
    index, researcher, answerer = unanswering_researcher
    result = research_turn(researcher, "How can this agreement be terminated?")
    grounds = termination_rights(index.document.text, clause_bodies(index.document.text, index.tree))
    planned = [h.span for h in result.hits if h.signals.get("planned")]
    assert planned == [g.span for g in grounds] and len(planned) == 5
    cited = [c.span for c in result.citations]
    assert all(any(c[0] <= g[0] and g[1] <= c[1] for c in cited) for g in planned)  # lead-ins widened
    assert result.addressed and answerer.calls == []
    assert any("(a)" in c.quote for c in result.citations)  # "if the other Party:" with its list


@pytest.mark.parametrize(
    ("question", "verdict", "composed"),
    [
        ("Can either party end this contract early, and how?", None, True),  # no decider
        ("Can either party end this contract early, and how?", "unclear", True),
        # rule "a verdict shows what the contract says on it": settled, the plan is its account
        ("Can either party end this contract early, and how?", "yes", True),
        ("Can the Buyer terminate for convenience?", "unclear", False),  # no plan: the writer drafts
        ("What are the termination rights?", None, True),
        ("What are each party's main obligations?", None, True),
        # rule "a plan answers its open question": a value read for it is its short answer only
        ("What does the contract warrant, and are any warranties disclaimed?", "yes", True),
        ("How much is paid, and when?", "yes", True),
        ("Is the liability capped, and at what amount?", "yes", True),  # the liability plan's account
        ("How is liability limited?", "yes", True),  # planned: its subject's own sentences
        ("What insurance must the Supplier maintain?", "yes", False),  # an open question a decider answered
        ("Is either party's liability capped or excluded?", "unclear", True),  # yes or no alone, unsettled
        ("Is either party's liability capped or excluded?", "yes", True),
        ("Can this agreement be assigned?", "no", True),
        ("Can the Buyer terminate for convenience?", "yes", False),  # no plan: the writer explains
    ],
)
def test_a_planned_question_is_composed_settled_or_not(
    question: str, verdict: str | None, composed: bool
) -> None:
    """Rule "a planned question is composed": asked as yes or no with an account, it is answered
    from the plan's sentences, not drafted by the writer turn after turn; rule "a verdict shows
    what the contract says on it": settled, the plan's sentences are still its account."""
    from clausewise.core.config import InterrogationSettings
    from clausewise.core.results import Decision
    from graphs.routing import composes

    decision = None if verdict is None else Decision(question=question, form="verdict", verdict=verdict)
    assert composes({"question": question, "decision": decision}, InterrogationSettings()) is composed
