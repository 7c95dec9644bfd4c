"""Domain types shared by the agents, tools and indexes.

Every position is a character offset into :attr:`ParsedDocument.text` (the normalized document
text), and every span is half-open ``[start, end)``. These offsets are what citations point at,
so nothing downstream may re-normalize the text.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Span = tuple[int, int]


class FileType(StrEnum):
    PDF = "pdf"
    IMAGE = "image"
    DOCX = "docx"
    TEXT = "text"
    MARKDOWN = "markdown"
    HTML = "html"


class PageInfo(BaseModel):
    """One page of the source and the text range it produced."""

    number: int = Field(description="1-based page number.")
    start: int
    end: int
    width: float = 0.0
    height: float = 0.0
    source: Literal["text", "ocr", "empty"] = "text"
    ocr_confidence: float | None = Field(default=None, description="Mean word confidence, 0-100.")


class Block(BaseModel):
    """A layout unit (a paragraph or a line that starts one) with the cues the tree builder uses."""

    model_config = ConfigDict(frozen=True)

    start: int
    end: int
    page: int = 1
    x0: float = Field(default=0.0, description="Left edge (PDF points) or indentation (columns).")
    bold: bool = False
    font_size: float = 0.0
    gap_before: float = Field(default=0.0, description="Blank lines / vertical gap before it.")


class WordBoxes(BaseModel):
    """Word positions on the page, column-wise to stay compact (kept for highlighting)."""

    start: list[int] = Field(default_factory=list)
    end: list[int] = Field(default_factory=list)
    page: list[int] = Field(default_factory=list)
    x0: list[float] = Field(default_factory=list)
    y0: list[float] = Field(default_factory=list)
    x1: list[float] = Field(default_factory=list)
    y1: list[float] = Field(default_factory=list)

    def __len__(self) -> int:
        return len(self.start)

    def add(self, start: int, end: int, page: int, box: tuple[float, float, float, float]) -> None:
        self.start.append(start)
        self.end.append(end)
        self.page.append(page)
        self.x0.append(round(box[0], 2))
        self.y0.append(round(box[1], 2))
        self.x1.append(round(box[2], 2))
        self.y1.append(round(box[3], 2))

    def boxes_for(self, span: Span) -> list[tuple[int, tuple[float, float, float, float]]]:
        """(page, box) of every word overlapping ``span``, for highlighting a citation."""
        lo = bisect.bisect_right(self.end, span[0])
        hits = []
        for i in range(lo, len(self.start)):
            if self.start[i] >= span[1]:
                break
            hits.append((self.page[i], (self.x0[i], self.y0[i], self.x1[i], self.y1[i])))
        return hits


TextVersion = Literal["proposed", "before"]


class TrackedChange(BaseModel):
    """One tracked change of a Word file (an insertion, a deletion, a move or a change of
    formatting), with its place in each of the file's two texts. In the text where the change's
    words are, its span holds them; in the other, its span is empty, at the point where they
    would be (a formatting change holds its words in both)."""

    model_config = ConfigDict(frozen=True)

    id: int = Field(description="1, 2, ... in the order of the file.")
    kind: Literal["insert", "delete", "move", "formatting"]
    author: str = Field(description="The author Word recorded (empty when it recorded none).")
    date: str | None = Field(default=None, description="When Word recorded it (ISO 8601), if it did.")
    part: str = Field(
        default="body",
        description="Where in the file: body, or header, footer, footnotes, endnotes (not read as the "
        "contract's text: no spans).",
    )
    text: str = Field(description="The words inserted, deleted, moved or reformatted.")
    before: Span | None = Field(default=None, description="Its span in the text as before.")
    proposed: Span | None = Field(default=None, description="Its span in the text as proposed.")
    departure: Span | None = Field(
        default=None, description="A move's old place in the text as proposed (an empty span)."
    )


class WordComment(BaseModel):
    """A Word comment with its author and the words it is anchored on in each text."""

    model_config = ConfigDict(frozen=True)

    id: str
    author: str
    date: str | None = None
    text: str
    before: Span | None = None
    proposed: Span | None = None


class TrackedText(BaseModel):
    """What a Word file with tracked changes holds besides the text read: which of its two texts
    that is, the other one, every change and every comment."""

    read_as: TextVersion = Field(
        description="proposed: their insertions in, deletions out; before: the reverse."
    )
    other_text: str = Field(description="The file's other text (before when read as proposed).")
    other_blocks: list[Block] = Field(default_factory=list, description="The other text's layout blocks.")
    changes: list[TrackedChange] = Field(default_factory=list)
    comments: list[WordComment] = Field(default_factory=list)

    def text_of(self, version: TextVersion, read: str) -> str:
        """The file's text as ``version``, given the text that was read (``read``)."""
        return read if version == self.read_as else self.other_text

    def authors(self) -> dict[str, int]:
        """How many changes each author made, most first."""
        counts: dict[str, int] = {}
        for change in self.changes:
            counts[change.author or "unknown author"] = counts.get(change.author or "unknown author", 0) + 1
        return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


