"""``clausewise eval changes``: the other side's redline, read and compared, on Word files built from
development contracts by the edits a negotiation round makes, with the gold taken from the edits.

Each CUAD contract of the chosen half becomes a Word file, one paragraph per line, with tracked
changes by two authors: a value rewritten in its own number style ("thirty (30) days" -> "sixty
(60) days", "$50,000" -> "$100,000"), a numbered clause struck, another contract's labelled clause
inserted, a numbered clause moved elsewhere, words inserted into a clause and words deleted from
another, plus a formatting-only change and a comment (neither is a change of the text). The
product reads the file (:func:`tools.parsing.word_file.parse_docx_file`), builds the clause tree
of each text and compares them (:func:`tools.clause_compare.compare_texts`).

Scored here, with nothing shared with the product but its outputs:

- **texts**: the file read as proposed and as before equals the text the edits make and the
  original, character for character (every inserted and deleted character in the right text);
- **detection**: a change the product reports is right when it lies in the region of a gold edit
  (the edited paragraph in the text it is in; a point at its edge counts), precision over the
  reported changes and recall over the gold edits; the formatting change, the comment and the
  renumbering a move makes are not edits, so a change reported for them is a false one;
- **type**: among gold edits found, the share whose first matching change has the gold's kind;
- **time**: per contract, writing its Word file, reading it and comparing its texts (the slowest with
  its length in pages of 3,000 characters).

Halves: tune is the development contracts outside the held-out fold, check the held-out fold.
"""

from __future__ import annotations

import io
import random
import re
import statistics
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clausewise_lab.evals.cuad_bench import cuad_contracts
from clausewise_lab.evals.data import GoldDocument, cuad_documents
from clausewise_lab.evals.folds import is_heldout
from clausewise_lab.evals.playbook_bench import gold_verdict, position_type
from clausewise_lab.evals.reply_reading import libreoffice_lines, lines_as
from clausewise_lab.evals.round_gold import (
    Annotated,
    LineEdit,
    Preferences,
    annotated,
    common_ends,
    donor_categories,
    line_edit,
    preferences,
    round_annotations,
)
from clausewise_lab.evals.shares import share
from clausewise_lab.evals.word_files import Change, Comment, Para, WordFile, write_word_file
from tools.playbook.positions import Playbook

