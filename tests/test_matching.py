"""Questions tied to known provisions: the rules of the matcher on their own, and the shipped
catalogue with the real embedder on wordings that are not the question bank's."""

from __future__ import annotations

import pytest

from tools.decision.catalogue import known_provisions
from tools.decision.matching import (
    KnownProvision,
    ProvisionMatcher,
    negated_words,
    shares_a_word,
    unmatched_qualifiers,
)

CONVENIENCE = KnownProvision(
    key="cuad:tfc",
    family="cuad",
    name="Termination for Convenience",
    texts=(
        "Termination for Convenience",
        "A party may terminate without cause, for any reason, by giving notice.",
    ),
)
COVENANT = KnownProvision(
    key="cuad:cns",
    family="cuad",
    name="Covenant Not to Sue",
    texts=(
        "Covenant Not to Sue",
        "A party agrees not to challenge or contest the validity of the other's IP.",
    ),
)


def test_a_negation_the_provision_does_not_share_is_an_unmatched_qualifier() -> None:
    assert negated_words("Can either party terminate without notice?") == {"notice"}
    assert unmatched_qualifiers("Can either party terminate without notice?", CONVENIENCE) == {"notice"}
    assert unmatched_qualifiers("Can either party terminate without cause?", CONVENIENCE) == set()
    assert unmatched_qualifiers("Does a party agree not to contest the other's patents?", COVENANT) == set()
    assert unmatched_qualifiers("May the licensee not be sued for using the patents?", COVENANT) == {"sued"}


def test_only_a_distinctive_word_ties_a_question_to_a_provision() -> None:
    assert shares_a_word("Is there a right to end the contract at will?", CONVENIENCE) is False
    assert shares_a_word("Can the customer terminate for convenience?", CONVENIENCE) is True
    # "agreement", "party" and "clause" are every provision's words
    assert shares_a_word("Is there a clause about the agreement's parties?", COVENANT) is False


@pytest.fixture(scope="module")
def matcher(embedder) -> ProvisionMatcher:
    return ProvisionMatcher(known_provisions(), embedder, match_at=0.55, near=0.03)


@pytest.mark.parametrize(
    ("question", "provision"),
    [
        ("Does this contract contain a covenant not to compete?", "Non-Compete"),
        ("Can the customer audit the supplier's records?", "Audit Rights"),
        ("Is the supplier's liability limited?", "Cap on Liability"),
        ("Does the customer have to carry insurance?", "Insurance"),
        ("Can either party terminate without cause?", "Termination for Convenience"),
        ("Is the licence perpetual?", "Irrevocable or Perpetual License"),
    ],
)
def test_yes_no_questions_in_other_words_find_their_provision(matcher, question, provision) -> None:
    found = matcher.match(question)
    assert found is not None and found.provision.name == provision


@pytest.mark.parametrize(
    ("question", "provision"),
    [
        ("What is the effective date?", "Effective Date"),  # a near tie with Agreement Date: named wins
        ("Which state's law applies to this contract?", "Governing Law"),
        ("How long is the warranty?", "Warranty Duration"),
    ],
)
def test_value_questions_find_the_provision_that_holds_the_value(matcher, question, provision) -> None:
    found = matcher.match(question, family="cuad", answer=True)
    assert found is not None and found.provision.name == provision


@pytest.mark.parametrize(
    "question",
    [
        "Can either party terminate without notice?",  # narrower than termination for convenience
        "Can the agreement be signed in counterparts?",
        "Is interest charged on late payments?",
        "Are the parties independent contractors?",
    ],
)
def test_questions_no_trained_decider_covers_are_not_matched(matcher, question) -> None:
    assert matcher.match(question) is None


def test_a_does_the_agreement_provide_question_finds_its_nda_hypothesis(matcher) -> None:
    found = matcher.match(
        "Does the agreement provide that the recipient may share information with its employees?"
    )
    assert found is not None and found.provision.family == "nda"
    assert "employees" in found.provision.hypothesis
