"""The question router: how its heads' probabilities become a route, its shipped files checked,
and the shipped router with the real embedder on wordings that are neither the phrasing set's
nor the provision lists' own examples."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from clausewise.core.errors import ModelIntegrityError
from tools.decision.catalogue import known_provisions
from tools.decision.routing import (
    ClassifierRouter,
    RouterHead,
    RouterModel,
    conditions_against,
    question_grams,
    read_router,
    shipped_router_dir,
)

HEAD = RouterHead(
    ("cuad:anti-assignment", "cuad:non-compete", "none"), route_at=0.6, detail_at=0.8, polarity_band=0.3
)


def test_the_top_route_is_taken_only_when_sure_and_not_a_detail() -> None:
    assert HEAD.decide(np.array([0.7, 0.2, 0.1]), absent=0.1, detail=0.1) == (
        "cuad:anti-assignment",
        "present",
    )
    assert HEAD.decide(np.array([0.5, 0.3, 0.2]), absent=0.1, detail=0.1) == ("", None)  # not sure enough
    assert HEAD.decide(np.array([0.2, 0.1, 0.7]), absent=0.1, detail=0.1) == ("", None)  # "none" wins
    assert HEAD.decide(np.array([0.9, 0.05, 0.05]), absent=0.1, detail=0.85) == ("", None)  # a detail


def test_the_way_round_is_unsure_inside_the_polarity_band() -> None:
    assert HEAD.decide(np.array([0.1, 0.8, 0.1]), absent=0.95, detail=0.0) == ("cuad:non-compete", "absent")
    assert HEAD.decide(np.array([0.1, 0.8, 0.1]), absent=0.6, detail=0.0) == ("cuad:non-compete", "unsure")


def test_a_question_placed_nowhere_is_offered_its_likeliest_provisions_back() -> None:
    """Rule "ask back": at most two provisions at or above ask_at, most probable first, "none"
    never among them; nothing offered where a route is taken, for a detail, or by a router
    trained before the rule (no ask_at)."""
    head = RouterHead(
        ("cuad:anti-assignment", "cuad:non-compete", "cuad:exclusivity", "none"), 0.6, 0.8, 0.3, ask_at=0.2
    )
    assert head.offered(np.array([0.35, 0.4, 0.05, 0.2]), absent=0.1, detail=0.1) == [
        "cuad:non-compete",
        "cuad:anti-assignment",
    ]
    assert head.offered(np.array([0.25, 0.24, 0.21, 0.3]), absent=0.1, detail=0.1) == [
        "cuad:anti-assignment",
        "cuad:non-compete",
    ]  # three reach ask_at: two offered; "none" on top is no choice
    assert head.offered(np.array([0.1, 0.1, 0.1, 0.7]), absent=0.1, detail=0.1) == []  # none near enough
    assert head.offered(np.array([0.7, 0.2, 0.05, 0.05]), absent=0.1, detail=0.1) == []  # routed
    assert head.offered(np.array([0.45, 0.4, 0.05, 0.1]), absent=0.1, detail=0.9) == []  # a detail
    assert HEAD.offered(np.array([0.45, 0.4, 0.15]), absent=0.1, detail=0.1) == []  # no ask_at


def test_the_shipped_router_asks_back_only_below_its_route_threshold() -> None:
    config = json.loads((shipped_router_dir() / "config.json").read_text())
    assert config["ask_at"] is not None and 0 < config["ask_at"] < config["route_at"]


def test_abbreviations_are_read_by_their_letters() -> None:
    words, letters = question_grams("Any ROFR or non-compete?")
    assert "rofr" in words and "non compete" in words
    assert " rofr" in letters and "rofr " in letters  # the padded word's first and last letters


def test_british_and_american_spellings_read_alike() -> None:
    assert question_grams("Is the licence perpetual?") == question_grams("Is the license perpetual?")
    assert question_grams("Is it a favoured-customer clause?") == question_grams(
        "Is it a favored-customer clause?"
    )


def test_a_router_whose_head_was_altered_is_refused(tmp_path) -> None:
    copy = tmp_path / "router"
    shutil.copytree(shipped_router_dir(), copy)
    config = json.loads((copy / "config.json").read_text())
    config["sha256"] = "0" * 64
    (copy / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelIntegrityError):
        read_router(copy)


@pytest.fixture(scope="module")
def router(embedder) -> ClassifierRouter:
    return ClassifierRouter(known_provisions(), RouterModel(embedder))


@pytest.mark.real_models
@pytest.mark.parametrize(
    ("question", "provision"),
    [
        ("Does this contract contain a covenant not to compete?", "Non-Compete"),
        ("Can the customer audit the supplier's records?", "Audit Rights"),
        ("Does the customer have to carry insurance?", "Insurance"),
        ("Is the licence perpetual?", "Irrevocable or Perpetual License"),
        ("What is the effective date?", "Effective Date"),
        ("Which state's law applies to this contract?", "Governing Law"),
        ("How long is the warranty?", "Warranty Duration"),
    ],
)
def test_questions_in_other_words_find_their_provision(router, question, provision) -> None:
    found = router.route(question)
    assert found is not None and found.provision.name == provision and found.polarity == "present"


@pytest.mark.real_models
def test_a_question_asked_the_other_way_round_is_routed_absent(router) -> None:
    found = router.route("Is the supplier free to assign this agreement to anyone it likes?")
    assert found is not None and found.provision.name == "Anti-Assignment" and found.polarity != "present"


@pytest.mark.real_models
@pytest.mark.parametrize(
    "question",
    [
        "Can the agreement be signed in counterparts?",
        "Is interest charged on late payments?",
        "Are the parties independent contractors?",
        "Which courts hear disputes under this agreement?",
    ],
)
def test_questions_no_trained_decider_covers_go_nowhere(router, question) -> None:
    assert router.route(question) is None


@pytest.mark.real_models
def test_a_does_the_agreement_provide_question_finds_its_nda_topic(router) -> None:
    found = router.route(
        "Does the agreement provide that the recipient may share information with its employees?"
    )
    assert found is not None and found.provision.family == "nda" and "employees" in found.provision.hypothesis


@pytest.mark.real_models
@pytest.mark.parametrize(
    "question",
    [
        "Can either party terminate this agreement without notice?",
        "May the customer end the contract without notifying us?",
    ],
)
def test_a_question_that_drops_the_provisions_own_condition_goes_nowhere(router, question) -> None:
    """Rule "a dropped condition": termination for convenience is ending the contract by giving
    notice, so its decider does not settle whether one may end it without notice."""
    assert router.route(question) is None and router.options(question) == ()
    assert router.route("Can either party terminate this agreement for convenience?") is not None


@pytest.mark.real_models
def test_a_condition_the_provisions_own_examples_drop_is_still_routed(router) -> None:
    found = router.route("Can the supplier assign this agreement without our consent?")
    assert found is not None and found.provision.name == "Anti-Assignment"


def test_conditions_against_reads_the_provisions_texts_and_examples() -> None:
    provisions = {p.name: p for p in known_provisions()}
    t4c, assignment = provisions["Termination for Convenience"], provisions["Anti-Assignment"]
    assert conditions_against("Can we terminate without any prior notice?", t4c) == ["notice"]
    assert conditions_against("Can we terminate without cause?", t4c) == []  # its alias drops cause
    assert conditions_against("Can we assign it without consent?", assignment) == []
    assert conditions_against("Can we terminate on notice?", t4c) == []
