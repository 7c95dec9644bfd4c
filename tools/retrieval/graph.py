"""The contract's knowledge graph in LightRAG, built deterministically from the Archivist's output.

Entities are the contract's clauses (sections, list items, schedules...), its defined terms and
its parties; relations are "defines", "uses" and "refers to". Nothing is extracted by a language
model: the graph is inserted with ``ainsert_custom_kg`` and queried for context only, with the
Researcher's keywords, so LightRAG never calls a model (its model function raises if it does).

LightRAG keeps some state in process-global stores and reads ``./.env`` at import, so this
module imports it from a neutral working directory, opens one graph at a time, and resets its
shared state after each use.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import logging
import os
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from clausewise.core.backends.embeddings import Embedder
from clausewise.core.domain import ClauseNode, ClauseTree, CrossReference, Definition, NodeKind

log = logging.getLogger(__name__)

GRAPH_FOLDER = "graph"
_ONE_GRAPH_AT_A_TIME = threading.Lock()  # LightRAG's shared stores are process-wide
_STRUCTURAL = {
    NodeKind.ARTICLE,
    NodeKind.SECTION,
    NodeKind.CLAUSE,
    NodeKind.LIST_ITEM,
    NodeKind.SCHEDULE,
    NodeKind.DEFINITIONS,
    NodeKind.DEFINITION,
    NodeKind.HEADING,
    NodeKind.RECITAL,
    NodeKind.PARAGRAPH,
    NodeKind.PASSAGE,
    NodeKind.SIGNATURES,
    NodeKind.PREAMBLE,
}
_KIND_WORD = {
    NodeKind.ARTICLE: "Article",
    NodeKind.SCHEDULE: "Schedule",
    NodeKind.DEFINITION: "Definition",
    NodeKind.HEADING: "Heading",
    NodeKind.RECITAL: "Recital",
    NodeKind.PARAGRAPH: "Paragraph",
    NodeKind.PASSAGE: "Passage",
    NodeKind.SIGNATURES: "Signatures",
    NodeKind.PREAMBLE: "Preamble",
}
_MAX_USAGES_PER_TERM = 40
_DESCRIPTION_CHARS = 600


@lru_cache(maxsize=1)
def _lightrag() -> Any:
    """Import LightRAG safely: tiktoken files from llama-index (no download), a neutral cwd
    (it loads ./.env at import), and its loggers quietened (nano_vectordb reconfigures root)."""
    spec = importlib.util.find_spec("llama_index.core")
    if spec is not None and spec.origin:
        os.environ.setdefault(
            "TIKTOKEN_CACHE_DIR", str(Path(spec.origin).parent / "_static" / "tiktoken_cache")
        )
    os.environ.pop("ENTITY_TYPES", None)  # LightRAG exits the process when this is set
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    previous = Path.cwd()
    with tempfile.TemporaryDirectory() as neutral:
        os.chdir(neutral)
        try:
            import lightrag
            import lightrag.kg.shared_storage
            import lightrag.utils
            import nano_vectordb  # noqa: F401 - imported now so its basicConfig is undone below
        finally:
            os.chdir(previous)
    root.handlers, root.level = handlers, level
    logging.getLogger("lightrag").setLevel(logging.ERROR)
    logging.getLogger("nano-vectordb").setLevel(logging.WARNING)
    return lightrag


async def _no_model(*args: object, **kwargs: object) -> str:
    raise RuntimeError("the contract graph is built and queried without a language model")


# --- building ------------------------------------------------------------------------------------


def _node_key(index: int) -> str:
    return f"n{index}"


def _entity_name(node: ClauseNode) -> str:
    word = _KIND_WORD.get(node.kind, "Clause")
    name = f"{word} {node.id}"
    return f"{name}: {node.title}" if node.title else name


@dataclass
class GraphSpec:
    """What goes into LightRAG, and the node each graph key stands for."""

    node_ids: list[str] = field(default_factory=list)
    entities: list[dict[str, Any]] = field(default_factory=list)
    relationships: list[dict[str, Any]] = field(default_factory=list)


def graph_spec(
    text: str, tree: ClauseTree, definitions: list[Definition], references: list[CrossReference]
) -> GraphSpec:
    spec = GraphSpec()
    key_of: dict[str, str] = {}
    names: dict[str, str] = {}
    for node in tree.walk():
        if node.kind not in _STRUCTURAL:
            continue
        key = _node_key(len(spec.node_ids))
        spec.node_ids.append(node.id)
        key_of[node.id] = key
        names[node.id] = _entity_name(node)
        body = " ".join(text[node.start : node.own_end if node.children else node.end].split())
        spec.entities.append(
            {
                "entity_name": names[node.id],
                "entity_type": node.kind.value,
                "description": body[:_DESCRIPTION_CHARS] or names[node.id],
                "file_path": key,
            }
        )

    def clause_of(node_id: str) -> str | None:
        """The nearest ancestor-or-self that is an entity (sentences belong to their clause)."""
        current: str | None = node_id
        while current is not None and current not in key_of:
            current = tree.node(current).parent
        return current

    edges: dict[frozenset[str], dict[str, Any]] = {}

    def connect(a: str, b: str, keyword: str, description: str, key: str) -> None:
        if a == b:
            return
        pair = frozenset((a, b))
        edge = edges.setdefault(
            pair, {"src_id": a, "tgt_id": b, "keywords": [], "description": [], "file_path": key}
        )
        if keyword not in edge["keywords"]:
            edge["keywords"].append(keyword)
            edge["description"].append(description)

    preamble = {n.id for n in tree.walk("Preamble")} if "Preamble" in tree.nodes else set()
    for definition in definitions:
        home = clause_of(definition.node_id)
        if home is None:
            continue
        is_party = definition.node_id in preamble and definition.term not in {"Agreement", "Effective Date"}
        term_name = f'{"Party" if is_party else "Defined term"} "{definition.term}"'
        start, end = definition.definition_span
        spec.entities.append(
            {
                "entity_name": term_name,
                "entity_type": "party" if is_party else "defined_term",
                "description": " ".join(text[start:end].split())[:_DESCRIPTION_CHARS],
                "file_path": key_of[home],
            }
        )
        connect(names[home], term_name, "defines", f"{names[home]} defines {definition.term}", key_of[home])
        users = [
            u for u in dict.fromkeys(clause_of(u) for u in definition.usages) if u is not None and u != home
        ]
        for user in users[:_MAX_USAGES_PER_TERM]:
            connect(
                names[user], term_name, "uses", f"{names[user]} uses the term {definition.term}", key_of[user]
            )
    for reference in references:
        source, target = clause_of(reference.source_node), reference.target and clause_of(reference.target)
        if source is None or not target:
            continue
        connect(
            names[source],
            names[target],
            "refers to",
            f"{names[source]} refers to {names[target]}",
            f"{key_of[source]}+{key_of[target]}",
        )
    for edge in edges.values():
        spec.relationships.append(
            {
                **edge,
                "keywords": ", ".join(edge["keywords"]),
                "description": "; ".join(edge["description"]),
                "weight": 1.0,
            }
        )
    return spec


def _embedding_function(embedder: Embedder) -> Any:
    utils = _lightrag().utils

    async def embed(texts: list[str], **_: object) -> np.ndarray:
        return await asyncio.to_thread(embedder.embed, list(texts))

    return utils.EmbeddingFunc(embedding_dim=embedder.dimension, func=embed, model_name=embedder.model_id)


def _instance(folder: Path, embedder: Embedder) -> Any:
    lightrag = _lightrag()
    return lightrag.LightRAG(
        working_dir=str(folder),
        workspace="",
        embedding_func=_embedding_function(embedder),
        llm_model_func=_no_model,
        tokenizer=lightrag.utils.TiktokenTokenizer("gpt-4o-mini"),
        cosine_better_than_threshold=0.2,
        enable_llm_cache=False,
        embedding_batch_num=64,
    )


def write_graph(folder: Path, spec: GraphSpec, embedder: Embedder) -> None:
    """Build the graph into ``folder`` (inside a staging build) and record the key -> node map."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "nodes.txt").write_text("\n".join(spec.node_ids), encoding="utf-8")

    async def build() -> None:
        rag = _instance(folder, embedder)
        await rag.initialize_storages()
        try:
            await rag.ainsert_custom_kg({"entities": spec.entities, "relationships": spec.relationships})
        finally:
            await rag.finalize_storages()

    with _ONE_GRAPH_AT_A_TIME:
        try:
            asyncio.run(build())
        finally:
            _lightrag().kg.shared_storage.finalize_share_data()


