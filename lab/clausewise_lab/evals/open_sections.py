"""``clausewise eval open-sections``: would planning an open question from the clause tree's section
titles reach gold clauses that retrieval does not?

For each question of the open-question bank's half, the gold spans (:mod:`open_bank`) are counted
several ways: overlapped by the passages the default retrieval returns (the hybrid search and the
reranker, ``k`` passages, the question's own words as keywords), by the sections whose titles share
a content word's stem with the question ("Termination" for "How can this agreement be
terminated?"), by either, and by retrieval beside the passages the Researcher plans from the text
(each party's duties, every ground to terminate, every warranty given, what follows the end, the
payment terms, one subject's own sentences: :mod:`tools.text_plans`), and by the planned
passages alone (what a planned turn cites). A planner is worth building where its count clearly
exceeds retrieval's.
"""

from __future__ import annotations

import re
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clausewise.core.domain import RetrievalQuery, Span
from clausewise_lab.evals.data import document_ids, ingest_text
from clausewise_lab.evals.open_bank import open_bank
from tools.retrieval.query_plan import default_plan
from tools.text_plans import plan_for

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

#: Question words that name no subject a section title could hold.
_NO_SUBJECT = frozenset(
    "what which when where does this that agreement contract about each party party's parties main "
    "under given make have must with there their they them".split()
)
_WORD = re.compile(r"[a-z]+")
STEM = 5


def subject_stems(text: str) -> set[str]:
    """The first letters of the words of ``text`` that may name a subject ("terminated" -> "termi")."""
    return {w[:STEM] for w in _WORD.findall(text.lower()) if len(w) > 3 and w not in _NO_SUBJECT}


def _meets(span: Span, spans: list[Span]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in spans)


def sections_beside_retrieval(runtime: Runtime, root: Path, half: str, k: int = 8) -> dict[str, Any]:
    """Gold spans reached by retrieval, by title-matched sections and by either, per kind and in all."""
    questions, texts = open_bank(root, half)  # type: ignore[arg-type]
    ids = document_ids(texts, "open")
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        ingested = {
            name: ingest_text(runtime, text, ids[name], Path(scratch)) for name, text in texts.items()
        }
        for question in questions:
            index = runtime.store.open(ingested[question.contract])
            try:
                plan = default_plan(question.question)
                query = RetrievalQuery(
                    question=question.question, keywords=plan.keywords, semantic=question.question
                )
                passages = [hit.span for hit in runtime.retriever(index).search(query, k=k)]
                subject = subject_stems(question.question)
                sections = [
                    n.span for n in index.tree.nodes.values() if n.title and subject_stems(n.title) & subject
                ]
                text_plan = plan_for(question.question)
                planned = text_plan.spans(index.document.text, index.tree) if text_plan else []
            finally:
                index.close()
            found = {
                "gold": len(question.gold_spans),
                "retrieval": sum(_meets(g, passages) for g in question.gold_spans),
                "sections": sum(_meets(g, sections) for g in question.gold_spans),
                "either": sum(_meets(g, passages + sections) for g in question.gold_spans),
                "planned": sum(_meets(g, passages + planned) for g in question.gold_spans),
                "plan_alone": sum(_meets(g, planned if planned else passages) for g in question.gold_spans),
            }
            for name, value in found.items():
                counts[question.category][name] += value
                counts["all"][name] += value
            rows.append(
                {
                    "kind": question.category,
                    "question": question.question,
                    **found,
                    "titled": len(sections),
                    "plan": text_plan.rule if text_plan else "",
                    "planned_sentences": len(planned),
                }
            )
    return {
        "benchmark": "open-sections",
        "half": half,
        "k": k,
        "questions": len(rows),
        "counts": {kind: dict(found) for kind, found in sorted(counts.items())},
        "rows": rows,
    }