class ParsedDocument(BaseModel):
    """The normalized text of a contract file with its page map and layout."""

    source_name: str
    file_type: FileType
    text: str
    pages: list[PageInfo]
    blocks: list[Block]
    words: WordBoxes | None = None
    warnings: list[str] = Field(default_factory=list)
    tracked: TrackedText | None = Field(
        default=None, description="A Word file's tracked changes and comments, when it has any."
    )

    @classmethod
    def unpaged(
        cls, source_name: str, file_type: FileType, text: str, blocks: list[Block], **fields: object
    ) -> ParsedDocument:
        """A document of a format without pages (text, HTML, Word): one page holds all its text."""
        page = PageInfo(number=1, start=0, end=len(text))
        return cls(
            source_name=source_name, file_type=file_type, text=text, pages=[page], blocks=blocks, **fields
        )

    def as_version(self, version: TextVersion) -> ParsedDocument:
        """The document as its text ``version`` (a Word file with tracked changes holds two; any
        other document is the same in both)."""
        if self.tracked is None or version == self.tracked.read_as:
            return self
        other = self.tracked
        swapped = other.model_copy(
            update={"read_as": version, "other_text": self.text, "other_blocks": self.blocks}
        )
        return self.model_copy(
            update={
                "text": other.other_text,
                "blocks": other.other_blocks,
                "pages": [PageInfo(number=1, start=0, end=len(other.other_text))],
                "tracked": swapped,
                "words": None,
            }
        )

    def page_of(self, offset: int) -> int:
        """1-based page holding character ``offset``."""
        starts = [p.start for p in self.pages]
        index = max(bisect.bisect_right(starts, offset) - 1, 0)
        return self.pages[index].number

    def pages_for(self, span: Span) -> list[int]:
        """Every page a span touches."""
        first = self.page_of(span[0])
        last = self.page_of(max(span[0], span[1] - 1))
        return list(range(first, last + 1))

    @property
    def ocr_pages(self) -> list[int]:
        return [p.number for p in self.pages if p.source == "ocr"]


class NodeKind(StrEnum):
    DOCUMENT = "document"
    TITLE = "title"
    PREAMBLE = "preamble"
    RECITALS = "recitals"
    RECITAL = "recital"
    TABLE_OF_CONTENTS = "toc"
    ARTICLE = "article"
    SECTION = "section"
    CLAUSE = "clause"
    LIST_ITEM = "list_item"
    HEADING = "heading"
    PARAGRAPH = "paragraph"
    SENTENCE = "sentence"
    DEFINITIONS = "definitions"
    DEFINITION = "definition"
    SIGNATURES = "signature_block"
    SCHEDULE = "schedule"
    PASSAGE = "passage"


class ClauseNode(BaseModel):
    """A node of the clause tree.

    ``id`` is the node's legal path ("12.4(a)", "Schedule B/3"); ``start``/``end`` cover the node
    and its whole subtree; ``own_end`` ends the node's own text (label, title and lead-in), which
    is where its first child starts, or ``end`` for a leaf.
    """

    id: str
    kind: NodeKind
    label: str = Field(default="", description="Numbering as printed, e.g. '12.4' or '(a)'.")
    title: str = ""
    start: int
    end: int
    own_end: int
    pages: list[int] = Field(default_factory=list)
    parent: str | None = None
    children: list[str] = Field(default_factory=list)
    depth: int = 0

    @property
    def span(self) -> Span:
        return (self.start, self.end)

    @property
    def own_span(self) -> Span:
        return (self.start, self.own_end)

    @property
    def heading(self) -> str:
        """Label and title as a reader names the clause ("12.4 Termination"); "" for neither."""
        return " ".join(p for p in (self.label, self.title) if p)