# --- querying ------------------------------------------------------------------------------------


class GraphSearch:
    """An open contract graph. Use as a context manager; one may be open at a time."""

    def __init__(self, folder: Path, embedder: Embedder) -> None:
        self.folder = folder
        self.embedder = embedder
        self.node_ids = (folder / "nodes.txt").read_text(encoding="utf-8").splitlines()
        self._runner: asyncio.Runner | None = None
        self._rag: Any = None

    def __enter__(self) -> GraphSearch:
        _ONE_GRAPH_AT_A_TIME.acquire()
        try:
            self._runner = asyncio.Runner()
            self._rag = _instance(self.folder, self.embedder)
            self._runner.run(self._rag.initialize_storages())
        except BaseException:
            self._close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self._close()

    def _close(self) -> None:
        try:
            if self._rag is not None and self._runner is not None:
                self._runner.run(self._rag.finalize_storages())
        finally:
            if self._runner is not None:
                self._runner.close()
            self._rag = self._runner = None
            _lightrag().kg.shared_storage.finalize_share_data()
            _ONE_GRAPH_AT_A_TIME.release()

    def _nodes(self, key: str) -> list[str]:
        found = []
        for part in key.split("+"):
            if part.startswith("n") and part[1:].isdigit() and int(part[1:]) < len(self.node_ids):
                found.append(self.node_ids[int(part[1:])])
        return found

    def search(self, question: str, keywords: list[str], themes: list[str], top_k: int) -> list[str]:
        """Node ids, best first, reached through matching entities and relations."""
        assert self._rag is not None and self._runner is not None, "use GraphSearch as a context manager"
        low = [k for k in keywords if k.strip()] or [question]
        high = [t for t in themes if t.strip()] or [question]
        param = _lightrag().QueryParam(
            mode="hybrid",
            ll_keywords=low,
            hl_keywords=high,
            top_k=top_k,
            chunk_top_k=top_k,
            enable_rerank=False,
        )
        query = question if len(question.strip()) >= 3 else " ".join(low)
        data = self._runner.run(self._rag.aquery_data(query, param))
        if data.get("status") != "success":
            return []
        ranked: list[str] = []
        entities = data["data"].get("entities", [])
        relations = data["data"].get("relationships", [])
        for index in range(max(len(entities), len(relations))):
            for item in (
                entities[index] if index < len(entities) else None,
                relations[index] if index < len(relations) else None,
            ):
                if item is not None:
                    ranked.extend(n for n in self._nodes(item.get("file_path", "")) if n not in ranked)
        return ranked


@contextlib.contextmanager
def open_graph(version_dir: Path, embedder: Embedder, *, enabled: bool) -> Iterator[GraphSearch | None]:
    """The contract's graph, or None when it was ingested without one or graph retrieval is not
    ``enabled`` (``retrieval.graph``): then its storages are not loaded at all, which costs from
    a few to some hundreds of milliseconds per opening."""
    folder = version_dir / GRAPH_FOLDER
    if not enabled or not (folder / "nodes.txt").is_file():
        if enabled:
            log.warning(
                "%s was ingested without its knowledge graph: searching without it (ingest the "
                "contract again with retrieval.graph on to build it)",
                version_dir.parent.parent.name,
            )
        yield None
        return
    with GraphSearch(folder, embedder) as graph:
        yield graph
