"""``clausewise eval qa``: the whole question-answering graph on development questions.

Questions are LegalBench-RAG queries (over their corpus documents) and ContractNLI hypotheses
asked as questions (over their NDAs); each has gold evidence spans. Per question: whether every
quote the report shows is the contract's text at its span (citation validity, goal 100%), the
share of gold spans the report cites (a source overlapping the span; goal >= 70%), turns, model
calls, tokens and wall time (goal <= 3 minutes at 3 turns with the embedded 1.5B model on 2 cores).

Where recall is lost is counted too: the gold spans inside the excerpts the answerer read in any
turn (``gold_spans_shown``). A gold span never shown is retrieval's miss; one shown but not cited
is the answerer's (attribution can also cite a span it was not shown).

Whether the answer is right (``--questions``):

- ``verdicts``: ContractNLI hypotheses asked as "Does the agreement provide that ...?", a third
  each of Entailment, Contradiction and NotMentioned (so the contradiction F1 rests on as many
  questions as the others); the short answer's verdict against the gold label (yes / no / not
  addressed): accuracy and per-class F1.
- ``values``: questions built from the CUAD categories that have a value (Governing Law,
  Expiration Date, Renewal Term, Notice Period to Terminate Renewal, Effective Date, Parties) on
  CUAD development contracts; the short answer's normalized value against the values the gold
  annotation states (:mod:`tools.values` reads both; a party answer is right when it names the
  annotated parties). Questions whose annotation states no readable value are not asked.
- every set: contradicted claims shown (the claim check run on the report as the user sees it;
  goal 0), the claims repaired and removed on the way, and on value questions the statements of
  a value of the type asked that no gold annotation states (``wrong_values_shown``).
"""

from __future__ import annotations

import json
import random
import re
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clausewise.core.domain import Span
from clausewise.core.progress import NoProgress, Progress
from clausewise.evals.bank import VERDICT_OF_LABEL
from clausewise.evals.contractnli_bench import ingest_document, label_metrics
from clausewise.evals.data import contractnli, in_fold, ingest_text, legalbench_queries, require
from clausewise.evals.retrieval_bench import corpus_contract_id
from tools.citations import QuoteVerifier
from tools.claim_check import claims, contradictions
from tools.retrieval.spans import overlap
from tools.value_reading import is_notice_period
from tools.values import ValueType, comparable, find_values

if TYPE_CHECKING:
    from clausewise.core.report import Report, Source
    from clausewise.runtime import Runtime

GOALS = {
    "citation_validity": 1.0,
    "evidence_recall": 0.70,
    "seconds_per_question": 180.0,
    "verdict_accuracy": 0.80,
    "contradiction_f1": 0.60,
    "value_accuracy": 0.80,
    "contradicted_claims_shown": 0,
}
QUESTION_SETS = ("mixed", "verdicts", "values")
#: CUAD categories with a value, the question asked, and the value type the gold text is read as.
VALUE_CATEGORIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "Governing Law": ("Which law governs the agreement?", ("law",)),
    "Expiration Date": ("When does the agreement expire?", ("date", "duration")),
    "Renewal Term": ("What is the renewal term of the agreement?", ("duration",)),
    "Notice Period to Terminate Renewal": (
        "How much notice must a party give to prevent the agreement from renewing?",
        ("duration",),
    ),
    "Effective Date": ("What is the effective date of the agreement?", ("date",)),
    "Parties": ("Who are the parties to the agreement?", ()),
}


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


def verdict_questions(root: Path, limit: int, seed: int, fold: str = "heldout") -> list[dict[str, Any]]:
    """``limit`` ContractNLI hypotheses as questions, a third per gold label (NotMentioned has
    no gold span), on the documents of ``fold`` (by default those the shipped hypothesis
    classifier was not trained on: it decides these questions)."""
    rng = random.Random(seed)
    nli = contractnli(root)
    by_label: dict[str, list[tuple[Any, str]]] = {label: [] for label in VERDICT_OF_LABEL}
    for document in in_fold(nli.documents, lambda d: d.file_name, fold):
        for key, (label, _) in document.annotations.items():
            by_label[label].append((document, key))
    items = []
    for position, label in enumerate(VERDICT_OF_LABEL):
        count = limit // 3 + (1 if position < limit % 3 else 0)
        for document, key in rng.sample(by_label[label], min(count, len(by_label[label]))):
            _, span_ids = document.annotations[key]
            hypothesis = nli.hypotheses[key]
            items.append(
                {
                    "source": "contractnli",
                    "question": f"Does the agreement provide that {hypothesis[0].lower()}"
                    f"{hypothesis[1:].rstrip('.')}?",
                    "document": document,
                    "gold": [document.spans[i] for i in span_ids],
                    "gold_verdict": VERDICT_OF_LABEL[label],
                }
            )
    rng.shuffle(items)
    return items


