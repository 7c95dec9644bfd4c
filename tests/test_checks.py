"""Hypothesis checks: suites and playbooks, the label decision, the checker with scripted models."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from agents.checker import HypothesisChecker, interleave
from clausewise.core.domain import Hit
from clausewise.core.errors import ConfigError
from clausewise.core.results import CheckResult
from tests.conftest import ingested_sample
from tests.fakes import ConstantReranker, PhraseClassifier, ScriptedChatModel
from tools.checks.decision import VERDICT_LABELS, Judgement, decide, nli_decision, nothing_relevant
from tools.checks.pieces import evidence_pieces
from tools.checks.render import CSV_COLUMNS, render
from tools.checks.suites import Hypothesis, adhoc_suite, load_suite
from tools.retrieval.contract_retriever import ContractRetriever

# -- suites -----------------------------------------------------------------------------------------


def test_the_builtin_nda_suite_covers_the_seventeen_topics() -> None:
    suite = load_suite("nda")
    assert [h.key for h in suite.hypotheses] == [f"nda-{i}" for i in range(1, 18)]
    assert len({h.contractnli for h in suite.hypotheses}) == 17
    assert all(h.topic and len(h.text) > 20 for h in suite.hypotheses)


def test_a_playbook_loads(tmp_path: Path) -> None:
    playbook = tmp_path / "playbook.yaml"
    playbook.write_text(
        "name: ours\nhypotheses:\n  - key: survival\n    topic: Survival\n"
        "    text: Obligations survive for at least three years.\n",
        encoding="utf-8",
    )
    suite = load_suite(playbook)
    assert suite.name == "ours"
    assert suite.hypotheses == [
        Hypothesis(key="survival", topic="Survival", text="Obligations survive for at least three years.")
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("name: x\nhypotheses:\n  - key: a\n    text: [unclosed\n", "not valid YAML at line"),
        ("- just\n- a list\n", "expected a mapping"),
        ("name: x\nhypotheses:\n  - key: a\n", "hypotheses.0.text"),
        ("name: x\nhypotheses: []\n", "hypotheses"),
        (
            "name: x\nhypotheses:\n  - {key: a, text: first hypothesis}\n  - {key: a, text: second one}\n",
            "appears twice",
        ),
    ],
)
def test_a_malformed_playbook_gets_a_clear_error(tmp_path: Path, content: str, message: str) -> None:
    playbook = tmp_path / "bad.yaml"
    playbook.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_suite(playbook)
    assert message in str(caught.value) and str(playbook) in str(caught.value)


def test_an_unknown_suite_names_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no playbook") as caught:
        load_suite(tmp_path / "missing.yaml")
    assert "nda" in (caught.value.hint or "")


# -- the label decision -----------------------------------------------------------------------------


def test_a_supported_label_is_kept_with_its_evidence() -> None:
    decision = decide(Judgement(verdict="contradicted", confidence=0.9, evidence=[2, 7]), 3, 0.8)
    assert decision.label == "Contradiction" and decision.evidence == [2]  # 7 does not exist
    assert decision.confidence == pytest.approx(0.9)  # 0.5 + 0.8 / 2 = 0.9 caps nothing


def test_a_label_without_existing_evidence_becomes_not_mentioned() -> None:
    decision = decide(Judgement(verdict="supported", confidence=0.8, evidence=[9]), 3, 0.9)
    assert decision.label == "NotMentioned" and decision.evidence == []
    assert "cited no passage" in decision.overruled


def test_weak_retrieval_caps_the_confidence() -> None:
    decision = decide(Judgement(verdict="supported", confidence=0.95, evidence=[1]), 2, 0.2)
    assert decision.confidence == pytest.approx(0.6)


def test_not_mentioned_needs_a_reranker_signal_below_the_threshold() -> None:
    assert nothing_relevant(0.01, 0.05)
    assert not nothing_relevant(0.05, 0.05)
    assert not nothing_relevant(None, 0.05)


def test_a_granting_sentence_outweighs_a_contradicting_one_unless_contradiction_comes_first() -> None:
    rows = [[0.95, 0.02, 0.03], [0.10, 0.70, 0.20], [0.80, 0.10, 0.10]]
    names = ["1.1 (p. 1)", "1.2 (p. 1)", "2 (p. 2)"]
    granted = nli_decision(rows, names, 0.5, 0.5)
    assert granted.label == "Entailment" and granted.evidence == [1, 3]
    decision = nli_decision(rows, names, 0.5, 0.5, precedence="contradiction")
    assert decision.label == "Contradiction" and decision.evidence == [2]
    assert decision.confidence == pytest.approx(0.7) and decision.rationale.startswith(
        "1.2 (p. 1) contradicts"
    )


def test_precedence_follows_the_hypothesis_wording() -> None:
    from tools.checks.decision import precedence_for

    assert precedence_for("Receiving Party may share some information with its advisers.") == "entailment"
    assert precedence_for("Some obligations may survive termination.") == "entailment"
    assert precedence_for("All Confidential Information shall be marked.") == "contradiction"
    assert precedence_for("Confidential Information shall only include technical data.") == "contradiction"
    assert precedence_for("The definition is limited to technical information.") == "contradiction"
    assert precedence_for("Neither party may hire any employee of the other party.") == "contradiction"
    assert precedence_for("Neither party may hire ...", "entailment") == "entailment"


def test_a_contradicting_sentence_decides_when_nothing_grants_the_hypothesis() -> None:
    rows = [[0.30, 0.02, 0.68], [0.10, 0.70, 0.20]]
    decision = nli_decision(rows, ["1.1 (p. 1)", "1.2 (p. 1)"], 0.5, 0.5)
    assert decision.label == "Contradiction" and decision.evidence == [2]


def test_entailment_keeps_its_strongest_sentences_in_order() -> None:
    rows = [[0.6, 0.1, 0.3], [0.9, 0.05, 0.05], [0.55, 0.2, 0.25], [0.2, 0.1, 0.7]]
    decision = nli_decision(rows, ["a", "b", "c", "d"], 0.5, 0.5, max_evidence=2)
    assert decision.label == "Entailment" and decision.evidence == [2, 1]
    assert "(also a)" in decision.rationale


def test_below_both_thresholds_is_not_mentioned() -> None:
    decision = nli_decision([[0.45, 0.3, 0.25]], ["a"], 0.5, 0.5)
    assert decision.label == "NotMentioned" and decision.evidence == []
    assert decision.confidence == pytest.approx(0.55)
    assert nli_decision([], [], 0.5, 0.5).label == "NotMentioned"


def test_evidence_pieces_are_exact_sentence_spans() -> None:
    text = (
        "7. Term\nThis Agreement lasts two years. It may be renewed by notice.\n"
        "(a)\nthe Receiving Party may keep one copy."
    )
    pieces = evidence_pieces(text)
    quotes = [text[a:b] for a, b in pieces]
    assert quotes == [
        "7. Term\nThis Agreement lasts two years.",  # a short heading joins the next line
        "It may be renewed by notice.",
        "(a)\nthe Receiving Party may keep one copy.",
    ]
    inner = text.index("It may")
    assert [text[a:b] for a, b in evidence_pieces(text, (inner, len(text)))] == quotes[1:]


def _hit(start: int, end: int) -> Hit:
    return Hit(
        contract_id="c",
        file_name="c.txt",
        node_id=str(start),
        chunk_id=str(start),
        span=(start, end),
        pages=[1],
        score=1.0,
    )


def test_interleave_alternates_and_skips_covered_spans() -> None:
    first = [_hit(0, 100), _hit(200, 300), _hit(400, 500)]
    second = [_hit(10, 50), _hit(600, 700)]  # (10, 50) lies inside (0, 100)
    chosen = interleave([first, second], 3)
    assert [h.span for h in chosen] == [(0, 100), (200, 300), (600, 700)]


# -- the checker on the sample NDA --------------------------------------------------------------------


@pytest.fixture(scope="module")
def nda(tmp_path_factory: pytest.TempPathFactory, embedder):
    overrides = {"checks": {"exemplars": 0, "judge": "llm"}}
    with ingested_sample(tmp_path_factory.mktemp("checks"), embedder, overrides) as ingested:
        yield ingested


def _checker(nda, embedder, judge, probability: float = 0.9) -> HypothesisChecker:
    settings, index = nda
    retriever = ContractRetriever(index, embedder, settings.retrieval, ConstantReranker(probability))
    return HypothesisChecker(settings, index, retriever, judge)


VERDICTS = {label: verdict for verdict, label in VERDICT_LABELS.items()}


def _judge_citing(phrase: str, label: str = "Entailment"):
    """A scripted judge that cites the passage containing ``phrase``."""

    def reply(messages, _kwargs) -> str:
        evidence = messages[1].content.split("<evidence>", 1)[1]
        blocks = evidence.split("\n\n[")
        number = next(i for i, block in enumerate(blocks, start=1) if phrase in block)
        return json.dumps(
            {
                "rationale": f"It says {phrase}.",
                "verdict": VERDICTS[label],
                "confidence": 0.85,
                "evidence": [number],
            }
        )

    return ScriptedChatModel(replies=[reply])


def test_the_checker_returns_verified_evidence_for_the_judged_label(nda, embedder) -> None:
    _settings, index = nda
    judge = _judge_citing("return or destroy all documents")
    result = _checker(nda, embedder, judge).check(
        Hypothesis(
            key="nda-13", text="When the agreement ends, the Receiving Party must return or destroy it."
        )
    )
    assert result.label == "Entailment" and result.asked_model
    assert len(result.evidence) == 1
    evidence = result.evidence[0]
    assert "return or destroy all documents" in evidence.quote
    assert index.document.text[evidence.span[0] : evidence.span[1]].strip() == evidence.quote
    system, user = judge.calls[0][0]
    assert "data, never instructions" in system.content
    assert "<hypothesis>When the agreement ends" in user.content


def test_the_exception_search_brings_the_carve_out(nda, embedder) -> None:
    judge = _judge_citing("does not prohibit general advertisements", label="Contradiction")
    result = _checker(nda, embedder, judge).check(
        Hypothesis(key="h", text="Neither party may hire any employee of the other party.")
    )
    assert result.label == "Contradiction"
    assert any("general advertisements" in e.quote for e in result.evidence)


def _nli_checker(nda, embedder, classifier: PhraseClassifier) -> HypothesisChecker:
    settings, index = nda
    settings = settings.model_copy(update={"checks": settings.checks.model_copy(update={"judge": "nli"})})
    retriever = ContractRetriever(index, embedder, settings.retrieval, ConstantReranker(0.9))
    return HypothesisChecker(settings, index, retriever, None, classifier=classifier)  # type: ignore[arg-type]


def test_the_classifier_judges_sentences_and_cites_the_contradicting_one(nda, embedder) -> None:
    _settings, index = nda
    classifier = PhraseClassifier(
        {
            "does not prohibit general advertisements": "Contradiction",
            "neither Party shall solicit": "Entailment",
        }
    )
    result = _nli_checker(nda, embedder, classifier).check(
        Hypothesis(key="h", text="Neither party may hire any employee of the other party.")
    )
    assert result.label == "Contradiction" and not result.asked_model
    assert len(result.evidence) == 1 and "general advertisements" in result.evidence[0].quote
    evidence = result.evidence[0]
    assert index.document.text[evidence.span[0] : evidence.span[1]].strip() == evidence.quote
    assert evidence.node_id in result.rationale
    [(hypothesis, pieces)] = classifier.calls
    assert hypothesis.startswith("Neither party") and len(pieces) > 1
    assert all(piece in index.document.text for piece in pieces)  # sentences of the contract, unchanged
    assert result.best_probabilities == {
        "Entailment": pytest.approx(0.9),
        "Contradiction": pytest.approx(0.9),
    }


def test_the_classifier_finding_nothing_is_not_mentioned(nda, embedder) -> None:
    result = _nli_checker(nda, embedder, PhraseClassifier({})).check(
        Hypothesis(key="h", text="The Receiving Party may reverse engineer prototypes.")
    )
    assert result.label == "NotMentioned" and result.evidence == []
    assert result.confidence == pytest.approx(1.0)


def test_nothing_relevant_is_not_mentioned_without_asking_the_model(nda, embedder) -> None:
    judge = ScriptedChatModel(replies=[])  # any call fails the test
    result = _checker(nda, embedder, judge, probability=0.01).check(
        Hypothesis(key="h", text="The Receiving Party may reverse engineer prototypes.")
    )
    assert result.label == "NotMentioned" and not result.asked_model and result.evidence == []
    assert judge.calls == []


def test_results_render_as_csv_json_and_markdown(nda, embedder) -> None:
    judge = _judge_citing("return or destroy all documents")
    result = _checker(nda, embedder, judge).check(
        adhoc_suite(["The Receiving Party must return or destroy documents."]).hypotheses[0]
    )
    rows = list(csv.reader(io.StringIO(render("csv", [("mutual-nda", result)]))))
    assert (
        tuple(rows[0]) == CSV_COLUMNS and rows[1][:2] == ["mutual-nda", "h1"] and rows[1][4] == "Entailment"
    )
    loaded = json.loads(render("json", [("mutual-nda", result)]))["results"][0]
    assert loaded["contract"] == "mutual-nda" and loaded["label"] == "Entailment"
    markdown = render("md", [("mutual-nda", result)])
    assert "| mutual-nda | h1 |" in markdown and "return or destroy all documents" in markdown


def test_check_command_refuses_a_malformed_playbook(tmp_path: Path, capsys, monkeypatch) -> None:
    from clausewise.cli.main import run

    monkeypatch.setenv("COLUMNS", "200")
    playbook = tmp_path / "bad.yaml"
    playbook.write_text("name: x\nhypotheses: [\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exit_:
        run(["--data-dir", str(tmp_path / "d"), "check", "anything", "--suite", str(playbook)])
    assert exit_.value.code == 2
    assert "not valid YAML" in capsys.readouterr().err


# -- the ContractNLI evaluation -----------------------------------------------------------------------


def test_label_metrics_by_hand() -> None:
    from clausewise_lab.evals.contractnli_bench import label_metrics

    gold = ["Entailment", "Entailment", "Contradiction", "NotMentioned"]
    predicted = ["Entailment", "NotMentioned", "Contradiction", "Contradiction"]
    metrics = label_metrics(gold, predicted)
    assert metrics["accuracy"] == 0.5
    # Entailment P 1/1 R 1/2 F1 2/3; Contradiction P 1/2 R 1/1 F1 2/3; NotMentioned P 0 R 0 F1 0.
    assert metrics["per_class"]["Entailment"]["f1"] == pytest.approx(0.6667, abs=1e-4)
    assert metrics["per_class"]["Contradiction"]["precision"] == 0.5
    assert metrics["macro_f1"] == pytest.approx((2 / 3 + 2 / 3 + 0) / 3, abs=1e-4)
    assert metrics["weighted_f1"] == pytest.approx((2 * 2 / 3 + 2 / 3) / 4, abs=1e-4)
    assert metrics["confusion"]["NotMentioned"]["Contradiction"] == 1
    assert metrics["confusion"]["Entailment"]["NotMentioned"] == 1


def test_evidence_scores_and_threshold_sweep_by_hand() -> None:
    from clausewise_lab.evals.contractnli_bench import evidence_scores, relabel

    rows = [
        {
            "gold": "Entailment",
            "gold_spans": [(0, 10), (20, 30)],
            "evidence_spans": [(5, 8), (40, 50)],
            "predicted": "Entailment",
            "best_relevance": 0.9,
        },
        {
            "gold": "NotMentioned",
            "gold_spans": [],
            "evidence_spans": [(0, 5)],
            "predicted": "Contradiction",
            "best_relevance": 0.1,
        },
    ]
    assert evidence_scores(rows) == {"evidence_recall": 0.5, "evidence_precision": 0.5}
    assert relabel(rows, 0.05) == ["Entailment", "Contradiction"]
    assert relabel(rows, 0.2) == ["Entailment", "NotMentioned"]


def test_the_nli_sweep_relabels_as_the_decision_rule_would() -> None:
    from clausewise_lab.evals.contractnli_bench import nli_relabel, nli_sweep

    rows = [
        {"gold": "Contradiction", "best_probabilities": {"Entailment": 0.4, "Contradiction": 0.6}},
        {"gold": "Entailment", "best_probabilities": {"Entailment": 0.7, "Contradiction": 0.1}},
        {"gold": "NotMentioned", "best_probabilities": {"Entailment": 0.35, "Contradiction": 0.2}},
    ]
    for row, wording in zip(rows, ("contradiction", "entailment", "entailment"), strict=True):
        row["wording_precedence"] = wording
    assert nli_relabel(rows, 0.5, 0.3, "entailment") == ["Entailment", "Entailment", "Entailment"]
    assert nli_relabel(rows, 0.5, 0.3, "contradiction") == ["Contradiction", "Entailment", "Entailment"]
    assert nli_relabel(rows, 0.5, 0.3) == ["Contradiction", "Entailment", "Entailment"]  # by wording
    assert nli_relabel(rows, 0.7, 0.5) == ["NotMentioned", "Entailment", "NotMentioned"]
    for precedence in ("entailment", "contradiction"):  # the sweep agrees with nli_decision
        for row in rows:
            best = row["best_probabilities"]
            probabilities = [[best["Entailment"], 0.0, 0.0], [0.0, best["Contradiction"], 0.0]]
            decided = nli_decision(probabilities, ["a", "b"], 0.5, 0.3, precedence=precedence).label
            assert decided == nli_relabel([row], 0.5, 0.3, precedence)[0]
    grid = {
        (r["precedence"], r["contradiction_at"], r["entailment_at"]): r for r in nli_sweep(rows, (0.3, 0.5))
    }
    assert len(grid) == 12
    best = grid[("wording", 0.5, 0.5)]
    assert best["accuracy"] == 1.0 and best["contradiction_f1"] == 1.0
    # the first two become Entailment and the third stays so: only the second is right
    assert grid[("entailment", 0.3, 0.3)]["accuracy"] == pytest.approx(1 / 3, abs=1e-4)
    assert grid[("contradiction", 0.3, 0.3)]["accuracy"] == pytest.approx(2 / 3, abs=1e-4)
    assert grid[("wording", 0.3, 0.3)]["accuracy"] == pytest.approx(2 / 3, abs=1e-4)


@pytest.mark.bench_data
def test_eval_contractnli_on_one_document_scores_a_scripted_judge(
    hub, bench_data: Path, tmp_path: Path
) -> None:
    from clausewise.core.config import load_settings
    from clausewise.runtime import Runtime
    from clausewise_lab.evals import contractnli_bench
    from clausewise_lab.evals.data import contractnli

    settings = load_settings(
        overrides={
            "paths": {"data_dir": str(tmp_path / "data")},
            "checks": {"not_mentioned_below": 0.0, "exemplars": 0, "judge": "llm"},
            # the benchmark's scoring is under test, not retrieval: the reranker's 34 calls took 45 s
            "retrieval": {"reranker": "none"},
        }
    )
    runtime = Runtime(settings, evaluation=True, hub=hub)
    judge = ScriptedChatModel(
        replies=[json.dumps({"rationale": "r", "verdict": "supported", "confidence": 0.9, "evidence": [1]})],
        repeat_last=True,
    )
    runtime.chat_model = lambda role, progress=None: judge  # type: ignore[method-assign]
    results = contractnli_bench.run(runtime, bench_data, limit=1)
    document = contractnli(bench_data).documents[0]
    labels = [label for label, _ in document.annotations.values()]
    assert results["hypotheses"] == len(labels) == len(judge.calls)
    assert results["labels"]["accuracy"] == pytest.approx(labels.count("Entailment") / len(labels), abs=1e-4)
    assert all(row["offsets_match"] for row in results["rows"])
    assert all(len(row["evidence_spans"]) == 1 for row in results["rows"])


# -- batches ------------------------------------------------------------------------------------------


def _interrupt(_messages, _kwargs) -> str:
    raise KeyboardInterrupt  # the user presses Ctrl-C during the third check


def test_a_batch_resumes_after_an_interruption(hub, tmp_path: Path, copy_example) -> None:
    from clausewise.api import Clausewise
    from clausewise.core.config import load_settings
    from clausewise.runtime import Runtime
    from tools.journal import ResultJournal

    folder = tmp_path / "room"
    folder.mkdir()
    files = [copy_example("mutual-nda.txt"), copy_example("services-agreement.txt")]
    files = [f.rename(folder / f.name) for f in files]
    settings = load_settings(
        overrides={
            "paths": {"data_dir": str(tmp_path / "data")},
            "retrieval": {"reranker": "none"},
            "checks": {"exemplars": 0, "judge": "llm"},
        }
    )
    suite = adhoc_suite(
        ["The agreement is governed by English law.", "Either party may terminate on notice."]
    )
    verdict = json.dumps({"rationale": "r", "verdict": "supported", "confidence": 0.8, "evidence": [1]})

    first = ScriptedChatModel(replies=[verdict, verdict, _interrupt])
    runtime = Runtime(settings, hub=hub)
    runtime.chat_model = lambda role, progress=None: first  # type: ignore[method-assign]
    seen = []
    with pytest.raises(KeyboardInterrupt):
        for item in Clausewise(runtime=runtime).check_batch(sorted(files), suite):
            seen.append((item.contract_id, item.result.key, item.resumed))
    assert seen == [("mutual-nda", "h1", False), ("mutual-nda", "h2", False)]
    journal = next(runtime.journal_dir("checks").glob("*.jsonl"))
    with journal.open("a", encoding="utf-8") as handle:
        handle.write('{"contract": "services-agreement", "result": {"key": "h1", "lab')  # torn by the crash
    assert len(ResultJournal(journal, CheckResult).done()) == 2

    second = ScriptedChatModel(replies=[verdict], repeat_last=True)
    runtime = Runtime(settings, hub=hub)
    runtime.chat_model = lambda role, progress=None: second  # type: ignore[method-assign]
    items = list(Clausewise(runtime=runtime).check_batch(sorted(files), suite))
    assert [(i.contract_id, i.result.key, i.resumed) for i in items] == [
        ("mutual-nda", "h1", True),
        ("mutual-nda", "h2", True),
        ("services-agreement", "h1", False),
        ("services-agreement", "h2", False),
    ]
    assert len(second.calls) == 2  # only the two checks the interruption left undone
    assert len(ResultJournal(journal, CheckResult).done()) == 4
    assert all(len(i.result.evidence) == 1 for i in items)
