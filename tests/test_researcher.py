"""The Researcher with scripted models: planning, cited answers, quote verification."""

from __future__ import annotations

import json

import pytest

from agents.researcher import Researcher
from clausewise.core.config import with_overrides
from clausewise.core.domain import RetrievalQuery
from clausewise.core.results import QueryPlan
from clausewise.retrieval import retrieve
from tests.conftest import research_turn
from tests.fakes import ScriptedChatModel
from tests.helpers import ingested_example
from tools.retrieval.contract_retriever import ContractRetriever
from tools.retrieval.query_plan import default_plan


@pytest.fixture(scope="module")
def nda(tmp_path_factory: pytest.TempPathFactory, embedder):
    settings, index = ingested_example(tmp_path_factory.mktemp("researcher"), embedder, "mutual-nda.txt")
    yield settings, index
    index.close()


def _researcher(settings, index, embedder, rewriter=None, answerer=None) -> Researcher:
    retriever = ContractRetriever(index, embedder, settings.retrieval)
    return Researcher(settings, index, retriever, rewriter=rewriter, answerer=answerer)


def test_default_plan_keeps_terms_and_content_words() -> None:
    plan = default_plan(
        'How long must the Receiving Party keep "Confidential Information" secret?',
        ["Receiving Party", "Confidential Information", "Purpose"],
    )
    assert plan.keywords[:2] == ["Confidential Information", "Receiving Party"]
    assert "long" in plan.keywords and "how" not in [k.lower() for k in plan.keywords]
    assert plan.semantic_query.startswith("How long")


def test_rewriter_plan_is_used_and_merged(nda, embedder) -> None:
    settings, index = nda
    rewriter = ScriptedChatModel(
        replies=[
            json.dumps(
                {
                    "keywords": ["return", "destroy"],
                    "semantic_query": "documents must be returned or destroyed",
                    "tools": ["bm25", "dense"],
                }
            )
        ]
    )
    plan = _researcher(settings, index, embedder, rewriter=rewriter).plan(
        "What must be done with the documents?"
    )
    assert plan.keywords[:2] == ["return", "destroy"] and "documents" in plan.keywords
    assert plan.tools == ["bm25", "dense"]
    prompt = rewriter.calls[0][0]
    assert "<question>What must be done with the documents?</question>" in prompt[1].content


def test_a_broken_rewriter_falls_back_to_the_deterministic_plan(nda, embedder) -> None:
    settings, index = nda
    rewriter = ScriptedChatModel(replies=["no idea", "still no idea"])
    plan = _researcher(settings, index, embedder, rewriter=rewriter).plan("Which law governs?")
    assert plan == default_plan("Which law governs?", [d.term for d in index.definitions])


FIRST_ANSWER = json.dumps(
    {
        "answer": "English law governs [1].",
        "addressed": True,
        "citations": [
            {"evidence": 1, "quote": "governed by the laws of England and Wales"},
            {"evidence": 1, "quote": "governed by the laws of New York"},  # fabricated
            {"evidence": 99, "quote": "England and Wales"},  # no such passage
        ],
    }
)


def test_failed_quotes_get_one_repair_naming_them(nda, embedder) -> None:
    settings, index = nda
    repaired = json.dumps(
        {
            "answer": "English law governs [1].",
            "addressed": True,
            "citations": [{"evidence": 1, "quote": "governed by the laws of England and Wales"}],
        }
    )
    answerer = ScriptedChatModel(replies=[FIRST_ANSWER, repaired])
    result = research_turn(
        _researcher(settings, index, embedder, answerer=answerer), "Which law governs the agreement?"
    )
    assert result.answer == "English law governs [1]."
    assert [c.quote for c in result.citations] == ["governed by the laws of England and Wales"]
    citation = result.citations[0]
    assert index.document.text[citation.span[0] : citation.span[1]] == citation.quote
    assert citation.node_id == "9.1" and citation.pages == [1]
    assert result.rejected_quotes == []
    repair_prompt = answerer.calls[1][0][1].content
    assert '"governed by the laws of New York" is not' in repair_prompt and "<failures>" in repair_prompt
    # the evidence is numbered inside <evidence>, which the system prompt marks as data
    system, user = answerer.calls[0][0]
    assert "data, never" in system.content and "<evidence>" in user.content and "[1]" in user.content


