"""``clausewise eval qa``: the whole question-answering graph on development questions.

Questions are LegalBench-RAG queries (over their corpus documents) and ContractNLI hypotheses
asked as questions (over their NDAs); each has gold evidence spans. Per question: whether every
quote the report shows is the contract's text at its span (citation validity, goal 100%), the
share of gold spans the report cites (a source overlapping the span; goal >= 70%), turns, model
calls, tokens and wall time (goal <= 3 minutes at 3 turns with the embedded 1.5B model on 2 cores).

Where recall is lost is counted too: the gold spans inside the excerpts the answerer read in any
turn (``gold_spans_shown``). A gold span never shown is retrieval's miss; one shown but not cited
is the answerer's (attribution can also cite a span it was not shown).
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clausewise.core.domain import Span
from clausewise.core.progress import NoProgress, Progress
from clausewise.evals.contractnli_bench import ingest_document
from clausewise.evals.data import contractnli, legalbench_queries, require
from clausewise.evals.retrieval_bench import corpus_contract_id
from tools.citations import QuoteVerifier
from tools.retrieval.spans import overlap

if TYPE_CHECKING:
    from clausewise.core.report import Source
    from clausewise.runtime import Runtime

GOALS = {"citation_validity": 1.0, "evidence_recall": 0.70, "seconds_per_question": 180.0}


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


def _ingest(runtime: Runtime, root: Path, item: dict[str, Any], scratch: Path) -> str:
    if item["source"] == "legalbench-rag":
        contract_id = corpus_contract_id(item["file"])
        runtime.archivist().ingest(root / "legalbenchrag" / "corpus" / item["file"], contract_id=contract_id)
        return contract_id
    return ingest_document(runtime, item["document"], scratch)


def ingested_questions(
    runtime: Runtime, root: Path, limit: int, seed: int, progress: Progress, stage: str
) -> Iterator[tuple[dict[str, Any], str]]:
    """The benchmark's questions (:func:`questions_for`), each with the id of its contract,
    ingested into the runtime's tenant; progress advances as the caller takes the next one."""
    require(root / "legalbenchrag")
    questions = questions_for(root, limit, seed)
    progress.stage(stage, total=len(questions))
    with tempfile.TemporaryDirectory() as scratch:
        for item in questions:
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


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


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
    api = Clausewise(runtime=runtime)
    rows: list[dict[str, Any]] = []
    for item, contract_id in ingested_questions(runtime, root, limit, seed, progress, "answering questions"):
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
        "questions": len(rows),
        "models": sorted({m for r in runtime.ledger.records for m in [r.model]}),
        "citation_validity": _share(sum(r["valid_sources"] for r in rows), sources),
        "evidence_recall": round(sum(r["gold_spans_cited"] for r in rows) / gold_spans, 4),
        "evidence_shown": round(sum(r["gold_spans_shown"] for r in rows) / gold_spans, 4),
        "cited_when_shown": _share(
            sum(r["gold_spans_shown_cited"] for r in rows), sum(r["gold_spans_shown"] for r in rows)
        ),
        "mean_turns": round(statistics.fmean(r["turns"] for r in rows), 2) if rows else None,
        "mean_llm_calls": round(statistics.fmean(r["llm_calls"] for r in rows), 1) if rows else None,
        "mean_tokens": round(statistics.fmean(r["tokens"] for r in rows)) if rows else None,
        "seconds_per_question_mean": round(statistics.fmean(r["seconds"] for r in rows), 1) if rows else None,
        "seconds_per_question_max": max((r["seconds"] for r in rows), default=None),
        "rows": rows,
    }
