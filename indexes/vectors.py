"""Dense vectors of a contract's chunks in a chromadb PersistentClient.

Embeddings are always computed by our embedder and passed in explicitly: a collection without
an embedding function would make chromadb fetch its default model from the internet.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from clausewise.domain import Chunk
from clausewise.errors import IndexCorrupt

COLLECTION = "chunks"
_MAX_BATCH = 4000  # below chromadb's maximum batch size


def _client(path: Path):
    import chromadb
    from chromadb.config import Settings as ChromaSettings

    return chromadb.PersistentClient(
        path=str(path), settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False)
    )


def write_vectors(path: Path, chunks: Sequence[Chunk], embeddings: np.ndarray, model_id: str) -> None:
    """Create the collection at ``path`` (a fresh staging folder) and add every chunk."""
    with _client(path) as client:
        collection = client.create_collection(
            COLLECTION,
            embedding_function=None,
            metadata={"hnsw:space": "cosine", "embedding_model": model_id},
        )
        for first in range(0, len(chunks), _MAX_BATCH):
            part = chunks[first : first + _MAX_BATCH]
            collection.add(
                ids=[c.id for c in part],
                embeddings=embeddings[first : first + len(part)].tolist(),
                metadatas=[
                    {
                        "contract_id": c.contract_id,
                        "node_id": c.node_id,
                        "kind": c.kind,
                        "start": c.span[0],
                        "end": c.span[1],
                        "pages": ",".join(map(str, c.pages)),
                        "file_name": c.file_name,
                    }
                    for c in part
                ],
            )


class VectorIndex:
    """Read side: nearest chunks to a query embedding. Opened lazily, closed explicitly."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._client = None
        self._collection = None

    def _open(self):
        if self._collection is None:
            if not (self.path / "chroma.sqlite3").is_file():
                raise IndexCorrupt(f"vector index missing at {self.path}", hint="re-ingest with --force")
            self._client = _client(self.path)
            self._collection = self._client.get_collection(COLLECTION, embedding_function=None)
        return self._collection

    def count(self) -> int:
        return int(self._open().count())

    def search(self, query_embedding: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top-k (chunk id, cosine similarity)."""
        collection = self._open()
        k = min(k, collection.count())
        if k <= 0:
            return []
        result = collection.query(
            query_embeddings=[query_embedding.tolist()], n_results=k, include=["distances"]
        )
        return [
            (cid, 1.0 - float(dist))
            for cid, dist in zip(result["ids"][0], result["distances"][0], strict=True)
        ]

    def embeddings(self) -> tuple[list[str], np.ndarray]:
        """Every chunk id with its stored embedding (for exact search over many contracts)."""
        got = self._open().get(include=["embeddings"])
        return list(got["ids"]), np.asarray(got["embeddings"], dtype=np.float32)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client = None
        self._collection = None
