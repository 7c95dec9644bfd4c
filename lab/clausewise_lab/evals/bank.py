"""The question bank: questions a lawyer would ask, with gold answers, split by contract.

Four kinds of question, each from a development dataset's own annotations:

- **yes/no** (CUAD): every one of the 41 categories asked as a plain yes/no question
  (``data/bank-phrasings.yaml``), on contracts that have the provision (gold
  "yes") and, as many, contracts that do not (gold "no");
- **value** (CUAD): the categories with a value asked for it, on contracts whose annotation
  states it (gold: the annotated text, however the contract puts it: a date, a duration, a
  condition such as "until the last warranty period ends") and on some that do not (gold "not
  stated");
- **verdict+value** (CUAD): a yes/no question that asks for the provision's value in the same
  breath ("Does it renew automatically, and for how long?"), on contracts with the provision
  (gold "yes" and the annotated value) and without it (gold "no");
- **verdict** (ContractNLI): "Does the agreement provide that <hypothesis>?", a third of the
  questions per gold label (yes, no, not addressed);
- **open** (LegalBench-RAG): the benchmark's queries whose evidence lies in one document, scored
  by the evidence the answer cites.

The bank is split by contract with the held-out rule of :mod:`clausewise_lab.evals.folds`: the
**check** half is the fold no shipped model was trained on, the **tune** half the rest. Rules and
thresholds are chosen on the tune half; the check half is read for figures.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from clausewise.core.domain import Span
from clausewise_lab.evals.data import contractnli, legalbench_queries, require
from clausewise_lab.evals.data_files import bank_phrasings
from clausewise_lab.evals.folds import is_heldout

Half = Literal["tune", "check"]
Kind = Literal["yes/no", "value", "verdict+value", "verdict", "open"]
KINDS: tuple[Kind, ...] = ("yes/no", "value", "verdict+value", "verdict", "open")
VERDICT_OF_LABEL = {"Entailment": "yes", "Contradiction": "no", "NotMentioned": "not addressed"}


@dataclass(frozen=True)
class BankQuestion:
    """One question of the bank with its gold answer.

    ``contract`` names the document (a CUAD title, a ContractNLI file, a LegalBench-RAG corpus
    path) and ``source`` the dataset it comes from; :class:`Bank` holds the texts."""

    id: str
    kind: Kind
    source: str
    contract: str
    question: str
    gold: str  # yes / no / not addressed / stated / not stated / open
    category: str = ""
    phrasing: int = 0
    reading: str = ""  # how a value's gold text is read (data/bank-phrasings.yaml)
    gold_texts: tuple[str, ...] = ()
    gold_spans: tuple[Span, ...] = ()

    def as_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["gold_spans"] = [list(s) for s in self.gold_spans]
        return row


@dataclass
class Bank:
    """The questions of one half and the text of every contract they are asked on."""

    half: Half
    questions: list[BankQuestion]
    texts: dict[str, str] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        found: dict[str, int] = defaultdict(int)
        for question in self.questions:
            found[question.kind] += 1
        return dict(found)


def in_half(name: str, half: Half) -> bool:
    return is_heldout(name) == (half == "check")


def _cuad(root: Path, half: Half) -> list[tuple[str, str, dict[str, list[tuple[str, Span]]]]]:
    entries = json.loads(require(root / "cuad" / "cuad_dev.json").read_text(encoding="utf-8"))["data"]
    contracts = []
    for entry in entries:
        if not in_half(entry["title"], half):
            continue
        paragraph = entry["paragraphs"][0]
        answers = {
            qa["id"].rsplit("__", 1)[-1]: [
                (a["text"], (a["answer_start"], a["answer_start"] + len(a["text"]))) for a in qa["answers"]
            ]
            for qa in paragraph["qas"]
        }
        contracts.append((entry["title"], paragraph["context"], answers))
    return contracts


Contract = tuple[str, str, dict[str, list[tuple[str, Span]]]]


def _cuad_question(
    prefix: str,
    kind: Kind,
    category: str,
    contract: Contract,
    gold: str,
    wordings: Sequence[str],
    reading: str,
    rng: random.Random,
) -> BankQuestion:
    """``category`` asked of one CUAD contract in one of its ``wordings``, drawn with ``rng``; the
    annotators' spans of the category in the contract are the gold texts."""
    title, _, answers = contract
    phrasing = rng.randrange(len(wordings))
    spans = answers.get(category, [])
    return BankQuestion(
        id=f"{prefix}:{category}:{title}",
        kind=kind,
        source="cuad",
        contract=title,
        question=wordings[phrasing],
        gold=gold,
        category=category,
        phrasing=phrasing,
        reading=reading,
        gold_texts=tuple(t for t, _ in spans),
        gold_spans=tuple(s for _, s in spans),
    )


