"""Readers for the benchmark data folder (layout of ../shared/data; any split with that layout).

    contractnli/dev.json           ContractNLI documents, spans and labels
    legalbenchrag/benchmarks/*.json, legalbenchrag/corpus/...
    cuad/cuad_dev.json, cuad/pdf/*.pdf
    acord/corpus.jsonl, queries.jsonl, qrels/*.tsv

The data is never copied into the repository; every reader fails with BenchDataMissing naming
the missing file and the setting that points to the folder.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from clausewise.core.domain import Span
from clausewise.core.errors import BenchDataMissing
from clausewise_lab.evals.folds import is_heldout

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

T = TypeVar("T")
LEGALBENCH_DATASETS = ("contractnli", "cuad", "maud", "privacy_qa")


def in_fold(
    items: Sequence[T], name: Callable[[T], str], fold: str, skip: int = 0, limit: int | None = None
) -> list[T]:
    """The items of ``fold`` ("all", or "heldout": documents no shipped model was trained on, by
    :func:`clausewise_lab.evals.folds.is_heldout` of ``name(item)``), past the first ``skip``,
    at most ``limit``."""
    chosen = [item for item in items if fold == "all" or is_heldout(name(item))][skip:]
    return chosen[:limit] if limit else chosen


def require(path: Path) -> Path:
    if not path.exists():
        raise BenchDataMissing(
            f"benchmark data not found at {path}",
            hint="point --data (or CLAUSEWISE_BENCH_DATA) at a folder with the layout of ../shared/data",
        )
    return path


@dataclass
class GoldDocument:
    """A document's text with gold character spans (CUAD answers, LegalBench-RAG snippets)."""

    name: str
    text: str
    spans: list[Span] = field(default_factory=list)


def cuad_documents(root: Path, file_name: str = "cuad_dev.json") -> list[GoldDocument]:
    data = json.loads(require(root / "cuad" / file_name).read_text(encoding="utf-8"))
    documents = []
    for entry in data["data"]:
        paragraph = entry["paragraphs"][0]
        spans = [
            (a["answer_start"], a["answer_start"] + len(a["text"]))
            for qa in paragraph["qas"]
            for a in qa["answers"]
        ]
        documents.append(GoldDocument(entry["title"], paragraph["context"], spans))
    return documents


@dataclass
class LegalBenchQuery:
    query: str
    snippets: list[tuple[str, Span]]  # (file path relative to corpus/, span)


def legalbench_queries(root: Path, dataset: str) -> list[LegalBenchQuery]:
    path = require(root / "legalbenchrag" / "benchmarks" / f"{dataset}.json")
    tests = json.loads(path.read_text(encoding="utf-8"))["tests"]
    return [
        LegalBenchQuery(t["query"], [(s["file_path"], (s["span"][0], s["span"][1])) for s in t["snippets"]])
        for t in tests
    ]


def legalbench_corpus_text(root: Path, file_path: str) -> str:
    """A corpus file's text exactly as the benchmark's offsets expect (UTF-8, universal newlines)."""
    return require(root / "legalbenchrag" / "corpus" / file_path).read_text(encoding="utf-8")


def legalbench_documents(root: Path, dataset: str) -> list[GoldDocument]:
    by_file: dict[str, list[Span]] = defaultdict(list)
    for query in legalbench_queries(root, dataset):
        for file_path, span in query.snippets:
            by_file[file_path].append(span)
    return [
        GoldDocument(fp, legalbench_corpus_text(root, fp), spans) for fp, spans in sorted(by_file.items())
    ]


@dataclass
class ContractNliDocument:
    id: str
    file_name: str
    text: str
    spans: list[Span]
    annotations: dict[str, tuple[str, list[int]]]  # hypothesis key -> (label, span indexes)


@dataclass
class ContractNli:
    documents: list[ContractNliDocument]
    hypotheses: dict[str, str]  # "nda-1" -> hypothesis text


def contractnli(root: Path, file_name: str = "dev.json") -> ContractNli:
    data = json.loads(require(root / "contractnli" / file_name).read_text(encoding="utf-8"))
    documents = [
        ContractNliDocument(
            id=str(d["id"]),
            file_name=d["file_name"],
            text=d["text"],
            spans=[(s[0], s[1]) for s in d["spans"]],
            annotations={
                key: (value["choice"], list(value["spans"]))
                for key, value in d["annotation_sets"][0]["annotations"].items()
            },
        )
        for d in data["documents"]
    ]
    return ContractNli(documents, {k: v["hypothesis"] for k, v in data["labels"].items()})


def cuad_pdfs(root: Path) -> list[Path]:
    return sorted(require(root / "cuad" / "pdf").glob("*.pdf"))


@dataclass
class Acord:
    corpus: dict[str, str]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def acord(root: Path, qrels_file: str = "valid.tsv") -> Acord:
    base = require(root / "acord")
    corpus = {}
    for line in require(base / "corpus.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            corpus[str(row["_id"])] = (row.get("title", "") + " " + row["text"]).strip()
    queries = {}
    for line in require(base / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            queries[str(row["_id"])] = row["text"]
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    with require(base / "qrels" / qrels_file).open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            qrels[row["query-id"]][row["corpus-id"]] = int(row["score"])
    return Acord(corpus, queries, dict(qrels))


def document_ids(
    names: Iterable[str], prefix: str, label: Callable[[str], str] = lambda name: name
) -> dict[str, str]:
    """A contract id for each dataset document name: ``prefix`` and the slug of its ``label``,
    cut to 60 characters; where two names make the same slug (a contract's Part1 and Part2, an
    agreement and its amendment), each also gets a hash of its whole name, so that no document
    is ingested over another."""
    slugs = {name: re.sub(r"[^a-z0-9]+", "-", label(name).lower()).strip("-")[:60] for name in set(names)}
    taken = Counter(slugs.values())
    return {
        name: f"{prefix}-{slug}"
        + (f"-{hashlib.sha1(name.encode()).hexdigest()[:6]}" if taken[slug] > 1 else "")
        for name, slug in slugs.items()
    }


def ingest_text(runtime: Runtime, text: str, contract_id: str, scratch: Path) -> str:
    """Ingest a dataset's document text as a contract (through a .txt file, which keeps every
    character offset, so gold spans index the ingested text directly); returns the contract id."""
    path = scratch / f"{contract_id}.txt"
    path.write_text(text, encoding="utf-8")
    return runtime.archivist().ingest(path, contract_id=contract_id).contract_id
