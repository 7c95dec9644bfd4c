"""Defined terms: where each is defined and every node that uses it.

Two definition forms cover nearly all contracts: '"Term" means ...' (definition sections) and a
parenthetical '(the "Term")' / '(each a "Party" and together the "Parties")' introducing a term
in running text.
"""

from __future__ import annotations

import re

from clausewise.core.domain import ClauseNode, ClauseTree, Definition, NodeKind

_QUOTE_OPEN = "\"“‘'"
_QUOTE_CLOSE = "\"”’'"
_TERM = rf"[{_QUOTE_OPEN}]([A-Z0-9][^{_QUOTE_OPEN}{_QUOTE_CLOSE}\n]{{0,78}}?)[{_QUOTE_CLOSE}]"
_MEANS = re.compile(
    _TERM + r"\s*(?:\([^)\n]{0,80}\)\s*)?,?\s*(?:shall\s+|will\s+)?(?:means?\b|mean:|has the meanings?\b|"
    r"shall have the meanings?\b|have the meanings?\b|refers? to\b|is defined\b|shall include\b|includes?\b)",
)
_PARENTHETICAL = re.compile(r"\(([^()\n]{0,200})\)")
# Running-text introductions: 'are each a "Party" and together the "Parties"', 'referred to as "X"'.
_INTRODUCED = re.compile(
    r"\b(?:referred to(?: herein)? as|hereinafter(?: called| referred to as)?|each(?:,)? an?|together,? the|"
    r"collectively,? the|individually,? an?|known as|called)\s*,?\s*" + _TERM
)
_TERM_IN_PAREN = re.compile(_TERM)
_INTRO_WORDS = re.compile(
    r"^(?:the|this|each|each,|a|an|hereinafter|hereinafter referred to as|referred to as|together|"
    r"collectively|individually|jointly|and|or|as|each of|both|any|all|herein|the said|together with|such|"
    r"being)\b",
    re.IGNORECASE,
)


def _plausible(term: str) -> bool:
    words = term.split()
    return 0 < len(words) <= 8 and not term.endswith((".", ",", ";")) and any(ch.isalpha() for ch in term)


def find_definitions(text: str, tree: ClauseTree) -> list[Definition]:
    """Defined terms in order of definition; the first definition of a term wins."""
    found: dict[str, tuple[tuple[int, int], str]] = {}
    for m in _MEANS.finditer(text):
        term = m.group(1).strip()
        if _plausible(term) and term not in found:
            found[term] = ((m.start(1), m.end(1)), "means")
    for paren in _PARENTHETICAL.finditer(text):
        inner = paren.group(1)
        terms = list(_TERM_IN_PAREN.finditer(inner))
        if not terms:
            continue
        lead = inner[: terms[0].start()].strip(" ,;")
        if lead and not _INTRO_WORDS.match(lead):
            continue  # '(as defined in "X")' or a quoted phrase, not a definition
        for t in terms:
            term = t.group(1).strip()
            if _plausible(term) and term not in found:
                start = paren.start(1) + t.start(1)
                found[term] = ((start, start + len(t.group(1))), "parenthetical")
    for m in _INTRODUCED.finditer(text):
        term = m.group(1).strip()
        if _plausible(term) and term not in found:
            found[term] = ((m.start(1), m.end(1)), "parenthetical")
    definitions = []
    for term, (span, form) in sorted(found.items(), key=lambda item: item[1][0][0]):
        node = _defining_node(tree, span, form)
        definitions.append(Definition(term=term, node_id=node.id, term_span=span, definition_span=node.span))
    _attach_usages(text, tree, definitions)
    return definitions


def _defining_node(tree: ClauseTree, span: tuple[int, int], form: str) -> ClauseNode:
    node = tree.smallest_containing(span)
    if form == "means":
        climb = node
        for _ in range(2):
            if climb.kind == NodeKind.DEFINITION:
                return climb
            if climb.parent is None:
                break
            climb = tree.node(climb.parent)
        if node.kind == NodeKind.SENTENCE and node.parent is not None:
            return tree.node(node.parent)
    return node


def _attach_usages(text: str, tree: ClauseTree, definitions: list[Definition]) -> None:
    if not definitions:
        return
    by_term = {d.term: d for d in definitions}
    alternation = "|".join(re.escape(t) for t in sorted(by_term, key=len, reverse=True))
    pattern = re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])")
    for m in pattern.finditer(text):
        definition = by_term[m.group(0)]
        if definition.term_span[0] <= m.start() < definition.term_span[1]:
            continue
        node_id = tree.node_at(m.start()).id
        definition.usage_count += 1
        if node_id not in definition.usages:
            definition.usages.append(node_id)
