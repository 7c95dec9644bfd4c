"""``clausewise eval qa --questions bank``: right answers on the question bank, beside a plain
one-call RAG baseline.

The bank (:mod:`clausewise_lab.evals.bank`) asks yes/no questions about CUAD's 41 provisions, value
questions, ContractNLI verdicts and LegalBench-RAG questions, on the contracts of one half (the
**check** half by default: the fold no shipped model was trained on). Each answer is graded by
:mod:`clausewise_lab.evals.grading`, which reads values its own way.

Two modes:

- full (default): the whole question-answering graph per question; the report as shown is also
  checked for sentences its sources do not support or contradict (the product's own support and
  claim checks, run on the finished report), its citations verified, its gold evidence counted;
- ``quick``: only the decider (the short answer and its sources, no writer), for the whole bank
  in minutes: what the thresholds are tuned with on the tune half.

The baseline (:mod:`clausewise_lab.evals.rag_baseline`, llama-index, same embedder and model, top-5
chunks, one call) answers the same questions in the same run, graded the same way.

``--questions open-bank`` asks the open-question bank instead (:mod:`clausewise_lab.evals.open_bank`:
twelve kinds of everyday question with the clauses a lawyer would cite) through the same run: an
answer present or not, and the gold clauses the cited sources overlap, per kind.
"""

from __future__ import annotations

import re
import statistics
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clausewise.core.progress import NoProgress, Progress
from clausewise_lab.evals.bank import KINDS, Bank, BankQuestion, build_bank, sample
from clausewise_lab.evals.contractnli_bench import label_metrics
from clausewise_lab.evals.data import document_ids, ingest_text
from clausewise_lab.evals.grading import Shown, evidence_recall, grade
from clausewise_lab.evals.open_bank import open_bank
from clausewise_lab.evals.shares import outcome_figures, share

if TYPE_CHECKING:
    from clausewise.core.report import Report, ShortAnswer, Source
    from clausewise.runtime import Runtime

GOALS = {
    "yes_no_committed_accuracy": 0.95,
    "yes_no_abstention_rate": 0.15,
    "yes_no_accuracy": 0.85,
    "value_accuracy": 0.85,
    "verdict_accuracy": 0.80,
    "unsupported_claims_shown_rate": 0.02,
    "contradicted_claims_shown": 0,
    "citation_validity": 1.0,
    "seconds_per_question": 120.0,
}
BASELINE_FORM = {
    "yes/no": "yes/no",
    "verdict": "yes/no",
    "value": "value",
    "verdict+value": "yes/no",
    "open": "open",
}
LABEL_OF = {"yes": "Entailment", "no": "Contradiction", "not addressed": "NotMentioned"}
_CITES = re.compile(r"\[\d+\]")
#: Where ``--questions`` takes the questions from.
QUESTION_SOURCES = ("bank", "open-bank")


def contract_ids(questions: Sequence[BankQuestion]) -> dict[str, str]:
    """The id each bank contract is ingested under (one per source document, never shared)."""
    ids: dict[str, str] = {}
    for source in {q.source for q in questions}:
        names = {q.contract for q in questions if q.source == source}
        ids.update(document_ids(names, f"bank-{source}", label=lambda name: Path(name).stem))
    return ids


def shown_of(short: ShortAnswer | None, sources: Sequence[Source]) -> Shown | None:
    """What the grader sees of a short answer: its verdict, line and cited sources' spans."""
    if short is None:
        return None
    by_number = {s.number: s.span for s in sources}
    return Shown(
        verdict=short.verdict or "",
        line=short.text(),
        states_value=bool(short.value),
        source_spans=[by_number[n] for n in short.sources if n in by_number],
    )


def _by_contract(questions: Sequence[BankQuestion]) -> dict[str, list[BankQuestion]]:
    grouped: dict[str, list[BankQuestion]] = defaultdict(list)
    for question in questions:
        grouped[question.contract].append(question)
    return grouped


