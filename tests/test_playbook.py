"""Playbook review: positions validated with clear errors, outcomes and verdicts, redlines as the
smallest edits, tracked changes in a DOCX, the LangGraph loop over the position queue, and the
real deciders on the supply agreement (built to deviate) and the services agreement."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from lxml import etree

from clausewise.core.errors import ConfigError
from clausewise.core.results import Decision, PlaybookCitation, PositionReview
from clausewise_lab.evals.office import converted
from tests.helpers import real_api
from tools.playbook.outcomes import outcome, verdict
from tools.playbook.positions import Requirement, load_positions, parse_positions
from tools.playbook.redlines import (
    Edit,
    apply_edits,
    duration_words,
    merged,
    next_label,
    word_edits,
)
from tools.playbook.summary import summarise
from tools.tracked_docx import tracked_docx
from tools.values import number_words

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
WHEN = datetime(2026, 11, 28, 12, 0, tzinfo=UTC)


# -- the playbook file -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["playbook-commercial", "playbook-nda"])
def test_the_built_in_playbooks_load_with_versions_and_unique_ids(name):
    playbook = load_positions(name)
    ids = [p.id for p in playbook.positions]
    assert playbook.version and len(ids) == len(set(ids)) >= 8
    assert all(p.risk in ("low", "medium", "high") for p in playbook.positions)


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (
            "standard: {require: present, law: [Delaware]}",
            "exactly one of require, law, duration, hypothesis",
        ),
        ("standard: {duration: {at_least: soon}}", "is not one duration"),
        ("standard: {law: [Delaware]}\n    fallbacks: [{require: present}]", "fallback 1 is a require"),
        ("standard: {require: sometimes}", "standard.require"),
    ],
)
def test_a_bad_position_is_refused_naming_the_file_and_the_field(body, says):
    head = "name: ours\nversion: 1\npositions:\n  - id: law\n    clause: Governing Law\n    risk: low\n"
    text = f"{head}    {body}\n"
    with pytest.raises(ConfigError) as error:
        parse_positions(text, "ours.yaml")
    assert "ours.yaml" in str(error.value) and says in str(error.value)


def test_position_ids_must_be_unique_and_the_yaml_valid():
    position = "  - {id: a, clause: Insurance, risk: low, standard: {require: present}}\n"
    with pytest.raises(ConfigError, match="position ids appear twice: a"):
        parse_positions(f"name: x\nversion: '1'\npositions:\n{position}{position}", "x.yaml")
    with pytest.raises(ConfigError, match="not valid YAML at line"):
        parse_positions("name: [x\n", "x.yaml")


# -- outcomes and verdicts ------------------------------------------------------------------------


def _decision(**fields) -> Decision:
    return Decision(question="q", form=fields.pop("form", "verdict"), **fields)


@pytest.mark.parametrize(
    ("requirement", "decision", "expected"),
    [
        ({"require": "present"}, {"verdict": "yes"}, "meets"),
        ({"require": "present"}, {"verdict": "no"}, "missing"),
        ({"require": "absent"}, {"verdict": "yes"}, "fails"),
        ({"require": "absent"}, {"verdict": "unclear"}, "unsure"),
        ({"law": ["New York"]}, {"form": "value", "value_type": "law", "normalized": "new york"}, "meets"),
        ({"law": ["New York"]}, {"form": "value", "value_type": "law", "normalized": "california"}, "fails"),
        ({"law": ["New York"]}, {"form": "value", "verdict": "not addressed"}, "missing"),
        ({"law": ["New York"]}, {"form": "value", "value_type": "condition", "value": "as agreed"}, "unsure"),
        (
            {"duration": {"at_least": "60 days"}},
            {"form": "value", "value_type": "notice period", "normalized": "3 months"},
            "meets",
        ),
        (
            {"duration": {"at_least": "12 months"}},
            {"form": "value", "value_type": "duration", "normalized": "1 year"},
            "meets",
        ),
        (
            {"duration": {"at_most": "30 days"}},
            {"form": "value", "value_type": "duration", "normalized": "45 days"},
            "fails",
        ),
        ({"hypothesis": "The party must notify."}, {"verdict": "not addressed"}, "missing"),
        ({"hypothesis": "The party must notify."}, {"verdict": "no"}, "fails"),
    ],
)
def test_a_decision_is_compared_with_the_requirement_and_an_unsure_one_never_decides(
    requirement, decision, expected
):
    assert outcome(Requirement.model_validate(requirement), _decision(**decision)) == expected


@pytest.mark.parametrize(
    ("standard", "fallbacks", "expected"),
    [
        ("meets", [], ("meets_standard", None)),
        ("fails", ["fails", "meets"], ("meets_fallback", 2)),
        ("fails", ["unsure", "meets"], ("refused_ambiguous", None)),
        ("fails", ["fails"], ("deviation", None)),
        ("missing", ["meets"], ("missing", None)),
        ("unsure", ["meets"], ("refused_ambiguous", None)),
    ],
)
def test_fallbacks_are_tried_in_order_and_a_missing_clause_is_not_relaxed(standard, fallbacks, expected):
    assert verdict(standard, fallbacks) == expected


# -- redlines ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "like", "expected"),
    [
        ("90 days", "thirty (30) days", "ninety (90) days"),
        ("12 months", "three months", "twelve months"),
        ("60 days", "15 days", "60 days"),
        ("1 year", "two (2) years", "one (1) year"),
    ],
)
def test_a_value_is_written_the_way_the_clause_writes_numbers(target, like, expected):
    assert duration_words(target, like) == expected


def test_number_words_and_clause_numbers():
    assert [number_words(n) for n in (0, 14, 40, 45, 120)] == [
        "zero",
        "fourteen",
        "forty",
        "forty-five",
        "one hundred and twenty",
    ]
    assert [next_label(x) for x in ("4.3", "12", "7.", "(a)")] == ["4.4", "13", "8.", ""]


@pytest.mark.parametrize("name", ["services-agreement.txt", "mutual-nda.txt"])
def test_a_rewrite_marks_only_the_words_that_change(name):
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    start = text.index("governed by")
    end = text.index(".", start) + 1
    old = text[start:end]
    new = old.replace("governed by", "governed by and construed in accordance with")
    edits = word_edits(text, (start, end), new)
    assert apply_edits(text, edits)[start : start + len(new)] == new
    assert sum(len(e.insert) + e.end - e.start for e in edits) < len(new) / 2  # not the whole sentence


def test_overlapping_redlines_keep_the_first_and_stacked_insertions_are_renumbered():
    edits, left_out = merged(
        [
            ("cap", [Edit(10, 20, "twelve")]),
            ("uncapped", [Edit(5, 30, "")]),
            ("audit", [Edit(50, 50, "\n\n4.4 Audit.")]),
            ("termination", [Edit(50, 50, "\n\n4.4 Termination.")]),
        ]
    )
    assert left_out == ["uncapped"]
    assert [e.insert for e in edits] == ["twelve", "\n\n4.4 Audit.", "\n\n4.5 Termination."]


# -- tracked changes --------------------------------------------------------------------------------


def _body(data: bytes) -> etree._Element:
    with zipfile.ZipFile(io.BytesIO(data)) as docx:
        return etree.fromstring(docx.read("word/document.xml"))


def _text(body: etree._Element, accept: bool) -> str:
    """The document's text with every change accepted (or rejected), as Word shows it after."""
    paragraphs = []
    for paragraph in body.iter(f"{W}p"):
        mark = paragraph.find(f"{W}pPr/{W}rPr")
        pieces = []
        for node in paragraph.iter(f"{W}t", f"{W}delText"):
            inserted = node.getparent().getparent().tag == f"{W}ins"
            deleted = node.tag == f"{W}delText"
            if (accept and not deleted) or (not accept and not inserted):
                pieces.append(node.text or "")
        joined = mark is not None and mark.find(f"{W}ins" if not accept else f"{W}del") is not None
        paragraphs.append(("".join(pieces), joined))
    out = ""
    for number, (text, joined) in enumerate(paragraphs):
        out += text + ("" if joined or number == len(paragraphs) - 1 else "\n")
    return out


