"""Clause trees, definitions and cross-references of the example contracts (inspected by hand)."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise.core.config import StructureSettings
from clausewise.core.domain import FileType, NodeKind
from tests.tree_checks import assert_tree_invariants
from tools.parsing.text import document_from_text
from tools.structure.definitions import find_definitions
from tools.structure.tree_builder import build_tree
from tools.structure.xrefs import find_cross_references


@pytest.fixture
def nda(nda_text: str):
    document = document_from_text(nda_text, "mutual-nda.txt")
    return document, build_tree(document, StructureSettings())


@pytest.fixture
def msa(msa_text: str):
    document = document_from_text(msa_text, "services-agreement.txt")
    return document, build_tree(document, StructureSettings())


def _text(document, tree, node_id: str) -> str:
    node = tree.node(node_id)
    return document.text[node.start : node.end]


def test_nda_tree_has_the_legal_paths(nda) -> None:
    document, tree = nda
    assert_tree_invariants(tree, document.text)
    top = [c.id for c in tree.children(tree.root_id)]
    assert top == [
        "Preamble",
        "Recitals",
        "1",
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "Signatures",
        "Schedule 1",
    ]
    assert tree.node("1").kind == NodeKind.DEFINITIONS
    assert tree.node("2").title == "CONFIDENTIALITY OBLIGATIONS"
    assert tree.node("Recitals/A").kind == NodeKind.RECITAL
    assert _text(document, tree, "2.1(b)").startswith("(b) not disclose the Confidential Information")
    assert _text(document, tree, "3.1(d)").startswith("(d) is independently developed")
    assert tree.node("9.1").title == "Governing law"
    assert tree.node("Schedule 1").kind == NodeKind.SCHEDULE
    assert tree.node("Schedule 1").title == "NOTICE DETAILS"


def test_definition_list_items_nest_under_their_definition(nda) -> None:
    _, tree = nda
    definition = tree.node("1.1/Confidential Information")
    assert definition.kind == NodeKind.DEFINITION
    items = [c.id for c in tree.children(definition.id) if c.kind == NodeKind.LIST_ITEM]
    assert items == [f"1.1/Confidential Information({x})" for x in "abc"]
    # the definition after the list is a sibling again, not a child of the list
    assert tree.node("1.1/Disclosing Party").parent == "1.1"


def test_multi_sentence_paragraphs_get_sentence_leaves(nda) -> None:
    document, tree = nda
    sentences = [c for c in tree.children("7.1") if c.kind == NodeKind.SENTENCE]
    assert len(sentences) == 2
    assert document.text[sentences[1].start : sentences[1].end].startswith(
        "The Disclosing Party is therefore"
    )


def test_msa_articles_nested_lists_and_schedules(msa) -> None:
    document, tree = msa
    assert_tree_invariants(tree, document.text)
    assert tree.node("Article IV").kind == NodeKind.ARTICLE
    assert tree.node("Article IV").title == "TERM AND TERMINATION"
    assert tree.node("4.3").parent == "Article IV"
    assert [c.id for c in tree.children("4.3(b)") if c.kind == NodeKind.LIST_ITEM] == [
        "4.3(b)(i)",
        "4.3(b)(ii)",
        "4.3(b)(iii)",
    ]
    assert _text(document, tree, "4.3(b)(ii)").startswith("(ii) has a receiver")
    assert [c.id for c in tree.children(tree.root_id)][-3:] == ["Schedule A", "Schedule B", "Schedule C"]
    assert tree.node("Schedule C/3").parent == "Schedule C"
    assert tree.node("Recitals").title == "BACKGROUND"
    assert tree.node("Signatures").kind == NodeKind.SIGNATURES


def test_definitions_index_and_usages(nda) -> None:
    document, tree = nda
    definitions = {d.term: d for d in find_definitions(document.text, tree)}
    assert list(definitions) == [
        "Agreement",
        "Effective Date",
        "Northwind",
        "Brightwater",
        "Party",
        "Parties",
        "Affiliate",
        "Confidential Information",
        "Disclosing Party",
        "Purpose",
        "Receiving Party",
        "Representatives",
    ]
    confidential = definitions["Confidential Information"]
    assert confidential.node_id == "1.1/Confidential Information"
    assert document.text[confidential.term_span[0] : confidential.term_span[1]] == "Confidential Information"
    assert any(u.startswith("2.1(a)") for u in confidential.usages)
    assert confidential.usage_count >= 10
    assert definitions["Effective Date"].node_id.startswith("Preamble")


def test_cross_references_resolve_to_nodes(msa) -> None:
    document, tree = msa
    references = find_cross_references(document.text, tree)
    resolved = {(r.source_node.split("/")[0], r.text): r.target for r in references}
    assert resolved[("3.4", "Section 11.2")] == "11.2"
    assert resolved[("9.3(c)", "Article VIII")] == "Article VIII"
    assert resolved[("9.3(d)", "Article X")] == "Article X"
    assert any(
        r.text == "Section 4.2" and r.target == "4.2"
        for r in references
        if r.source_node.startswith("Schedule C")
    )
    assert any(r.text == "Schedule B" and r.target == "Schedule B" for r in references)
    # "Articles V, VI, VIII and IX" is four references
    survival = [r for r in references if r.source_node.startswith("4.5(c)")]
    assert [r.target for r in survival] == ["Article V", "Article VI", "Article VIII", "Article IX"]


def test_unresolved_references_are_kept(msa_text: str) -> None:
    text = msa_text.replace(
        "The Parties shall resolve the dispute under Section 11.2.",
        "The Parties shall resolve the dispute under Section 14.9.",
    )
    document = document_from_text(text, "msa.txt")
    tree = build_tree(document, StructureSettings())
    references = find_cross_references(document.text, tree)
    missing = [r for r in references if r.text == "Section 14.9"]
    assert missing and missing[0].target is None


def test_flat_text_falls_back_to_sentence_splitter_passages() -> None:
    wall = " ".join(
        f"The supplier shall deliver batch {i} of the goods on time and in full." for i in range(120)
    )
    document = document_from_text(wall, "wall.txt", FileType.TEXT)
    tree = build_tree(document, StructureSettings(fallback_chunk_chars=600))
    assert tree.structure == "fallback"
    passages = tree.children(tree.root_id)
    assert len(passages) >= 10 and all(p.kind == NodeKind.PASSAGE for p in passages)
    assert all(p.end - p.start <= 650 for p in passages)
    assert_tree_invariants(tree, document.text)


def test_markdown_headings_become_headings(tmp_path: Path) -> None:
    text = (
        "# Supply Agreement\n\nThe parties agree.\n\n## Delivery\n\nGoods ship in 10 days.\n\n"
        "## Payment\n\nNet 30.\n"
    )
    document = document_from_text(text, "supply.md", FileType.MARKDOWN)
    tree = build_tree(document, StructureSettings())
    headings = [n.title for n in tree.walk() if n.kind == NodeKind.HEADING]
    assert headings == ["Delivery", "Payment"]
    assert_tree_invariants(tree, text)
