"""Dense vectors of a contract's chunks in a chromadb PersistentClient.

Embeddings are always computed by our embedder and passed in explicitly: a collection without
an embedding function would make chromadb fetch its default model from the internet.

Search is exact (cosine over every stored vector, loaded once per open index), not chromadb's
approximate HNSW: a contract has at most some thousands of chunks, so the product takes well
under a millisecond, and HNSW graphs built by parallel insertion differ between ingestions of
the same contract (measured: dense rankings of a CUAD contract differed from rank 45 on, which
changed the passages a question was shown).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from clausewise.core.domain import Chunk
from clausewise.core.errors import IndexCorrupt

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
        self._matrix: tuple[list[str], np.ndarray] | None = None  # ids, unit vectors

    def _open(self):
        if self._collection is None:
            if not (self.path / "chroma.sqlite3").is_file():
                raise IndexCorrupt(f"vector index missing at {self.path}", hint="re-ingest with --force")
            self._client = _client(self.path)
            self._collection = self._client.get_collection(COLLECTION, embedding_function=None)
        return self._collection

    def count(self) -> int:
        return int(self._open().count())

    def _unit_vectors(self) -> tuple[list[str], np.ndarray]:
        """Every chunk id (sorted, so ties break the same way every time) and its vector scaled
        to unit length; read from the collection once."""
        if self._matrix is None:
            ids, vectors = self.embeddings()
            if not ids:
                self._matrix = [], np.zeros((0, 0), dtype=np.float32)
                return self._matrix
            order = sorted(range(len(ids)), key=ids.__getitem__)
            vectors = vectors[order]
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            self._matrix = [ids[i] for i in order], vectors / np.maximum(norms, 1e-12)
        return self._matrix

    def search(self, query_embedding: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top-k (chunk id, cosine similarity), exact."""
        ids, vectors = self._unit_vectors()
        k = min(k, len(ids))
        if k <= 0:
            return []
        query = np.asarray(query_embedding, dtype=np.float32).reshape(-1)
        similarities = vectors @ (query / max(float(np.linalg.norm(query)), 1e-12))
        order = np.argsort(-similarities, kind="stable")[:k]
        return [(ids[i], float(similarities[i])) for i in order]

    def embeddings(self) -> tuple[list[str], np.ndarray]:
        """Every chunk id with its stored embedding (for exact search over many contracts)."""
        got = self._open().get(include=["embeddings"])
        return list(got["ids"]), np.asarray(got["embeddings"], dtype=np.float32)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
        self._client = None
        self._collection = None
        self._matrix = None
