"""The gold of a negotiation round's positions, worked by hand: annotations located in the round's
lines and carried through its edits (struck, edited inside, inserted from another contract), and
the verdicts read from them on two contracts."""

from __future__ import annotations

from clausewise_lab.evals.changes_bench import GoldEdit, Round, verdict_rows, verdict_summary
from clausewise_lab.evals.round_gold import (
    LineEdit,
    annotated,
    carried,
    donor_categories,
    line_edit,
    line_map,
    preferences,
    round_annotations,
)
from clausewise_lab.evals.word_files import WordFile
from tools.playbook.positions import parse_positions

SUPPLY = (
    "SUPPLY AGREEMENT\n\n"
    "1.  Term.   This Agreement renews for one year unless either party gives sixty (60) days notice.\n"
    "2. Assignment. Neither party may assign this Agreement without the consent of the other party.\n"
    "3. Insurance. Supplier shall maintain insurance.\n"
)
LICENCE = (
    "LICENCE AGREEMENT\n"
    "1. Exclusivity. Licensee shall buy the licensed products exclusively from Licensor during the term.\n"
    "2. Audit. Licensor may audit the records of Licensee once a year on thirty (30) days notice.\n"
)
PLAYBOOK = parse_positions(
    """
name: round-gold
version: "1"
positions:
  - {id: renewal-notice, clause: Notice Period to Terminate Renewal, risk: medium,
     standard: {duration: {at_least: 60 days}}, fallbacks: [{duration: {at_least: 30 days}}]}
  - {id: anti-assignment, clause: Anti-Assignment, standard: {require: present}, risk: medium}
  - {id: no-exclusivity, clause: Exclusivity, standard: {require: absent}, risk: high}
""",
    "round-gold.yaml",
)


def _answers(text: str, found: dict[str, list[str]]) -> dict[str, list[tuple[str, tuple[int, int]]]]:
    return {
        category: [(quote, (text.index(quote), text.index(quote) + len(quote))) for quote in quotes]
        for category, quotes in found.items()
    }


def _supply():
    return annotated(
        "supply",
        SUPPLY,
        _answers(
            SUPPLY,
            {
                "Notice Period to Terminate Renewal": ["either party gives sixty (60) days notice"],
                "Anti-Assignment": ["Neither party may assign this Agreement without the consent"],
                "Insurance": ["Supplier shall maintain insurance."],
            },
        ),
    )


def _licence():
    return annotated(
        "licence",
        LICENCE,
        _answers(
            LICENCE,
            {
                "Exclusivity": [
                    "Licensee shall buy the licensed products exclusively from Licensor during the term."
                ],
                "Audit Rights": ["Licensor may audit the records of Licensee once a year"],
            },
        ),
    )


def test_lines_are_collapsed_and_an_annotation_is_found_in_its_line() -> None:
    mapped = line_map(SUPPLY)
    assert mapped.lines[1] == (
        "1. Term. This Agreement renews for one year unless either party gives sixty (60) days notice."
    )
    (piece,) = _supply().annotations["Notice Period to Terminate Renewal"][0]
    line, first, last = piece
    assert (line, mapped.lines[line][first:last]) == (1, "either party gives sixty (60) days notice")


def test_an_annotation_across_lines_has_a_piece_in_each() -> None:
    span = (SUPPLY.index("notice."), SUPPLY.index(" without"))
    pieces = line_map(SUPPLY).pieces(span)
    assert [p[0] for p in pieces] == [1, 2]
    assert (
        line_map(SUPPLY).lines[2][pieces[1][1] : pieces[1][2]]
        == "2. Assignment. Neither party may assign this Agreement"
    )


def test_an_edit_is_the_one_region_the_lines_differ_in() -> None:
    edit = line_edit("gives sixty (60) days notice", "gives ninety (90) days notice")
    assert (edit.start, edit.end, edit.new) == (6, 14, "ninety (9")
    assert line_edit("a b c", "a c") == LineEdit(start=2, end=4, new="")


