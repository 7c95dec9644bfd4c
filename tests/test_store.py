"""Ingest into persistent indexes: no-op re-ingest, --force, updates, atomic writes, locks, delete."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from clausewise.core.errors import (
    ContractChanged,
    ContractNotFound,
    IngestInProgress,
    LiveVersion,
    VersionNotFound,
)
from indexes import store as store_module


def _versions(store, contract_id: str) -> list[str]:
    return sorted(p.name for p in (store.layout.contract_dir(contract_id) / "versions").iterdir())


def test_ingest_writes_every_index(archivist, store, copy_example) -> None:
    path = copy_example("mutual-nda.txt")
    result = archivist.ingest(path)
    assert result.status == "ingested" and result.contract_id == "mutual-nda"
    index = store.open("mutual-nda")
    manifest = index.manifest
    assert manifest.file_name == "mutual-nda.txt" and manifest.structure == "tree"
    assert manifest.embedding_model == "all-MiniLM-L6-v2-onnx-int8" and manifest.embedding_dimension == 384
    assert manifest.counts["chunks"] == len(index.chunks) == index.vectors.count() == len(index.bm25)
    for name in (
        "manifest.json",
        "document.json",
        "tree.json",
        "definitions.json",
        "xrefs.json",
        "chunks.json",
        "bm25.json",
        "chroma",
    ):
        assert (index.path / name).exists(), name
    assert index.tree.node("2.1(b)").kind == "list_item"
    assert any(d.term == "Confidential Information" for d in index.definitions)
    assert any(r.target == "2.2" for r in index.cross_references)
    # the persisted indexes answer queries
    top_bm25 = index.bm25.search("return or destroy documents after termination", 3)
    assert top_bm25 and top_bm25[0][0].startswith("4.1")
    query = archivist.embedder.embed(["Which law governs the agreement?"])[0]
    top_dense = index.vectors.search(query, 5)
    assert any(chunk_id.startswith("9.1") for chunk_id, _ in top_dense)
    # dense search is exact: the full ranking is the cosine order of every stored vector
    ids, vectors = index.vectors.embeddings()
    cosine = vectors @ query / (np.linalg.norm(vectors, axis=1) * np.linalg.norm(query))
    ranked = index.vectors.search(query, len(ids))
    assert sorted(cid for cid, _ in ranked) == sorted(ids)
    expected = {cid: float(c) for cid, c in zip(ids, cosine, strict=True)}
    assert all(abs(score - expected[cid]) < 1e-5 for cid, score in ranked)
    assert [score for _, score in ranked] == sorted((score for _, score in ranked), reverse=True)
    index.close()


def test_same_content_is_not_ingested_twice_and_force_rebuilds(archivist, store, copy_example) -> None:
    path = copy_example("mutual-nda.txt")
    archivist.ingest(path)
    first = _versions(store, "mutual-nda")
    assert archivist.ingest(path).status == "unchanged"
    assert _versions(store, "mutual-nda") == first
    assert archivist.ingest(path, force=True).status == "ingested"
    second = _versions(store, "mutual-nda")
    assert len(second) == 2 and set(first) < set(second)  # the rebuild is version 2; 1 is kept
    assert [m.version for _p, m in store.versions("mutual-nda")] == [1, 2]
    assert store.manifest("mutual-nda").version == 2


def test_changed_content_under_the_same_id_is_refused_unless_a_new_version(
    archivist, store, copy_example
) -> None:
    path = copy_example("mutual-nda.txt")
    archivist.ingest(path)
    old = store.open("mutual-nda")
    old_text, old_span = old.document.text, old.tree.node("9.1")
    old.close()
    path.write_text(
        "PREFACE ADDED LATER\n\n"
        + path.read_text(encoding="utf-8").replace("twelve (12) months", "eighteen (18) months"),
        encoding="utf-8",
    )
    with pytest.raises(ContractChanged, match="version 1") as refused:
        archivist.ingest(path)
    assert "--new-version" in refused.value.hint
    assert [m.version for _p, m in store.versions("mutual-nda")] == [1]  # nothing was replaced
    assert archivist.ingest(path, new_version=True).status == "ingested"
    assert [m.version for _p, m in store.versions("mutual-nda")] == [1, 2]
    live = store.open("mutual-nda")
    assert live.manifest.version == 2 and "eighteen (18) months" in live.document.text
    live.close()
    # version 1 keeps its text: a span cited against it still shows the same words
    first = store.open("mutual-nda", version=1)
    assert first.document.text == old_text
    assert first.document.text[old_span.start : old_span.end].startswith("9.1 Governing law")
    first.close()
    with pytest.raises(VersionNotFound):
        store.open("mutual-nda", version=7)
    # deleting is explicit: one older version, never the live one alone
    with pytest.raises(LiveVersion):
        store.delete_version("mutual-nda", 2)
    store.delete_version("mutual-nda", 1)
    assert [m.version for _p, m in store.versions("mutual-nda")] == [2]
    assert archivist.ingest(path).status == "unchanged"


def test_title_and_parties_come_from_the_preamble(archivist, store, copy_example) -> None:
    manifest = archivist.ingest(copy_example("mutual-nda.txt")).manifest
    assert manifest.title == "MUTUAL NON-DISCLOSURE AGREEMENT"
    assert manifest.parties == ["Northwind Analytics Ltd.", "Brightwater Health Inc."]
    services = archivist.ingest(copy_example("services-agreement.txt")).manifest
    assert services.title == "MASTER SERVICES AGREEMENT"
    assert services.parties == ["Harbor Logistics Corp.", "Quayline Software Ltd."]


def test_two_files_with_the_same_stem_get_different_ids(archivist, store, copy_example) -> None:
    archivist.ingest(copy_example("mutual-nda.txt"))
    second = archivist.ingest(Path("examples/mutual-nda.pdf"))
    assert second.contract_id == "mutual-nda-pdf"
    assert {m.contract_id for m in store.manifests()} == {"mutual-nda", "mutual-nda-pdf"}


def test_a_crash_while_writing_keeps_the_previous_version(
    archivist, store, copy_example, monkeypatch
) -> None:
    path = copy_example("mutual-nda.txt")
    archivist.ingest(path)
    before = store.open("mutual-nda")
    before_text = before.document.text
    before.close()

    def exploding_writer(*args: object, **kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(store_module, "write_vectors", exploding_writer)
    path.write_text(
        path.read_text(encoding="utf-8") + "\n10. NEW CLAUSE\n\n10.1 Added later.\n", encoding="utf-8"
    )
    with pytest.raises(OSError, match="disk full"):
        archivist.ingest(path, new_version=True)
    after = store.open("mutual-nda")
    assert after.document.text == before_text  # still the old, complete version
    assert after.vectors.count() == len(after.chunks)
    after.close()
    assert not [p for p in _versions(store, "mutual-nda") if p.startswith(".staging")]


def test_an_abandoned_staging_folder_is_invisible_and_swept(archivist, store, copy_example) -> None:
    path = copy_example("mutual-nda.txt")
    archivist.ingest(path)
    live = store.layout.current_version("mutual-nda")
    assert live is not None
    crashed = live.parent / ".staging-crashed"
    shutil.copytree(live, crashed)
    (crashed / "tree.json").write_text("{ truncated", encoding="utf-8")  # a half-written build
    assert store.open("mutual-nda").path == live
    archivist.ingest(path, force=True)
    assert not crashed.exists()


def test_concurrent_ingest_of_one_contract_is_refused(archivist, store, copy_example) -> None:
    path = copy_example("mutual-nda.txt")
    with store.layout.ingest_lock("mutual-nda"), pytest.raises(IngestInProgress):
        archivist.ingest(path)


def test_delete_removes_everything(archivist, store, copy_example) -> None:
    archivist.ingest(copy_example("mutual-nda.txt"))
    folder = store.layout.contract_dir("mutual-nda")
    assert store.delete("mutual-nda") == "mutual-nda"
    assert not folder.exists()
    with pytest.raises(ContractNotFound):
        store.open("mutual-nda")


def test_tenants_are_separate(settings, embedder, copy_example) -> None:
    from agents.archivist import Archivist
    from indexes.store import ContractStore

    acme = settings.model_copy(update={"paths": settings.paths.model_copy(update={"tenant": "acme"})})
    Archivist(acme, ContractStore(acme), embedder).ingest(copy_example("mutual-nda.txt"))
    assert [m.contract_id for m in ContractStore(acme).manifests()] == ["mutual-nda"]
    assert ContractStore(settings).manifests() == []


def test_embeddings_in_chroma_are_ours(archivist, store, copy_example) -> None:
    archivist.ingest(copy_example("mutual-nda.txt"))
    index = store.open("mutual-nda")
    ids, stored = index.vectors.embeddings()
    chunk = index.chunks[ids[0]]
    fresh = archivist.embedder.embed([chunk.text])[0]
    assert np.allclose(stored[0], fresh, atol=1e-5)
    index.close()


def _foreign_writer(store, contract_id: str, host: str, pid: int, age: float) -> Path:
    """The ``.writer`` marker another process (or machine) left, ``age`` seconds old."""
    import os
    import time

    folder = store.layout.contract_dir(contract_id)
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / ".writer"
    marker.write_text(f"{host} {pid} other-token\n", encoding="utf-8")
    stamp = time.time() - age
    os.utime(marker, (stamp, stamp))
    return marker


def test_a_writer_on_another_machine_makes_a_second_ingest_fail_fast(archivist, store, copy_example) -> None:
    # flock does not reach across machines on every shared filesystem; the marker does.
    marker = _foreign_writer(store, "mutual-nda", "other-host", 4242, age=5.0)
    with pytest.raises(IngestInProgress, match="other-host"):
        archivist.ingest(copy_example("mutual-nda.txt"))
    assert marker.read_text(encoding="utf-8").startswith("other-host 4242")
    assert store.layout.current_version("mutual-nda") is None


def test_a_dead_writers_marker_is_taken_over(archivist, store, copy_example) -> None:
    import socket
    import subprocess

    # A process of this machine that has exited, and a machine that stopped refreshing its marker.
    exited = subprocess.Popen(["true"])
    exited.wait()
    dead_pid = exited.pid
    _foreign_writer(store, "mutual-nda", socket.gethostname(), dead_pid, age=1.0)
    assert archivist.ingest(copy_example("mutual-nda.txt")).status == "ingested"
    marker = _foreign_writer(store, "mutual-nda", "gone-host", 4242, age=3600.0)
    assert archivist.ingest(copy_example("mutual-nda.txt"), force=True).status == "ingested"
    assert not marker.exists()  # released after the ingest