@pytest.mark.parametrize("name", ["services-agreement.txt", "mutual-nda.txt"])
def test_the_docx_gives_back_the_contract_rejected_and_the_edit_accepted(name):
    import docx

    text = (EXAMPLES / name).read_text(encoding="utf-8")
    law = text.index("governed by")
    first_break = text.index("\n\n", 200)
    edits = [
        Edit(law, law + len("governed by"), "construed under"),
        Edit(first_break, first_break, "\n\n1.9 A new clause.\nIts second line."),
        Edit(text.index("\n", law), text.index("\n", law) + 1, ""),  # a paragraph mark deleted
    ]
    data = tracked_docx(text, edits, author="Reviewer", when=WHEN)
    body = _body(data)
    assert _text(body, accept=False) == text
    assert _text(body, accept=True) == apply_edits(text, edits)
    changes = body.findall(f".//{W}ins") + body.findall(f".//{W}del")
    assert changes and all(c.get(f"{W}author") == "Reviewer" for c in changes)
    assert all(c.get(f"{W}date") == "2026-11-28T12:00:00Z" for c in changes)
    assert len({c.get(f"{W}id") for c in changes}) == len(changes)
    assert docx.Document(io.BytesIO(data)).paragraphs  # python-docx opens it


# -- the loop over the position queue ------------------------------------------------------------------