def test_an_edit_inside_an_annotation_is_carried_and_one_across_its_edge_leaves_it_undetermined() -> None:
    lines = ["1. Term. Notice of sixty (60) days is due."]
    pieces = [(0, 9, len(lines[0]))]
    inside = line_edit(lines[0], "1. Term. Notice of ten (10) days is due.")
    assert carried(lines, pieces, {0: inside}) == "Notice of ten (10) days is due."
    apart = LineEdit(start=0, end=2, new="")
    assert carried(lines, pieces, {0: apart}) == "Notice of sixty (60) days is due."
    across = LineEdit(start=5, end=12, new="")
    assert carried(lines, pieces, {0: across}) is None
    assert carried(lines, pieces, {0: LineEdit(struck=True)}) == ""
    assert carried(["a b", "c d"], [(0, 0, 3), (1, 0, 3)], {1: LineEdit(struck=True)}) is None


def test_a_donor_clause_brings_the_categories_annotated_inside_it() -> None:
    clauses = donor_categories([_licence()])
    exclusive = "Licensee shall buy the licensed products exclusively from Licensor during the term."
    assert clauses[exclusive] == ({"Exclusivity"}, set())
    assert "Licensor may audit the records of Licensee once a year" not in clauses  # 11 words: too short


def test_edits_are_aimed_at_the_playbooks_clauses() -> None:
    aimed = preferences(_supply(), [_supply(), _licence()], {"Anti-Assignment", "Exclusivity"})
    assert aimed.struck == {2} and aimed.valued == {2}
    assert aimed.donor_clauses == [
        "Licensee shall buy the licensed products exclusively from Licensor during the term."
    ]


def _round(after: list[str], edits: list[GoldEdit]) -> Round:
    return Round("supply", WordFile([]), line_map(SUPPLY).lines, after, edits)


def test_a_round_moves_the_positions_its_edits_touch_on_two_contracts() -> None:
    supply, licence = _supply(), _licence()
    lines = supply.lines.lines
    exclusive = "Licensee shall buy the licensed products exclusively from Licensor during the term."
    after = [lines[0], lines[1].replace("sixty (60)", "ten (10)"), exclusive, lines[3]]
    round_ = _round(
        after,
        [
            GoldEdit("value_changed", 1, 1),
            GoldEdit("clause_struck", 2, None),
            GoldEdit("clause_inserted", None, 2),
        ],
    )
    donors = donor_categories([supply, licence])
    found = round_annotations(
        supply, {1: line_edit(lines[1], after[1]), 2: LineEdit(struck=True)}, exclusive, donors
    )
    assert found.after["Notice Period to Terminate Renewal"] == ["either party gives ten (10) days notice"]
    assert found.after["Anti-Assignment"] == [] and found.after["Exclusivity"] == [exclusive]
    decided = {
        "renewal-notice": [["meets_standard", None], ["deviation", None]],
        "anti-assignment": [["meets_standard", None], ["refused_ambiguous", None]],
        "no-exclusivity": [["meets_standard", None], ["meets_standard", None]],
    }
    rows = {row["position"]: row for row in verdict_rows(round_, supply, donors, PLAYBOOK, decided)}
    assert (
        rows["renewal-notice"]["gold_after"] == ["deviation", None]
        and rows["renewal-notice"]["correct_after"]
    )
    assert rows["anti-assignment"]["gold_after"] == ["missing", None] and rows["anti-assignment"]["moved"]
    assert rows["no-exclusivity"]["gold_after"] == ["deviation", None]
    assert not rows["no-exclusivity"]["correct_after"]
    summary = verdict_summary(list(rows.values()))
    # as proposed: 3 scored, 2 committed (one refused), 1 of them right
    assert summary["after"] == {"scored": 3, "committed": 2, "accuracy": 0.5, "refused_share": 0.3333}
    assert summary["before"]["accuracy"] == 1.0 and summary["after_moved"]["scored"] == 3


def test_a_contract_whose_lines_are_not_the_rounds_gets_no_rows() -> None:
    round_ = Round("licence", WordFile([]), ["another text"], ["another text"], [])
    assert verdict_rows(round_, _licence(), {}, PLAYBOOK, {}) == []
