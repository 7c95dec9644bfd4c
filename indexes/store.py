"""The per-tenant, per-contract index store: write a complete build atomically, read it lazily.

One version folder holds everything about one contract:

    manifest.json        what was ingested, how, with which settings and versions
    original.<ext>       the ingested file itself (to render its pages)
    document.json        normalized text, page map, layout blocks, word boxes
    tree.json            the clause tree
    definitions.json     defined terms with their defining node and usages
    xrefs.json           cross-references and their resolved targets
    chunks.json          node / ancestor / descendant chunks with spans
    bm25.json            tokenized chunks for BM25 (rank-bm25)
    chroma/              chromadb PersistentClient with our embeddings
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import TypeAdapter, ValidationError

from clausewise.core.config import Settings
from clausewise.core.domain import Chunk, ClauseTree, CrossReference, Definition, ParsedDocument
from clausewise.core.errors import ContractNotFound, IndexCorrupt
from clausewise.core.results import Manifest
from indexes.bm25 import BM25Index
from indexes.layout import StoreLayout, contract_id_for, validate_contract_id
from indexes.vectors import VectorIndex, write_vectors


@dataclass
class ContractArtifacts:
    """Everything one ingest produced, ready to be written."""

    manifest: Manifest
    document: ParsedDocument
    tree: ClauseTree
    definitions: list[Definition]
    cross_references: list[CrossReference]
    chunks: list[Chunk]
    embeddings: np.ndarray
    bm25: BM25Index
    extra_writers: list[Any] = field(default_factory=list)  # callables(staging_dir) for later indexes


log = logging.getLogger(__name__)


_DEFINITIONS = TypeAdapter(list[Definition])
_XREFS = TypeAdapter(list[CrossReference])
_CHUNKS = TypeAdapter(list[Chunk])


def _write_json(path: Path, payload: str) -> None:
    path.write_text(payload, encoding="utf-8")


class ContractIndex:
    """Read access to one contract's live index version; parts load on first use."""

    def __init__(self, path: Path, manifest: Manifest) -> None:
        self.path = path
        self.manifest = manifest
        self._vectors: VectorIndex | None = None

    @property
    def contract_id(self) -> str:
        return self.manifest.contract_id

    def _read(self, name: str) -> bytes:
        try:
            return (self.path / name).read_bytes()
        except OSError as exc:
            raise IndexCorrupt(f"{name} missing from {self.path}", hint="re-ingest with --force") from exc

    def _parse(self, name: str, parse: Any) -> Any:
        try:
            return parse(self._read(name))
        except ValidationError as exc:
            raise IndexCorrupt(
                f"{name} in {self.path} is invalid ({exc.error_count()} errors)",
                hint="re-ingest with --force",
            ) from exc

    @cached_property
    def document(self) -> ParsedDocument:
        return self._parse("document.json", ParsedDocument.model_validate_json)

    @cached_property
    def tree(self) -> ClauseTree:
        return self._parse("tree.json", ClauseTree.model_validate_json)

    @cached_property
    def definitions(self) -> list[Definition]:
        return self._parse("definitions.json", _DEFINITIONS.validate_json)

    @cached_property
    def cross_references(self) -> list[CrossReference]:
        return self._parse("xrefs.json", _XREFS.validate_json)

    @cached_property
    def chunks(self) -> dict[str, Chunk]:
        return {c.id: c for c in self._parse("chunks.json", _CHUNKS.validate_json)}

    @cached_property
    def bm25(self) -> BM25Index:
        return BM25Index.load(self.path / "bm25.json")

    @property
    def original(self) -> Path | None:
        """The ingested file as it was, kept in the version (None for versions built before it was)."""
        if self.manifest.original is None:
            return None
        path = self.path / self.manifest.original
        return path if path.is_file() else None

    @property
    def vectors(self) -> VectorIndex:
        if self._vectors is None:
            self._vectors = VectorIndex(self.path / "chroma")
        return self._vectors

    def close(self) -> None:
        if self._vectors is not None:
            self._vectors.close()
            self._vectors = None


class ContractStore:
    """The contracts of one tenant."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.layout = StoreLayout(settings.paths.tenant_dir, settings.paths.tenant)

    @property
    def tenant(self) -> str:
        return self.layout.tenant

    def manifest(self, contract_id: str) -> Manifest | None:
        version = self.layout.current_version(contract_id)
        if version is None:
            return None
        try:
            return Manifest.model_validate_json((version / "manifest.json").read_bytes())
        except (OSError, ValidationError) as exc:
            raise IndexCorrupt(
                f"the manifest of {contract_id!r} is unreadable ({exc.__class__.__name__})",
                hint=f"re-ingest it with --force or delete it: clausewise contracts delete {contract_id}",
            ) from exc

    def manifests(self) -> list[Manifest]:
        found = []
        for contract_id in self.layout.contract_ids():
            manifest = self.manifest(contract_id)
            if manifest is not None:
                found.append(manifest)
        return found

    def resolve(self, reference: str) -> str:
        """A contract id from an id or from the path/name of an ingested file."""
        candidates = (
            [reference] if not reference.endswith((".pdf", ".docx", ".txt", ".md", ".html", ".htm")) else []
        )
        candidates.append(contract_id_for(Path(reference).name))
        for candidate in candidates:
            try:
                validate_contract_id(candidate)
            except ContractNotFound:
                continue
            if self.layout.current_version(candidate) is not None:
                return candidate
        known = ", ".join(self.layout.contract_ids()[:10]) or "none yet"
        raise ContractNotFound(
            f"no contract {reference!r} in tenant {self.tenant!r} (known: {known})",
            hint=f"ingest it first: clausewise ingest {reference}"
            if Path(reference).exists()
            else "see `clausewise contracts list`",
        )

    def open(self, reference: str) -> ContractIndex:
        contract_id = self.resolve(reference)
        version = self.layout.current_version(contract_id)
        manifest = self.manifest(contract_id)
        assert version is not None and manifest is not None
        return ContractIndex(version, manifest)

    def write(self, artifacts: ContractArtifacts) -> Path:
        """Write a complete build aside, then publish it atomically (see indexes.layout)."""
        contract_id = artifacts.manifest.contract_id
        staging = self.layout.new_staging(contract_id)
        try:
            _write_json(staging / "document.json", artifacts.document.model_dump_json())
            _write_json(staging / "tree.json", artifacts.tree.model_dump_json())
            _write_json(staging / "definitions.json", _DEFINITIONS.dump_json(artifacts.definitions).decode())
            _write_json(staging / "xrefs.json", _XREFS.dump_json(artifacts.cross_references).decode())
            _write_json(staging / "chunks.json", _CHUNKS.dump_json(artifacts.chunks).decode())
            artifacts.bm25.save(staging / "bm25.json")
            write_vectors(
                staging / "chroma", artifacts.chunks, artifacts.embeddings, artifacts.manifest.embedding_model
            )
            for writer in artifacts.extra_writers:
                writer(staging)
            # the manifest goes last: a folder with a manifest is a complete build
            _write_json(staging / "manifest.json", artifacts.manifest.model_dump_json(indent=2))
            return self.layout.publish(contract_id, staging)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise

    def delete(self, reference: str) -> str:
        contract_id = self.resolve(reference)
        with self.layout.ingest_lock(contract_id):
            pass  # fails fast if an ingest holds the lock
        self.layout.delete(contract_id)
        log.info("deleted", extra={"contract": contract_id, "tenant": self.tenant})
        return contract_id
