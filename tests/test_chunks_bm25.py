"""Chunk kinds, spans and de-duplication; BM25 scores identical to rank-bm25."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

from clausewise.core.config import ChunkingSettings, StructureSettings
from clausewise.core.domain import Chunk
from indexes.bm25 import BM25Index, bm25_tokens
from tools.chunking import build_chunks, deduplicate
from tools.parsing.text import document_from_text
from tools.structure.tree_builder import build_tree


def _chunks(text: str, settings: ChunkingSettings | None = None):
    document = document_from_text(text, "msa.txt")
    tree = build_tree(document, StructureSettings())
    return document, tree, build_chunks(document, tree, "msa", settings or ChunkingSettings())


def test_three_kinds_with_original_spans(msa_text: str) -> None:
    document, tree, chunks = _chunks(msa_text)
    by_id = {c.id: c for c in chunks}
    leaf = by_id["4.3(b)(ii)#node"]
    assert leaf.text == document.text[leaf.span[0] : leaf.span[1]]
    ancestor = by_id["4.3(b)(ii)#ancestor"]
    assert ancestor.span == leaf.span  # context is indexed, never part of the span
    assert "ARTICLE IV TERM AND TERMINATION" in ancestor.text and "Termination for cause" in ancestor.text
    assert ancestor.text.endswith(leaf.text)
    descendant = by_id["4.3#descendant"]
    node = tree.node("4.3")
    assert descendant.span == (node.start, node.end)
    assert all(c.pages == [1] and c.contract_id == "msa" and c.file_name == "msa.txt" for c in chunks)
    # every node and descendant span quotes the document verbatim
    for chunk in chunks:
        if chunk.kind in {"node", "descendant"} and "(continued)" not in chunk.text:
            assert chunk.text == document.text[chunk.span[0] : chunk.span[1]], chunk.id


def test_long_nodes_split_at_child_boundaries(msa_text: str) -> None:
    _, tree, chunks = _chunks(msa_text, ChunkingSettings(descendant_max_chars=600))
    article = tree.node("Article IV")
    parts = [c for c in chunks if c.node_id == "Article IV" and c.kind == "descendant"]
    assert len(parts) > 2
    children_starts = {tree.node(c).start for c in article.children} | {article.start}
    for part in parts:
        assert part.span[0] in children_starts
        assert part.span[1] - part.span[0] <= 600 or part.span[0] in children_starts
    assert parts[1].text.startswith("ARTICLE IV TERM AND TERMINATION (continued)")
    covered = sorted(p.span for p in parts)
    assert covered[0][0] == article.start and covered[-1][1] == article.end


def test_duplicates_are_dropped_keeping_the_tightest_span() -> None:
    def chunk(cid: str, text: str, span: tuple[int, int]) -> Chunk:
        return Chunk(
            id=cid, contract_id="c", node_id=cid, kind="node", text=text, span=span, pages=[1], file_name="f"
        )

    body = "the supplier shall deliver the goods to the premises within ten business days of the order"
    kept = deduplicate(
        [
            chunk("a", body, (0, 100)),
            chunk("b", body.upper(), (0, 100)),  # exact duplicate after normalisation
            chunk("c", body + " date", (0, 104)),  # near duplicate, wider span
            chunk("d", "payment is due within thirty days of invoice", (200, 250)),
        ],
        threshold=0.9,
    )
    assert [c.id for c in kept] == ["a", "d"]


def test_bm25_matches_rank_bm25_and_survives_save_load(tmp_path: Path, msa_text: str) -> None:
    _, _, chunks = _chunks(msa_text)
    index = BM25Index.build([c.id for c in chunks], [c.text for c in chunks], k1=1.5, b=0.75)
    reference = BM25Okapi([bm25_tokens(c.text) for c in chunks], k1=1.5, b=0.75)
    for query in (
        "termination for convenience",
        "which law governs",
        "security incident notification 48 hours",
    ):
        assert np.allclose(index.scores(query), reference.get_scores(bm25_tokens(query)), atol=1e-4)
    index.save(tmp_path / "bm25.json")
    loaded = BM25Index.load(tmp_path / "bm25.json")
    assert loaded.search("termination for convenience", 3) == index.search("termination for convenience", 3)
    assert loaded.search("termination for convenience", 1)[0][0].startswith("4.2")


def test_bm25_tokens_stem_and_drop_stopwords() -> None:
    tokens = bm25_tokens("The Party's terminations under Section 4.2(a)")
    assert tokens == ["parti", "termin", "under", "section", "4.2"]


def test_a_lead_in_is_context_only_for_what_it_introduces(msa_text: str) -> None:
    """Rule "a lead-in is context only for what it introduces": an open lead-in ("... if the other
    Party:") is indexed with its items; a section's complete first paragraph is not indexed with
    the paragraphs after it (iCoreConnect's "3. TERM" and BioPure's "5.2. Assignment", CUAD
    development contracts), so those do not match what the first paragraph says."""
    _, _, chunks = _chunks(msa_text)
    item = {c.id: c for c in chunks}["4.3(b)(ii)#ancestor"]
    assert "if the other Party:" in item.text and "becomes insolvent, including where it:" in item.text
    icore = (
        "STRATEGIC ALLIANCE AGREEMENT\n\nThe parties agree as follows:\n\n   3. TERM   This Agreement shall "
        "commence on the Effective Date and shall remain in effect for a period of 5 years.\n\nIn such an "
        "instance, all compensation will continue for an extended period of five years.\n\n   4. "
        "COMPENSATION   USA MCO will receive a revenue share.\n"
    )
    biopure = (
        "AGENCY AGREEMENT\n\nThe parties agree as follows:\n\n   5.2. Assignment. This Agreement will be "
        "binding upon the parties and their permitted assigns.\n\nNeither party will assign any of its "
        "rights without the prior written consent of the other party.\n\n   5.3. Waiver. No waiver is "
        "effective unless in writing.\n"
    )
    for text, later, first in (
        (icore, "In such an instance", "shall remain in effect"),
        (biopure, "Neither party will assign", "binding upon the parties"),
    ):
        _, tree, chunks = _chunks(text)
        context = [c for c in chunks if c.kind == "ancestor" and later in c.text]
        # with the first paragraph as its context, the later one's chunk repeats its section's
        # whole text and is dropped as a duplicate of the section's chunk
        assert context, "the later paragraph is indexed with its section's heading"
        assert all(first not in c.text for c in context)
        heading = tree.node(context[0].node_id.split("/")[0])
        assert all(heading.title.split()[0].lower() in c.text.lower() for c in context)
