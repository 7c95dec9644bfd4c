"""Three chunk kinds per tree node, as in PAKTON: node-only, ancestor-aware, descendant-aware.

- node: the node's own text (a leaf's whole text; a parent's label, title and lead-in).
- ancestor: the headings and lead-ins of its ancestors, then the node's own text, so that
  "(b) within thirty (30) days" is indexed together with "12.4 Termination for breach".
  Rule "a lead-in is context only for what it introduces": an ancestor's own text joins the
  context only when it leaves its sentence open for the node to finish ("The Receiving Party
  shall not:", "Either party may terminate this Agreement"). A complete paragraph ("10.5
  Assignment. This Agreement may not be assigned ... .") is a clause of its own, not an
  introduction: repeated before each later paragraph of its section, it made every one of them
  match what that first paragraph says while the span returned is another paragraph's.
- descendant: the node with its whole subtree, split at child boundaries when over budget.

Context text helps matching but is never part of a chunk's span: retrieval returns, and
citations quote, only the original text the chunk stands for.
"""

from __future__ import annotations

import itertools
import re

from clausewise.core.config import ChunkingSettings
from clausewise.core.domain import Chunk, ClauseNode, ClauseTree, NodeKind, ParsedDocument, Span

_WORDS = re.compile(r"\w+")
# a text that ends its sentence: a full stop, question or exclamation mark, perhaps inside
# closing quotes or brackets
_SENTENCE_END = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")
_SKIP_KINDS = {NodeKind.DOCUMENT, NodeKind.TABLE_OF_CONTENTS}


def _trim(text: str, span: Span) -> Span:
    start, end = span
    segment = text[start:end]
    lead = len(segment) - len(segment.lstrip())
    tail = len(segment) - len(segment.rstrip())
    return (start + lead, max(start + lead, end - tail))


def _heading(node: ClauseNode) -> str:
    return " ".join(part for part in (node.label, node.title) if part).strip()


def introduces(lead: str) -> bool:
    """Whether a lead-in leaves its sentence open for what follows it to finish (ends with a
    colon, a dash, a comma or a word, not with a full stop)."""
    return bool(lead) and _SENTENCE_END.search(lead.rstrip()) is None


def _own_body(text: str, node: ClauseNode) -> str:
    """Own text minus its label and title: empty for a bare heading like "12. TERMINATION."."""
    own = text[node.start : node.own_end].strip()
    for part in (node.label, node.title):
        if part and own.startswith(part):
            own = own[len(part) :].lstrip(" .:-–—\n")
        elif part:
            own = own.replace(part, "", 1).strip(" .:-–—\n")
    return own


