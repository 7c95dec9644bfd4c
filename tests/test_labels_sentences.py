from __future__ import annotations

import pytest

from tools.structure.labels import int_to_roman, opens_item, parse_label, roman_to_int
from tools.structure.sentences import sentence_spans


@pytest.mark.parametrize(
    ("text", "canonical", "styles"),
    [
        ("1. DEFINITIONS", "1", ["decimal"]),
        ("12.4.1 Scope", "12.4.1", ["decimal"]),
        ("(a) the Receiving Party", "(a)", ["paren-alpha-lower"]),
        ("(i) first", "(i)", ["paren-roman-lower", "paren-alpha-lower"]),
        ("(v) either", "(v)", ["paren-alpha-lower", "paren-roman-lower"]),
        ("(iv) fourth", "(iv)", ["paren-roman-lower"]),
        ("A. Brightwater operates", "(A)", ["dot-alpha-upper"]),
        ("ARTICLE IV THE MERGER", "Article IV", ["article"]),
        ("Article Two", "Article Two", ["article"]),
        ("Section 2.3 Launch", "2.3", ["decimal"]),
        ("§ 7 Notices", "7", ["decimal"]),
        ("SCHEDULE B", "Schedule B", ["schedule"]),
        ("Exhibit A-1 Form of Note", "Exhibit A-1", ["schedule"]),
        ("1) first item", "(1)", ["digit-paren"]),
        ("• a bullet", "", ["bullet"]),
    ],
)
def test_labels_and_their_readings(text: str, canonical: str, styles: list[str]) -> None:
    label = parse_label(text)
    assert label is not None
    assert label.canonical == canonical
    assert [r.style for r in label.readings][: len(styles)] == styles


@pytest.mark.parametrize(
    "text", ["10 days after", "2019. The parties", "addendum to this Agreement", "Inc. shall"]
)
def test_ordinary_text_is_not_a_label(text: str) -> None:
    assert parse_label(text) is None


def test_roman_numerals_round_trip() -> None:
    for value in range(1, 120):
        assert roman_to_int(int_to_roman(value)) == value
    assert roman_to_int("iiii") is None  # malformed


def test_wrapped_references_do_not_open_items() -> None:
    assert not opens_item("within thirty", "(30) days after notice")
    assert not opens_item("as set out in", "Schedule 1, by courier")
    assert not opens_item("pursuant to Sections 2.2 and", "2.4 above")
    assert opens_item("the following:", "(a) the first")
    assert opens_item("a receiver is appointed; or", "(b) it ceases business")
    assert opens_item("This is the end.", "2.4 NOTICES")


def test_sentences_keep_abbreviations_and_exact_offsets() -> None:
    text = (
        "Acme Inc. and Beta Co. agree as follows. Payment is due under Section 2.3. within 30 days, "
        "e.g. by wire. The U.S. courts have jurisdiction! Notices go to J. Smith."
    )
    spans = sentence_spans(text)
    sentences = [text[a:b] for a, b in spans]
    assert sentences[0] == "Acme Inc. and Beta Co. agree as follows."
    assert sentences[-1] == "Notices go to J. Smith." or sentences[-1].endswith("J. Smith.")
    assert any(s.startswith("The U.S. courts") for s in sentences)
    assert all(text[a:b].strip() == text[a:b] for a, b in spans)


def test_short_fragments_merge_into_neighbours() -> None:
    text = "Yes. The Supplier shall deliver the goods on time and in full."
    assert len(sentence_spans(text)) == 1


