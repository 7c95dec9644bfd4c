"""Structural invariants every clause tree must satisfy, shared by the tree tests."""

from __future__ import annotations

from clausewise.core.domain import ClauseTree


def assert_tree_invariants(tree: ClauseTree, text: str) -> None:
    root = tree.root
    assert (root.start, root.end) == (0, len(text))
    covered = bytearray(len(text))
    for node in tree.walk():
        assert 0 <= node.start <= node.own_end <= node.end <= len(text), node.id
        children = tree.children(node.id)
        previous_end = node.own_end if node.id != tree.root_id else 0
        for child in children:
            assert child.parent == node.id
            assert child.depth == node.depth + 1
            assert node.start <= child.start and child.end <= node.end, (node.id, child.id)
            assert child.start >= previous_end, f"{child.id} overlaps its previous sibling in {node.id}"
            previous_end = child.end
        if node.id != tree.root_id:
            for i in range(node.start, node.end):
                covered[i] = 1
            assert node.pages, node.id
    uncovered = [i for i, ch in enumerate(text) if not ch.isspace() and not covered[i]]
    assert not uncovered, f"text not under any node: {text[uncovered[0] : uncovered[0] + 60]!r}"
    assert len(set(tree.nodes)) == len(tree.nodes)