class ChunkBuilder:
    def __init__(
        self, document: ParsedDocument, tree: ClauseTree, contract_id: str, settings: ChunkingSettings
    ) -> None:
        self.text = document.text
        self.document = document
        self.tree = tree
        self.contract_id = contract_id
        self.settings = settings

    def _chunk(self, node: ClauseNode, kind: str, body: str, span: Span, part: int | None = None) -> Chunk:
        suffix = f"-{part}" if part is not None else ""
        return Chunk(
            id=f"{node.id}#{kind}{suffix}",
            contract_id=self.contract_id,
            node_id=node.id,
            kind=kind,  # type: ignore[arg-type]
            text=body,
            span=span,
            pages=self.document.pages_for(span),
            file_name=self.document.source_name,
        )

    def _context(self, node: ClauseNode) -> str:
        """Ancestors' headings and (short) lead-ins that introduce what follows, outermost first."""
        lines = []
        for ancestor in self.tree.ancestors(node.id):
            if ancestor.kind in {NodeKind.SENTENCE}:
                continue
            heading = _heading(ancestor)
            lead = _own_body(self.text, ancestor)
            if not introduces(lead):
                lead = ""
            if len(lead) > self.settings.lead_in_chars:
                lead = lead[: self.settings.lead_in_chars].rsplit(" ", 1)[0] + " ..."
            line = " ".join(p for p in (heading, lead) if p)
            if line:
                lines.append(line)
        return "\n".join(lines)

    def build(self) -> list[Chunk]:
        chunks: list[Chunk] = []
        minimum = self.settings.min_chunk_chars
        for node in self.tree.walk():
            if node.kind in _SKIP_KINDS:
                continue
            if node.kind == NodeKind.PASSAGE:
                span = _trim(self.text, node.span)
                chunks.append(self._chunk(node, "passage", self.text[span[0] : span[1]], span))
                continue
            leaf = not node.children
            own_span = _trim(self.text, node.span if leaf else node.own_span)
            own_text = self.text[own_span[0] : own_span[1]]
            substantive = len(own_text) >= minimum and (leaf or len(_own_body(self.text, node)) >= minimum)
            if substantive:
                chunks.append(self._chunk(node, "node", own_text, own_span))
                context = self._context(node)
                if context:
                    chunks.append(self._chunk(node, "ancestor", f"{context}\n{own_text}", own_span))
            if not leaf:
                chunks.extend(self._descendant_chunks(node))
        return deduplicate(chunks, self.settings.near_duplicate_jaccard)

    def _descendant_chunks(self, node: ClauseNode) -> list[Chunk]:
        budget = self.settings.descendant_max_chars
        full = _trim(self.text, node.span)
        if full[1] - full[0] <= budget:
            return [self._chunk(node, "descendant", self.text[full[0] : full[1]], full)]
        # Pack the lead-in and consecutive children into pieces of at most ``budget`` characters;
        # a child larger than the budget becomes a piece of its own (its own descendant chunks
        # cover it at finer grain).
        boundaries = [node.start] + [self.tree.node(c).start for c in node.children[1:]] + [node.end]
        units = [_trim(self.text, (a, b)) for a, b in itertools.pairwise(boundaries)]
        pieces: list[Span] = []
        for unit in units:
            if unit[1] <= unit[0]:
                continue
            if pieces and unit[1] - pieces[-1][0] <= budget:
                pieces[-1] = (pieces[-1][0], unit[1])
            else:
                pieces.append(unit)
        heading = _heading(node)
        chunks = []
        for index, piece in enumerate(pieces, start=1):
            body = self.text[piece[0] : piece[1]]
            if piece[0] != full[0] and heading:
                body = f"{heading} (continued)\n{body}"
            chunks.append(self._chunk(node, "descendant", body, piece, part=index))
        return chunks


def _token_set(text: str) -> frozenset[str]:
    return frozenset(w.lower() for w in _WORDS.findall(text))


def deduplicate(chunks: list[Chunk], threshold: float) -> list[Chunk]:
    """Drop exact and near duplicates (word-set Jaccard >= threshold among chunks whose spans
    overlap by >= 80%), keeping the chunk with the tightest span (the earliest on ties)."""
    seen_text: set[str] = set()
    unique: list[Chunk] = []
    for chunk in chunks:
        key = " ".join(chunk.text.lower().split())
        if key in seen_text:
            continue
        seen_text.add(key)
        unique.append(chunk)
    order = sorted(
        range(len(unique)), key=lambda i: (unique[i].span[0], unique[i].span[1] - unique[i].span[0])
    )
    tokens = [_token_set(c.text) for c in unique]
    dropped: set[int] = set()
    active: list[int] = []
    for i in order:
        start, end = unique[i].span
        active = [j for j in active if unique[j].span[1] > start and j not in dropped]
        for j in active:
            a, b = unique[j].span
            overlap = min(b, end) - max(a, start)
            union = max(b, end) - min(a, start)
            if union <= 0 or overlap / union < 0.8:
                continue
            inter = len(tokens[i] & tokens[j])
            jaccard = inter / max(len(tokens[i] | tokens[j]), 1)
            if jaccard >= threshold:
                loser = i if (end - start, i) > (b - a, j) else j
                dropped.add(loser)
                if loser == i:
                    break
        if i not in dropped:
            active.append(i)
    return [c for k, c in enumerate(unique) if k not in dropped]


def build_chunks(
    document: ParsedDocument, tree: ClauseTree, contract_id: str, settings: ChunkingSettings
) -> list[Chunk]:
    return ChunkBuilder(document, tree, contract_id, settings).build()
