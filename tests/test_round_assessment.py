"""A negotiation round held against a playbook: each position decided on the text before and on the
text as proposed, the changes in its clause, those the changes made worse first, the changes no
position covers listed apart. The ordering and the movement rule on scripted reviews; then the real
deciders on the other side's Word files of two contracts (a services agreement whose cap was cut
and an exclusivity clause inserted; an NDA whose reverse-engineering clause was struck)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clausewise.core.comparison import Comparison, TextChange, WordRound
from clausewise.core.results import PlaybookCitation, PositionReview, VerifiedCitation
from clausewise_lab.evals.word_files import Change, Para, WordFile, write_word_file
from tests.test_cli import cli  # noqa: F401  (the fixture)
from tests.test_word_revisions import THEM, services_agreement
from tools.playbook.positions import Playbook
from tools.round_assessment import assess, movement

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


_PLAYBOOK = Playbook.model_validate(
    {
        "name": "p",
        "version": "1",
        "positions": [
            {"id": "law", "clause": "Governing Law", "standard": {"law": ["New York"]}, "risk": "medium"},
            {"id": "cap", "clause": "Cap on Liability", "standard": {"require": "present"}, "risk": "high"},
            {
                "id": "exclusivity",
                "clause": "Exclusivity",
                "standard": {"require": "absent"},
                "risk": "medium",
            },
        ],
    }
)


def _review(position: str, verdict: str, span: tuple[int, int] | None = None, fallback: int | None = None):
    citations = (
        [
            VerifiedCitation(
                node_id="1",
                pages=[1],
                span=span,
                quote="x" * (span[1] - span[0]),
                contract_id="c",
                evidence=1,
            )
        ]
        if span
        else []
    )
    return PositionReview(
        position_id=position,
        clause=position.title(),
        verdict=verdict,
        fallback=fallback,
        risk="high" if position == "cap" else "medium",
        rationale="",
        citations=citations,
        playbook=PlaybookCitation(playbook="p", version="1", position_id=position, requirement="r"),
    )


@pytest.mark.parametrize(
    ("before", "after", "expected"),
    [
        (("meets_standard", None), ("deviation", None), "worse"),
        (("meets_standard", None), ("meets_fallback", 1), "worse"),
        (("meets_fallback", 1), ("meets_fallback", 2), "worse"),
        (("missing", None), ("meets_standard", None), "better"),
        (("deviation", None), ("missing", None), "same"),
        (("meets_standard", None), ("refused_ambiguous", None), "unclear"),
        (("refused_not_covered", None), ("refused_not_covered", None), "same"),
    ],
)
def test_the_movement_of_a_position_from_before_to_proposed(before, after, expected) -> None:
    old = _review("cap", before[0], fallback=before[1])
    new = _review("cap", after[0], fallback=after[1])
    assert movement(old, new) == expected


def test_positions_made_worse_come_first_and_changes_no_clause_holds_are_listed_apart() -> None:
    changes = [
        TextChange(kind="value_changed", before=(10, 12), after=(10, 11)),  # in the cap
        TextChange(kind="clause_inserted", before=(50, 50), after=(60, 90)),  # the new exclusivity clause
        TextChange(kind="words_deleted", before=(200, 210), after=(190, 190)),  # in no position's clause
    ]
    round_ = WordRound(
        contract_id="c",
        version=1,
        read_as="proposed",
        comparison=Comparison(before_name="c@before", after_name="c", changes=changes),
    )
    before = [
        _review("law", "meets_standard", (100, 120)),
        _review("cap", "meets_standard", (0, 40)),
        _review("exclusivity", "meets_standard"),
    ]
    after = [
        _review("law", "meets_standard", (95, 115)),
        _review("cap", "meets_fallback", (0, 39), 1),
        _review("exclusivity", "deviation", (60, 90)),
    ]
    assessed = assess(round_, before, after, _PLAYBOOK)
    assert [(p.position_id, p.movement, p.changes) for p in assessed.positions] == [
        ("cap", "worse", [1]),
        ("exclusivity", "worse", [2]),
        ("law", "same", []),
    ]
    assert assessed.not_covered == [3]
    assert (
        "meets standard before" in assessed.positions[0].rationale
        and "[1]" in assessed.positions[0].rationale
    )


@pytest.mark.parametrize(
    ("their_value", "verdict", "offered"),
    [
        ("three (3) months", "deviation", "six (6) months"),  # below the fallback: the fallback offered
        ("3 months", "deviation", "6 months"),  # in their number style
        ("nine (9) months", "meets_fallback", None),  # the fallback holds: nothing to offer
    ],
)
def test_rule_fallback_offered_writes_the_first_fallback_in_their_value_s_place(
    their_value: str, verdict: str, offered: str | None
) -> None:
    from clausewise.core.results import Redline, RedlineEdit
    from tools.comparison_render import assessment_markdown
    from tools.playbook.positions import load_positions
    from tools.round_assessment import fallback_offer

    playbook = load_positions("playbook-commercial")
    cap = next(p for p in playbook.positions if p.id == "liability-cap")
    edit = RedlineEdit(span=(40, 40 + len(their_value)), deleted=their_value, inserted="twelve (12) months")
    after = _review("cap", verdict, (0, 80)).model_copy(
        update={"position_id": "liability-cap", "redline": Redline(kind="value", edits=[edit])}
    )
    offer = fallback_offer(cap, after)
    assert (offer.inserted if offer else None) == offered
    if offer:
        assert (offer.span, offer.deleted) == (edit.span, their_value)
        before = _review("cap", "meets_standard", (0, 80)).model_copy(update={"position_id": "liability-cap"})
        round_ = WordRound(
            contract_id="c",
            version=1,
            read_as="proposed",
            comparison=Comparison(before_name="c@before", after_name="c", changes=[]),
        )
        assessed = assess(round_, [before], [after], playbook)
        assert assessed.positions[0].offer == offer
        assert f"We can offer {offered} (our fallback)." in assessment_markdown(assessed)
        unchanged = assess(round_, [after], [after], playbook)  # a deviation before too: not theirs
        assert unchanged.positions[0].movement == "same" and unchanged.positions[0].offer is None
    governing = next(p for p in playbook.positions if p.id == "governing-law")
    assert fallback_offer(governing, after) is None  # a law is not met halfway


def test_a_services_round_against_the_commercial_playbook(cli, tmp_path: Path) -> None:  # noqa: F811
    path = write_word_file(tmp_path / "services.docx", services_agreement())
    assert cli("ingest", str(path))[0] == 0
    code, out, _ = cli("changes", "services", "--playbook", "playbook-commercial", "--format", "json")
    assert code == 0, out
    assessed = json.loads(out)
    worse = {p["clause"]: p for p in assessed["positions"] if p["movement"] == "worse"}
    assert worse["Cap on Liability"]["changes"] == [1] and worse["Exclusivity"]["changes"] == [2]
    assert worse["Exclusivity"]["before"]["verdict"] == "meets_standard"
    assert worse["Exclusivity"]["after"]["verdict"] == "deviation"
    first = [p["movement"] for p in assessed["positions"]][: len(worse)]
    assert set(first) == {"worse"}  # worse first
    code, out, _ = cli("contracts", "list")
    assert out.count("services.docx") == 1 and "original.docx" not in out  # no contract added


def test_an_nda_round_whose_reverse_engineering_clause_was_struck(cli, tmp_path: Path) -> None:  # noqa: F811
    lines = [
        " ".join(line.split())
        for line in (EXAMPLES / "mutual-nda.txt").read_text().splitlines()
        if line.strip()
    ]
    struck = next(line for line in lines if re.match(r"2\.4 Neither Party shall reverse engineer", line))
    paragraphs = [
        Para([Change("del", THEM, line)], mark=Change("del", THEM, "")) if line == struck else Para([line])
        for line in lines
    ]
    path = write_word_file(tmp_path / "nda-round.docx", WordFile(paragraphs))
    assert cli("ingest", str(path))[0] == 0
    code, out, _ = cli("changes", "nda-round", "--playbook", "playbook-nda", "--format", "json")
    assert code == 0, out
    assessed = json.loads(out)
    changes = assessed["round"]["comparison"]["changes"]
    assert [c["kind"] for c in changes] == ["clause_struck"]
    reverse = next(p for p in assessed["positions"] if p["position_id"] == "no-reverse-engineering")
    assert (
        reverse["before"]["verdict"] == "meets_standard" and reverse["after"]["verdict"] != "meets_standard"
    )
    assert reverse["movement"] in ("worse", "unclear") and reverse["changes"] == [1]
    assert assessed["positions"][0]["position_id"] == "no-reverse-engineering"
