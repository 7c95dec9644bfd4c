"""The Archivist: turns a contract file into a clause tree, chunks and persistent indexes.

Ingestion is deterministic (no language model): parse -> clause tree -> definitions and
cross-references -> chunks -> embeddings + BM25 -> one atomic write. Re-ingesting the same bytes
with the same settings is a no-op; ``force`` rebuilds. Every build is a new version of the
contract and the older ones are kept; different bytes under an existing contract's id are refused
(:class:`ContractChanged`) unless a new version is asked for, so nothing that cites the old text
is silently orphaned.
"""

from __future__ import annotations

import logging
import shutil
import time
from datetime import UTC, datetime
from pathlib import Path

from clausewise.core.backends.embeddings import Embedder
from clausewise.core.config import Settings
from clausewise.core.errors import ContractChanged
from clausewise.core.hashing import file_sha256
from clausewise.core.progress import NoProgress, Progress
from clausewise.core.results import INDEX_FORMAT, IngestResult, Manifest
from clausewise.core.tracing import annotate, span
from clausewise.core.version import clausewise_version
from indexes.bm25 import BM25Index
from indexes.layout import contract_id_for, validate_contract_id
from indexes.store import ContractArtifacts, ContractStore
from tools.chunking import build_chunks
from tools.parsing import parse_document
from tools.parsing.detect import check_size
from tools.preamble import contract_parties, contract_title
from tools.retrieval.graph import GRAPH_FOLDER, graph_spec, write_graph
from tools.structure.definitions import find_definitions
from tools.structure.tree_builder import build_tree
from tools.structure.xrefs import find_cross_references

log = logging.getLogger(__name__)