#: Which durations of a category's annotation are its value: the notice period's is the one
#: followed by "notice", the renewal term's one that is not.
NOTICE_SIDE = {"Notice Period to Terminate Renewal": True, "Renewal Term": False}


def _gold_values(category: str, texts: list[str]) -> list[str]:
    _, types = VALUE_CATEGORIES[category]
    if not types:  # parties: the annotated names themselves (not the sentences naming them)
        names = (" ".join(t.split()) for t in texts)
        return list(dict.fromkeys(n for n in names if n and len(n) <= 60 and '"' not in n))
    found = [(t, m) for t in texts for m in find_values(t, types)]
    if category in NOTICE_SIDE:  # a renewal clause states the term and the notice that stops it
        side = [(t, m) for t, m in found if is_notice_period(t, m) == NOTICE_SIDE[category]]
        found = side or found
    return list(dict.fromkeys(comparable(m.type, m.normalized) for _, m in found))


def value_questions(root: Path, limit: int, seed: int, fold: str = "heldout") -> list[dict[str, Any]]:
    """``limit`` value questions on CUAD development contracts, taken contract by contract (the
    value categories whose annotation states a readable value), so few long contracts are
    ingested; no category gets more than a quarter of the questions (most contracts name their
    parties, few a renewal notice period). Contracts of ``fold`` only (by default those no
    shipped model was trained on)."""
    rng = random.Random(seed)
    cap = -(-limit // 4)
    taken: Counter[str] = Counter()
    data = json.loads(require(root / "cuad" / "cuad_dev.json").read_text(encoding="utf-8"))["data"]
    entries = in_fold(list(data), lambda e: e["title"], fold)
    rng.shuffle(entries)
    items: list[dict[str, Any]] = []
    for entry in entries:
        paragraph = entry["paragraphs"][0]
        for qa in paragraph["qas"]:
            category = qa["id"].rsplit("__", 1)[-1]
            if category not in VALUE_CATEGORIES or not qa["answers"] or taken[category] >= cap:
                continue
            gold_values = _gold_values(category, [a["text"] for a in qa["answers"]])
            if not gold_values:
                continue
            items.append(
                {
                    "source": "cuad",
                    "question": VALUE_CATEGORIES[category][0],
                    "category": category,
                    "text": paragraph["context"],
                    "contract_id": f"cuad-dev-{_slug(entry['title'])}",
                    "gold": [(a["answer_start"], a["answer_start"] + len(a["text"])) for a in qa["answers"]],
                    "gold_values": gold_values,
                }
            )
            taken[category] += 1
            if len(items) >= limit:
                return items
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
    questions: str = "mixed",
    fold: str = "heldout",
) -> Iterator[tuple[dict[str, Any], str]]:
    """The benchmark's questions of set ``questions`` (:data:`QUESTION_SETS`), each with the id
    of its contract, ingested into the runtime's tenant; progress advances as the caller takes
    the next one."""
    if questions == "verdicts":
        chosen = verdict_questions(root, limit, seed, fold)
    elif questions == "values":
        chosen = value_questions(root, limit, seed, fold)
    else:
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


def score_answer(item: dict[str, Any], report: Report, scorer: Any = None, at: float = 0.5) -> dict[str, Any]:
    """Whether the short answer is right (verdict or value questions), and the claims of the
    report as shown that its sources contradict (and, on value questions, the statements of a
    value of the asked type that no gold annotation states)."""
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
    if "gold_verdict" in item:
        row["gold_verdict"] = item["gold_verdict"]
        row["verdict"] = short.verdict if short and short.form == "verdict" else None
        row["verdict_correct"] = row["verdict"] == item["gold_verdict"]
    if "gold_values" in item:
        row["category"] = item["category"]
        row["gold_values"] = item["gold_values"]
        row["value"] = short.value if short else ""
        row["value_correct"] = value_correct(
            item, short.value if short else "", short.normalized if short else ""
        )
        row["wrong_values_shown"] = wrong_values_shown(item, texts, report.question)
    return row


