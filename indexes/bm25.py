"""A persisted BM25 index over a contract's chunks.

rank-bm25's ``BM25Okapi`` defines the scores (idf with its epsilon floor, k1, b); we precompute
its per-(chunk, term) weights into a sparse matrix so a query is one sparse product: identical
scores, ~50x faster than ``get_scores`` on thousands of chunks. The tokenized corpus is what is
persisted, so the index is rebuilt exactly on load.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi
from scipy import sparse

from clausewise.core.errors import IndexCorrupt

TOKENIZER_VERSION = "bm25-porter2-v1"
_TOKEN = re.compile(r"[a-z0-9]+(?:\.[a-z0-9]+)*")  # keeps "4.2" and "u.s" whole
_STOPWORDS = frozenset(
    """a an and are as at be been being but by for from had has have he her hers him his i if in into
    is it its itself me my of on or our ours s she such that the their theirs them then there these
    they this those to was we were what when where which while who whom why will with you
    your yours""".split()
)


@lru_cache(maxsize=1)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return _stemmer().stemWord(word)


def bm25_tokens(text: str) -> list[str]:
    """Lowercased, stop-word-free, Porter2-stemmed tokens ("Terminates" -> "termin")."""
    return [
        _stem(t) if not t[0].isdigit() else t for t in _TOKEN.findall(text.lower()) if t not in _STOPWORDS
    ]


class BM25Index:
    def __init__(self, ids: list[str], tokens: list[list[str]], k1: float = 1.5, b: float = 0.75) -> None:
        self.ids = ids
        self.tokens = tokens
        self.k1 = k1
        self.b = b
        self._matrix: sparse.csr_matrix | None = None
        self._vocabulary: dict[str, int] = {}
        if ids:
            self._build()

    def _build(self) -> None:
        okapi = BM25Okapi(self.tokens, k1=self.k1, b=self.b)
        self._vocabulary = {term: i for i, term in enumerate(sorted(okapi.idf))}
        rows, cols, values = [], [], []
        for d, frequencies in enumerate(okapi.doc_freqs):
            norm = self.k1 * (1 - self.b + self.b * okapi.doc_len[d] / okapi.avgdl)
            for term, tf in frequencies.items():
                rows.append(d)
                cols.append(self._vocabulary[term])
                values.append(okapi.idf[term] * tf * (self.k1 + 1) / (tf + norm))
        self._matrix = sparse.csr_matrix(
            (np.asarray(values, dtype=np.float32), (rows, cols)), shape=(len(self.ids), len(self._vocabulary))
        )

    def __len__(self) -> int:
        return len(self.ids)

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every chunk (in ``ids`` order) for a query string."""
        if self._matrix is None:
            return np.zeros(0, dtype=np.float32)
        query_vector = np.zeros(len(self._vocabulary), dtype=np.float32)
        for token in bm25_tokens(query):
            index = self._vocabulary.get(token)
            if index is not None:
                query_vector[index] += 1.0
        return self._matrix @ query_vector

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        """Top-k (chunk id, score) with a positive score."""
        scores = self.scores(query)
        if scores.size == 0:
            return []
        k = min(k, scores.size)
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0]

    def save(self, path: Path) -> None:
        payload = {
            "tokenizer": TOKENIZER_VERSION,
            "k1": self.k1,
            "b": self.b,
            "ids": self.ids,
            "tokens": self.tokens,
        }
        path.write_text(json.dumps(payload, separators=(",", ":")), encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> BM25Index:
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise IndexCorrupt(
                f"BM25 index {path} is unreadable ({exc})", hint="re-ingest with --force"
            ) from exc
        if payload.get("tokenizer") != TOKENIZER_VERSION:
            raise IndexCorrupt(
                f"BM25 index {path} was built with tokenizer {payload.get('tokenizer')!r}",
                hint="re-ingest the contract with --force",
            )
        return cls(payload["ids"], payload["tokens"], payload["k1"], payload["b"])

    @classmethod
    def build(cls, ids: list[str], texts: list[str], k1: float, b: float) -> BM25Index:
        return cls(ids, [bm25_tokens(t) for t in texts], k1, b)