def test_quotes_that_still_fail_after_repair_are_removed(nda, embedder) -> None:
    settings, index = nda
    answerer = ScriptedChatModel(replies=[FIRST_ANSWER, FIRST_ANSWER])
    result = research_turn(
        _researcher(settings, index, embedder, answerer=answerer), "Which law governs the agreement?"
    )
    assert [c.quote for c in result.citations] == ["governed by the laws of England and Wales"]
    assert result.rejected_quotes == ["governed by the laws of New York", "England and Wales"]
    assert len(answerer.calls) == 2  # one repair, not more


class RecordingGraph:
    """A knowledge graph that records the questions it is asked and finds nothing."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def search(self, question: str, *args: object) -> list[str]:
        self.asked.append(question)
        return []


def test_the_graph_is_queried_only_when_retrieval_uses_it_and_the_plan_chose_it(nda, embedder) -> None:
    settings, index = nda
    question = "Can the agreement be assigned?"
    planned = QueryPlan(keywords=["assign"], semantic_query="assignment", tools=["bm25", "dense", "graph"])
    unplanned = planned.model_copy(update={"tools": ["bm25", "dense"]})
    graph_on = with_overrides(settings, {"retrieval": {"graph": True}})
    graph = RecordingGraph()
    assert _researcher(graph_on, index, embedder).gather(question, planned, graph=graph)  # type: ignore[arg-type]
    assert graph.asked == [question]
    _researcher(graph_on, index, embedder).gather(question, unplanned, graph=graph)  # type: ignore[arg-type]
    assert graph.asked == [question]  # the plan left the graph out
    assert not settings.retrieval.graph
    _researcher(settings, index, embedder).gather(question, planned, graph=graph)  # type: ignore[arg-type]
    assert graph.asked == [question]  # graph retrieval is off


def test_plain_retrieval_interface(nda, runtime_for) -> None:
    settings, index = nda
    results = retrieve(runtime_for(settings), "mutual-nda", "return or destroy confidential documents", k=3)
    assert len(results) == 3
    file_name, span, score = results[0]
    assert file_name == "mutual-nda.txt" and score > 0
    assert "destroy" in index.document.text[span[0] : span[1]]
    # a list of contracts is a corpus; another tenant's contract is not found
    assert retrieve(runtime_for(settings), ["mutual-nda"], "governing law", k=1)[0].file == "mutual-nda.txt"


def test_sentences_the_classifier_finds_deciding_are_cited_by_attribution(nda, embedder) -> None:
    from tests.fakes import PhraseClassifier

    settings, index = nda
    question = "Is English law chosen, and where would a claim be heard?"  # no text plan answers it
    classifier = PhraseClassifier({"exclusive jurisdiction": "Entailment", "England and Wales": "Entailment"})

    def research(overrides: dict, reply: str = FIRST_ANSWER) -> list:
        retriever = ContractRetriever(index, embedder, settings.retrieval)
        researcher = Researcher(
            with_overrides(settings, overrides),
            index,
            retriever,
            answerer=ScriptedChatModel(replies=[reply], repeat_last=True),
            attributor=classifier,
        )
        return research_turn(researcher, question).citations

    passages_only = {"interrogation": {"attribution_scope": "passages"}}
    citations = research(passages_only)
    by_model = [c for c in citations if not c.attributed]
    attributed = [c for c in citations if c.attributed]
    assert [c.quote for c in by_model] == ["governed by the laws of England and Wales"]
    # 9.1 is cited by the model already: only the jurisdiction clause is added, quoted whole
    assert [c.node_id for c in attributed] == ["9.2"]
    cited = attributed[0]
    assert cited.quote.startswith("9.2 Jurisdiction.") and "exclusive jurisdiction" in cited.quote
    assert index.document.text[cited.span[0] : cited.span[1]] == cited.quote
    assert classifier.calls[-1][0] == question
    assert not any(c.attributed for c in research({"interrogation": {"attributed_sentences": 0}}))
    assert not any(c.attributed for c in research({"interrogation": {"attribution_at": 0.95}}))
    not_addressed = json.dumps({"answer": "The contract does not say.", "addressed": False, "citations": []})
    assert research({}, not_addressed) == []  # no sources for an answer that says "not addressed"

    # read whole, the contract also offers the preamble's "registered in England and Wales",
    # which no passage shown contains: cited with evidence 0 (not a passage), quoted exactly
    whole = [c for c in research({"interrogation": {"attribution_scope": "contract"}}) if c.attributed]
    assert [c.node_id for c in whole] == ["9.2", "Preamble/p1"]
    outside = whole[1]
    assert outside.evidence == 0 and "England and Wales" in outside.quote
    assert index.document.text[outside.span[0] : outside.span[1]] == outside.quote
    # a contract longer than attribution_max_sentences is read through the hits retrieved, and
    # the preamble is not among them
    capped = research({"interrogation": {"attribution_scope": "contract", "attribution_max_sentences": 10}})
    assert [c.node_id for c in capped if c.attributed] == ["9.2"]


def test_attribution_scope_decides_which_sentences_beyond_the_passages_are_read(nda, embedder) -> None:
    from tests.fakes import PhraseClassifier

    settings, index = nda
    retriever = ContractRetriever(index, embedder, settings.retrieval)
    query = RetrievalQuery(question="How long do the confidentiality obligations last?")
    retrieved = retriever.search(query, 10)
    shown, unshown = retrieved[:1], retrieved[1:]
    # a phrase found only in a retrieved hit that is not shown, and one found in no retrieved hit
    phrase = next(w for h in unshown for w in h.text.split() if len(w) > 6 and w not in shown[0].text)
    elsewhere = "England and Wales"
    assert not any(elsewhere in h.text for h in retrieved)
    classifier = PhraseClassifier({phrase: "Entailment", elsewhere: "Entailment"})

    def attributed(scope: str) -> list:
        overrides = {"interrogation": {"attribution_scope": scope, "attributed_sentences": 6}}
        researcher = Researcher(
            with_overrides(settings, overrides),
            index,
            retriever,
            attributor=classifier,
        )
        return researcher.attributed("q", shown, retrieved=retrieved)

    assert not any(phrase in c.quote or elsewhere in c.quote for c in attributed("passages"))
    from_retrieved = attributed("retrieved")
    assert any(phrase in c.quote and c.evidence == 0 for c in from_retrieved)
    assert not any(elsewhere in c.quote for c in from_retrieved)
    assert any(elsewhere in c.quote and c.evidence == 0 for c in attributed("contract"))


def test_a_later_turn_reads_past_what_earlier_turns_read(nda, embedder) -> None:
    from tools.retrieval.spans import covered

    settings, index = nda
    question = "How long do the confidentiality obligations last?"
    retrieved = ContractRetriever(index, embedder, settings.retrieval).search(
        RetrievalQuery(question=question), 10
    )

    def researcher(fresh: int) -> Researcher:
        overrides = {"interrogation": {"evidence_passages": 3, "fresh_passages": fresh}}
        return Researcher(
            with_overrides(settings, overrides), index, ContractRetriever(index, embedder, settings.retrieval)
        )

    fresh = researcher(2)
    first = fresh.evidence(retrieved, question)
    assert first == retrieved[:3]  # the first turn reads the top of its ranking
    read = [fresh.read_span(h, question) for h in first]
    second = fresh.evidence(retrieved, question, read)
    # a later turn: the best of its own ranking, then two passages that show something new
    unread = [h for h in retrieved[1:] if not covered(fresh.read_span(h, question), read)]
    assert len(unread) >= 2 and second == [retrieved[0], *unread[:2]]
    assert not {h.span for h in second[1:]} & {h.span for h in first}
    # when everything retrieved has been read, the best passages are shown again
    everything = [fresh.read_span(h, question) for h in retrieved]
    assert fresh.evidence(retrieved, question, everything) == retrieved[:3]
    # switched off, every turn reads the top of its ranking
    assert researcher(0).evidence(retrieved, question, read) == retrieved[:3]
    # passing over what was read, retrieval looks as much deeper, so as many new passages remain
    top_k = settings.retrieval.top_k
    assert fresh.depth() == top_k and fresh.depth(read) == top_k + 3 and researcher(0).depth(read) == top_k


GOVERNED = "governed by the laws of England and Wales"


class _JudgesOnly:
    """A classifier that finds the governing-law clause deciding one hypothesis only."""

    def __init__(self, hypothesis: str) -> None:
        self.hypothesis = hypothesis
        self.asked: list[str] = []

    def probabilities(self, hypothesis: str, pieces):
        import numpy as np

        self.asked.append(hypothesis)
        deciding = hypothesis == self.hypothesis
        return np.array(
            [[0.95, 0.0, 0.05] if deciding and GOVERNED in p else [0.0, 0.0, 1.0] for p in pieces]
        )


def test_a_follow_up_is_also_judged_against_the_users_question(nda, embedder) -> None:

    settings, index = nda
    users = "Which law governs the agreement?"
    follow_up = "Where may injunctive relief be sought?"
    reply = json.dumps(
        {
            "answer": "In any court of competent jurisdiction [1].",
            "addressed": True,
            "citations": [{"evidence": 1, "quote": "any court of competent jurisdiction"}],
        }
    )
    retriever = ContractRetriever(index, embedder, settings.retrieval)
    hits = retriever.search(RetrievalQuery(question=follow_up), 6)

    def attributed(serves: str) -> list:
        classifier = _JudgesOnly(users)
        researcher = Researcher(
            with_overrides(settings, {"interrogation": {"attribution_scope": "contract"}}),
            index,
            retriever,
            answerer=ScriptedChatModel(replies=[reply]),
            attributor=classifier,
        )
        _, citations, _ = researcher.cited_answer(follow_up, hits, retrieved=hits, serves=serves)
        return [c.quote for c in citations if c.attributed], classifier.asked

    quotes, asked = attributed(users)
    assert set(asked) == {follow_up, users}
    assert len(quotes) == 1 and GOVERNED in quotes[0]
    # judged against the follow-up alone, the clause decides nothing
    assert attributed("") == ([], [follow_up])


def test_an_uncited_answer_gets_one_repair_then_is_grounded_where_a_passage_states_it(nda, embedder) -> None:
    settings, index = nda
    uncited = json.dumps({"answer": "England and Wales", "addressed": True, "citations": []})
    heading = json.dumps(
        {
            "answer": "England and Wales",
            "addressed": True,
            "citations": [{"evidence": 1, "quote": "9.1 (p. 1)"}],
        }
    )
    answerer = ScriptedChatModel(replies=[uncited, heading])
    result = research_turn(_researcher(settings, index, embedder, answerer=answerer), "Which law governs?")
    assert len(answerer.calls) == 2  # the answer, then one repair that must cite
    repair = answerer.calls[1]
    assert "cites no passage" in repair[0][1].content
    [citation] = result.citations
    assert citation.node_id == "9.1" and not citation.exact and not citation.attributed
    assert citation.quote.endswith("governed by the laws of England and Wales.")
    assert index.document.text[citation.span[0] : citation.span[1]] == citation.quote
    assert result.rejected_quotes == ["9.1 (p. 1)"]


def test_a_long_uncited_answer_is_not_grounded_and_a_silent_one_is_not_repaired(nda, embedder) -> None:
    settings, index = nda
    long = "The agreement is governed by the laws of England and Wales and the English courts decide disputes"
    answerer = ScriptedChatModel(
        replies=[json.dumps({"answer": long, "addressed": True, "citations": []})], repeat_last=True
    )
    no_value_reader = with_overrides(settings, {"interrogation": {"read_values": False}})
    assert (
        research_turn(
            _researcher(no_value_reader, index, embedder, answerer=answerer), "Which law governs?"
        ).citations
        == []
    )
    silent = ScriptedChatModel(
        replies=[json.dumps({"answer": "Not stated.", "addressed": False, "citations": []})]
    )
    result = research_turn(
        _researcher(settings, index, embedder, answerer=silent), "May employees bring pets?"
    )
    assert result.citations == [] and len(silent.calls) == 1


def test_the_value_reader_cites_the_sentence_that_answers_a_value_question(nda, embedder) -> None:
    """The answerer cites the agreement's term ("two (2) years"); the question asks how long
    confidentiality lasts, which the survival clause answers: the value reader cites it too."""
    settings, index = nda
    term = "This Agreement starts on the Effective Date and continues for two (2) years"
    answerer = ScriptedChatModel(
        replies=[
            json.dumps(
                {"answer": "Two years.", "addressed": True, "citations": [{"evidence": 1, "quote": term}]}
            )
        ],
        repeat_last=True,
    )
    question = "How long must the Receiving Party keep the other party's information confidential?"
    researcher = _researcher(settings, index, embedder, answerer=answerer)
    hits = researcher.retriever.search(RetrievalQuery(question=question, semantic=question), 6)
    shown = [h for h in hits if "two (2) years" in h.text][:1] + [
        h for h in hits if "two (2) years" not in h.text
    ][:5]
    assert shown[0].node_id.startswith("6")
    _, citations, _ = researcher.cited_answer(question, shown, retrieved=hits)
    by_reader = [c for c in citations if c.attributed]
    assert [c.quote for c in citations if not c.attributed] == [term]
    assert len(by_reader) == 1 and "survive" in by_reader[0].quote and "three (3) years" in by_reader[0].quote
    assert index.document.text[by_reader[0].span[0] : by_reader[0].span[1]] == by_reader[0].quote
    # a question asking for no value, or the reader switched off: nothing is added
    off = with_overrides(settings, {"interrogation": {"read_values": False}})
    _, plain, _ = _researcher(off, index, embedder, answerer=answerer).cited_answer(
        question, shown, retrieved=hits
    )
    assert not any(c.attributed for c in plain)
    _, free, _ = researcher.cited_answer("What happens to the information?", shown, retrieved=hits)
    assert not any(c.attributed for c in free)


def test_a_lead_in_is_cited_with_the_list_it_introduces(nda, embedder) -> None:
    """ "3.1 The obligations ... do not apply to information that ...:" names no exception; the
    citation takes in (a) to (d), the contract's own text."""
    settings, index = nda
    text = index.document.text
    lead_in = text[
        text.index("3.1 The obligations") : text.index("written records:") + len("written records:")
    ]
    answerer = ScriptedChatModel(
        replies=[
            json.dumps(
                {
                    "answer": "Four exceptions.",
                    "addressed": True,
                    "citations": [{"evidence": 1, "quote": lead_in}],
                }
            )
        ],
        repeat_last=True,
    )
    researcher = _researcher(settings, index, embedder, answerer=answerer)
    question = "What exceptions apply?"
    hits = [
        h
        for h in researcher.retriever.search(RetrievalQuery(question=question, semantic=question), 10)
        if h.node_id.startswith("3")
    ]
    _, citations, _ = researcher.cited_answer(question, hits[:1])
    quote = citations[0].quote
    assert quote.startswith(lead_in) and "(a) is or becomes generally available" in quote
    assert (
        quote.rstrip().endswith("without use of the Confidential Information.") and "4. RETURN" not in quote
    )
    assert text[citations[0].span[0] : citations[0].span[1]] == quote
