"""Flat passages for documents with too little structure to build a clause tree from.

Uses llama-index's SentenceSplitter (sentence-aware, fixed size) with a character "tokenizer",
so passage sizes are in characters and no tokenizer file is needed; each passage keeps the exact
character span llama-index reports, which we check against the text.
"""

from __future__ import annotations

from clausewise.core.config import StructureSettings
from clausewise.core.domain import ClauseNode, ClauseTree, NodeKind, ParsedDocument


def _characters(text: str) -> list[str]:
    return list(text)


def passage_spans(text: str, chunk_chars: int) -> list[tuple[int, int]]:
    """Spans of SentenceSplitter passages of about ``chunk_chars`` characters, no overlap."""
    from llama_index.core import Document
    from llama_index.core.node_parser import SentenceSplitter

    splitter = SentenceSplitter(chunk_size=chunk_chars, chunk_overlap=0, tokenizer=_characters)
    spans: list[tuple[int, int]] = []
    for node in splitter.get_nodes_from_documents([Document(text=text)]):
        start, end = node.start_char_idx, node.end_char_idx
        if start is None or end is None or text[start:end] != node.get_content():
            located = text.find(node.get_content(), spans[-1][1] if spans else 0)
            if located < 0:
                continue
            start, end = located, located + len(node.get_content())
        spans.append((start, end))
    return spans


def fallback_tree(document: ParsedDocument, settings: StructureSettings) -> ClauseTree:
    text = document.text
    spans = passage_spans(text, settings.fallback_chunk_chars)
    ids = [f"p{i + 1}" for i in range(len(spans))]
    nodes = {
        "document": ClauseNode(
            id="document",
            kind=NodeKind.DOCUMENT,
            title=document.source_name,
            start=0,
            end=len(text),
            own_end=0 if spans else len(text),
            pages=document.pages_for((0, max(len(text), 1))),
            children=ids,
        ),
    }
    for node_id, (start, end) in zip(ids, spans, strict=True):
        nodes[node_id] = ClauseNode(
            id=node_id,
            kind=NodeKind.PASSAGE,
            start=start,
            end=end,
            own_end=end,
            pages=document.pages_for((start, end)),
            parent="document",
            depth=1,
        )
    return ClauseTree(root_id="document", nodes=nodes, structure="fallback")
