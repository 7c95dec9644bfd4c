"""``clausewise eval qa``: the whole question-answering graph on development questions.

Questions are LegalBench-RAG queries (over their corpus documents) and ContractNLI hypotheses
asked as questions (over their NDAs); each has gold evidence spans. Per question: whether every
quote the report shows is the contract's text at its span (citation validity, goal 100%), the
share of gold spans the report cites (a source overlapping the span; goal >= 70%), turns, model
calls, tokens and wall time (goal <= 3 minutes at 3 turns with the embedded 1.5B model on 2 cores).

Where recall is lost is counted too: the gold spans inside the excerpts the answerer read in any
turn (``gold_spans_shown``). A gold span never shown is retrieval's miss; one shown but not cited
is the answerer's (attribution can also cite a span it was not shown).

Whether answers are right is measured on the question bank (``--questions bank``,
:mod:`clausewise_lab.evals.bank_bench`), graded by a scorer that shares no code with the deciders.
Here, every report's contradicted claims shown are counted (the claim check run on the report as
the user sees it; goal 0), with the claims repaired and removed on the way.
"""

from __future__ import annotations

import random
import re
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clausewise.core.domain import Span
from clausewise.core.progress import NoProgress, Progress
from clausewise_lab.evals.contractnli_bench import ingest_document
from clausewise_lab.evals.data import contractnli, ingest_text, legalbench_queries, require
from clausewise_lab.evals.retrieval_bench import corpus_contract_id
from clausewise_lab.evals.shares import share
from tools.citations import QuoteVerifier
from tools.claim_check import contradictions
from tools.retrieval.spans import overlap

if TYPE_CHECKING:
    from clausewise.core.report import Report, Source
    from clausewise.runtime import Runtime

GOALS = {
    "citation_validity": 1.0,
    "evidence_recall": 0.70,
    "seconds_per_question": 180.0,
    "contradicted_claims_shown": 0,
}
QUESTION_SETS = ("mixed",)


