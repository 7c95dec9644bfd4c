"""``clausewise eval changes --reply``'s own readers, on two rounds built from two small contracts:
a reply's lines with each author's revisions accepted or rejected (nesting as Word applies it), the
text a reply is meant to make, an offered line, and which edits a change's words lie in."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise_lab.evals.changes_bench import (
    Offered,
    Round,
    build_round,
    edits_touched,
    intended_lines,
    reads_as,
)
from clausewise_lab.evals.data import GoldDocument
from clausewise_lab.evals.reply_reading import lines_as
from clausewise_lab.evals.word_files import Change, Para, WordFile, write_word_file

US = "Our Counsel"
SUPPLY = "\n".join(
    f"{n}. Delivery {n}. The Supplier shall deliver each order of goods within thirty (30) days of the "
    f"order placed by the Buyer under clause {n}."
    for n in range(1, 25)
)
LICENCE = "\n".join(
    f"{n}. Licence term {n}. The Licensee may use the software for twelve (12) months from the date of "
    f"each licence key issued by the Licensor, section {n}."
    for n in range(1, 23)
)
DONOR = GoldDocument(
    "donor",
    "Exclusivity. The Customer shall purchase the services exclusively from the Supplier during the "
    "term of this agreement and for one year after it.",
    spans=[(0, 130)],
)


def _bytes(spec: WordFile, folder: Path) -> bytes:
    return write_word_file(folder / "round.docx", spec).read_bytes()


def _round(text: str, name: str) -> Round:
    built = build_round(GoldDocument(name, text), [DONOR], seed=3)
    assert built is not None
    return built


def _replied(round_: Round, undo: str) -> WordFile:
    """The round's file with the edit of kind ``undo`` answered as a reply answers it: their
    struck paragraph put back (our insertion after their deletion), their inserted clause deleted
    by us (our deletion inside their insertion)."""
    paragraphs = []
    for paragraph in round_.spec.paragraphs:
        kinds = {piece.kind for piece in paragraph.pieces if isinstance(piece, Change)}
        mark = paragraph.mark
        if undo == "clause_struck" and mark is not None and mark.kind == "del":
            (their,) = paragraph.pieces
            assert isinstance(their, Change)
            paragraphs.append(paragraph)
            paragraphs.append(Para([Change("ins", US, their.text)], mark=Change("ins", US, "")))
        elif undo == "clause_inserted" and mark is not None and kinds == {"ins"}:
            (their,) = paragraph.pieces
            assert isinstance(their, Change)
            paragraphs.append(
                Para(
                    [Change("ins", their.author, their.text, deleted_by=US)],
                    mark=Change("ins", their.author, ""),
                )
            )
        else:
            paragraphs.append(paragraph)
    return WordFile(paragraphs)


def test_words_in_their_insertion_and_our_deletion_stay_only_when_both_keep_them(tmp_path: Path) -> None:
    spec = WordFile(
        [
            Para(["The fee is ", Change("ins", "Them", "ten (10) ", deleted_by=US), "days."]),
            Para([Change("del", "Them", "A struck clause.")], mark=Change("del", "Them", "")),
            Para(["The last clause."]),
        ]
    )
    data = _bytes(spec, tmp_path)
    assert lines_as(data, lambda _: True) == ["The fee is days.", "The last clause."]
    assert lines_as(data, lambda who: who != US) == ["The fee is ten (10) days.", "The last clause."]
    assert lines_as(data, lambda _: False) == ["The fee is days.", "A struck clause.", "The last clause."]


@pytest.mark.parametrize(("text", "name"), [(SUPPLY, "supply"), (LICENCE, "licence")])
@pytest.mark.parametrize("undo", ["clause_struck", "clause_inserted"])
def test_a_reply_undoing_one_edit_reads_as_their_proposal_with_that_edit_undone(
    text: str, name: str, undo: str, tmp_path: Path
) -> None:
    round_ = _round(text, name)
    data = _bytes(_replied(round_, undo), tmp_path)
    (edit,) = [n for n, e in enumerate(round_.edits) if e.kind == undo]
    accepted = lines_as(data, lambda _: True)
    assert reads_as(accepted, intended_lines(round_, {edit}, set()))
    assert not reads_as(accepted, intended_lines(round_, set(), set()))
    assert lines_as(data, lambda who: who != US) == round_.after_lines
    assert lines_as(data, lambda _: False) == round_.before_lines


@pytest.mark.parametrize(("text", "name"), [(SUPPLY, "supply"), (LICENCE, "licence")])
def test_the_round_file_itself_reads_as_its_two_texts(text: str, name: str, tmp_path: Path) -> None:
    round_ = _round(text, name)
    data = _bytes(round_.spec, tmp_path)
    assert lines_as(data, lambda _: True) == round_.after_lines
    assert lines_as(data, lambda _: False) == round_.before_lines
    assert intended_lines(round_, set(), set()) == round_.after_lines
    every = set(range(len(round_.edits)))
    assert intended_lines(round_, every, set()) == round_.before_lines


def test_an_offered_line_is_any_other_that_answers_theirs_in_one_place() -> None:
    theirs = "The Supplier shall deliver within ten (10) days of the order."
    offered = [Offered(theirs)]
    assert reads_as(["The Supplier shall deliver within thirty (30) days of the order."], offered)
    assert not reads_as([theirs], offered)
    assert not reads_as(
        ["Something else entirely, written from the first word to the last one here."], offered
    )
    assert not reads_as(None, offered)


@pytest.mark.parametrize(("text", "name"), [(SUPPLY, "supply"), (LICENCE, "licence")])
def test_a_change_touches_the_edit_its_words_lie_in_not_a_neighbour_at_its_point(
    text: str, name: str
) -> None:
    round_ = _round(text, name)
    (struck,) = [n for n, e in enumerate(round_.edits) if e.kind == "clause_struck"]
    line = round_.edits[struck].before
    assert line is not None
    start = sum(len(x) + 1 for x in round_.before_lines[:line])
    words = (start, start + len(round_.before_lines[line]))
    assert edits_touched(round_, [(words, None)]) == {struck}
    # the deletion's point in the text as proposed is the start of the next line: not read
    after_start = sum(len(x) + 1 for x in round_.after_lines[:line])
    assert edits_touched(round_, [(None, (after_start, after_start))]) == set()
