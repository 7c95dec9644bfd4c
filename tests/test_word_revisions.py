"""A Word file with tracked changes is read as its two texts, never as neither: as proposed (their
insertions in, their deletions out; the contract by default) and as before, with every change
(author, date, kind) placed in both and every comment anchored. Shown on a services agreement
(the value rewritten in the cap, a numbered clause inserted) and a mutual NDA (a struck clause, a
move, an insertion deleted again, a formatting change, a table row, the header, a comment), then
on the example contracts edited at random: every inserted and deleted character in the right text."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from docx import Document

from clausewise.core.domain import ParsedDocument, TrackedChange
from clausewise_lab.evals.word_files import Change, Comment, Para, Row, WordFile, write_word_file
from tests.test_cli import cli  # noqa: F401  (the fixture)
from tools.parsing.word_file import parse_docx_file

THEM, US, OTHER = "Opposing Counsel", "Buyer Counsel", "Supplier Counsel"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def services_agreement() -> WordFile:
    return WordFile(
        [
            Para(["SERVICES AGREEMENT"], style="Title"),
            Para(
                ["Services. Supplier shall provide the services described in Schedule 1."],
                style="List Number",
            ),
            Para(
                [
                    "Liability. Supplier's liability is limited to the fees paid in the ",
                    Change("del", THEM, "twelve (12)"),
                    Change("ins", THEM, "six (6)"),
                    " months before the claim.",
                ],
                style="List Number",
            ),
            Para(
                [
                    Change(
                        "ins",
                        THEM,
                        "Exclusivity. Customer shall purchase the services exclusively from Supplier.",
                    )
                ],
                style="List Number",
                mark=Change("ins", THEM, ""),
            ),
            Para(["Term. This Agreement lasts two years."], style="List Number"),
        ]
    )


def mutual_nda() -> WordFile:
    moved = "Each party shall return all materials on request. "
    return WordFile(
        [
            Para(["MUTUAL NON-DISCLOSURE AGREEMENT"], style="Title"),
            Para(
                [
                    "Definition. ",
                    Comment(
                        US,
                        "Confidential Information means all information disclosed by either party",
                        "Too broad.",
                    ),
                    ".",
                ]
            ),
            Para(
                [
                    "Term. The obligations last ",
                    Change("ins", OTHER, "five (5) ", deleted_by=US),
                    "two (2) years.",
                ],
                style="List Number",
            ),
            Para(
                [Change("del", US, "Non-solicitation. Neither party shall solicit the other's employees.")],
                style="List Number",
                mark=Change("del", US, ""),
            ),
            Para(
                [
                    "Return. ",
                    Change("moveFrom", US, moved, move="m1"),
                    "The Recipient may keep one archival copy.",
                ],
                style="List Number",
            ),
            Para(
                ["Remedies. ", Change("moveTo", US, moved, move="m1"), "Injunctive relief is available."],
                style="List Number",
            ),
            Para(
                [
                    "Governing law. ",
                    Change("format", US, "This Agreement is governed by the laws of Delaware."),
                ]
            ),
        ],
        rows=[
            Row(["Party", "Notice address"]),
            Row(["Discloser", "1 Main St"]),
            Row(["Recipient", "2 Side St"], change=Change("ins", US, "")),
        ],
        header_change=Change("ins", US, "DRAFT 2"),
    )


def _texts(document: ParsedDocument) -> dict[str, str]:
    assert document.tracked is not None
    return {
        "proposed": document.tracked.text_of("proposed", document.text),
        "before": document.tracked.text_of("before", document.text),
    }


def _at(text: str, span: tuple[int, int] | None) -> str | None:
    return None if span is None else text[span[0] : span[1]]


def test_the_other_sides_value_and_new_clause_are_read_in_the_proposed_text_and_out_of_the_before(
    tmp_path: Path,
) -> None:
    path = write_word_file(tmp_path / "services.docx", services_agreement())
    document = parse_docx_file(path)
    texts = _texts(document)
    assert document.text == texts["proposed"]
    assert "limited to the fees paid in the six (6) months before the claim." in texts["proposed"]
    assert (
        "3. Exclusivity. Customer shall purchase the services exclusively from Supplier." in texts["proposed"]
    )
    assert "4. Term. This Agreement lasts two years." in texts["proposed"]  # renumbered after the new clause
    assert "fees paid in the twelve (12) months before the claim." in texts["before"]
    assert (
        "Exclusivity" not in texts["before"] and "3. Term. This Agreement lasts two years." in texts["before"]
    )

    changes = document.tracked.changes
    assert [(c.kind, c.author, c.text) for c in changes] == [
        ("delete", THEM, "twelve (12)"),
        ("insert", THEM, "six (6)"),
        ("insert", THEM, "3. Exclusivity. Customer shall purchase the services exclusively from Supplier."),
    ]
    deleted, inserted, clause = changes
    assert (
        _at(texts["before"], deleted.before) == "twelve (12)"
        and _at(texts["proposed"], deleted.proposed) == ""
    )
    assert deleted.proposed[0] == inserted.proposed[0] == texts["proposed"].index("six (6)")
    assert (
        _at(texts["proposed"], inserted.proposed) == "six (6)" and _at(texts["before"], inserted.before) == ""
    )
    assert clause.before == (texts["before"].index("3. Term"),) * 2  # where the clause would be
    assert all(c.date == "2026-11-30T10:00:00Z" and c.part == "body" for c in changes)
    assert document.warnings == [
        "the Word file holds 3 tracked changes (Opposing Counsel 3); its text is read as proposed "
        "(their insertions in, their deletions out), and the other text is kept"
    ]


def test_the_before_text_is_the_contract_when_asked_and_the_changes_are_the_same(tmp_path: Path) -> None:
    path = write_word_file(tmp_path / "services.docx", services_agreement())
    proposed, before = parse_docx_file(path), parse_docx_file(path, read_as="before")
    assert before.text == proposed.tracked.other_text and before.tracked.other_text == proposed.text
    assert before.tracked.changes == proposed.tracked.changes
    assert "read as before" in before.warnings[0]


def test_a_struck_clause_a_move_a_formatting_change_a_row_the_header_and_a_comment(tmp_path: Path) -> None:
    document = parse_docx_file(write_word_file(tmp_path / "nda.docx", mutual_nda()))
    texts = _texts(document)
    assert texts["proposed"].splitlines()[2:5] == [
        "1. Term. The obligations last two (2) years.",
        "2. Return. The Recipient may keep one archival copy.",
        "3. Remedies. Each party shall return all materials on request. Injunctive relief is available.",
    ]
    assert texts["before"].splitlines()[2:6] == [
        "1. Term. The obligations last two (2) years.",
        "2. Non-solicitation. Neither party shall solicit the other's employees.",
        "3. Return. Each party shall return all materials on request. "
        "The Recipient may keep one archival copy.",
        "4. Remedies. Injunctive relief is available.",
    ]
    assert texts["proposed"].endswith("Recipient | 2 Side St") and texts["before"].endswith(
        "Discloser | 1 Main St"
    )

    by_kind: dict[str, list[TrackedChange]] = {}
    for change in document.tracked.changes:
        by_kind.setdefault(change.kind, []).append(change)
    # an insertion deleted again by another author is in neither text, and both are listed
    nested = [c for c in document.tracked.changes if c.text == "five (5)"]
    assert [(c.kind, c.author) for c in nested] == [("insert", OTHER), ("delete", US)]
    assert all(_at(texts[v], getattr(c, v)) == "" for c in nested for v in texts)
    struck = next(c for c in by_kind["delete"] if "Non-solicitation" in c.text)
    assert (
        _at(texts["before"], struck.before)
        == "2. Non-solicitation. Neither party shall solicit the other's employees."
    )
    assert struck.proposed == (texts["proposed"].index("2. Return"),) * 2
    (move,) = by_kind["move"]
    assert _at(texts["before"], move.before) == _at(texts["proposed"], move.proposed) == move.text
    assert move.before[0] > texts["before"].index("3. Return") and move.proposed[0] > texts["proposed"].index(
        "Remedies"
    )
    (formatting,) = by_kind["formatting"]
    assert _at(texts["proposed"], formatting.proposed) == _at(texts["before"], formatting.before)
    assert formatting.text == "This Agreement is governed by the laws of Delaware."
    row = next(c for c in by_kind["insert"] if c.part == "body" and "Recipient" in c.text)
    assert (
        _at(texts["proposed"], row.proposed) == "Recipient | 2 Side St"
        and row.before == (len(texts["before"]),) * 2
    )
    header = next(c for c in document.tracked.changes if c.part == "header")
    assert (header.kind, header.text, header.before, header.proposed) == ("insert", "DRAFT 2", None, None)
    assert document.tracked.authors() == {US: 6, OTHER: 1}

    (comment,) = document.tracked.comments
    anchored = "Confidential Information means all information disclosed by either party"
    assert (comment.author, comment.text) == (US, "Too broad.")
    assert _at(texts["proposed"], comment.proposed) == _at(texts["before"], comment.before) == anchored


# -- the example contracts edited at random ---------------------------------------------------------

_WORDS = re.compile(r"\S+\s*")
_NEW = [
    "The Supplier shall indemnify the Buyer against third-party claims.",
    "Either party may terminate on ninety (90) days' written notice.",
    "Payment is due within thirty (30) days of invoice.",
]


def _edited(lines: list[str], seed: int) -> tuple[WordFile, list[str], list[str]]:
    """The contract's lines as paragraphs with tracked edits chosen at random (words replaced,
    inserted or deleted; a paragraph struck; a paragraph inserted), and the two texts it must
    read as."""
    rng = random.Random(seed)
    paragraphs: list[Para] = []
    proposed: list[str] = []
    for number, line in enumerate(lines):
        author = rng.choice([THEM, OTHER])
        words = _WORDS.findall(line)
        action = rng.random()
        last = number == len(lines) - 1
        if action < 0.08 and not last:
            paragraphs.append(Para([Change("del", author, line)], mark=Change("del", author, "")))
            continue
        if action < 0.45 and len(words) > 3:
            start = rng.randrange(len(words) - 2)
            end = start + rng.randint(1, 2)
            head, cut, tail = "".join(words[:start]), "".join(words[start:end]), "".join(words[end:])
            new = rng.choice(["thirty (30) ", "the Buyer's ", "reasonable "])
            if action < 0.12:  # words inserted
                pieces: list[str | Change] = [head + cut, Change("ins", author, new), tail]
                proposed.append(head + cut + new + tail)
            elif action < 0.2:  # words deleted
                pieces = [head, Change("del", author, cut), tail]
                proposed.append(head + tail)
            else:  # words replaced
                pieces = [head, Change("del", author, cut), Change("ins", author, new), tail]
                proposed.append(head + new + tail)
            paragraphs.append(Para([p for p in pieces if p]))
        else:
            paragraphs.append(Para([line]))
            proposed.append(line)
        if rng.random() < 0.06:
            added = rng.choice(_NEW)
            paragraphs.append(Para([Change("ins", author, added)], mark=Change("ins", author, "")))
            proposed.append(added)
    return WordFile(paragraphs), proposed, lines


def _lines_of(name: str) -> list[str]:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    return [" ".join(line.split()) for line in text.splitlines() if line.strip()]


def _rebuilt_before(texts: dict[str, str], changes: list[TrackedChange]) -> str:
    """The text as before, rebuilt from the proposed text and the changes alone: each insertion
    taken out at its span, each deletion put back at its point."""
    pieces: list[str] = []
    cursor = 0
    edits = [c for c in changes if c.kind in ("insert", "delete") and c.part == "body"]
    for change in sorted(edits, key=lambda c: (c.proposed[0], c.id)):
        start, end = change.proposed
        pieces.append(texts["proposed"][cursor:start])
        if change.kind == "delete":
            pieces.append(" " + _at(texts["before"], change.before) + " ")
            cursor = start
        else:
            cursor = end
    pieces.append(texts["proposed"][cursor:])
    return "".join(pieces)


@pytest.mark.parametrize("name", ["supply-agreement.txt", "mutual-nda.txt"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_inserted_and_deleted_character_is_in_the_right_text(
    name: str, seed: int, tmp_path: Path
) -> None:
    spec, proposed, before = _edited(_lines_of(name), seed)
    document = parse_docx_file(write_word_file(tmp_path / "edited.docx", spec))
    texts = _texts(document)
    assert texts["proposed"] == "\n".join(" ".join(line.split()) for line in proposed if line.strip())
    assert texts["before"] == "\n".join(before)
    changes = document.tracked.changes
    assert len(changes) >= 5
    for change in changes:
        holding, other = ("proposed", "before") if change.kind == "insert" else ("before", "proposed")
        assert _at(texts[holding], getattr(change, holding)) == change.text
        assert _at(texts[other], getattr(change, other)) == ""
    assert _rebuilt_before(texts, changes).split() == texts["before"].split()


def test_a_file_without_tracked_changes_reads_as_before_and_holds_none(tmp_path: Path) -> None:
    spec = WordFile([Para(["AGREEMENT"]), Para(["Term. Two years."], style="List Number")])
    path = write_word_file(tmp_path / "plain.docx", spec)
    document = parse_docx_file(path)
    assert (
        document.text == "AGREEMENT\n1. Term. Two years."
        and document.tracked is None
        and not document.warnings
    )
    word = Document(str(path))  # a header is not a tracked change (it made every file with one "tracked")
    word.sections[0].header.paragraphs[0].text = "Confidential draft"
    word.save(str(path))
    assert parse_docx_file(path).tracked is None


def test_the_ingest_says_how_many_changes_by_whom_and_reads_either_text(cli, tmp_path: Path) -> None:  # noqa: F811
    path = write_word_file(tmp_path / "services.docx", services_agreement())
    code, out, _ = cli("ingest", str(path))
    assert code == 0 and "3 tracked changes (Opposing Counsel 3)" in out and "read as proposed" in out
    code, out, _ = cli("ingest", str(path), "--text", "before", "--id", "services-before")
    assert code == 0 and "read as before" in out
    asked = ("Is the Supplier's liability capped?", "--quick", "--format", "json")
    code, out, _ = cli("ask", "services-before", *asked)
    assert code == 0 and "fees paid in the twelve (12) months" in out and "six (6)" not in out
    code, out, _ = cli("ask", "services", *asked)
    assert code == 0 and "fees paid in the six (6) months" in out and "twelve" not in out
