"""Per-process access to settings, stores and lazily loaded models.

The CLI (and later the API) creates one Runtime and passes it down; models load on first use
and once. This replaces module-level singletons, so tests can build as many as they need.
"""

from __future__ import annotations

import threading
from functools import cached_property

from clausewise.backends.embeddings import Embedder, create_embedder
from clausewise.config import Settings
from indexes.store import ContractStore


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._embedder: Embedder | None = None

    @cached_property
    def store(self) -> ContractStore:
        return ContractStore(self.settings)

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = create_embedder(self.settings.models.embedding)
            return self._embedder

    def archivist(self):
        from agents.archivist import Archivist

        return Archivist(self.settings, self.store, self.embedder)
