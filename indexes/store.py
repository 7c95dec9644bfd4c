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
from clausewise.core.errors import ContractNotFound, IndexCorrupt, LiveVersion, VersionNotFound
from clausewise.core.results import Manifest
from indexes.bm25 import BM25Index
from indexes.layout import ID_PATTERN, StoreLayout, contract_id_for, validate_contract_id
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
            raise IndexCorrupt(
                f"{name} missing from version {self.manifest.version} of {self.contract_id!r}",
                hint="re-ingest with --force",
            ) from exc

    def _parse(self, name: str, parse: Any) -> Any:
        try:
            return parse(self._read(name))
        except ValidationError as exc:
            raise IndexCorrupt(
                f"{name} of version {self.manifest.version} of {self.contract_id!r} is invalid "
                f"({exc.error_count()} errors)",
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

    def _read_manifest(self, contract_id: str, folder: Path) -> Manifest:
        try:
            return Manifest.model_validate_json((folder / "manifest.json").read_bytes())
        except (OSError, ValidationError) as exc:
            raise IndexCorrupt(
                f"the manifest of {contract_id!r} is unreadable ({exc.__class__.__name__})",
                hint=f"re-ingest it with --force or delete it: clausewise contracts delete {contract_id}",
            ) from exc

    def manifest(self, contract_id: str, version: int | None = None) -> Manifest | None:
        """The live version's manifest (or that of ``version``); None when there is none."""
        if version is not None:
            found = [m for _path, m in self.versions(contract_id) if m.version == version]
            return found[0] if found else None
        folder = self.layout.current_version(contract_id)
        return None if folder is None else self._read_manifest(contract_id, folder)

    def versions(self, contract_id: str) -> list[tuple[Path, Manifest]]:
        """Every kept build of the contract with its manifest, oldest version first."""
        builds = [
            (path, self._read_manifest(contract_id, path)) for path in self.layout.version_dirs(contract_id)
        ]
        return sorted(builds, key=lambda build: (build[1].version, build[1].created_at))

    def manifests(self) -> list[Manifest]:
        found = []
        for contract_id in self.layout.contract_ids():
            manifest = self.manifest(contract_id)
            if manifest is not None:
                found.append(manifest)
        return found

    def _not_found(self, reference: str) -> ContractNotFound:
        """The same refusal whatever the reference is (a path, another tenant's id, nothing):
        it never depends on what exists on disk outside this tenant's contracts."""
        return ContractNotFound(
            f"no contract {reference!r} in tenant {self.tenant!r}", hint="see `clausewise contracts list`"
        )

    def resolve(self, reference: str) -> str:
        """A contract id from an id or from the name of an ingested file (the command line's
        convenience; the service takes ids only, :meth:`resolve_id`)."""
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
        raise self._not_found(reference)

    def resolve_id(self, contract_id: str) -> str:
        """``contract_id`` when this tenant has such a contract: an id, never a path or a file name."""
        if not ID_PATTERN.match(contract_id) or self.layout.current_version(contract_id) is None:
            raise self._not_found(contract_id)
        return contract_id

    def _version_folder(self, contract_id: str, version: int) -> tuple[Path, Manifest]:
        for path, manifest in self.versions(contract_id):
            if manifest.version == version:
                return path, manifest
        known = ", ".join(str(m.version) for _p, m in self.versions(contract_id))
        raise VersionNotFound(
            f"contract {contract_id!r} has no version {version} (versions: {known})",
            hint="see its versions: clausewise contracts show " + contract_id,
        )

    def open(self, reference: str, version: int | None = None) -> ContractIndex:
        """The live version of a contract, or its ``version`` (an older one keeps resolving the
        citations made against it)."""
        contract_id = self.resolve(reference)
        if version is not None:
            path, manifest = self._version_folder(contract_id, version)
            return ContractIndex(path, manifest)
        folder = self.layout.current_version(contract_id)
        manifest = self.manifest(contract_id)
        if folder is None or manifest is None:  # deleted meanwhile
            raise self._not_found(reference)
        return ContractIndex(folder, manifest)

    def next_version(self, contract_id: str) -> int:
        """The number the next build of ``contract_id`` gets (called under its ingest lock)."""
        return max((m.version for _path, m in self.versions(contract_id)), default=0) + 1

    def write(self, artifacts: ContractArtifacts) -> Path:
        """Write a complete build aside, then publish it atomically (see indexes.layout)."""
        contract_id = artifacts.manifest.contract_id
        artifacts.manifest.version = self.next_version(contract_id)
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
        """Delete the contract: every version and index (an explicit act; nothing else does)."""
        contract_id = self.resolve(reference)
        with self.layout.ingest_lock(contract_id):
            pass  # fails fast if an ingest holds the lock
        self.layout.delete(contract_id)
        log.info("deleted", extra={"contract": contract_id, "tenant": self.tenant})
        return contract_id

    def delete_version(self, reference: str, version: int) -> str:
        """Delete one older version; the live one goes only with the whole contract (a contract
        always has the version its id names)."""
        contract_id = self.resolve(reference)
        with self.layout.ingest_lock(contract_id):
            path, _manifest = self._version_folder(contract_id, version)
            if path == self.layout.current_version(contract_id):
                raise LiveVersion(
                    f"version {version} is the live version of {contract_id!r}",
                    hint="ingest a new version first, or delete the whole contract",
                )
            self.layout.delete_version(contract_id, path.name)
        log.info(
            "deleted a version", extra={"contract": contract_id, "tenant": self.tenant, "version": version}
        )
        return contract_id