def _ingested(
    runtime: Runtime, texts: dict[str, str], questions: Sequence[BankQuestion], ids: dict[str, str]
) -> Iterator[tuple[str, list[BankQuestion]]]:
    with tempfile.TemporaryDirectory() as scratch:
        for contract, asked in _by_contract(questions).items():
            yield ingest_text(runtime, texts[contract], ids[contract], Path(scratch)), asked


def _report_checks(runtime: Runtime, report: Report) -> dict[str, int]:
    """The finished report's writer sentences, and those its sources do not support or contradict
    (the product's support and claim checks, run on the report as shown)."""
    from agents.finishing import claims_shown, texts_shown
    from tools.claim_check import contradictions
    from tools.decision.support import unsupported

    settings = runtime.settings
    scorer = runtime.nli() if settings.interrogation.claim_check == "values+nli" else None
    texts = texts_shown(report)
    missing = unsupported(texts, report.sources, scorer, settings.decision.support_at, report.question)
    against = contradictions(
        texts, report.sources, report.question, scorer=scorer, at=settings.checks.contradiction_at
    )
    return {
        "claims_shown": len(claims_shown(report)),
        "unsupported_shown": len(missing),
        "contradicted_shown": len(against),
    }


def _product_full(
    runtime: Runtime, api, cid: str, question: BankQuestion, turns: int | None
) -> dict[str, Any]:
    from clausewise.core.report import Report
    from tools.citations import QuoteVerifier

    started = time.perf_counter()
    first_answer, quick_line = None, None
    report: Report | None = None
    for event in api.ask_stream(cid, question.question, turns=turns):
        if isinstance(event, Report):
            report = event
        elif event.event == "answer" and first_answer is None:
            first_answer = round(time.perf_counter() - started, 2)
            quick_line = event.data["short_answer"]["line"]
    seconds = round(time.perf_counter() - started, 2)
    assert report is not None
    index = runtime.store.open(cid)
    verifier = QuoteVerifier(index.document.text)
    index.close()
    shown = shown_of(report.short_answer, report.sources)
    cited, gold = evidence_recall(question.gold_spans, [s.span for s in report.sources])
    return {
        "line": shown.line if shown else None,
        "verdict": shown.verdict if shown else None,
        "decided_by": report.short_answer.decided_by if report.short_answer else None,
        "provision": report.short_answer.provision if report.short_answer else "",
        "outcome": grade(question, shown),
        # an answer present: the preliminary answer cites a source (a removed answer is replaced by
        # a fixed note, which cites none); read here, not taken from the product's own flags
        "addressed": bool(_CITES.search(report.preliminary_answer or "")),
        "seconds": seconds,
        "seconds_to_answer": first_answer,
        "quick_line": quick_line,
        "quick_equals_final": quick_line == (report.short_answer.line if report.short_answer else None),
        "llm_calls": report.metadata.llm_calls,
        "tokens": report.metadata.prompt_tokens + report.metadata.completion_tokens,
        "turns": report.metadata.turns_used,
        "sources": len(report.sources),
        "valid_sources": sum(verifier.is_at(s.quote, s.span) for s in report.sources),
        "gold_spans_cited": cited,
        "gold_spans": gold,
        "removed_claims": len(report.metadata.removed_claims),
        **_report_checks(runtime, report),
        "report": report.model_dump(mode="json"),
    }


