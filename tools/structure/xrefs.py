"""Cross-references ("Section 4.2(a)", "Sections 3.1 and 3.4", "Schedule B", "clause (ii)")
resolved to node ids. Unresolved references are kept with ``target=None``: they are either
mistakes in the contract or references to other instruments ("Section 16(b) of the Exchange Act")."""

from __future__ import annotations

import re

from clausewise.core.domain import ClauseNode, ClauseTree, CrossReference
from tools.structure.labels import roman_to_int

_KEYWORD = (
    r"(?P<kw>Sections?|SECTIONS?|Clauses?|CLAUSES?|Articles?|ARTICLES?|Paragraphs?|paragraphs?|"
    r"[Ss]ubsections?|[Ss]ubparagraphs?|[Ss]ubclauses?|clauses?|Schedules?|SCHEDULES?|Exhibits?|EXHIBITS?|"
    r"Annex(?:es)?|ANNEX(?:ES)?|Appendix|Appendices|APPENDIX|Attachments?|ATTACHMENTS?|§§?)"
)
_ID = (
    r"(?:\d+(?:\.\d+)*[a-z]?(?:\([a-zA-Z0-9]{1,4}\))*|(?:\([a-zA-Z0-9]{1,4}\))+|[IVXLC]+\b|[A-Z](?:-\d+)?\b)"
)
_REFERENCE = re.compile(
    _KEYWORD
    + r"\s*(?P<ids>"
    + _ID
    + r"(?:\s*(?:,|and/or|and|or|through|to|-|–)\s*(?:"
    + _KEYWORD[:0]
    + r"(?:Sections?\s+)?)?"
    + _ID
    + r")*)"
)
_SINGLE_ID = re.compile(_ID)
_EXTERNAL = re.compile(r"^\s*(?:of|under)\s+(?:the\s+)?(?!this\b|such\b|that\b)[A-Z][\w.]*", re.UNICODE)
_SCHEDULE_WORDS = {"schedule", "exhibit", "annex", "appendix", "attachment"}


def _keyword_class(keyword: str) -> str:
    word = keyword.lower().rstrip("s")
    if word.startswith("§"):
        return "section"
    if word in {"annexe", "annex"}:
        return "annex"
    if word in {"appendice", "appendix"}:
        return "appendix"
    if word.startswith("sub"):
        return "section"
    return word


class _Resolver:
    def __init__(self, tree: ClauseTree) -> None:
        self.tree = tree
        self.by_id = tree.nodes
        self.aliases: dict[tuple[str, str], str] = {}
        for node in tree.walk():
            self._register(node)

    def _register(self, node: ClauseNode) -> None:
        label = node.label.strip().rstrip(".:")
        if not label:
            return
        word, _, ident = label.partition(" ")
        kind = word.lower()
        if kind in _SCHEDULE_WORDS:
            self.aliases.setdefault((kind, ident.strip().upper()), node.id)
        elif kind in {"article", "part"}:
            ident = ident.strip().upper()
            self.aliases.setdefault(("article", ident), node.id)
            value = ident if ident.isdigit() else roman_to_int(ident)
            if value:
                self.aliases.setdefault(("article", str(value)), node.id)

    def resolve(self, keyword: str, ident: str, source: ClauseNode) -> str | None:
        kind = _keyword_class(keyword)
        if kind in _SCHEDULE_WORDS:
            return self.aliases.get((kind, ident.upper()))
        if kind == "article":
            value = ident if ident.isdigit() else str(roman_to_int(ident) or ident)
            return self.aliases.get(("article", ident.upper())) or self.aliases.get(("article", value))
        if ident.startswith("("):
            return self._relative(ident, source)
        prefix = self._region_prefix(source)
        for candidate in (f"{prefix}{ident}", ident):
            if candidate in self.by_id:
                return candidate
        if ident.isdigit():  # "Section 5" in a contract numbered by articles
            return self.aliases.get(("article", ident))
        return None

    def _region_prefix(self, source: ClauseNode) -> str:
        return (
            source.id.split("/", 1)[0] + "/"
            if "/" in source.id
            and source.id.startswith(("Schedule", "Exhibit", "Annex", "Appendix", "Attachment"))
            else ""
        )

    def _relative(self, ident: str, source: ClauseNode) -> str | None:
        """ "clause (ii)" / "paragraph (c)": the nearest node with that label around the source."""
        node: ClauseNode | None = source
        while node is not None:
            for child_id in node.children:
                child = self.by_id[child_id]
                if child.label.strip().rstrip(".") == ident:
                    return child.id
            node = self.by_id[node.parent] if node.parent else None
        return None


def find_cross_references(text: str, tree: ClauseTree) -> list[CrossReference]:
    resolver = _Resolver(tree)
    references: list[CrossReference] = []
    for m in _REFERENCE.finditer(text):
        keyword = m.group("kw")
        source = tree.node_at(m.start())
        if source.start == m.start() and source.label and text.startswith(source.label, m.start()):
            continue  # the heading "Section 4.2" of the node itself, not a reference
        external = bool(_EXTERNAL.match(text[m.end() : m.end() + 60]))
        ids_start = m.start("ids")
        for index, id_match in enumerate(_SINGLE_ID.finditer(m.group("ids"))):
            ident = id_match.group(0)
            start = m.start() if index == 0 else ids_start + id_match.start()
            end = ids_start + id_match.end()
            word = _keyword_class(keyword).capitalize()
            target = None if external else resolver.resolve(keyword, ident, source)
            references.append(
                CrossReference(
                    text=f"{word} {ident}", span=(start, end), source_node=source.id, target=target
                )
            )
    return references
