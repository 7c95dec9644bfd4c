"""The open-question bank: what a lawyer asks every day about a contract, with the clauses a lawyer
would cite, for scoring full reports.

Twelve kinds of question (:func:`open_kinds`, ``data/open-bank.yaml``), each in two or three
wordings a lawyer would use:
payment terms, each party's main obligations, termination rights, liability limits, warranties,
intellectual property ownership, confidentiality (its duration and exceptions), what happens at the
end of the agreement, amendment, dispute resolution (governing law and forum), notices and
assignment. Every kind is asked on every contract of the bank that has a gold clause for it; a
question with no gold clause is not asked. The wording is chosen by the contract's and the kind's
positions (no randomness), so the bank is the same on every run.

**Gold clauses.** A question's gold set is the union, overlapping spans merged, of

- the spans CUAD annotates in the categories that hold that kind's clauses (``OpenKind.cuad``:
  termination rights <- "Termination for Convenience" and "Notice Period to Terminate Renewal",
  liability limits <- "Cap on Liability" and "Uncapped Liability", warranties <- "Warranty
  Duration", IP ownership <- "IP Ownership Assignment" and "Joint IP Ownership", end of the
  agreement <- "Post-Termination Services", assignment <- "Anti-Assignment" and "Change of
  Control", dispute resolution <- "Governing Law", payment <- "Revenue/Profit Sharing" and "Price
  Restrictions", main obligations <- "Minimum Commitment": a purchase minimum is a party's duty
  more than a payment term);
- clauses marked by hand in :file:`data/open-bank.yaml` after reading the contract: the kinds no
  CUAD category holds (payment terms for the most part, main obligations, confidentiality,
  amendment, notices, the dispute forum) and what a CUAD category leaves out of a kind
  (termination for breach or insolvency beside termination for convenience, the warranties
  themselves beside their duration, ownership clauses beside assignments of IP). Each mark is
  a pair of character offsets into the CUAD text with a one-line reason; the file keeps the
  sha256 of each contract's text, and a contract whose text differs has its hand-marked
  questions skipped with a warning.

**Contracts.** Nine CUAD contracts of different types (supply, clinical services, trademark
licence, distribution, software development, consulting, advertising services, content licence)
and moderate length (16k to 30k characters), so full reports stay affordable.

**Split.** By contract, with the held-out rule of :mod:`clausewise_lab.evals.folds`
(:func:`clausewise_lab.evals.bank.in_half`): the **check** half is the fold no shipped model was
trained on, the **tune** half the rest; each half asks every kind at least twice. The questions are
:class:`clausewise_lab.evals.bank.BankQuestion` of kind "open" (scored, like LegalBench-RAG's, by the
gold spans the report's sources overlap), source "lawyer", the kind as ``category``.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from pathlib import Path

from clausewise.core.domain import Span
from clausewise_lab.evals.bank import BankQuestion, Half, _cuad
from clausewise_lab.evals.data_files import open_bank_file


@dataclass(frozen=True)
class OpenKind:
    """One kind of open question: its wordings and the CUAD categories holding its clauses."""

    name: str
    wordings: tuple[str, ...]
    cuad: tuple[str, ...] = ()


def open_kinds() -> tuple[OpenKind, ...]:
    """The bank's kinds of question (``data/open-bank.yaml``)."""
    return tuple(OpenKind(k.name, k.wordings, k.cuad) for k in open_bank_file().kinds)


@dataclass(frozen=True)
class HandMarks:
    """A contract's hand-marked gold clauses: (start, end, reason) per kind, and the sha256 of the
    text the offsets point into."""

    title: str
    sha256: str
    marks: dict[str, tuple[tuple[int, int, str], ...]]


def hand_marks() -> list[HandMarks]:
    """The contracts of the bank, in the file's order, with their hand marks (checked against
    the data file's schema when read)."""
    return [
        HandMarks(
            entry.title,
            entry.sha256,
            {kind: tuple((m.start, m.end, m.reason) for m in marks) for kind, marks in entry.marks.items()},
        )
        for entry in open_bank_file().contracts
    ]


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def merged(spans: list[Span]) -> tuple[Span, ...]:
    """Spans sorted, overlapping ones joined (a clause marked by hand and annotated by CUAD
    counts once)."""
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


def open_bank(root: Path, half: Half) -> tuple[list[BankQuestion], dict[str, str]]:
    """The open questions on the bank's contracts of ``half`` and the texts they are asked on (by
    CUAD title), as :func:`clausewise_lab.evals.bank.open_questions` returns LegalBench-RAG's."""
    contracts = {title: (text, answers) for title, text, answers in _cuad(root, half)}
    questions: list[BankQuestion] = []
    texts: dict[str, str] = {}
    for position, entry in enumerate(hand_marks()):
        if entry.title not in contracts:  # the other half's (or not in this data)
            continue
        text, answers = contracts[entry.title]
        intact = text_sha256(text) == entry.sha256
        if not intact:
            warnings.warn(
                f"open bank: the text of {entry.title!r} is not the one its gold clauses were marked on "
                f"(sha256 differs); its hand-marked questions are skipped",
                stacklevel=2,
            )
        for index, kind in enumerate(open_kinds()):
            hand = entry.marks.get(kind.name, ())
            if hand and not intact:
                continue
            spans = [span for category in kind.cuad for _, span in answers.get(category, [])]
            spans += [(start, end) for start, end, _ in hand]
            gold = merged(spans)
            if not gold:
                continue  # nothing a lawyer would cite: the question is not asked
            phrasing = (position + index) % len(kind.wordings)
            questions.append(
                BankQuestion(
                    id=f"open-bank:{kind.name}:{entry.title}",
                    kind="open",
                    source="lawyer",
                    contract=entry.title,
                    question=kind.wordings[phrasing],
                    gold="open",
                    category=kind.name,
                    phrasing=phrasing,
                    gold_spans=gold,
                )
            )
            texts[entry.title] = text
    return questions, texts