class ScriptedReviewer:
    """Gives each position the verdict the test scripts for it, recording the order asked."""

    def __init__(self, verdicts: dict[str, str]) -> None:
        self.verdicts = verdicts
        self.asked: list[str] = []

    def review(self, position):
        self.asked.append(position.id)
        return PositionReview(
            position_id=position.id,
            clause=position.clause,
            verdict=self.verdicts[position.id],
            risk=position.risk,
            rationale="scripted",
            playbook=PlaybookCitation(playbook="p", version="1", position_id=position.id, requirement="r"),
        )


def test_the_loop_reviews_every_position_once_in_order_and_sums_the_risk_up():
    from graphs.playbook_graph import PlaybookContext, build_playbook_graph

    playbook = load_positions("playbook-commercial")
    scripted = {p.id: "meets_standard" for p in playbook.positions}
    scripted.update(
        {"non-compete": "deviation", "audit-rights": "missing", "change-of-control": "refused_ambiguous"}
    )
    reviewer = ScriptedReviewer(scripted)
    out = build_playbook_graph().invoke(
        {"queue": list(playbook.positions)},
        context=PlaybookContext(reviewer),
        config={"recursion_limit": 2 * len(playbook.positions) + 8},
    )
    assert reviewer.asked == [p.id for p in playbook.positions]
    assert [r.position_id for r in out["reviews"]] == reviewer.asked
    summary = out["summary"]
    assert summary.overall_risk == "high" and summary.high == ["non-compete"]
    assert summary.medium == ["audit-rights"] and summary.refused == ["change-of-control"]
    assert summary.counts["meets_standard"] == len(playbook.positions) - 3


def test_a_summary_without_open_points_has_no_risk():
    review = ScriptedReviewer({"a": "meets_fallback"}).review(
        load_positions("playbook-nda").positions[0].model_copy(update={"id": "a"})
    )
    assert summarise([review]).overall_risk == "none"


# -- the real deciders on two contracts ----------------------------------------------------------------


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory, hub):
    """The commercial playbook against the supply agreement (built to deviate) and the services
    agreement, with the real embedded models and no language model."""
    from clausewise.core.results import PlaybookSummary

    api = real_api(tmp_path_factory.mktemp("playbook") / "data", hub)
    playbook = load_positions("playbook-commercial")
    out = {}
    for name in ("supply-agreement.txt", "services-agreement.txt"):
        api.ingest(EXAMPLES / name)
        items = list(api.playbook_review(Path(name).stem, playbook))
        assert isinstance(items[-1], PlaybookSummary)
        out[Path(name).stem] = {r.position_id: r for r in items[:-1]}
    return api, out


def test_every_position_is_answered_with_verified_clauses(reviewed):
    api, out = reviewed
    for contract, reviews in out.items():
        index = api.runtime.store.open(contract)
        try:
            for review in reviews.values():
                for citation in review.citations:
                    assert index.document.text[citation.span[0] : citation.span[1]] == citation.quote
                assert review.rationale and review.playbook.position_id == review.position_id
        finally:
            index.close()