AUTHORS = ("Opposing Counsel", "Their Associate")
#: A page of a contract, in characters, for the time per pages (CUAD texts have no page breaks).
PAGE_CHARACTERS = 3_000
GOALS = {"texts_exact": 1.0, "precision": 0.98, "recall": 0.98, "type_right": 0.95}
VERDICT_GOALS = {"accuracy": 0.93, "refused_share": 0.20}
REPLY_GOALS = {"opened": 1.0, "accept_all_intended": 1.0, "reject_ours_theirs": 1.0}
#: The most words a fallback offered in a value's place may differ by from their line, each side.
_OFFER_WORDS = 8
#: A paragraph the generator may edit: it starts with a clause number and has enough words.
_NUMBERED = re.compile(r"^(?:Section\s+)?\d{1,2}(?:\.\d{1,2})*\.?\s+\S")
_MIN_WORDS = 12
_SMALL = "one two three four five six seven eight nine ten eleven twelve".split()
_TENS = {"thirty": 30, "sixty": 60, "ninety": 90, "twenty": 20, "forty": 40, "fifty": 50}
_WORDED = re.compile(
    r"\b(" + "|".join([*_SMALL, *_TENS]) + r")\s+\((\d{1,3})\)(\s+(?:days?|months?|years?|business days))",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\b(\d{1,3})(\s+(?:days?|months?|years?|business days))\b", re.IGNORECASE)
_AMOUNT = re.compile(r"\$\s?(\d{1,3}(?:,\d{3})+|\d{2,})(?:\.\d{2})?")
_INSERTED_WORDS = (
    "promptly and in good faith ",
    "at its sole cost and expense ",
    "to the extent permitted by law ",
)


@dataclass
class GoldEdit:
    """One edit and where it is: ``before`` / ``after`` are the edited paragraph's line numbers in
    each text (None where it has none)."""

    kind: str
    before: int | None
    after: int | None


@dataclass
class Round:
    """A contract's Word file as the edits made it, the two texts it must read as, and the gold."""

    name: str
    spec: WordFile
    before_lines: list[str]
    after_lines: list[str]
    edits: list[GoldEdit]
    #: each paragraph of the file, in order: its line in the text before and in the text as
    #: proposed (None where it has none), to write the text a reply is meant to make
    slots: list[tuple[int | None, int | None]] = field(default_factory=list)


def _collapsed_lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def _words_of(line: str) -> list[str]:
    return re.findall(r"\S+\s*", line)


def _value_rewrite(line: str, rng: random.Random) -> tuple[str, str, str] | None:
    """(before the value, the value, its rewrite in the same number style) for the first value of
    the line, or None when it states none the generator rewrites."""
    if match := _WORDED.search(line):
        number = int(match.group(2))
        choices = [n for n in (*range(1, 13), *_TENS.values()) if n != number]
        new = rng.choice(choices)
        word = _SMALL[new - 1] if new <= 12 else next(w for w, v in _TENS.items() if v == new)
        if match.group(1)[0].isupper():
            word = word.capitalize()
        return line[: match.start()], match.group(0)[: match.end(2) + 1 - match.start()], f"{word} ({new})"
    if match := _DIGITS.search(line):
        number = int(match.group(1))
        return line[: match.start()], match.group(1), str(number * 2 if number < 500 else number // 2)
    if match := _AMOUNT.search(line):
        amount = int(match.group(1).replace(",", ""))
        return line[: match.start()], match.group(0), f"${amount * 2:,}"
    return None


def build_round(
    document: GoldDocument, donors: Sequence[GoldDocument], seed: int, prefer: Preferences | None = None
) -> Round | None:
    """The contract's edited Word file, or None when it has too few numbered clauses to edit. With
    ``prefer``, the struck line, the value rewritten and the inserted clause are taken from its
    candidates where one is free (:func:`clausewise_lab.evals.round_gold.preferences`)."""
    rng = random.Random(f"{seed}:{document.name}")
    lines = _collapsed_lines(document.text)
    numbered = [
        i for i, line in enumerate(lines) if _NUMBERED.match(line) and len(line.split()) >= _MIN_WORDS
    ]
    if len(numbered) < 8:
        return None
    chosen: set[int] = set()

    def pick(candidates: Sequence[int], preferred: set[int] | None = None) -> int | None:
        free = [i for i in candidates if all(abs(i - c) > 1 for c in chosen)]
        if not free:
            return None
        aimed = [i for i in free if preferred and i in preferred]
        free = aimed or free
        found = rng.choice(free)
        chosen.add(found)
        return found

    valued = [i for i in numbered if _value_rewrite(lines[i], random.Random(0)) is not None]
    value_at = pick(valued, prefer.valued if prefer else None)
    struck_at = pick(numbered, prefer.struck if prefer else None)
    moved_at = pick(numbered)
    inserted_words_at = pick(numbered)
    deleted_words_at = pick(numbered)
    formatted_at = pick(numbered)
    comment_at = pick(numbered)
    insert_after = pick(range(1, len(lines) - 1))
    move_after = pick(range(1, len(lines) - 1))
    donor_clauses = (prefer.donor_clauses if prefer else None) or [
        " ".join(d.text[s:e].split())
        for d in donors
        if d.name != document.name
        for s, e in d.spans
        if 12 <= len(d.text[s:e].split()) <= 80
    ]
    if (
        struck_at is None
        or moved_at is None
        or insert_after is None
        or move_after is None
        or not donor_clauses
    ):
        return None
    inserted_clause = rng.choice(donor_clauses)
    author = {
        name: rng.choice(AUTHORS) for name in ("value", "struck", "moved", "inserted", "words", "format")
    }
    paragraphs: list[Para] = []
    slots: list[tuple[int | None, int | None]] = []
    after: list[str] = []
    after_of: dict[int, int] = {}
    edits: list[GoldEdit] = []
    moved_line = lines[moved_at]
    moved_after_index: int | None = None
    inserted_after_index: int | None = None
    for i, line in enumerate(lines):
        if i == struck_at:
            paragraphs.append(
                Para([Change("del", author["struck"], line)], mark=Change("del", author["struck"], ""))
            )
            edits.append(GoldEdit("clause_struck", i, None))
        elif i == moved_at:
            paragraphs.append(
                Para(
                    [Change("moveFrom", author["moved"], line, move="m1")],
                    mark=Change("moveFrom", author["moved"], ""),
                )
            )
        elif i == value_at and (found := _value_rewrite(line, rng)) is not None:
            head, old, new = found
            tail = line[len(head) + len(old) :]
            paragraphs.append(
                Para([head, Change("del", author["value"], old), Change("ins", author["value"], new), tail])
            )
            after_of[i] = len(after)
            after.append(head + new + tail)
            edits.append(GoldEdit("value_changed", i, after_of[i]))
        elif i in (inserted_words_at, deleted_words_at):
            words = _words_of(line)
            at = rng.randrange(2, len(words) - 3)
            head, tail = "".join(words[:at]), "".join(words[at:])
            if i == inserted_words_at:
                new = rng.choice(_INSERTED_WORDS)
                paragraphs.append(Para([head, Change("ins", author["words"], new), tail]))
                after_of[i] = len(after)
                after.append(head + new + tail)
                edits.append(GoldEdit("words_inserted", i, after_of[i]))
            else:
                cut = "".join(words[at : at + rng.randint(2, 3)])
                rest = tail[len(cut) :]
                paragraphs.append(Para([head, Change("del", author["words"], cut), rest]))
                after_of[i] = len(after)
                after.append(head + rest)
                edits.append(GoldEdit("words_deleted", i, after_of[i]))
        elif i == formatted_at:
            words = _words_of(line)
            head, middle, tail = "".join(words[:2]), "".join(words[2:6]), "".join(words[6:])
            paragraphs.append(Para([head, Change("format", author["format"], middle), tail]))
            after_of[i] = len(after)
            after.append(line)
        elif i == comment_at:
            words = _words_of(line)
            head, middle, tail = "".join(words[:3]), "".join(words[3:8]), "".join(words[8:])
            paragraphs.append(Para([head, Comment(author["words"], middle, "Please explain."), tail]))
            after_of[i] = len(after)
            after.append(line)
        else:
            paragraphs.append(Para([line]))
            after_of[i] = len(after)
            after.append(line)
        slots.append((i, after_of.get(i)))
        if i == insert_after:
            paragraphs.append(
                Para(
                    [Change("ins", author["inserted"], inserted_clause)],
                    mark=Change("ins", author["inserted"], ""),
                )
            )
            inserted_after_index = len(after)
            after.append(inserted_clause)
            slots.append((None, inserted_after_index))
        if i == move_after:
            paragraphs.append(
                Para(
                    [Change("moveTo", author["moved"], moved_line, move="m1")],
                    mark=Change("moveTo", author["moved"], ""),
                )
            )
            moved_after_index = len(after)
            after.append(moved_line)
            slots.append((None, moved_after_index))
    edits.append(GoldEdit("clause_inserted", None, inserted_after_index))
    edits.append(GoldEdit("clause_moved", moved_at, moved_after_index))
    return Round(document.name, WordFile(paragraphs), lines, after, edits, slots)


def _line_spans(lines: Sequence[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    offset = 0
    for line in lines:
        spans.append((offset, offset + len(line)))
        offset += len(line) + 1
    return spans


def _meets(span: tuple[int, int], region: tuple[int, int]) -> bool:
    """A reported span lies in a gold region: overlaps it, or, empty, sits inside or at its edge."""
    if span[1] > span[0]:
        return span[0] < region[1] and region[0] < span[1]
    return region[0] <= span[0] <= region[1] + 1


def word_file(round_: Round, folder: Path) -> Path:
    """The round's Word file, written in ``folder`` under a name from its contract's."""
    return write_word_file(
        folder / (re.sub(r"[^a-z0-9]+", "-", round_.name.lower())[:60] + ".docx"), round_.spec
    )


def score_round(
    round_: Round, path: Path, read: Callable[[Path], Any], compare: Callable[[Any], Any]
) -> dict[str, Any]:
    """Read the round's Word file (``path``) with the product and score its two texts and its
    comparison."""
    document = read(path)
    texts = {"proposed": document.as_version("proposed").text, "before": document.as_version("before").text}
    expected = {"proposed": "\n".join(round_.after_lines), "before": "\n".join(round_.before_lines)}
    exact = {version: texts[version] == expected[version] for version in texts}
    comparison = compare(document)
    before_spans, after_spans = _line_spans(round_.before_lines), _line_spans(round_.after_lines)
    regions: list[tuple[GoldEdit, tuple[int, int] | None, tuple[int, int] | None]] = [
        (
            edit,
            before_spans[edit.before] if edit.before is not None else None,
            after_spans[edit.after] if edit.after is not None else None,
        )
        for edit in round_.edits
    ]
    found: dict[int, str] = {}
    false_changes: list[dict[str, Any]] = []
    for change in comparison.changes:
        hits = [
            number
            for number, (_, before, after) in enumerate(regions)
            if (before is not None and _meets(change.before, before))
            or (after is not None and _meets(change.after, after))
        ]
        if not hits:
            false_changes.append(
                {"kind": change.kind, "before": change.before_words[:120], "after": change.after_words[:120]}
            )
        for number in hits:
            found.setdefault(number, change.kind)
    return {
        "contract": round_.name,
        "texts_exact": exact,
        "reported": len(comparison.changes),
        "true_reported": len(comparison.changes) - len(false_changes),
        "gold": len(regions),
        "found": len(found),
        "type_right": sum(1 for number, kind in found.items() if regions[number][0].kind == kind),
        "missed": [regions[n][0].kind for n in range(len(regions)) if n not in found],
        "wrong_type": [(regions[n][0].kind, kind) for n, kind in found.items() if regions[n][0].kind != kind],
        "false_changes": false_changes,
    }


def run(
    root: Path,
    half: str,
    contracts: int,
    seed: int,
    read: Callable[[Path], Any],
    compare: Callable[[Any], Any],
    folder: Path,
    log: Callable[[str], None] = print,
    assess: Callable[[Path], dict[str, Any]] | None = None,
    verdicts: Playbook | None = None,
    office: str | None = None,
) -> dict[str, Any]:
    """Build and score ``contracts`` rounds from the ``half`` (tune or check) of CUAD's contracts;
    with ``assess``, each Word file is also held against a playbook by the product (``assess``
    returns its seconds and what it found, with each position's verdict before and as proposed),
    timed apart from the reading. With ``verdicts`` (the playbook ``assess`` holds the rounds
    against), the edits are aimed at its positions' clauses and the verdicts scored against the gold
    CUAD's annotations give once carried through the edits (:mod:`clausewise_lab.evals.round_gold`).
    Where ``assess`` also answers the round (its result's ``reply``), the reply is read back by the
    benchmark's own readers (:func:`reply_row`; LibreOffice too where ``office`` names it)."""
    documents = [d for d in cuad_documents(root) if is_heldout(d.name) == (half == "check")]
    documents.sort(key=lambda d: d.name)
    located: dict[str, Annotated] = {}
    donors: dict[str, tuple[set[str], set[str]]] = {}
    if verdicts is not None:
        located = {
            c.title: annotated(c.title, c.text, c.answers)
            for c in cuad_contracts(root)
            if is_heldout(c.title) == (half == "check")
        }
        donors = donor_categories(list(located.values()))
    categories = {position.clause for position in verdicts.positions} if verdicts else set()
    rows: list[dict[str, Any]] = []
    seconds: list[float] = []
    for document in documents:
        if len(rows) >= contracts:
            break
        prefer = (
            preferences(located[document.name], list(located.values()), categories)
            if document.name in located
            else None
        )
        round_ = build_round(document, documents, seed, prefer)
        if round_ is None:
            continue
        path = word_file(round_, folder)
        started = time.perf_counter()
        rows.append(score_round(round_, path, read, compare))
        seconds.append(time.perf_counter() - started)
        row = rows[-1]
        row["seconds"] = round(seconds[-1], 3)
        row["pages"] = round(len(document.text) / PAGE_CHARACTERS, 1)
        if assess is not None:
            row["assessment"] = assess(path)
            answered = row["assessment"].pop("reply", None)
            if answered is not None:
                row["reply"] = reply_row(round_, answered, office)
        if verdicts is not None and assess is not None:
            row["verdicts"] = verdict_rows(
                round_, located[document.name], donors, verdicts, row["assessment"]["verdicts"]
            )
        log(
            f"{len(rows)}/{contracts} {document.name[:60]}: texts {row['texts_exact']}, found {row['found']}/"
            f"{row['gold']}, reported {row['reported']} ({row['true_reported']} true)"
        )
    reported = sum(r["reported"] for r in rows)
    gold = sum(r["gold"] for r in rows)
    found = sum(r["found"] for r in rows)
    return {
        "benchmark": "changes",
        "half": half,
        "seed": seed,
        "contracts": len(rows),
        "goals": GOALS,
        "texts_exact": share(sum(all(r["texts_exact"].values()) for r in rows), len(rows)),
        "precision": share(sum(r["true_reported"] for r in rows), reported),
        "recall": share(found, gold),
        "type_right": share(sum(r["type_right"] for r in rows), found),
        "seconds_per_contract_median": round(statistics.median(seconds), 3) if seconds else None,
        "slowest": max(
            ({"contract": r["contract"], "pages": r["pages"], "seconds": r["seconds"]} for r in rows),
            key=lambda r: r["seconds"],
            default=None,
        ),
        "assessment": assessment_summary(rows) if assess is not None else None,
        "verdicts": verdict_summary([v for r in rows for v in r.get("verdicts", [])])
        if verdicts is not None
        else None,
        "replies": reply_summary(rows) if any("reply" in r for r in rows) else None,
        "missed_by_kind": _counts(kind for r in rows for kind in r["missed"]),
        "wrong_type": _counts(f"{gold_kind} as {kind}" for r in rows for gold_kind, kind in r["wrong_type"]),
        "false_by_kind": _counts(change["kind"] for r in rows for change in r["false_changes"]),
        "rows": rows,
    }


def verdict_rows(
    round_: Round,
    contract: Annotated,
    donors: dict[str, tuple[set[str], set[str]]],
    playbook: Playbook,
    decided: dict[str, list[list[Any]]],
) -> list[dict[str, Any]]:
    """Each position's verdicts before and as proposed (``decided``: position id -> [[verdict,
    fallback] before, [verdict, fallback] as proposed]) beside the gold of the round's annotations;
    no rows when the contract's lines are not the round's (its annotations could not be placed)."""
    if contract.lines.lines != round_.before_lines:
        return []
    edits: dict[int, LineEdit] = {}
    inserted: str | None = None
    for edit in round_.edits:
        if edit.kind == "clause_struck" and edit.before is not None:
            edits[edit.before] = LineEdit(struck=True)
        elif edit.kind in ("value_changed", "words_inserted", "words_deleted"):
            assert edit.before is not None and edit.after is not None
            edits[edit.before] = line_edit(round_.before_lines[edit.before], round_.after_lines[edit.after])
        elif edit.kind == "clause_inserted" and edit.after is not None:
            inserted = round_.after_lines[edit.after]
    carried = round_annotations(contract, edits, inserted, donors)
    rows = []
    for position in playbook.positions:
        after_texts = carried.after.get(position.clause, [])
        gold = {
            "before": gold_verdict(position, carried.before.get(position.clause, [])),
            "after": None if after_texts is None else gold_verdict(position, after_texts),
        }
        before, after = decided[position.id]
        found = {"before": tuple(before), "after": tuple(after)}
        rows.append(
            {
                "contract": round_.name,
                "position": position.id,
                "type": position_type(position),
                **{f"gold_{side}": list(gold[side]) if gold[side] else None for side in gold},
                **{f"verdict_{side}": found[side][0] for side in found},
                **{f"correct_{side}": gold[side] is not None and found[side] == gold[side] for side in gold},
                "moved": gold["before"] is not None
                and gold["after"] is not None
                and gold["before"] != gold["after"],
            }
        )
    return rows


def _verdict_scores(rows: Sequence[dict[str, Any]], side: str) -> dict[str, Any]:
    scored = [r for r in rows if r[f"gold_{side}"] is not None]
    committed = [r for r in scored if not r[f"verdict_{side}"].startswith("refused")]
    return {
        "scored": len(scored),
        "committed": len(committed),
        "accuracy": share(sum(r[f"correct_{side}"] for r in committed), len(committed)),
        "refused_share": share(len(scored) - len(committed), len(scored)),
    }


def verdict_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The verdicts' accuracy (of those committed) and refused share, on the text as proposed (all
    positions, and those the round's edits moved) and before."""
    moved = [r for r in rows if r["moved"]]
    left_alone = [
        r for r in rows if not r["moved"] and r["gold_before"] is not None and r["gold_after"] is not None
    ]
    return {
        "goals": VERDICT_GOALS,
        "after": _verdict_scores(rows, "after"),
        "after_moved": _verdict_scores(moved, "after"),
        "before": _verdict_scores(rows, "before"),
        "moved_by_position": _counts(r["position"] for r in moved),
        # positions the round's edits left alone whose verdict the product still changed
        "left_alone": len(left_alone),
        "left_alone_changed": sum(r["verdict_before"] != r["verdict_after"] for r in left_alone),
        "undetermined_after": sum(r["gold_after"] is None and r["gold_before"] is not None for r in rows),
    }


@dataclass(frozen=True)
class Offered:
    """A line a reply answers with words of its own in one place (a fallback offered for their
    value): ``proposed`` is their line."""

    proposed: str


def intended_lines(round_: Round, undone: set[int], offered: set[int]) -> list[str | Offered]:
    """The round's text as proposed with the edits ``undone`` (indexes of ``round_.edits``) put back
    as they were before, and those ``offered`` answered in their place, paragraph by paragraph."""
    by_before = {e.before: n for n, e in enumerate(round_.edits) if e.before is not None}
    by_after = {e.after: n for n, e in enumerate(round_.edits) if e.after is not None}
    lines: list[str | Offered] = []
    for before, after in round_.slots:
        edit = by_before.get(before) if before is not None else None
        if edit is None and after is not None:
            edit = by_after.get(after)
        if edit in offered and after is not None:
            lines.append(Offered(round_.after_lines[after]))
        elif edit in undone:
            if before is not None:
                lines.append(round_.before_lines[before])
        elif after is not None:
            lines.append(round_.after_lines[after])
    return lines


def _answers(line: str, offered: Offered) -> bool:
    """``line`` differs from their line in one stretch of at most a few words on each side."""
    ours, theirs = line.split(), offered.proposed.split()
    head, tail = common_ends(ours, theirs)
    return ours != theirs and max(len(ours), len(theirs)) - head - tail <= _OFFER_WORDS


def reads_as(found: Sequence[str] | None, intended: Sequence[str | Offered]) -> bool:
    """Whether the lines ``found`` are the ``intended`` ones (an offered line: any that answers it)."""
    return (
        found is not None
        and len(found) == len(intended)
        and all(
            _answers(line, want) if isinstance(want, Offered) else line == want
            for line, want in zip(found, intended, strict=True)
        )
    )


def edits_touched(
    round_: Round, changes: Sequence[tuple[Sequence[int] | None, Sequence[int] | None]]
) -> set[int]:
    """The round's edits (indexes) whose paragraph holds the words of one of ``changes`` (each its
    span in the text before and as proposed; an empty span, the point where words would be, is
    not read: it may sit at a neighbour's edge)."""
    before_spans, after_spans = _line_spans(round_.before_lines), _line_spans(round_.after_lines)
    touched: set[int] = set()
    for before, proposed in changes:
        for number, edit in enumerate(round_.edits):
            if (
                before is not None
                and before[1] > before[0]
                and edit.before is not None
                and _meets((before[0], before[1]), before_spans[edit.before])
            ) or (
                proposed is not None
                and proposed[1] > proposed[0]
                and edit.after is not None
                and _meets((proposed[0], proposed[1]), after_spans[edit.after])
            ):
                touched.add(number)
    return touched


def _opens_in_python_docx(data: bytes) -> bool:
    from docx import Document
    from docx.opc.exceptions import PackageNotFoundError
    from lxml.etree import XMLSyntaxError

    try:
        Document(io.BytesIO(data))
    except (PackageNotFoundError, KeyError, ValueError, zipfile.BadZipFile, XMLSyntaxError):
        return False
    return True


def reply_row(round_: Round, reply: dict[str, Any], office: str | None) -> dict[str, Any]:
    """The product's reply to the round (``reply``: its file's bytes under ``data``, or the
    ``error`` that stopped it; our ``author``; the spans of the changes it ``rejected`` and of
    those where it ``offered`` words of its own) read by the benchmark's own readers: it opens in
    python-docx and in LibreOffice (``office``, when installed); with every change accepted it
    reads as their proposal with exactly the rejected edits undone (the offered ones answered);
    with our changes rejected, as their proposal; with every change rejected, as their text before."""
    data = reply.get("data")
    if data is None:
        return {"answered": False, "error": reply.get("error")}
    author = reply["author"]
    undone = edits_touched(round_, reply["rejected"])
    offered = edits_touched(round_, reply["offered"])
    intended = intended_lines(round_, undone, offered)
    office_lines = libreoffice_lines(data, office) if office else None
    return {
        "answered": True,
        "opened_python_docx": _opens_in_python_docx(data),
        "opened_libreoffice": None if office is None else office_lines is not None,
        "rejected_edits": sorted(round_.edits[n].kind for n in undone),
        "offered_edits": sorted(round_.edits[n].kind for n in offered),
        "accept_all_intended": reads_as(lines_as(data, lambda _: True), intended),
        "libreoffice_intended": None if office is None else reads_as(office_lines, intended),
        "reject_ours_theirs": lines_as(data, lambda who: who != author) == round_.after_lines,
        "reject_all_before": lines_as(data, lambda _: False) == round_.before_lines,
    }


def reply_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The replies: how many were written, opened, and read as intended."""
    replies = [r["reply"] for r in rows if "reply" in r]
    answered = [r for r in replies if r["answered"]]
    office = [r for r in answered if r["opened_libreoffice"] is not None]

    def of(rows_: Sequence[dict[str, Any]], key: str) -> float | None:
        return share(sum(bool(r[key]) for r in rows_), len(rows_))

    return {
        "goals": REPLY_GOALS,
        "replies": len(replies),
        "answered": share(len(answered), len(replies)),
        "not_answered": [r["error"] for r in replies if not r["answered"]],
        "opened_python_docx": of(answered, "opened_python_docx"),
        "opened_libreoffice": of(office, "opened_libreoffice") if office else None,
        "accept_all_intended": of(answered, "accept_all_intended"),
        "libreoffice_intended": of(office, "libreoffice_intended") if office else None,
        "reject_ours_theirs": of(answered, "reject_ours_theirs"),
        "reject_all_before": of(answered, "reject_all_before"),
        "rejected_edits": _counts(kind for r in answered for kind in r["rejected_edits"]),
        "offered_edits": _counts(kind for r in answered for kind in r["offered_edits"]),
    }


def assessment_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The playbook assessments' time: the median, the slowest, and the slowest of the contracts of
    at most 50 pages (the goal's size)."""
    timed = [{"contract": r["contract"], "pages": r["pages"], **r["assessment"]} for r in rows]
    up_to_50 = [t for t in timed if t["pages"] <= 50]
    return {
        "seconds_median": round(statistics.median(t["seconds"] for t in timed), 2) if timed else None,
        "slowest": max(timed, key=lambda t: t["seconds"], default=None),
        "slowest_up_to_50_pages": max(up_to_50, key=lambda t: t["seconds"], default=None),
    }


def _counts(items: Any) -> dict[str, int]:
    found: dict[str, int] = {}
    for item in items:
        found[item] = found.get(item, 0) + 1
    return dict(sorted(found.items(), key=lambda kv: -kv[1]))
