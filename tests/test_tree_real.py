"""Clause trees of real development documents, checked by hand against the source text."""

from __future__ import annotations

from pathlib import Path

from clausewise.core.config import ParsingSettings, StructureSettings
from clausewise.core.domain import NodeKind
from tests.tree_checks import assert_tree_invariants
from tools.parsing import parse_document
from tools.structure.tree_builder import build_tree


def _tree(path: Path):
    document = parse_document(path, ParsingSettings())
    tree = build_tree(document, StructureSettings())
    assert_tree_invariants(tree, document.text)
    return document, tree


def test_nda_with_bare_section_numbers_and_a_table_of_contents(bench_data: Path) -> None:
    """ContractNLI corpus: "1 Eligibility" headings (no dot), a dotted table of contents."""
    path = bench_data / "legalbenchrag" / "corpus" / "contractnli" / "CopAcc_NDA-and-ToP-Mentors_2.0_2017.txt"
    document, tree = _tree(path)
    top = [c.id for c in tree.children(tree.root_id)]
    assert top[:3] == ["Cover", "Contents", "Preamble"]
    assert top[3:] == [str(n) for n in range(1, 15)]
    assert tree.node("10").title == "Governing Law"
    assert tree.node("4").kind == NodeKind.DEFINITIONS
    # the heading's first paragraph is the section's own text (issue 38): its list is "6(a)", "6(b)"
    section = tree.node("6")
    assert (
        document.text[section.start : section.own_end]
        .rstrip()
        .endswith("At Organiser’s first request, Mentor shall:")
    )
    assert [c.id for c in tree.children("6") if c.kind == NodeKind.LIST_ITEM][:2] == ["6(a)", "6(b)"]


def test_merger_agreement_with_flattened_pages(bench_data: Path) -> None:
    """MAUD corpus: whole pages on one line, a table of contents, articles with Section x.0y."""
    path = (
        bench_data / "legalbenchrag" / "corpus" / "maud" / "BioTelemetry, Inc._Koninklijke Philips N.V..txt"
    )
    document, tree = _tree(path)
    top = [c.id for c in tree.children(tree.root_id)]
    assert top[:4] == ["Cover", "Contents", "Preamble", "Recitals"]
    assert [t for t in top if t.startswith("Article")] == [
        f"Article {r}" for r in "I II III IV V VI VII VIII IX".split()
    ]
    assert tree.node("Article VIII").title == "Termination"
    assert tree.node("8.01").parent == "Article VIII"
    assert document.text[tree.node("8.01").start :].startswith("Section 8.01.")
    assert top[-4:] == ["Signatures", "Exhibit A", "Exhibit A~2", "Annex I"]  # cover sheet, then the form