def questions_for(root: Path, limit: int, seed: int) -> list[dict[str, Any]]:
    """``limit`` questions with their gold spans: half LegalBench-RAG queries whose evidence lies
    in one document, half ContractNLI hypotheses (not NotMentioned) asked as questions."""
    rng = random.Random(seed)
    lbr = [
        q
        for dataset in ("contractnli", "cuad", "maud", "privacy_qa")
        for q in legalbench_queries(root, dataset)
    ]
    lbr = [q for q in lbr if len({f for f, _ in q.snippets}) == 1]
    items = [
        {
            "source": "legalbench-rag",
            "question": q.query,
            "file": q.snippets[0][0],
            "gold": [s for _, s in q.snippets],
        }
        for q in rng.sample(lbr, min(len(lbr), limit - limit // 2))
    ]
    nli = contractnli(root)
    pairs = [
        (d, key)
        for d in nli.documents
        for key, (label, spans) in d.annotations.items()
        if label != "NotMentioned" and spans
    ]
    for document, key in rng.sample(pairs, min(len(pairs), limit // 2)):
        _, span_ids = document.annotations[key]
        items.append(
            {
                "source": "contractnli",
                "question": f"Does the agreement provide that {nli.hypotheses[key][0].lower()}"
                f"{nli.hypotheses[key][1:].rstrip('.')}?",
                "document": document,
                "gold": [document.spans[i] for i in span_ids],
            }
        )
    return items


def _slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60]


def _ingest(runtime: Runtime, root: Path, item: dict[str, Any], scratch: Path) -> str:
    if item["source"] == "cuad":
        return ingest_text(runtime, item["text"], item["contract_id"], scratch)
    if item["source"] == "legalbench-rag":
        contract_id = corpus_contract_id(item["file"])
        runtime.archivist().ingest(root / "legalbenchrag" / "corpus" / item["file"], contract_id=contract_id)
        return contract_id
    return ingest_document(runtime, item["document"], scratch)


def ingested_questions(
    runtime: Runtime,
    root: Path,
    limit: int,
    seed: int,
    progress: Progress,
    stage: str,
) -> Iterator[tuple[dict[str, Any], str]]:
    """The benchmark's questions, each with the id of its contract, ingested into the runtime's
    tenant; progress advances as the caller takes the next one."""
    require(root / "legalbenchrag")
    chosen = questions_for(root, limit, seed)
    progress.stage(stage, total=len(chosen))
    with tempfile.TemporaryDirectory() as scratch:
        for item in chosen:
            yield item, _ingest(runtime, root, item, Path(scratch))
            progress.advance()


def score_report(
    gold: list[Span], sources: Sequence[Source], read: Sequence[Span], verifier: QuoteVerifier
) -> dict[str, int]:
    """One report's counts: sources and those whose quote is the contract's text at its span;
    gold spans cited (a source overlapping them), shown to the answerer (inside an excerpt it
    read), and both."""
    cited = [any(overlap(g, s.span) > 0 for s in sources) for g in gold]
    shown = [any(overlap(g, span) > 0 for span in read) for g in gold]
    return {
        "sources": len(sources),
        "valid_sources": sum(verifier.is_at(s.quote, s.span) for s in sources),
        "gold_spans": len(gold),
        "gold_spans_cited": sum(cited),
        "gold_spans_shown": sum(shown),
        "gold_spans_shown_cited": sum(c and s for c, s in zip(cited, shown, strict=True)),
    }


def score_answer(report: Report, scorer: Any = None, at: float = 0.5) -> dict[str, Any]:
    """The report's short answer and the claims of the report as shown that its sources
    contradict."""
    short = report.short_answer
    texts = [report.summary, *report.reasoning, report.preliminary_answer]
    shown = contradictions(texts, report.sources, report.question, scorer=scorer, at=at)
    row: dict[str, Any] = {
        "short_answer": short.text() if short else None,
        "decided_by": short.decided_by if short else None,
        "disagreement": short.disagreement if short else "",
        "contradicted_claims_shown": len(shown),
        "repaired_claims": len(report.metadata.repaired_claims),
        "removed_claims": len(report.metadata.removed_claims),
    }
    return row


def run(
    runtime: Runtime,
    root: Path,
    *,
    limit: int = 10,
    turns: int | None = None,
    seed: int = 7,
    progress: Progress | None = None,
) -> dict[str, Any]:
    from clausewise.api import Clausewise
    from clausewise.core.report import Report

    progress = progress or NoProgress()
    api = Clausewise(runtime=runtime, audit=False)
    settings = runtime.settings
    scorer = runtime.nli() if settings.interrogation.claim_check == "values+nli" else None
    rows: list[dict[str, Any]] = []
    asked = ingested_questions(runtime, root, limit, seed, progress, "answering questions")
    for item, contract_id in asked:
        started = time.perf_counter()
        read: list[Span] = []
        report: Report | None = None
        for event in api.ask_stream(contract_id, item["question"], turns=turns):
            if isinstance(event, Report):
                report = event
            elif event.event == "research":
                read += [(a, b) for a, b in event.data.get("read", [])]
        seconds = time.perf_counter() - started
        assert report is not None
        index = runtime.store.open(contract_id)
        verifier = QuoteVerifier(index.document.text)
        index.close()
        rows.append(
            {
                "source": item["source"],
                "contract": contract_id,
                "question": item["question"],
                **score_report(item["gold"], report.sources, read, verifier),
                "addressed": report.addressed,
                "turns": report.metadata.turns_used,
                "llm_calls": report.metadata.llm_calls,
                "tokens": report.metadata.prompt_tokens + report.metadata.completion_tokens,
                "seconds": round(seconds, 1),
                "stopped": report.metadata.stopped_because,
                **score_answer(report, scorer, settings.checks.contradiction_at),
                # the answer itself, so it can be read, judged and its citations drawn
                # (`eval highlight --qa`)
                "report": report.model_dump(mode="json"),
            }
        )
    sources = sum(r["sources"] for r in rows)
    gold_spans = max(sum(r["gold_spans"] for r in rows), 1)
    return {
        "benchmark": "qa",
        "data": str(root),
        "tenant": runtime.tenant,
        "goals": GOALS,
        "question_set": "mixed",
        "questions": len(rows),
        "contradicted_claims_shown": sum(r["contradicted_claims_shown"] for r in rows),
        "repaired_claims": sum(r["repaired_claims"] for r in rows),
        "removed_claims": sum(r["removed_claims"] for r in rows),
        "models": sorted({m for r in runtime.ledger.records for m in [r.model]}),
        "citation_validity": share(sum(r["valid_sources"] for r in rows), sources),
        "evidence_recall": round(sum(r["gold_spans_cited"] for r in rows) / gold_spans, 4),
        "evidence_shown": round(sum(r["gold_spans_shown"] for r in rows) / gold_spans, 4),
        "cited_when_shown": share(
            sum(r["gold_spans_shown_cited"] for r in rows), sum(r["gold_spans_shown"] for r in rows)
        ),
        "mean_turns": round(statistics.fmean(r["turns"] for r in rows), 2) if rows else None,
        "mean_llm_calls": round(statistics.fmean(r["llm_calls"] for r in rows), 1) if rows else None,
        "mean_tokens": round(statistics.fmean(r["tokens"] for r in rows)) if rows else None,
        "seconds_per_question_mean": round(statistics.fmean(r["seconds"] for r in rows), 1) if rows else None,
        "seconds_per_question_max": max((r["seconds"] for r in rows), default=None),
        "rows": rows,
    }