def test_the_governing_law_is_held_to_the_standard_and_the_fallback(reviewed):
    _, out = reviewed
    assert out["services-agreement"]["governing-law"].verdict == "meets_standard"  # New York
    supply = out["supply-agreement"]["governing-law"]  # California: the first fallback
    assert (supply.verdict, supply.fallback) == ("meets_fallback", 1)
    assert supply.citations[0].node_id.startswith("8.2")


def test_a_short_value_is_redlined_to_the_standard_and_re_decided(reviewed):
    _, out = reviewed
    cap = out["supply-agreement"]["liability-cap"]
    assert cap.verdict == "deviation" and cap.redline is not None and cap.redline.kind == "value"
    (edit,) = cap.redline.edits
    assert (edit.deleted, edit.inserted) == ("three (3) months", "twelve (12) months")
    assert cap.redline.satisfies is True
    assert out["services-agreement"]["liability-cap"].verdict == "meets_standard"  # twelve months


def test_a_forbidden_clause_is_deleted_and_a_missing_one_inserted_in_its_article(reviewed):
    api, out = reviewed
    supply = out["supply-agreement"]
    non_compete = supply["non-compete"]
    assert non_compete.verdict == "deviation" and non_compete.redline.kind == "delete"
    assert all("compete" in e.deleted for e in non_compete.redline.edits)
    missing = supply["termination-for-convenience"]
    assert missing.verdict == "missing" and missing.redline.kind == "insert"
    (insert,) = missing.redline.edits
    index = api.runtime.store.open("supply-agreement")
    try:
        article = next(n for n in index.tree.walk() if n.depth == 1 and n.start <= insert.span[0] <= n.end)
    finally:
        index.close()
    assert "TERMINATION" in article.heading.upper()
    assert out["services-agreement"]["termination-for-convenience"].verdict == "meets_standard"


def test_the_redline_docx_keeps_the_contract_outside_its_changes(reviewed):
    api, out = reviewed
    reviews = list(out["supply-agreement"].values())
    made = api.redline_docx("supply-agreement", reviews, author="Counsel", when=WHEN)
    assert made.base == "text" and "Word file" in made.reason  # it came as text
    data = made.data
    body = _body(data)
    text = (EXAMPLES / "supply-agreement.txt").read_text(encoding="utf-8")
    index = api.runtime.store.open("supply-agreement")
    try:
        assert _text(body, accept=False) == index.document.text
    finally:
        index.close()
    assert "twelve (12) months" in _text(body, accept=True)
    assert "three (3) months" in text


@pytest.fixture
def soffice() -> str:
    import shutil

    path = shutil.which("soffice")
    if path is None:
        pytest.skip(
            "LibreOffice is not installed (apt-get install libreoffice-writer-nogui); `make test` installs it"
        )
    return path


def as_odt(soffice: str, data: bytes, folder: Path) -> Path:
    """A DOCX converted by headless LibreOffice to ODT (its tracked changes become changed
    regions): the ODT's path."""
    odt = converted(data, soffice, folder, "odt", name="redline")
    assert odt is not None, "LibreOffice could not open the DOCX"
    return odt


def test_libreoffice_opens_the_redline_with_its_insertions_and_deletions_as_changes(
    reviewed, soffice, tmp_path
):
    import re

    api, out = reviewed
    data = api.redline_docx(
        "supply-agreement", list(out["supply-agreement"].values()), author="Counsel", when=WHEN
    ).data
    with zipfile.ZipFile(as_odt(soffice, data, tmp_path)) as odt:
        content = odt.read("content.xml").decode("utf-8")
    assert len(re.findall("<text:changed-region", content)) >= 3
    assert "<text:insertion" in content and "<text:deletion" in content
    assert "Counsel" in content


def test_struck_sentences_that_overlap_are_struck_once():
    from tools.playbook.redlines import deletions

    assert deletions([(10, 20), (15, 30), (40, 50), (10, 20)]) == [Edit(10, 30, ""), Edit(40, 50, "")]
