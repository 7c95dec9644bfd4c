"""Cross-document exemplars: a library of labelled examples (a clause, its label, the question or
hypothesis it was judged against, where it came from), indexed with llama-index so the model can
be shown how similar cases were decided.

Users add their own with ``clausewise exemplars add``; ``clausewise exemplars seed`` adds the
ContractNLI development evidence (an entry-point job: :mod:`clausewise_lab.evals.exemplars`). The
library lives in ``<data_dir>/exemplars``: the examples as
JSON lines (the source of truth) and a llama-index vector index rebuilt from them.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from clausewise.core.backends.embeddings import Embedder
from tools.retrieval.llama_embedding import llama_index_embedding


class Exemplar(BaseModel):
    id: str = ""
    text: str = Field(description="The clause or span.")
    label: str = Field(description="How it was decided, e.g. Entailment / Contradiction / NotMentioned.")
    question: str = Field(description="The hypothesis or question it was judged against.")
    source: str = Field(default="user", description="Where the example comes from.")
    score: float | None = None

    def key(self) -> str:
        return hashlib.sha1(f"{self.question}\x00{self.label}\x00{self.text}".encode()).hexdigest()[:16]


def render_exemplars(examples: list[Exemplar]) -> str:
    """Exemplars for a prompt, one line each: how a similar clause was decided, and for what."""
    return "\n".join(f'- {e.label} for "{e.question}": "{e.text[:400]}"' for e in examples) or "(none)"


class ExemplarLibrary:
    def __init__(self, folder: Path, embedder: Embedder) -> None:
        self.folder = folder
        self.embedder = embedder
        self._lock = threading.Lock()
        self._index: Any = None

    @property
    def _examples_file(self) -> Path:
        return self.folder / "examples.jsonl"

    def examples(self) -> list[Exemplar]:
        if not self._examples_file.is_file():
            return []
        return [
            Exemplar.model_validate_json(line)
            for line in self._examples_file.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]

    def add(self, examples: list[Exemplar]) -> int:
        """Add examples (duplicates ignored) and rebuild the index; returns how many were new."""
        with self._lock:
            existing = self.examples()
            known = {e.id for e in existing}
            fresh = []
            for example in examples:
                example = example.model_copy(update={"id": example.id or example.key(), "score": None})
                if example.id not in known:
                    known.add(example.id)
                    fresh.append(example)
            if fresh:
                self.folder.mkdir(parents=True, exist_ok=True)
                temporary = self._examples_file.with_suffix(".tmp")
                temporary.write_text(
                    "".join(e.model_dump_json() + "\n" for e in [*existing, *fresh]), encoding="utf-8"
                )
                temporary.replace(self._examples_file)
                self._index = None
                self._build()
            return len(fresh)

    def _documents(self) -> list[Any]:
        from llama_index.core import Document

        return [
            Document(
                text=f"{e.question}\n{e.text}",
                doc_id=e.id,
                metadata={"label": e.label, "question": e.question, "source": e.source},
                excluded_embed_metadata_keys=["label", "question", "source"],
            )
            for e in self.examples()
        ]

    def _build(self) -> None:
        from llama_index.core import StorageContext, VectorStoreIndex

        index = VectorStoreIndex.from_documents(
            self._documents(),
            embed_model=llama_index_embedding(self.embedder),
            storage_context=StorageContext.from_defaults(),
        )
        index.storage_context.persist(persist_dir=str(self.folder / "index"))
        self._index = index

    def _load(self) -> Any:
        from llama_index.core import StorageContext, load_index_from_storage

        with self._lock:
            if self._index is None:
                if not (self.folder / "index" / "docstore.json").is_file():
                    return None
                storage = StorageContext.from_defaults(persist_dir=str(self.folder / "index"))
                self._index = load_index_from_storage(
                    storage, embed_model=llama_index_embedding(self.embedder)
                )
            return self._index

    def search(self, query: str, k: int = 3, exclude_source: str | None = None) -> list[Exemplar]:
        """The k most similar examples (optionally never from ``exclude_source``, so a contract
        is not shown its own labels)."""
        index = self._load()
        if index is None:
            return []
        by_id = {e.id: e for e in self.examples()}
        found = []
        for result in index.as_retriever(similarity_top_k=k + 10).retrieve(query):
            example = by_id.get(result.node.ref_doc_id or "")
            if example is None or (exclude_source and example.source == exclude_source):
                continue
            found.append(example.model_copy(update={"score": round(float(result.score or 0), 4)}))
            if len(found) == k:
                break
        return found
