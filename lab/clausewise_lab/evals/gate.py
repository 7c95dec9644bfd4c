"""``clausewise eval gate``: a small, fixed evaluation of each layer, compared with a committed
baseline, so that a change which lowers quality fails CI and says where.

Each layer is measured on a fixed sample of the development data's tune half (what the product's
rules and thresholds were fitted on, so the gate reads nothing held out), with the product's own
settings and models, and scored by the benchmarks' scorers, which share no code with the product:

==========  ===============================================================================
filing      the clause tree: CUAD contracts as text, gold clauses filed under the section
            number printed above them (:mod:`clausewise_lab.evals.section_filing`)
retrieval   LegalBench-RAG queries (CUAD and ContractNLI), recall of the gold spans at 1 and 8
            within their document, the product's rankers and reranker
routing     the tune half of the phrasing bank: questions sent to the right provision's
            decider, to a wrong one, and outside questions matched
decision    the question bank (yes/no and value questions on the first contracts), decided as
            the quick answer is (the trained deciders, no language model): accuracy of
            committed yes/no answers, their abstention rate, value accuracy
citations   every source of those answers quotes the indexed contract at its span
support     the support check's NLI at ``decision.support_at`` on CUAD claim/sentence pairs:
            precision and recall of "supported"
==========  ===============================================================================

The baseline (``lab/clausewise_lab/data/gate-baseline.json``) holds each figure, which way is better and
how far it may move the wrong way (its tolerance). :func:`regressions` is a pure comparison; the
figures of a run that passes can be written over the baseline with ``--update-baseline``, which
is a deliberate commit.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clausewise.core.config import with_overrides
from clausewise.core.progress import NoProgress, Progress
from clausewise_lab.evals.data_files import data_file

if TYPE_CHECKING:
    from clausewise.runtime import Runtime

#: The committed baseline the test command compares with.
BASELINE = data_file("gate-baseline.json")
LAYERS = ("filing", "retrieval", "routing", "decision", "citations", "support")
#: The gate's own tenant: its ingests never mix with a user's or another benchmark's.
TENANT = "eval-gate"
#: Sample sizes, fixed so that every run reads the same data (minutes on two cores).
FILING_CONTRACTS = 30
RETRIEVAL_DATASETS = ("cuad", "contractnli")
RETRIEVAL_QUERIES = 5
#: Retrieval samples its queries among those on documents of at most this size (a quarter of
#: CUAD's contracts are shorter): embedding the sample's documents was half of the gate's time.
RETRIEVAL_MAX_DOCUMENT_BYTES = 20_000
DECISION_CONTRACTS = 3
SUPPORT_CONTRACTS = 12
SEED = 7
#: The retrieval depths the gate reads (of the benchmark's k = 1, 2, 4, 8, ...).
RECALL_AT = (1, 8)


@dataclass(frozen=True)
class Regression:
    """A figure that moved the wrong way by more than its tolerance."""

    layer: str
    figure: str
    baseline: float
    measured: float | None
    tolerance: float

    def describe(self) -> str:
        return (
            f"{self.layer}: {self.figure} {self.measured} against a baseline of {self.baseline} "
            f"(tolerance {self.tolerance})"
        )


def regressions(measured: dict[str, dict[str, float | None]], baseline: dict[str, Any]) -> list[Regression]:
    """Every baseline figure of a measured layer that is missing or worse than its baseline by more
    than its tolerance; layers not measured are not compared."""
    found = []
    for layer, figures in baseline["layers"].items():
        if layer not in measured:
            continue
        for name, expected in figures.items():
            value = measured[layer].get(name)
            base, tolerance = float(expected["value"]), float(expected["tolerance"])
            if value is None:
                found.append(Regression(layer, name, base, None, tolerance))
                continue
            drop = base - value if expected["higher_is_better"] else value - base
            if drop > tolerance + 1e-9:
                found.append(Regression(layer, name, base, value, tolerance))
    return found


def load_baseline(path: Path = BASELINE) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def updated_baseline(
    measured: dict[str, dict[str, float | None]], previous: dict[str, Any]
) -> dict[str, Any]:
    """``previous`` with each measured figure's value replaced by the measured one (direction and
    tolerance kept); the figures of layers not measured (``--layer``) stay as they were."""
    layers = {
        layer: {
            name: {**spec, "value": measured[layer][name]}
            if measured.get(layer, {}).get(name) is not None
            else spec
            for name, spec in figures.items()
        }
        for layer, figures in previous["layers"].items()
    }
    return {**previous, "layers": layers}


def baseline_json(baseline: dict[str, Any]) -> str:
    """The baseline as committed: one line per figure, so that an update's diff shows the values
    that moved and nothing else."""
    layers = ",\n".join(
        f"    {json.dumps(layer)}: {{"
        + ",".join(f"\n      {json.dumps(name)}: {json.dumps(spec)}" for name, spec in figures.items())
        + ("\n    }" if figures else "}")
        for layer, figures in baseline["layers"].items()
    )
    head = {k: v for k, v in baseline.items() if k != "layers"}
    opening = "".join(f"  {json.dumps(k)}: {json.dumps(v)},\n" for k, v in head.items())
    return "{\n" + opening + '  "layers": {\n' + layers + "\n  }\n}\n"


# --- the layers ----------------------------------------------------------------------------------


def filing(runtime: Runtime, root: Path) -> dict[str, float | None]:
    from clausewise_lab.evals.data import cuad_documents
    from clausewise_lab.evals.folds import is_heldout
    from clausewise_lab.evals.section_filing import FilingTally
    from tools.parsing.text import document_from_text
    from tools.structure.tree_builder import build_tree

    tally = FilingTally()
    tune = [d for d in cuad_documents(root) if not is_heldout(d.name)][:FILING_CONTRACTS]
    for document in tune:
        tree = build_tree(document_from_text(document.text, document.name), runtime.settings.structure)
        tally.add(document.name, document.text, tree, document.spans, keep_misses=0)
    result = tally.result()
    return {
        "under_printed_number_share": result["under_printed_number_share"],
        "sequence_breaks_per_contract": result["sequence_breaks_per_contract"],
    }


def retrieval(runtime: Runtime, root: Path, progress: Progress) -> dict[str, float | None]:
    from clausewise_lab.evals import retrieval_bench

    settings = runtime.settings.retrieval
    product = next(
        c.name
        for c in retrieval_bench.CONFIGURATIONS
        if c.rankers == tuple(settings.rankers)
        and c.graph == settings.graph
        and c.rerank == (settings.reranker != "none")
    )
    results = retrieval_bench.run(
        runtime,
        root,
        limit=RETRIEVAL_QUERIES,
        scopes=("document",),
        configurations=(product,),
        datasets=RETRIEVAL_DATASETS,
        fold="tune",
        progress=progress,
        max_document_bytes=RETRIEVAL_MAX_DOCUMENT_BYTES,
        time_reranker=False,
    )
    table = results["scopes"]["document"][product]
    ks = list(retrieval_bench.KS)
    return {
        f"recall_at_{k}": round(
            statistics.fmean(table[d]["recall"][ks.index(k)] for d in RETRIEVAL_DATASETS) / 100, 4
        )
        for k in RECALL_AT
    }


def routing(runtime: Runtime) -> dict[str, float | None]:
    from clausewise_lab.evals import routing_bench

    router = runtime.hub.router(runtime.settings)
    results = routing_bench.run(lambda text: routing_bench.routed_by(router, text), ("tune",))
    figures = results["halves"]["tune"]["figures"]
    return {
        "right_share": figures["catalogue"]["right_share"],
        "wrong_share": figures["catalogue"]["wrong_share"],
        "outside_matched_share": figures["outside"]["matched_share"],
    }


def decision_and_citations(
    runtime: Runtime, root: Path, progress: Progress
) -> dict[str, dict[str, float | None]]:
    """The decision layer and the citations layer, read from one run of the question bank."""
    from clausewise_lab.evals import bank_bench

    results = bank_bench.run(
        runtime,
        root,
        half="tune",
        quick=True,
        contracts=DECISION_CONTRACTS,
        kinds=("yes/no", "value"),
        baseline=False,
        seed=SEED,
        progress=progress,
        model_decides=False,
    )
    product = results["product"]
    decision = {
        "yes_no_committed_accuracy": product["yes_no"]["committed_accuracy"],
        "yes_no_abstention_rate": product["yes_no"]["abstention_rate"],
        "value_accuracy": product["value"]["accuracy"],
    }
    return {"decision": decision, "citations": {"valid_share": _citation_validity(runtime, results["rows"])}}


def _citation_validity(runtime: Runtime, rows: Sequence[dict[str, Any]]) -> float | None:
    """The share of the answers' sources whose quote is the indexed contract's text at its span."""
    texts: dict[str, str] = {}
    valid = total = 0
    for row in rows:
        cid = row["contract_id"]
        if cid not in texts:
            index = runtime.store.open(cid)
            texts[cid] = index.document.text
            index.close()
        for source in row["product"]["sources"]:
            start, end = source["span"]
            total += 1
            valid += texts[cid][start:end] == source["quote"]
    return round(valid / total, 4) if total else None


def support(runtime: Runtime, root: Path) -> dict[str, float | None]:
    from clausewise_lab.evals import support_bench

    supported, unsupported = support_bench.pairs(root, "tune", SUPPORT_CONTRACTS, SEED)
    scorer, at = runtime.nli(), runtime.settings.decision.support_at

    def accepted(pairs: list[tuple[str, str]]) -> int:
        return sum(float(scorer.probabilities(claim, [sentence])[0][0]) >= at for claim, sentence in pairs)

    right, wrong = accepted(supported), accepted(unsupported)
    return {
        "precision": round(right / (right + wrong), 4) if right + wrong else None,
        "recall": round(right / len(supported), 4) if supported else None,
    }


def measure(
    runtime: Runtime,
    root: Path,
    layers: Sequence[str] = LAYERS,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The figures of ``layers`` (all by default) and each layer's seconds."""
    from clausewise.runtime import Runtime

    progress = progress or NoProgress()
    runtime = Runtime(
        with_overrides(runtime.settings, {"paths": {"tenant": TENANT}}), evaluation=True, hub=runtime.hub
    )
    # each step measures the layers it names (the question bank's run gives two), timed by its first
    steps: list[tuple[tuple[str, ...], Callable[[], dict[str, dict[str, float | None]]]]] = [
        (("filing",), lambda: {"filing": filing(runtime, root)}),
        (("retrieval",), lambda: {"retrieval": retrieval(runtime, root, progress)}),
        (("routing",), lambda: {"routing": routing(runtime)}),
        (("decision", "citations"), lambda: decision_and_citations(runtime, root, progress)),
        (("support",), lambda: {"support": support(runtime, root)}),
    ]
    figures: dict[str, dict[str, float | None]] = {}
    seconds: dict[str, float] = {}
    for measured_layers, run in steps:
        if not set(measured_layers) & set(layers):
            continue
        started = time.perf_counter()
        measured = run()
        seconds[measured_layers[0]] = round(time.perf_counter() - started, 1)
        figures.update({layer: found for layer, found in measured.items() if layer in layers})
    return {"layers": figures, "seconds": seconds}