def _value_types(item: dict[str, Any]) -> tuple[ValueType, ...]:
    return VALUE_CATEGORIES[item["category"]][1]  # type: ignore[return-value]


def value_correct(item: dict[str, Any], value: str, normalized: str) -> bool:
    """A value answer equals a gold value (normalized); a party answer names the annotated
    parties (at least two of them, or the one there is)."""
    types = _value_types(item)
    if not value:
        return False
    if not types:
        named = [g for g in item["gold_values"] if g.lower() in value.lower()]
        return len(named) >= min(2, len(item["gold_values"]))
    answered = {comparable(m.type, m.normalized) for m in find_values(value, types)}
    # the short answer's own normalized form: a law read as "Ohio" states no "laws of" to find
    answered |= {comparable(t, normalized) for t in types if normalized and _is_form_of(t, normalized)}
    return bool(answered & set(item["gold_values"]))


def _is_form_of(value_type: ValueType, normalized: str) -> bool:
    """Whether ``normalized`` is written as a value of ``value_type`` normalizes ("3 years",
    "1999-06-21", "USD 1000"; a law's place is any other text)."""
    if value_type == "duration":
        return bool(re.fullmatch(r"\d+ [a-z ]+", normalized))
    if value_type == "date":
        return bool(re.fullmatch(r"\d{4}-\d\d-\d\d", normalized))
    return value_type == "law" or value_type == "amount"


def wrong_values_shown(item: dict[str, Any], texts: list[str], question: str) -> int:
    """Claims stating a value of the type asked that no gold annotation states."""
    types = _value_types(item)
    if not types:
        return 0
    asked = {comparable(m.type, m.normalized) for m in find_values(question, types)}
    wrong = 0
    for text in texts:
        for claim in claims(text):
            stated = {comparable(m.type, m.normalized) for m in find_values(claim, types)} - asked
            wrong += bool(stated) and not stated & set(item["gold_values"])
    return wrong


def correctness(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Verdict accuracy and per-class F1, value accuracy (overall and per category), and the
    contradicted claims shown, over the rows that have them."""
    label_of = {verdict: label for label, verdict in VERDICT_OF_LABEL.items()}
    figures: dict[str, Any] = {
        "contradicted_claims_shown": sum(r["contradicted_claims_shown"] for r in rows),
        "repaired_claims": sum(r["repaired_claims"] for r in rows),
        "removed_claims": sum(r["removed_claims"] for r in rows),
    }
    verdicts = [r for r in rows if "gold_verdict" in r]
    if verdicts:
        metrics = label_metrics(
            [label_of[r["gold_verdict"]] for r in verdicts],
            [label_of.get(r["verdict"] or "", r["verdict"] or "none") for r in verdicts],
        )
        figures["verdict"] = metrics
        figures["verdict_accuracy"] = metrics["accuracy"]
        figures["contradiction_f1"] = metrics["per_class"]["Contradiction"]["f1"]
        figures["verdicts_decided_by"] = dict(Counter(r["decided_by"] for r in verdicts))
    values = [r for r in rows if "gold_values" in r]
    if values:
        figures["value_accuracy"] = round(sum(r["value_correct"] for r in values) / len(values), 4)
        figures["value_accuracy_by_category"] = {
            category: {
                "n": len(group),
                "accuracy": round(sum(r["value_correct"] for r in group) / len(group), 4),
            }
            for category in VALUE_CATEGORIES
            if (group := [r for r in values if r["category"] == category])
        }
        figures["wrong_values_shown"] = sum(r["wrong_values_shown"] for r in values)
    return figures


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def run(
    runtime: Runtime,
    root: Path,
    *,
    limit: int = 10,
    turns: int | None = None,
    seed: int = 7,
    questions: str = "mixed",
    fold: str = "heldout",
    progress: Progress | None = None,
) -> dict[str, Any]:
    from clausewise.api import Clausewise
    from clausewise.core.report import Report

    progress = progress or NoProgress()
    api = Clausewise(runtime=runtime)
    settings = runtime.settings
    scorer = runtime.nli() if settings.interrogation.claim_check == "values+nli" else None
    rows: list[dict[str, Any]] = []
    asked = ingested_questions(runtime, root, limit, seed, progress, "answering questions", questions, fold)
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
                **score_answer(item, report, scorer, settings.checks.contradiction_at),
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
        "question_set": questions,
        "fold": fold if questions != "mixed" else "all",
        "questions": len(rows),
        **correctness(rows),
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