def _sided_questions(
    contracts: Sequence[Contract],
    rng: random.Random,
    per_side: int,
    kind: Kind,
    wordings: dict[str, tuple[str | None, tuple[str, ...]]],
) -> list[BankQuestion]:
    """Per category of ``wordings`` (category -> how its value is read, or None, and its
    wordings), up to ``per_side`` contracts with the provision (gold "yes") and as many without
    ("no"); all of one side when the other has fewer: a provision few contracts have is still
    asked about."""
    prefix = {"yes/no": "yn", "verdict+value": "both"}[kind]
    items = []
    for category, (reading, asked) in wordings.items():
        present = [c for c in contracts if c[2].get(category)]
        absent = [c for c in contracts if not c[2].get(category)]
        for gold, side in (("yes", present), ("no", absent)):
            for contract in rng.sample(side, min(per_side, len(side))):
                items.append(
                    _cuad_question(prefix, kind, category, contract, gold, asked, reading or "", rng)
                )
    return items


def yes_no_questions(contracts: Sequence[Contract], rng: random.Random, per_side: int) -> list[BankQuestion]:
    """Each CUAD category asked yes/no (the bank's phrasings), on contracts with and without it."""
    asked = {category: (None, wordings) for category, wordings in bank_phrasings().yes_no.items()}
    return _sided_questions(contracts, rng, per_side, "yes/no", asked)


