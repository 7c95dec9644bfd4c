"""The open-question bank: what a lawyer asks every day about a contract, with the clauses a lawyer
would cite, for scoring full reports.

Twelve kinds of question (:data:`OPEN_KINDS`), each in two or three wordings a lawyer would use:
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
- clauses marked by hand in :file:`open_bank_gold.yaml` after reading the contract: the kinds no
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

**Split.** By contract, with the held-out rule of :mod:`clausewise.evals.folds`
(:func:`clausewise.evals.bank.in_half`): the **check** half is the fold no shipped model was
trained on, the **tune** half the rest; each half asks every kind at least twice. The questions are
:class:`clausewise.evals.bank.BankQuestion` of kind "open" (scored, like LegalBench-RAG's, by the
gold spans the report's sources overlap), source "lawyer", the kind as ``category``.
"""

from __future__ import annotations

import hashlib
import warnings
from dataclasses import dataclass
from pathlib import Path

import yaml

from clausewise.core.domain import Span
from clausewise.evals.bank import BankQuestion, Half, _cuad

GOLD_FILE = Path(__file__).with_name("open_bank_gold.yaml")


@dataclass(frozen=True)
class OpenKind:
    """One kind of open question: its wordings and the CUAD categories holding its clauses."""

    name: str
    wordings: tuple[str, ...]
    cuad: tuple[str, ...] = ()


OPEN_KINDS: tuple[OpenKind, ...] = (
    OpenKind(
        "payment",
        (
            "What are the payment terms?",
            "How much is paid, and when?",
            "What does this contract say about fees and payment?",
        ),
        ("Revenue/Profit Sharing", "Price Restrictions"),
    ),
    OpenKind(
        "obligations",
        (
            "What are each party's main obligations?",
            "What does each side have to do under this agreement?",
            "Summarise the key duties of each party.",
        ),
        ("Minimum Commitment",),
    ),
    OpenKind(
        "termination",
        (
            "How can this agreement be terminated?",
            "What are the termination rights?",
            "Can either party end this contract early, and how?",
        ),
        ("Termination for Convenience", "Notice Period to Terminate Renewal"),
    ),
    OpenKind(
        "liability",
        (
            "How is liability limited?",
            "What limits or exclusions of liability apply?",
            "Is either party's liability capped or excluded?",
        ),
        ("Cap on Liability", "Uncapped Liability"),
    ),
    OpenKind(
        "warranties",
        (
            "What warranties are given?",
            "What representations and warranties does each party make?",
            "What does the contract warrant, and are any warranties disclaimed?",
        ),
        ("Warranty Duration",),
    ),
    OpenKind(
        "ip",
        (
            "Who owns the intellectual property?",
            "What does the contract say about ownership of intellectual property?",
            "Who owns the work product and IP under this agreement?",
        ),
        ("IP Ownership Assignment", "Joint IP Ownership"),
    ),
    OpenKind(
        "confidentiality",
        (
            "What are the confidentiality obligations, how long do they last, and what are the exceptions?",
            "How long does confidentiality last, and what information is excluded?",
            "What must be kept confidential under this agreement?",
        ),
    ),
    OpenKind(
        "end",
        (
            "What happens at the end of the agreement?",
            "What are the consequences of termination or expiry?",
            "What obligations survive the end of the agreement?",
        ),
        ("Post-Termination Services",),
    ),
    OpenKind(
        "amendment",
        (
            "How can this agreement be amended?",
            "What is required to change the terms of this contract?",
        ),
    ),
    OpenKind(
        "dispute",
        (
            "How are disputes resolved, and which law and courts apply?",
            "What is the governing law and forum for disputes?",
            "Where and how would a dispute under this contract be decided?",
        ),
        ("Governing Law",),
    ),
    OpenKind(
        "notices",
        (
            "How must notices be given?",
            "What are the notice requirements?",
            "How and where must formal notices be sent?",
        ),
    ),
    OpenKind(
        "assignment",
        (
            "Can this agreement be assigned?",
            "Can either party transfer the contract to someone else?",
            "Is consent needed to assign this agreement or on a change of control?",
        ),
        ("Anti-Assignment", "Change of Control"),
    ),
)


@dataclass(frozen=True)
class HandMarks:
    """A contract's hand-marked gold clauses: (start, end, reason) per kind, and the sha256 of the
    text the offsets point into."""

    title: str
    sha256: str
    marks: dict[str, tuple[tuple[int, int, str], ...]]


def hand_marks(path: Path = GOLD_FILE) -> list[HandMarks]:
    """The contracts of the bank, in the file's order, with their hand marks."""
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))["contracts"]
    known = {kind.name for kind in OPEN_KINDS}
    contracts = []
    for entry in entries:
        unknown = set(entry["marks"]) - known
        if unknown:
            raise ValueError(f"{path.name}: {entry['title']}: unknown kind {', '.join(sorted(unknown))}")
        marks = {
            kind: tuple((int(m["start"]), int(m["end"]), str(m["reason"])) for m in items)
            for kind, items in entry["marks"].items()
        }
        contracts.append(HandMarks(entry["title"], entry["sha256"], marks))
    return contracts


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
    CUAD title), as :func:`clausewise.evals.bank.open_questions` returns LegalBench-RAG's."""
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
        for index, kind in enumerate(OPEN_KINDS):
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