class Archivist:
    def __init__(self, settings: Settings, store: ContractStore, embedder: Embedder) -> None:
        self.settings = settings
        self.store = store
        self.embedder = embedder

    def contract_id_for(self, path: Path) -> str:
        """The id derived from the file name, unless another file already holds it: then the
        extension is added ("nda-txt"), then a content hash, so two files never overwrite each
        other. The same file name again names the same contract: the same bytes are unchanged,
        other bytes are its next version only when asked for (:meth:`refuse_a_silent_replacement`)."""
        base = contract_id_for(path.name)
        candidates = [
            base,
            f"{base}-{path.suffix.lstrip('.').lower()}" if path.suffix else base,
            f"{base}-{file_sha256(path)[:8]}",
        ]
        for candidate in candidates:
            existing = self.store.manifest(candidate)
            if existing is None or existing.file_name == path.name:
                return candidate
        return candidates[-1]

    def current(self, contract_id: str, content_hash: str) -> Manifest | None:
        """The manifest of ``contract_id`` when it was built from these bytes with these settings
        (ingesting them again would build the same indexes), else None."""
        existing = self.store.manifest(contract_id)
        if (
            existing is not None
            and existing.content_sha256 == content_hash
            and existing.ingest_fingerprint == self.settings.ingest_fingerprint()
            and existing.index_format == INDEX_FORMAT
            and existing.embedding_model == self.embedder.model_id
        ):
            return existing
        return None

    def refuse_a_silent_replacement(self, contract_id: str, content_hash: str, allowed: bool) -> None:
        """Raise :class:`ContractChanged` when ``contract_id`` holds other bytes and no new version
        was asked for (the same bytes rebuilt, for new settings, are always allowed)."""
        existing = self.store.manifest(contract_id)
        if allowed or existing is None or existing.content_sha256 == content_hash:
            return
        raise ContractChanged(
            f"contract {contract_id!r} already holds other content (version {existing.version}, "
            f"{existing.file_name}, ingested {existing.created_at})",
            hint="ingest it as its next version (--new-version; API: new_version=true), "
            "or under another contract id (--id; API: contract_id)",
        )

    def ingest(
        self,
        path: Path,
        contract_id: str | None = None,
        force: bool = False,
        progress: Progress | None = None,
        new_version: bool = False,
    ) -> IngestResult:
        """Build ``path`` into the contract's next version. The same bytes and settings again are
        ``unchanged`` (unless ``force``); different bytes under an existing contract are refused
        unless ``new_version`` (or ``force``) says they are its next version. Traced as a
        ``clausewise.ingest`` span over its steps' spans."""
        with span("clausewise.ingest", {"clausewise.tenant": self.store.tenant}) as ingesting:
            result = self._ingest(path, contract_id, force, progress, new_version)
            annotate(
                ingesting,
                {
                    "clausewise.contract": result.contract_id,
                    "clausewise.contract.version": result.manifest.version,
                    "clausewise.ingest.status": result.status,
                },
            )
        return result

    def _ingest(
        self,
        path: Path,
        contract_id: str | None,
        force: bool,
        progress: Progress | None,
        new_version: bool,
    ) -> IngestResult:
        progress = progress or NoProgress()
        path = Path(path)
        size = check_size(path, self.settings.parsing.max_file_mb)
        contract_id = validate_contract_id(contract_id or self.contract_id_for(path))
        content_hash = file_sha256(path)
        fingerprint = self.settings.ingest_fingerprint()
        with self.store.layout.ingest_lock(contract_id):
            existing = self.current(contract_id, content_hash)
            if existing is not None and not force:
                log.debug(
                    "unchanged, not rebuilt", extra={"contract": contract_id, "tenant": self.store.tenant}
                )
                return IngestResult(contract_id, "unchanged", existing)
            self.refuse_a_silent_replacement(contract_id, content_hash, force or new_version)
            timings: dict[str, float] = {}

            progress.stage("parsing")
            started = time.perf_counter()
            with span("ingest.parse") as parsing:
                document = parse_document(path, self.settings.parsing)
                annotate(
                    parsing,
                    {
                        "clausewise.pages": len(document.pages),
                        "clausewise.ocr_pages": len(document.ocr_pages),
                    },
                )
            timings["parse"] = time.perf_counter() - started

            progress.stage("structure")
            started = time.perf_counter()
            with span("ingest.structure") as structuring:
                tree = build_tree(document, self.settings.structure)
                definitions = find_definitions(document.text, tree)
                references = find_cross_references(document.text, tree)
                chunks = build_chunks(document, tree, contract_id, self.settings.chunking)
                annotate(
                    structuring, {"clausewise.clauses": len(tree.nodes), "clausewise.chunks": len(chunks)}
                )
            timings["structure"] = time.perf_counter() - started

            progress.stage("embedding", total=len(chunks))
            started = time.perf_counter()
            with span("ingest.embed", {"clausewise.embedding.model": self.embedder.model_id}):
                embeddings = self.embedder.embed([c.text for c in chunks], progress=progress.advance)
            timings["embed"] = time.perf_counter() - started

            progress.stage("indexing")
            started = time.perf_counter()
            with span("ingest.bm25"):
                bm25 = BM25Index.build(
                    [c.id for c in chunks],
                    [c.text for c in chunks],
                    self.settings.retrieval.bm25_k1,
                    self.settings.retrieval.bm25_b,
                )
            timings["bm25"] = time.perf_counter() - started
            manifest = Manifest(
                contract_id=contract_id,
                tenant=self.store.tenant,
                file_name=path.name,
                source_path=str(path.resolve()),
                file_type=document.file_type.value,
                content_sha256=content_hash,
                size_bytes=size,
                pages=len(document.pages),
                characters=len(document.text),
                created_at=datetime.now(UTC).isoformat(timespec="seconds"),
                clausewise_version=clausewise_version(),
                ingest_fingerprint=fingerprint,
                settings={
                    "parsing": self.settings.parsing.model_dump(mode="json"),
                    "structure": self.settings.structure.model_dump(mode="json"),
                    "chunking": self.settings.chunking.model_dump(mode="json"),
                },
                embedding_model=self.embedder.model_id,
                embedding_dimension=int(embeddings.shape[1]) if len(chunks) else self.embedder.dimension,
                structure=tree.structure,
                counts={
                    "nodes": len(tree.nodes),
                    "chunks": len(chunks),
                    "definitions": len(definitions),
                    "cross_references": len(references),
                    "unresolved_references": sum(1 for r in references if r.target is None),
                },
                ocr_pages=document.ocr_pages,
                warnings=document.warnings,
                timings={k: round(v, 3) for k, v in timings.items()},
                title=contract_title(document.text),
                parties=contract_parties(document.text),
            )
            artifacts = ContractArtifacts(
                manifest, document, tree, definitions, references, chunks, embeddings, bm25
            )
            # the original travels with the index version (atomically, like the rest), so its
            # pages can be rendered as long as the contract exists, wherever the file was
            manifest.original = f"original{path.suffix.lower()}"
            artifacts.extra_writers.append(lambda staging: shutil.copyfile(path, staging / manifest.original))
            if self.settings.builds_knowledge_graph():
                progress.stage("knowledge graph")
                started = time.perf_counter()
                spec = graph_spec(document.text, tree, definitions, references)
                spec_seconds = time.perf_counter() - started

                def write_knowledge_graph(staging: Path) -> None:
                    began = time.perf_counter()
                    write_graph(staging / GRAPH_FOLDER, spec, self.embedder)
                    # the manifest is written after this, so it records what the graph cost
                    manifest.timings["graph"] = round(spec_seconds + time.perf_counter() - began, 3)

                artifacts.extra_writers.append(write_knowledge_graph)
            started = time.perf_counter()
            self.store.write(artifacts)
            write_seconds = time.perf_counter() - started
            log.info(
                "ingested %s",
                path.name,
                extra={
                    "contract": contract_id,
                    "tenant": self.store.tenant,
                    "pages": manifest.pages,
                    "ocr_pages": len(manifest.ocr_pages),
                    "seconds": round(sum(timings.values()) + write_seconds, 2),
                },
            )
            return IngestResult(contract_id, "ingested", manifest, write_seconds=write_seconds)
