"""``clausewise eval qa-evidence``: does the answerer get to read the gold evidence?

A report can only cite what the Researcher shows its answering model: the first passages of the
ranked hits (``interrogation.evidence_passages``), each cut to ``interrogation.passage_chars``
around its sentence most related to the question. This benchmark runs that path without any
language model (the deterministic query plan, no rewriter) over the questions of ``eval qa`` and
reports the share of gold spans (a) among the passages and (b) inside the excerpts shown. It is
the ceiling of ``eval qa``'s evidence recall for the first turn, measured on many more questions
in minutes instead of hours, so retrieval and excerpting changes can be judged on their own.
It also runs the Researcher's post-hoc attribution (:mod:`tools.attribution`, also no language
model) and reports (c) the share of gold spans its sentences cite, and how many of those
sentences touch a gold span (precision): the part of the evidence a report cites whatever the
answering model does; and (d) the share in the excerpts or attributed, what a first turn can cite.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from agents.researcher import Researcher
from clausewise.core.progress import NoProgress, Progress
from clausewise_lab.evals.qa_bench import ingested_questions
from tools.passages import excerpt_span
from tools.retrieval.spans import overlap

if TYPE_CHECKING:
    from clausewise.runtime import Runtime


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Gold spans over ``rows``, the shares found among the passages, in the excerpts and in
    the attributed sentences, and how many attributed sentences touch gold."""
    total = sum(r["gold_spans"] for r in rows)
    attributed = sum(r["attributed"] for r in rows)
    return {
        "gold_spans": total,
        **{
            key: round(sum(r[key] for r in rows) / total, 4) if total else None
            for key in ("in_passages", "in_excerpts", "in_attributed", "in_reach")
        },
        "attributed_per_question": round(attributed / len(rows), 2) if rows else None,
        "attribution_precision": (
            round(sum(r["attributed_on_gold"] for r in rows) / attributed, 4) if attributed else None
        ),
    }


def run(
    runtime: Runtime, root: Path, *, limit: int = 40, seed: int = 7, progress: Progress | None = None
) -> dict[str, Any]:
    progress = progress or NoProgress()
    settings = runtime.settings
    passages, chars = settings.interrogation.evidence_passages, settings.interrogation.passage_chars
    rows: list[dict[str, Any]] = []
    for item, contract_id in ingested_questions(runtime, root, limit, seed, progress, "retrieving evidence"):
        index = runtime.store.open(contract_id)
        try:
            # no chat models: nothing is asked (the deterministic plan); the classifier only for
            # attribution
            researcher = Researcher(settings, index, runtime.retriever(index), attributor=runtime.nli())
            hits, evidence = researcher.retrieve(item["question"], researcher.plan(item["question"]))
            attributed = [c.span for c in researcher.attributed(item["question"], evidence, retrieved=hits)]
        finally:
            index.close()
        shown = [excerpt_span(h.span, h.text, chars, item["question"]) for h in evidence]
        rows.append(
            {
                "source": item["source"],
                "contract": contract_id,
                "question": item["question"],
                "gold_spans": len(item["gold"]),
                "in_passages": sum(any(overlap(g, h.span) > 0 for h in evidence) for g in item["gold"]),
                "in_excerpts": sum(any(overlap(g, s) > 0 for s in shown) for g in item["gold"]),
                "in_attributed": sum(any(overlap(g, a) > 0 for a in attributed) for g in item["gold"]),
                "in_reach": sum(any(overlap(g, s) > 0 for s in [*shown, *attributed]) for g in item["gold"]),
                "attributed": len(attributed),
                "attributed_on_gold": sum(any(overlap(g, a) > 0 for g in item["gold"]) for a in attributed),
            }
        )
    return {
        "benchmark": "qa-evidence",
        "data": str(root),
        "questions": len(rows),
        "seed": seed,
        "evidence_passages": passages,
        "passage_chars": chars,
        "attributed_sentences": settings.interrogation.attributed_sentences,
        "attribution_at": settings.interrogation.attribution_at,
        "attribution_scope": settings.interrogation.attribution_scope,
        **_summary(rows),
        "by_source": {
            s: _summary([r for r in rows if r["source"] == s]) for s in sorted({r["source"] for r in rows})
        },
        "rows": rows,
    }