class ClauseTree(BaseModel):
    """The hierarchical structure of one contract, nodes in document (pre-)order."""

    root_id: str = "document"
    nodes: dict[str, ClauseNode]
    structure: Literal["tree", "fallback"] = "tree"

    def node(self, node_id: str) -> ClauseNode:
        return self.nodes[node_id]

    @property
    def root(self) -> ClauseNode:
        return self.nodes[self.root_id]

    def children(self, node_id: str) -> list[ClauseNode]:
        return [self.nodes[c] for c in self.nodes[node_id].children]

    def ancestors(self, node_id: str) -> list[ClauseNode]:
        """From the root's child down to the node's parent (the root itself excluded)."""
        chain: list[ClauseNode] = []
        parent = self.nodes[node_id].parent
        while parent is not None and parent != self.root_id:
            chain.append(self.nodes[parent])
            parent = self.nodes[parent].parent
        return list(reversed(chain))

    def walk(self, node_id: str | None = None) -> Iterator[ClauseNode]:
        """Pre-order traversal from ``node_id`` (default: root)."""
        stack = [node_id or self.root_id]
        while stack:
            node = self.nodes[stack.pop()]
            yield node
            stack.extend(reversed(node.children))

    def clause_of(self, node: ClauseNode) -> ClauseNode:
        """``node``, or its nearest ancestor that is not a sentence: what a citation of a sentence
        is attached to (its clause, with the clause's id and title)."""
        while node.kind == "sentence" and node.parent is not None:
            node = self.nodes[node.parent]
        return node

    def node_at(self, offset: int) -> ClauseNode:
        """The deepest node containing character ``offset`` (children are in text order)."""
        node = self.root
        while node.children:
            kids = node.children
            starts = [self.nodes[c].start for c in kids]
            index = bisect.bisect_right(starts, offset) - 1
            if index < 0 or offset >= self.nodes[kids[index]].end:
                return node
            node = self.nodes[kids[index]]
        return node

    def smallest_containing(self, span: Span) -> ClauseNode:
        """The deepest node whose span contains ``span`` (the root if none smaller does)."""
        node = self.root
        while True:
            inner = next(
                (c for c in self.children(node.id) if c.start <= span[0] and span[1] <= c.end),
                None,
            )
            if inner is None:
                return node
            node = inner


class Definition(BaseModel):
    """A defined term, where it is defined and where it is used."""

    term: str
    node_id: str = Field(description="Smallest node holding the definition.")
    term_span: Span
    definition_span: Span
    usages: list[str] = Field(default_factory=list, description="Node ids using the term.")
    usage_count: int = 0


class CrossReference(BaseModel):
    """A reference such as "Section 4.2(a)" found in the text."""

    text: str
    span: Span
    source_node: str
    target: str | None = Field(default=None, description="Resolved node id, None if unresolved.")


ChunkKind = Literal["node", "ancestor", "descendant", "passage"]


class Chunk(BaseModel):
    """A retrievable unit. ``text`` is what is indexed (it may carry structural context such as
    ancestor headings); ``span`` is the original contract text it stands for, which is what
    retrieval returns and what citations quote."""

    id: str
    contract_id: str
    node_id: str
    kind: ChunkKind
    text: str
    span: Span
    pages: list[int]
    file_name: str


class EvidenceSpan(BaseModel):
    """A span of the contract shown as evidence; ``quote`` is the contract's text at ``span``,
    checked before it is shown."""

    node_id: str
    title: str = ""
    pages: list[int]
    span: Span
    quote: str


class LinkedEvidence(BaseModel):
    """Text attached to a hit because the hit depends on it: the definition of a term the hit
    uses, or the clause a cross-reference in the hit points to."""

    relation: Literal["definition", "reference"]
    label: str = Field(description="The term or the reference as written, e.g. 'Section 4.2'.")
    node_id: str
    span: Span


class Hit(BaseModel):
    """One retrieved span of a contract, with the signals that ranked it."""

    contract_id: str
    file_name: str
    node_id: str
    chunk_id: str
    span: Span
    pages: list[int]
    score: float = Field(description="Reranker probability when reranked, else the fused score.")
    relevant: bool = Field(default=True, description="Reranker probability at or above the threshold.")
    signals: dict[str, float] = Field(default_factory=dict)
    text: str = ""
    linked: list[LinkedEvidence] = Field(default_factory=list)


class RetrievalQuery(BaseModel):
    """A question prepared for retrieval: keywords feed BM25 and the graph, the semantic query
    feeds dense search, and the question itself goes to the reranker."""

    question: str
    keywords: list[str] = Field(default_factory=list)
    semantic: str = ""

    @property
    def lexical(self) -> str:
        return " ".join([*self.keywords, self.question])

    @property
    def dense(self) -> str:
        return self.semantic or self.question
