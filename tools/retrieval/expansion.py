"""Expansion along the clause tree: a hit that uses a defined term, or refers to another clause,
carries that definition or clause along as linked evidence (not as a ranked hit of its own)."""

from __future__ import annotations

from clausewise.core.domain import ClauseTree, CrossReference, Definition, Hit, LinkedEvidence


class TreeExpander:
    def __init__(
        self,
        tree: ClauseTree,
        definitions: list[Definition],
        references: list[CrossReference],
        max_links: int = 4,
    ) -> None:
        self.tree = tree
        self.max_links = max_links
        self._terms_by_node: dict[str, list[Definition]] = {}
        for definition in definitions:
            for node_id in definition.usages:
                self._terms_by_node.setdefault(node_id, []).append(definition)
        self._references_by_node: dict[str, list[CrossReference]] = {}
        for reference in references:
            if reference.target is not None:
                self._references_by_node.setdefault(reference.source_node, []).append(reference)

    def _inside(self, hit: Hit) -> list[str]:
        """The hit's node and every node below it."""
        return [n.id for n in self.tree.walk(hit.node_id)]

    def expand(self, hit: Hit, definitions: bool = True, references: bool = True) -> Hit:
        links: list[LinkedEvidence] = []
        seen: set[str] = set()
        for node_id in self._inside(hit):
            if definitions:
                for definition in self._terms_by_node.get(node_id, []):
                    start, end = definition.definition_span
                    if definition.node_id in seen or (hit.span[0] <= start and end <= hit.span[1]):
                        continue
                    seen.add(definition.node_id)
                    links.append(
                        LinkedEvidence(
                            relation="definition",
                            label=definition.term,
                            node_id=definition.node_id,
                            span=definition.definition_span,
                        )
                    )
            if references:
                for reference in self._references_by_node.get(node_id, []):
                    target = self.tree.node(reference.target) if reference.target else None
                    if (
                        target is None
                        or target.id in seen
                        or (hit.span[0] <= target.start and target.end <= hit.span[1])
                    ):
                        continue
                    seen.add(target.id)
                    links.append(
                        LinkedEvidence(
                            relation="reference", label=reference.text, node_id=target.id, span=target.span
                        )
                    )
        return hit.model_copy(update={"linked": links[: self.max_links]})