def value_questions(
    contracts: Sequence[Contract],
    rng: random.Random,
    per_category: int,
) -> list[BankQuestion]:
    """Per value category, up to ``per_category`` contracts that state it, and a third as many
    that do not (the right answer is then that the contract does not state it)."""
    items = []
    for category, entry in bank_phrasings().values.items():
        reading, wordings = entry.reading, entry.wordings
        present = [c for c in contracts if c[2].get(category)]
        absent = [c for c in contracts if not c[2].get(category)]
        chosen = [("stated", c) for c in rng.sample(present, min(per_category, len(present)))]
        chosen += [("not stated", c) for c in rng.sample(absent, min(per_category // 3, len(absent)))]
        for gold, contract in chosen:
            items.append(_cuad_question("value", "value", category, contract, gold, wordings, reading, rng))
    return items


def both_questions(contracts: Sequence[Contract], rng: random.Random, per_side: int) -> list[BankQuestion]:
    """Per category the bank asks "whether and what" of, contracts with and without it, each
    asked whether it has the provision and what its value is."""
    asked = {c: (entry.reading, entry.wordings) for c, entry in bank_phrasings().both.items()}
    return _sided_questions(contracts, rng, per_side, "verdict+value", asked)


def verdict_questions(
    root: Path, half: Half, rng: random.Random, per_label: int
) -> tuple[list[BankQuestion], dict]:
    """ContractNLI hypotheses as "Does the agreement provide that ...?", ``per_label`` per gold
    label, and the texts of their documents."""
    nli = contractnli(root)
    by_label: dict[str, list[BankQuestion]] = defaultdict(list)
    texts = {}
    for document in nli.documents:
        if not in_half(document.file_name, half):
            continue
        texts[document.file_name] = document.text
        for key, (label, span_ids) in document.annotations.items():
            hypothesis = nli.hypotheses[key]
            claim = hypothesis[0].lower() + hypothesis[1:].rstrip(".")
            by_label[label].append(
                BankQuestion(
                    id=f"verdict:{key}:{document.file_name}",
                    kind="verdict",
                    source="contractnli",
                    contract=document.file_name,
                    question=f"Does the agreement provide that {claim}?",
                    gold=VERDICT_OF_LABEL[label],
                    category=key,
                    gold_spans=tuple(document.spans[i] for i in span_ids),
                )
            )
    items = [
        q
        for label in VERDICT_OF_LABEL
        for q in rng.sample(by_label[label], min(per_label, len(by_label[label])))
    ]
    used = {q.contract for q in items}
    return items, {name: text for name, text in texts.items() if name in used}


def open_questions(root: Path, half: Half, rng: random.Random, count: int) -> tuple[list[BankQuestion], dict]:
    """LegalBench-RAG queries whose evidence lies in one document of the half, and their texts."""
    candidates = []
    for dataset in ("contractnli", "cuad", "maud", "privacy_qa"):
        for query in legalbench_queries(root, dataset):
            files = {f for f, _ in query.snippets}
            if len(files) == 1 and in_half(next(iter(files)), half):
                candidates.append((dataset, query))
    items = []
    for dataset, query in rng.sample(candidates, min(count, len(candidates))):
        file_path = query.snippets[0][0]
        items.append(
            BankQuestion(
                id=f"open:{dataset}:{len(items)}",
                kind="open",
                source="legalbench-rag",
                contract=file_path,
                question=query.query,
                gold="open",
                category=dataset,
                gold_spans=tuple(span for _, span in query.snippets),
            )
        )
    texts = {
        q.contract: (root / "legalbenchrag" / "corpus" / q.contract).read_text(encoding="utf-8")
        for q in items
    }
    return items, texts


def build_bank(
    root: Path,
    half: Half,
    *,
    seed: int = 7,
    per_side: int = 6,
    per_value: int = 9,
    per_label: int = 15,
    open_count: int = 20,
    per_both: int = 4,
) -> Bank:
    """The bank of one half (the same ``seed`` gives the same questions)."""
    rng = random.Random(seed)
    contracts = _cuad(root, half)
    questions = yes_no_questions(contracts, rng, per_side) + value_questions(contracts, rng, per_value)
    verdicts, verdict_texts = verdict_questions(root, half, rng, per_label)
    opens, open_texts = open_questions(root, half, rng, open_count)
    # drawn last, from a generator of its own: the other kinds' questions stay what they were
    # before this kind was added, so earlier figures compare
    questions += both_questions(contracts, random.Random(seed + 1), per_both)
    texts = {title: text for title, text, _ in contracts if any(q.contract == title for q in questions)}
    return Bank(half, questions + verdicts + opens, {**texts, **verdict_texts, **open_texts})


#: How a run of ``--limit`` questions is shared among the kinds (the rest of the bank's mix would
#: be mostly yes/no questions: 41 categories against 8 value categories).
KIND_SHARES: dict[str, float] = {
    "yes/no": 0.5,
    "value": 0.25,
    "verdict": 0.15,
    "open": 0.10,
    # added later, beside the others: a run of other kinds samples the questions it sampled before
    "verdict+value": 0.08,
}


def _round_robin(questions: Sequence[BankQuestion], limit: int, rng: random.Random) -> list[BankQuestion]:
    groups: dict[str, list[BankQuestion]] = defaultdict(list)
    for question in questions:
        groups[question.category].append(question)
    order = sorted(groups)
    rng.shuffle(order)
    for key in order:
        rng.shuffle(groups[key])
    chosen: list[BankQuestion] = []
    while len(chosen) < limit and any(groups.values()):
        for key in order:
            if groups[key] and len(chosen) < limit:
                chosen.append(groups[key].pop())
    return chosen


def sample(questions: Sequence[BankQuestion], limit: int | None, seed: int = 7) -> list[BankQuestion]:
    """At most ``limit`` questions: shared among the kinds by :data:`KIND_SHARES`, and within a
    kind round-robin over its categories in a seeded order, so a small run still asks about many
    provisions (the bank itself balances the gold answers of each category)."""
    if not limit or limit >= len(questions):
        return list(questions)
    rng = random.Random(seed)
    by_kind: dict[str, list[BankQuestion]] = defaultdict(list)
    for question in questions:
        by_kind[question.kind].append(question)
    present = [k for k in KINDS if by_kind[k]]
    total_share = sum(KIND_SHARES[k] for k in present)
    quotas = {k: int(limit * KIND_SHARES[k] / total_share) for k in present}
    for k in present[: limit - sum(quotas.values())]:
        quotas[k] += 1
    return [q for k in present for q in _round_robin(by_kind[k], quotas[k], rng)]
