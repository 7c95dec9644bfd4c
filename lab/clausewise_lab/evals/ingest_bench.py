"""``clausewise eval ingest``: clause integrity, parsing speed, OCR speed and OCR accuracy.

- Clause integrity: for each gold span (CUAD answers; LegalBench-RAG snippets), the smallest tree
  node containing it (span trimmed of surrounding whitespace): share not at the document root
  (goal >= 95%) and median ratio node length / span length (goal <= 3).
- Section filing: for each CUAD gold clause with a section number printed above it, whether the
  clause's smallest node has that number in its id path (goal >= 95%), the share in unnumbered
  paragraph nodes (goal <= 15%) and numbering breaks per contract; on the development contracts
  as text, by half (tune / check), and on the real PDFs (:mod:`clausewise_lab.evals.section_filing`).
- Speed: text PDFs through parsing + tree + chunks (pages/s; goal 50 pages <= 10 s); embedding
  of the chunks measured apart.
- OCR: ContractNLI texts rendered to PDF and rasterized at 300 dpi, read back by OCR: seconds per
  page (goal <= 2.5) and word accuracy against the source text (goal >= 98%).
- Knowledge graph: the real PDFs ingested whole by the Archivist; what the LightRAG graph costs
  per contract (seconds, disk) against the rest of the ingest and of the index.
"""

from __future__ import annotations

import difflib
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from clausewise.core.backends.embeddings import Embedder
from clausewise.core.config import Settings
from clausewise.core.progress import NoProgress, Progress
from clausewise.runtime import Runtime
from clausewise_lab.evals.data import (
    GoldDocument,
    contractnli,
    cuad_documents,
    cuad_pdfs,
    legalbench_documents,
)
from clausewise_lab.evals.folds import is_heldout
from clausewise_lab.evals.section_filing import FilingTally, align_spans
from tools.chunking import build_chunks
from tools.parsing import parse_document
from tools.parsing.ocr import tesseract_path
from tools.parsing.text import document_from_text
from tools.rendering import rasterize_pdf, text_to_pdf
from tools.structure.tree_builder import build_tree

GOALS = {
    "non_root_share": 0.95,
    "under_printed_number_share": 0.95,
    "unnumbered_paragraph_share": 0.15,
    "median_node_to_span_ratio": 3.0,
    "seconds_per_50_pages": 10.0,
    "ocr_seconds_per_page": 2.5,
    "ocr_word_accuracy": 0.98,
}
_WORD = re.compile(r"\w+")


def _trimmed(text: str, span: tuple[int, int]) -> tuple[int, int]:
    segment = text[span[0] : span[1]]
    return span[0] + len(segment) - len(segment.lstrip()), span[1] - (len(segment) - len(segment.rstrip()))


def integrity(documents: list[GoldDocument], settings: Settings) -> dict[str, Any]:
    ratios: list[float] = []
    non_root = 0
    fallback = 0
    for document in documents:
        tree = build_tree(document_from_text(document.text, document.name), settings.structure)
        fallback += tree.structure == "fallback"
        for span in document.spans:
            start, end = _trimmed(document.text, span)
            if end <= start:
                continue
            node = tree.smallest_containing((start, end))
            non_root += node.id != tree.root_id
            ratios.append((node.end - node.start) / (end - start))
    return {
        "documents": len(documents),
        "spans": len(ratios),
        "non_root_share": round(non_root / max(len(ratios), 1), 4),
        "median_node_to_span_ratio": round(statistics.median(ratios), 3) if ratios else None,
        "fallback_documents": fallback,
        "_ratios": ratios,
        "_non_root": non_root,
    }


def integrity_suite(root: Path, settings: Settings, limit: int | None, progress: Progress) -> dict[str, Any]:
    sets = {"cuad_dev": lambda: cuad_documents(root)}
    for dataset in ("contractnli", "cuad", "maud", "privacy_qa"):
        sets[f"legalbenchrag_{dataset}"] = lambda d=dataset: legalbench_documents(root, d)
    results: dict[str, Any] = {}
    all_ratios: list[float] = []
    all_non_root = 0
    progress.stage("clause integrity", total=len(sets))
    for name, load in sets.items():
        documents = load()[:limit] if limit else load()
        result = integrity(documents, settings)
        all_ratios += result.pop("_ratios")
        all_non_root += result.pop("_non_root")
        results[name] = result
        progress.advance()
    results["all"] = {
        "spans": len(all_ratios),
        "non_root_share": round(all_non_root / max(len(all_ratios), 1), 4),
        "median_node_to_span_ratio": round(statistics.median(all_ratios), 3) if all_ratios else None,
    }
    return results