DISTRIBUTION = (
    "DISTRIBUTOR AGREEMENT\n\nThis Agreement is made between Tripath Technology Inc. and Etelos, Inc.\n\n"
    "18. Term and Termination\n\n"
    "18.5 Either party may terminate this Agreement on ninety (90) days' written notice.\n\n"
    "18.6 On termination of this Agreement for whatever cause, Distributor will immediately\n"
    "(a) cease to engage in marketing and distribution activities as Tripath's official distributor, and\n"
    "(b) cease representing in any manner that it is a distributor of Tripath Products.\n\n"
    "18.7 All obligations of Distributor to make payments survive any termination of this Agreement.\n"
)
DEVELOPMENT = (
    "TECHNOLOGY DEVELOPMENT AGREEMENT\n\nThis Agreement is made between DSS and the Developer.\n\n"
    "5. Warranties\n\n"
    "5.1 DSS represents and warrants to Developer\n"
    "(i) that the Technology is the sole and exclusive property of DSS, and\n"
    "(ii) that DSS possesses all legal right, title and interest in and to the Technology.\n\n"
    "5.2 Developer represents and warrants that it has the skills to develop the Improvements.\n"
)


@pytest.mark.parametrize(
    ("text", "lead_in", "last_item"),
    [
        (DISTRIBUTION, "On termination of this Agreement", "distributor of Tripath Products."),
        (DEVELOPMENT, "DSS represents and warrants to Developer", "interest in and to the Technology."),
    ],
)
def test_a_lead_in_that_stops_mid_sentence_runs_on_into_its_items(
    text: str, lead_in: str, last_item: str
) -> None:
    """Rule "a lead-in that stops mid-sentence runs on into its items": read alone, the lead-in
    was quoted as an answer ending "Distributor will immediately"."""
    from clausewise.core.config import StructureSettings
    from tools.parsing.text import document_from_text
    from tools.structure.sentences import clause_bodies
    from tools.structure.tree_builder import build_tree

    tree = build_tree(document_from_text(text, "c.txt"), StructureSettings())
    bodies = [" ".join(text[a:b].split()) for a, b in clause_bodies(text, tree)]
    whole = next(b for b in bodies if b.startswith(lead_in))
    assert whole.endswith(last_item)
    assert not any(b.startswith(("(a)", "(b)", "(i)", "(ii)")) for b in bodies)  # read once, with it
    # a lead-in that ends on its colon is a sentence of its own, its items apart
    colon = text.replace("immediately\n", "immediately:\n")
    colon = colon.replace("to Developer\n", "to Developer:\n")
    tree = build_tree(document_from_text(colon, "c.txt"), StructureSettings())
    bodies = [" ".join(colon[a:b].split()) for a, b in clause_bodies(colon, tree)]
    assert any(b.endswith(("immediately:", "to Developer:")) for b in bodies)


#: A long sentence before a lead-in in its clause's own text (one contract's 3.1 opens so).
BEFORE = (
    "Subject to the other party's expressly granted rights under this Agreement, each party acknowledges and "
    "agrees that the owner of the Technology shall own all right, title, and interest in and to the "
    "Technology, the Improvements, its Intellectual Property, and all future derivative works derived "
    "therefrom or developed hereunder, whether developed before or after the date of this Agreement, and "
    "whether alone or jointly with the other party or any third party engaged by either of them. "
)


@pytest.mark.parametrize(
    ("text", "number", "lead_in", "last_item"),
    [
        (DISTRIBUTION, "18.6 ", "On termination of this Agreement", "distributor of Tripath Products."),
        (DEVELOPMENT, "5.1 ", "DSS represents and warrants to Developer", "in and to the Technology."),
    ],
)
def test_a_clauses_sentence_before_its_items_runs_on_into_them(
    text: str, number: str, lead_in: str, last_item: str
) -> None:
    """Rule "a lead-in that stops mid-sentence runs on into its items", for a lead-in that is the
    second sentence of its clause (the tree reads the clause as its sentences, then the items):
    restated alone, it read "Developer agrees that it will not at any time"."""
    from clausewise.core.config import StructureSettings
    from tools.parsing.text import document_from_text
    from tools.structure.sentences import clause_bodies, sentences_within
    from tools.structure.tree_builder import build_tree

    longer = text.replace(number, number + BEFORE, 1)
    tree = build_tree(document_from_text(longer, "c.txt"), StructureSettings())
    spans = sentences_within(longer, clause_bodies(longer, tree))
    sentences = [" ".join(longer[a:b].split()) for a, b in spans]
    read = next(s for s in sentences if s.startswith(lead_in))
    assert read.endswith(last_item), sentences