def _product_quick(decider, question: BankQuestion) -> dict[str, Any]:
    from agents.finishing import quick_answer_of

    started = time.perf_counter()
    decision = decider.decide(question.question)
    seconds = round(time.perf_counter() - started, 2)
    short, sources = quick_answer_of(decision) if decision is not None else (None, [])
    shown = shown_of(short, sources)
    cited, gold = evidence_recall(question.gold_spans, [s.span for s in sources])
    first_three, _ = evidence_recall(question.gold_spans, [s.span for s in sources[:3]])
    return {
        "line": shown.line if shown else None,
        "verdict": shown.verdict if shown else None,
        "states_value": shown.states_value if shown else False,
        "decided_by": decision.decided_by if decision else None,
        "provision": decision.provision if decision else "",
        "confidence": decision.confidence if decision else None,
        # the clause a lawyer should read first: is a gold clause among the first three shown?
        "gold_in_first_three": bool(first_three),
        # why it was decided so (or left unclear): the JSON says which step refused a verdict
        "rationale": decision.rationale if decision else "",
        "outcome": grade(question, shown),
        "addressed": (
            shown is not None and bool(shown.line) and shown.verdict not in ("unclear", "not addressed")
        ),
        "seconds": seconds,
        "seconds_to_answer": seconds,
        "gold_spans_cited": cited,
        "gold_spans": gold,
        "sources": [{"span": list(s.span), "quote": s.quote} for s in sources],
    }


def _baseline(rag, text: str, question: BankQuestion) -> dict[str, Any]:
    from clausewise_lab.evals.rag_baseline import parse_value

    answer = rag.answer(text, question.question, BASELINE_FORM[question.kind])
    shown = Shown(
        verdict=answer.verdict or "",
        line=answer.text if question.kind == "value" else answer.text.split("\n", 1)[0],
        # asked a verdict and a value, the baseline's "Yes, ..." line is read for the value
        states_value=bool(answer.value) or (question.kind == "verdict+value" and answer.verdict == "yes"),
        source_spans=answer.spans,
    )
    cited, gold = evidence_recall(question.gold_spans, answer.spans)
    return {
        "text": answer.text,
        "verdict": answer.verdict,
        "outcome": grade(question, shown),
        "addressed": bool(parse_value(answer.text)),
        "seconds": round(answer.seconds, 2),
        "index_seconds": round(answer.index_seconds, 2),
        "tokens": (answer.prompt_tokens or 0) + (answer.completion_tokens or 0),
        "gold_spans_cited": cited,
        "gold_spans": gold,
    }


# -- figures ---------------------------------------------------------------------------------------


def accuracy(rows: Sequence[dict[str, Any]], side: str) -> dict[str, Any]:
    """Right, wrong and abstained answers of ``side`` ("product" or "baseline") over ``rows``:
    accuracy counting abstentions as wrong, accuracy over committed answers, abstention rate."""
    return outcome_figures(Counter(r[side]["outcome"] for r in rows if side in r))


def _verdict_metrics(rows: Sequence[dict[str, Any]], side: str) -> dict[str, Any]:
    verdicts = [r for r in rows if r["kind"] == "verdict" and side in r]
    if not verdicts:
        return {}
    gold = [LABEL_OF[r["gold"]] for r in verdicts]
    said = [LABEL_OF.get(r[side]["verdict"] or "", r[side]["verdict"] or "none") for r in verdicts]
    metrics = label_metrics(gold, said)
    return {
        "accuracy": metrics["accuracy"],
        "contradiction_f1": metrics["per_class"]["Contradiction"]["f1"],
        **metrics,
    }