def section_filing_suite(
    root: Path, settings: Settings, limit: int | None, progress: Progress
) -> dict[str, Any]:
    """Section filing of the CUAD development contracts as text (tune and check halves, by the
    held-out rule) and of the real CUAD PDFs (gold clauses found again in the PDF's text)."""
    documents = cuad_documents(root)
    halves = {
        "cuad_text_tune": [d for d in documents if not is_heldout(d.name)],
        "cuad_text_check": [d for d in documents if is_heldout(d.name)],
    }
    pdfs = cuad_pdfs(root)[:limit] if limit else cuad_pdfs(root)
    progress.stage(
        "section filing", total=sum(len(v[:limit] if limit else v) for v in halves.values()) + len(pdfs)
    )
    results: dict[str, Any] = {}
    for name, chosen in halves.items():
        tally = FilingTally()
        for document in chosen[:limit] if limit else chosen:
            tree = build_tree(document_from_text(document.text, document.name), settings.structure)
            tally.add(document.name, document.text, tree, document.spans, keep_misses=40)
            progress.advance()
        results[name] = tally.result()
    by_title = {d.name: d for d in documents}
    tally = FilingTally()
    found = total = 0
    for pdf in pdfs:
        gold = by_title.get(pdf.stem)
        parsed = parse_document(pdf, settings.parsing)
        if gold is not None:
            aligned = align_spans(gold.text, gold.spans, parsed.text)
            spans = [span for span in aligned if span is not None]
            found += len(spans)
            total += len(aligned)
            tally.add(pdf.stem, parsed.text, build_tree(parsed, settings.structure), spans, keep_misses=40)
        progress.advance()
    results["cuad_pdf"] = {**tally.result(), "gold_found_in_pdf_text": f"{found}/{total}"}
    return results


def pdf_speed(
    root: Path,
    settings: Settings,
    embedder: Embedder | None,
    embed_pages: int,
    limit: int | None,
    progress: Progress,
) -> dict[str, Any]:
    pdfs = cuad_pdfs(root)[:limit] if limit else cuad_pdfs(root)
    pages = 0
    parse_seconds = structure_seconds = 0.0
    embed_seconds = 0.0
    embedded_pages = embedded_chunks = 0
    progress.stage("text PDFs", total=len(pdfs))
    for pdf in pdfs:
        started = time.perf_counter()
        document = parse_document(pdf, settings.parsing)
        parse_seconds += time.perf_counter() - started
        started = time.perf_counter()
        tree = build_tree(document, settings.structure)
        chunks = build_chunks(document, tree, "bench", settings.chunking)
        structure_seconds += time.perf_counter() - started
        pages += len(document.pages)
        if embedder is not None and embedded_pages < embed_pages:
            started = time.perf_counter()
            embedder.embed([c.text for c in chunks])
            embed_seconds += time.perf_counter() - started
            embedded_pages += len(document.pages)
            embedded_chunks += len(chunks)
        progress.advance()
    total = parse_seconds + structure_seconds
    result: dict[str, Any] = {
        "pdfs": len(pdfs),
        "pages": pages,
        "parse_seconds": round(parse_seconds, 2),
        "structure_and_chunk_seconds": round(structure_seconds, 2),
        "pages_per_second": round(pages / total, 1) if total else None,
        "seconds_per_50_pages": round(50 * total / pages, 2) if pages else None,
    }
    if embedder is not None and embedded_pages:
        result["embedding"] = {
            "model": embedder.model_id,
            "pages": embedded_pages,
            "chunks": embedded_chunks,
            "seconds": round(embed_seconds, 2),
            "chunks_per_second": round(embedded_chunks / embed_seconds, 1),
            "seconds_per_50_pages": round(50 * embed_seconds / embedded_pages, 2),
        }
    return result


def word_accuracy(reference: str, hypothesis: str) -> float:
    """Share of reference words recovered in order (longest matching word blocks)."""
    ref = _WORD.findall(reference)
    hyp = _WORD.findall(hypothesis)
    matcher = difflib.SequenceMatcher(a=ref, b=hyp, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks()) / max(len(ref), 1)


