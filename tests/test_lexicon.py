"""Legal query expansion: trigger matching, the built-in lexicon, user lexicons, and its effect
on retrieval over the sample NDA."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise.core.domain import RetrievalQuery
from clausewise.core.errors import ConfigError
from tests.conftest import ingested_sample
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.lexicon import Concept, Lexicon, load_lexicon

DURATION = "How long must the Receiving Party keep the information confidential?"


def _lexicon(**concepts: tuple[list[str], list[str]]) -> Lexicon:
    return Lexicon(concepts={n: Concept(when=w, terms=t) for n, (w, t) in concepts.items()})


def test_triggers_match_whole_words_and_wildcard_endings() -> None:
    lexicon = _lexicon(
        termination=(["cancel*", "get out of"], ["terminate", "notice"]),
        payment=(["pay", "how much"], ["fee", "price"]),
    )
    assert lexicon.concepts_in("Can the customer CANCEL early?") == ["termination"]
    assert lexicon.concepts_in("What happens after cancellation?") == ["termination"]
    assert lexicon.concepts_in("How   much is due?") == ["payment"]  # any whitespace
    assert lexicon.concepts_in("Who decides the payload format?") == []  # "pay" is a whole word
    assert lexicon.concepts_in("Is there a pre-cancellation step?") == []  # hyphenated: another word
    both = lexicon.expansion("How much is owed on cancellation?")
    assert both == ["terminate", "notice", "fee", "price"]


def test_a_question_already_in_the_contracts_words_is_not_expanded() -> None:
    lexicon = _lexicon(termination=(["terminat*", "cancel*"], ["terminate", "notice"]))
    assert lexicon.concepts_in("Can I cancel?") == ["termination"]
    # "Terminates" and the term "terminate" share their stem: BM25 already finds those clauses
    assert lexicon.concepts_in("When it terminates, can I cancel?") == []
    assert lexicon.concepts_in("Is notice needed to cancel?") == []


def test_the_builtin_lexicon_maps_everyday_questions_to_contract_words() -> None:
    lexicon = load_lexicon("legal-terms")
    # "confidential" is already the contract's word: only the duration is asked in other words
    assert lexicon.concepts_in(DURATION) == ["duration"]
    assert {"survive", "years"} <= set(lexicon.expansion(DURATION))
    assert lexicon.concepts_in("Is the supplier excused during a pandemic?") == ["force_majeure"]
    assert lexicon.expansion("Please summarise the recitals.") == []


def test_the_builtin_lexicon_knows_deal_lawyers_names_for_merger_provisions() -> None:
    lexicon = load_lexicon("legal-terms")
    # merger agreements draft the "no-shop" as "No Solicitation" and never use the word itself
    assert lexicon.concepts_in("Where is the No-Shop Clause?") == ["no_shop"]
    assert "solicitation" in lexicon.expansion("Where is the No-Shop Clause?")
    assert "converted into the right to receive" in lexicon.expansion("What is the type of consideration?")
    assert lexicon.concepts_in("What about the fiduciary exception to the no-shop?") == [
        "no_shop",
        "fiduciary_out",
    ]


def test_a_user_lexicon_replaces_the_builtin_one_and_bad_ones_are_named(tmp_path: Path) -> None:
    mine = tmp_path / "firm.yaml"
    mine.write_text("concepts:\n  cure:\n    when: [fix*]\n    terms: [cure, remedy]\n", encoding="utf-8")
    assert load_lexicon(mine).expansion("Can a breach be fixed?") == ["cure", "remedy"]
    bad = tmp_path / "bad.yaml"
    bad.write_text("concepts:\n  cure:\n    when: []\n    terms: [cure]\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.yaml.*concepts\.cure\.when"):
        load_lexicon(bad)
    with pytest.raises(ConfigError, match="no playbook"):
        load_lexicon(tmp_path / "missing.yaml")


@pytest.fixture(scope="module")
def nda(tmp_path_factory: pytest.TempPathFactory, embedder):
    with ingested_sample(tmp_path_factory.mktemp("lexicon"), embedder) as ingested:
        yield ingested


def _rank_of_survival_clause(index, embedder, settings) -> int:
    retriever = ContractRetriever(index, embedder, settings)
    hits = retriever.search(RetrievalQuery(question=DURATION), 10, rerank=False, expand=False)
    text = index.document.text
    return next((i for i, h in enumerate(hits) if "survive" in text[h.span[0] : h.span[1]]), len(hits))


def test_expansion_lifts_the_clause_that_answers_in_other_words(nda, embedder) -> None:
    settings, index = nda
    plain = settings.retrieval.model_copy(update={"lexicon_weight": 0.0})
    expanded = settings.retrieval.model_copy(update={"lexicon_weight": 1.0})
    retriever = ContractRetriever(index, embedder, expanded)
    rankings = retriever.rankings(RetrievalQuery(question=DURATION))
    assert "lexicon" in rankings
    assert "lexicon" not in ContractRetriever(index, embedder, plain).rankings(
        RetrievalQuery(question=DURATION)
    )
    assert _rank_of_survival_clause(index, embedder, expanded) < _rank_of_survival_clause(
        index, embedder, plain
    )