def _seconds(rows: Sequence[dict[str, Any]], side: str, key: str = "seconds") -> dict[str, Any]:
    values = sorted(r[side][key] for r in rows if side in r and r[side].get(key) is not None)
    if not values:
        return {}
    return {
        "mean": round(statistics.fmean(values), 2),
        "p50": values[len(values) // 2],
        "p95": values[min(len(values) - 1, int(len(values) * 0.95))],
        "max": values[-1],
    }


def _open_figures(rows: Sequence[dict[str, Any]], side: str) -> dict[str, Any]:
    """Open questions: how many, the share with an answer present (the report's preliminary answer
    cites a source; the baseline does not say "Not stated"), and gold-clause recall of the sources."""
    asked = [r[side] for r in rows if side in r]
    return {
        "n": len(asked),
        "answered": share(sum(bool(a.get("addressed")) for a in asked), len(asked)),
        "evidence_recall": share(
            sum(a["gold_spans_cited"] for a in asked), sum(a["gold_spans"] for a in asked)
        ),
    }


def figures(rows: Sequence[dict[str, Any]], side: str) -> dict[str, Any]:
    """Every figure of one side, overall, per kind, per category and per wording."""
    by_kind = {kind: [r for r in rows if r["kind"] == kind] for kind in KINDS}
    out: dict[str, Any] = {
        "yes_no": accuracy(by_kind["yes/no"], side),
        "value": accuracy(by_kind["value"], side),
        "verdict_value": {
            **accuracy(by_kind["verdict+value"], side),
            # of the gold "yes" ones, answered "yes" with a value beside it (right or not)
            "yes_with_a_value": share(
                sum(
                    r[side]["verdict"] == "yes" and bool(r[side].get("states_value", True))
                    for r in by_kind["verdict+value"]
                    if side in r and r["gold"] == "yes"
                ),
                sum(1 for r in by_kind["verdict+value"] if side in r and r["gold"] == "yes"),
            ),
        },
        "verdict": _verdict_metrics(rows, side),
        "seconds_per_question": _seconds(rows, side),
    }
    if side == "product":
        out["seconds_to_answer"] = _seconds(rows, side, "seconds_to_answer")
        missed = [
            r
            for r in by_kind["yes/no"]
            if side in r and r["gold"] == "yes" and r[side]["verdict"] != "yes" and r["gold_spans"]
        ]
        out["gold_yes_not_yes_gold_in_first_three"] = {
            "n": len(missed),
            "share": share(sum(bool(r[side].get("gold_in_first_three")) for r in missed), len(missed)),
        }
        out["decided_by"] = dict(Counter(str(r[side].get("decided_by")) for r in rows))
    cited = sum(r[side]["gold_spans_cited"] for r in by_kind["open"] if side in r)
    gold = sum(r[side]["gold_spans"] for r in by_kind["open"] if side in r)
    out["open_evidence_recall"] = share(cited, gold)
    out["open_answered"] = _open_figures(by_kind["open"], side)["answered"]
    opens: dict[str, list] = defaultdict(list)
    for row in by_kind["open"]:
        opens[row["category"]].append(row)
    out["open_by_category"] = {c: _open_figures(g, side) for c, g in sorted(opens.items())}
    for kind in ("yes/no", "value"):
        groups: dict[str, list] = defaultdict(list)
        for row in by_kind[kind]:
            groups[row["category"]].append(row)
        out[f"{kind.replace('/', '_')}_by_category"] = {
            c: accuracy(g, side) for c, g in sorted(groups.items())
        }
    phrasings: dict[str, list] = defaultdict(list)
    for row in by_kind["yes/no"] + by_kind["value"]:
        phrasings[f"{row['kind']} wording {row['phrasing']}"].append(row)
    out["by_wording"] = {name: accuracy(g, side) for name, g in sorted(phrasings.items())}
    return out


def report_figures(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The full mode's report figures: claims shown, unsupported and contradicted, citations."""
    full = [r["product"] for r in rows if "claims_shown" in r.get("product", {})]
    if not full:
        return {}
    claims = sum(r["claims_shown"] for r in full)
    sources = sum(r["sources"] for r in full)
    return {
        "claims_shown": claims,
        "unsupported_claims_shown": sum(r["unsupported_shown"] for r in full),
        "unsupported_claims_shown_rate": share(sum(r["unsupported_shown"] for r in full), claims),
        "contradicted_claims_shown": sum(r["contradicted_shown"] for r in full),
        "claims_removed": sum(r["removed_claims"] for r in full),
        "citation_validity": share(sum(r["valid_sources"] for r in full), sources),
        "quick_equals_final": share(sum(bool(r.get("quick_equals_final")) for r in full), len(full)),
        "mean_llm_calls": round(statistics.fmean(r["llm_calls"] for r in full), 2),
        "mean_tokens": round(statistics.fmean(r["tokens"] for r in full)),
        "mean_turns": round(statistics.fmean(r["turns"] for r in full), 2),
    }


def run(
    runtime: Runtime,
    root: Path,
    *,
    half: str = "check",
    limit: int | None = None,
    seed: int = 7,
    quick: bool = False,
    kinds: Sequence[str] | None = None,
    contracts: int | None = None,
    baseline: bool = True,
    turns: int | None = None,
    minutes: float | None = None,
    progress: Progress | None = None,
    questions: str = "bank",
    model_decides: bool = True,
) -> dict[str, Any]:
    """Ask the bank's questions (``limit`` sampled by ``seed``) contract by contract. ``minutes``
    bounds a full-mode run on a slow machine: no question is started after it, and the results
    say how many were left unasked, so a bounded run still reports every answer it has.
    ``questions`` "open-bank" asks the open-question bank of the half instead. ``model_decides``
    False decides a quick run as the product's quick answer does, without the language model
    (a question no trained decider covers is unclear)."""
    from clausewise.api import Clausewise

    progress = progress or NoProgress()
    if questions == "open-bank":
        bank = Bank(half, *open_bank(root, half))  # type: ignore[arg-type]
    elif questions == "bank":
        bank = build_bank(root, half)  # type: ignore[arg-type]
    else:
        raise ValueError(f"unknown question source {questions!r} (use {', '.join(QUESTION_SOURCES)})")
    asked = [
        q
        for q in bank.questions
        if not kinds or q.kind in kinds or (q.kind == "open" and q.category in kinds)
    ]
    if contracts:  # the first N contracts in the bank's order: a bounded run ingests only those
        first = list(dict.fromkeys(q.contract for q in asked))[:contracts]
        asked = [q for q in asked if q.contract in set(first)]
    chosen = sample(asked, limit, seed)
    api = Clausewise(runtime=runtime, audit=False)
    rag = None
    if baseline:
        from clausewise_lab.evals.rag_baseline import OneCallRag

        rag = OneCallRag.from_runtime(runtime)
    progress.stage("answering the bank", total=len(chosen))
    rows: list[dict[str, Any]] = []
    deadline = time.monotonic() + minutes * 60 if minutes else None

    def out_of_time() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    # ids over the whole half, so that a contract keeps its id whichever questions are asked
    for cid, asked in _ingested(runtime, bank.texts, chosen, contract_ids(bank.questions)):
        decider = None
        if quick:
            index = runtime.store.open(cid)
            decider = runtime.decider(index, model=model_decides)
        for question in asked:
            if out_of_time():
                break
            row: dict[str, Any] = {**question.as_json(), "contract_id": cid}
            row["product"] = (
                _product_quick(decider, question)
                if quick
                else _product_full(runtime, api, cid, question, turns)
            )
            if rag is not None:
                row["baseline"] = _baseline(rag, bank.texts[question.contract], question)
            rows.append(row)
            progress.advance()
        if decider is not None:
            decider.index.close()
        if out_of_time():
            break  # before the next contract is ingested
    results: dict[str, Any] = {
        "benchmark": "qa-bank" if questions == "bank" else f"qa-{questions}",
        "data": str(root),
        "half": half,
        "mode": "quick" if quick else "full",
        "seed": seed,
        "kinds": sorted(kinds) if kinds else list(KINDS),
        "contracts": len({r["contract_id"] for r in rows}),
        "goals": GOALS,
        "questions": len(rows),
        "unasked": len(chosen) - len(rows),
        "minutes": minutes,
        "by_kind": dict(Counter(r["kind"] for r in rows)),
        "product": {**figures(rows, "product"), **report_figures(rows)},
        "models": sorted({record.model for record in runtime.ledger.records}),
        "rows": rows,
    }
    if rag is not None:
        results["baseline"] = figures(rows, "baseline")
        results["baseline"]["index_seconds"] = round(sum(r["baseline"]["index_seconds"] for r in rows), 1)
    return results