def ocr_suite(root: Path, settings: Settings, max_pages: int, progress: Progress) -> dict[str, Any]:
    if max_pages <= 0:
        return {"skipped": "--ocr-pages 0"}
    if tesseract_path() is None:
        return {"skipped": "tesseract is not installed"}
    nli = contractnli(root)
    ocr_settings = settings.parsing.model_copy(update={"ocr": "auto"})
    pages = 0
    seconds = 0.0
    weighted_accuracy = 0.0
    documents = 0
    progress.stage("OCR", total=max_pages)
    with tempfile.TemporaryDirectory() as tmp:
        for document in nli.documents:
            if pages >= max_pages:
                break
            text_pdf = Path(tmp) / f"{document.id}.pdf"
            scan_pdf = Path(tmp) / f"{document.id}-scan.pdf"
            text_to_pdf(document.text, text_pdf)
            count = rasterize_pdf(text_pdf, scan_pdf, dpi=300, pages=max_pages - pages)
            reference = parse_document(text_pdf, settings.parsing.model_copy(update={"ocr": "off"}))
            reference_text = reference.text[: reference.pages[count - 1].end]
            started = time.perf_counter()
            scanned = parse_document(scan_pdf, ocr_settings)
            seconds += time.perf_counter() - started
            weighted_accuracy += word_accuracy(reference_text, scanned.text) * count
            pages += count
            documents += 1
            progress.advance(count)
    return {
        "documents": documents,
        "pages": pages,
        "dpi": settings.parsing.ocr_dpi,
        "psm": settings.parsing.ocr_psm,
        "workers": settings.parsing.ocr_workers,
        "seconds_per_page": round(seconds / max(pages, 1), 2),
        "word_accuracy": round(weighted_accuracy / max(pages, 1), 4),
    }


def _folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def graph_cost(root: Path, runtime: Runtime, limit: int | None, progress: Progress) -> dict[str, Any]:
    """Ingest each CUAD PDF with the knowledge graph on, in a scratch data directory, and split
    the cost: seconds of the graph against the rest of the ingest, its disk against the index."""
    from clausewise.core.config import with_overrides
    from tools.retrieval.graph import GRAPH_FOLDER

    pdfs = cuad_pdfs(root)[:limit] if limit else cuad_pdfs(root)
    rows: list[dict[str, Any]] = []
    progress.stage("knowledge graph cost", total=len(pdfs))
    with tempfile.TemporaryDirectory() as scratch:
        settings = with_overrides(
            runtime.settings,
            {
                "paths": {"data_dir": scratch, "tenant": "ingest-bench"},
                "structure": {"knowledge_graph": True},
            },
        )
        archivist = Runtime(settings, hub=runtime.hub).archivist()
        for pdf in pdfs:
            result = archivist.ingest(pdf, force=True)
            index = archivist.store.open(result.contract_id)
            timings = result.manifest.timings
            graph_seconds = timings.get("graph", 0.0)
            rest = sum(v for k, v in timings.items() if k != "graph") + result.write_seconds - graph_seconds
            rows.append(
                {
                    "file": pdf.name,
                    "pages": result.manifest.pages,
                    "graph_seconds": graph_seconds,
                    "other_seconds": round(rest, 3),
                    "graph_bytes": _folder_bytes(index.path / GRAPH_FOLDER),
                    "index_bytes": _folder_bytes(index.path),
                }
            )
            index.close()
            archivist.store.delete(result.contract_id)
            progress.advance()
    count = max(len(rows), 1)
    graph_seconds = sum(r["graph_seconds"] for r in rows)
    other_seconds = sum(r["other_seconds"] for r in rows)
    graph_bytes = sum(r["graph_bytes"] for r in rows)
    index_bytes = sum(r["index_bytes"] for r in rows)
    return {
        "pdfs": len(rows),
        "pages": sum(r["pages"] for r in rows),
        "graph_seconds_per_contract": round(graph_seconds / count, 2),
        "other_ingest_seconds_per_contract": round(other_seconds / count, 2),
        "graph_share_of_ingest_seconds": round(graph_seconds / max(graph_seconds + other_seconds, 1e-9), 3),
        "graph_mb_per_contract": round(graph_bytes / count / 1e6, 2),
        "index_mb_per_contract": round(index_bytes / count / 1e6, 2),
        "graph_share_of_index_bytes": round(graph_bytes / max(index_bytes, 1), 3),
        "rows": rows,
    }


def run(
    settings: Settings,
    root: Path,
    embedder: Embedder | None,
    *,
    limit: int | None = None,
    ocr_pages: int = 20,
    embed_pages: int = 100,
    graph_runtime: Runtime | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Every part of the benchmark; the knowledge graph's cost only when given a runtime to
    ingest with (``graph_runtime``: its settings and models, in a scratch data directory)."""
    progress = progress or NoProgress()
    graph = graph_cost(root, graph_runtime, limit, progress) if graph_runtime is not None else None
    return {
        "benchmark": "ingest",
        "data": str(root),
        "goals": GOALS,
        "integrity": integrity_suite(root, settings, limit, progress),
        "section_filing": section_filing_suite(root, settings, limit, progress),
        "pdf_speed": pdf_speed(root, settings, embedder, embed_pages, limit, progress),
        "ocr": ocr_suite(root, settings, ocr_pages, progress),
        **({"knowledge_graph": graph} if graph is not None else {}),
    }
