"""``clausewise train ...``: rebuild the models Clausewise ships from the benchmark data.

Training needs the ``train`` extra (torch, sentence-transformers, datasets, accelerate); those
are imported only when a command runs, so the rest of the CLI starts without them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from clausewise.cli.app import console, state_of
from clausewise_lab.evals.data import require
from clausewise_lab.train.nli_data import NliPairConfig

train_app = typer.Typer(help="Train the models Clausewise ships (development tooling).", no_args_is_help=True)

_DATA = typer.Option(
    None, "--data", help="Benchmark data folder (default: paths.bench_data / CLAUSEWISE_BENCH_DATA)."
)

_SEED = typer.Option(13, "--seed", help="Seed of sampling, shuffling and training.")
_THREADS = typer.Option(2, "--threads", help="CPU threads for training and evaluation.")
_REUSE = typer.Option(
    False, "--reuse-trained", help="Export and evaluate <work-dir>/torch-model again instead of training."
)


def _training_environment() -> None:
    """Offline Hugging Face libraries, and passive OpenMP waiting, set before torch loads:
    spinning threads on a busy 2-core machine made a training step 6x slower than one thread;
    passive waiting keeps 2 threads at least as fast as 1."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")


def _log(message: str) -> None:
    """Training progress on the terminal, printed as is (no Rich markup or highlighting)."""
    console.print(message, markup=False, highlight=False)


def _print_report(report: dict[str, Any]) -> None:
    """The figures that go into the model card, as tables."""
    acord = report["acord"]
    table = Table(title=f"ACORD valid ({acord['queries']} queries): BM25 top-{acord['depth']} reranked")
    for column in ("ranking", "NDCG@5", "NDCG@10", "NDCG@5 (2^s-1)", "NDCG@10 (2^s-1)"):
        table.add_column(column)
    for name in ("bm25", "reranked"):
        row = acord[name]
        table.add_row(name, *(f"{row[k]:.4f}" for k in ("ndcg@5", "ndcg@10", "ndcg@5_exp", "ndcg@10_exp")))
    console.print(table)
    table = Table(title="Held-out fold pairs (int8 ONNX)")
    for column in ("source", "pairs", "AUC", "pairwise accuracy"):
        table.add_column(column)
    for source, row in report["heldout_pairs"].items():
        table.add_row(source, str(row["pairs"]), f"{row['auc']:.4f}", f"{row['pairwise_accuracy']:.4f}")
    console.print(table)
    agree, speed, assets = report["agreement"], report["speed"], report["assets"]
    console.print(
        f"int8 vs torch: Spearman {agree['spearman']}, Pearson {agree['pearson']} on {agree['pairs']} pairs"
    )
    console.print(
        f"Speed: {speed['seconds']} s for {speed['pairs']} pairs of ~{speed['mean_tokens']:.0f} tokens "
        f"({speed['threads']} threads)"
    )
    console.print(f"Model: {assets['size_bytes'] / 1e6:.1f} MB, sha256 {assets['sha256']}")


def _places(ctx: typer.Context, data: Path | None, work_dir: Path | None, name: str) -> dict[str, Path]:
    """Where a trainer reads (the benchmark data) and works (``<data_dir>/train/<name>`` unless
    given), as its config's ``data`` and ``work_dir``."""
    settings = state_of(ctx).runtime().settings
    return {
        "data": require(Path(data or settings.paths.bench_data)),
        "work_dir": work_dir or settings.paths.data_dir / "train" / name,
    }


def _recipe(
    epochs: float, batch_size: int, max_length: int, seed: int, learning_rate: float, threads: int
) -> dict:
    """The training recipe every trainer's config takes alike."""
    return {
        "epochs": epochs,
        "batch_size": batch_size,
        "max_length": max_length,
        "seed": seed,
        "learning_rate": learning_rate,
        "threads": threads,
    }


@train_app.command("reranker")
def train_reranker(
    ctx: typer.Context,
    data: Path | None = _DATA,
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Where model.onnx, tokenizer.json, config.json, MODEL_CARD.md go "
        "(default: clausewise/core/assets/reranker).",
    ),
    work_dir: Path | None = typer.Option(
        None,
        "--work-dir",
        help="Checkpoints, fp32 export and report.json (default: <data_dir>/train/reranker).",
    ),
    max_pairs: int = typer.Option(
        32_000, "--max-pairs", help="Cap on training pairs (whole queries dropped)."
    ),
    epochs: float = typer.Option(1.0, "--epochs", help="Training epochs."),
    batch_size: int = typer.Option(16, "--batch-size", help="Pairs per training step."),
    max_length: int = typer.Option(256, "--max-length", help="Tokens per (query, passage) pair."),
    seed: int = typer.Option(13, "--seed", help="Seed of pair sampling, shuffling and training."),
    learning_rate: float = typer.Option(3e-5, "--learning-rate", help="AdamW peak learning rate."),
    threads: int = _THREADS,
    reuse_trained: bool = _REUSE,
    heldout_limit: int | None = typer.Option(
        None, "--heldout-limit", help="Score at most this many validation pairs (default: all)."
    ),
) -> None:
    """Build pairs, train the cross-encoder, export int8 ONNX, evaluate and write the model card."""
    _training_environment()
    from clausewise_lab.train.reranker import ASSETS_DIR, TrainConfig, run

    config = TrainConfig(
        **_places(ctx, data, work_dir, "reranker"),
        **_recipe(epochs, batch_size, max_length, seed, learning_rate, threads),
        out=out or ASSETS_DIR,
        max_pairs=max_pairs,
        heldout_limit=heldout_limit,
        reuse_trained=reuse_trained,
    )
    report = run(config, log=_log)
    _print_report(report)


@train_app.command("nli")
def train_nli(
    ctx: typer.Context,
    data: Path | None = _DATA,
    out: Path | None = typer.Option(
        None, "--out", help="Where the classifier's files go (default: clausewise/core/assets/nli)."
    ),
    work_dir: Path | None = typer.Option(
        None, "--work-dir", help="Torch model, ONNX exports and report.json (default: <data_dir>/train/nli)."
    ),
    init: Path | None = typer.Option(
        None,
        "--init",
        help="Start from a trained reranker: the torch-model folder in `train reranker`'s work dir.",
    ),
    epochs: float = typer.Option(3.0, "--epochs", help="Training epochs."),
    batch_size: int = typer.Option(16, "--batch-size", help="Pairs per training step."),
    max_length: int = typer.Option(192, "--max-length", help="Tokens per (hypothesis, piece) pair."),
    seed: int = _SEED,
    learning_rate: float = typer.Option(5e-5, "--learning-rate", help="AdamW peak learning rate."),
    threads: int = _THREADS,
    hard_negatives: int = typer.Option(
        NliPairConfig.hard_negatives,
        "--hard-negatives",
        help="NotMentioned pieces per (document, hypothesis) that BM25 ranks highest.",
    ),
    random_negatives: int = typer.Option(
        NliPairConfig.random_negatives,
        "--random-negatives",
        help="Random NotMentioned pieces per (document, hypothesis).",
    ),
    reuse_trained: bool = _REUSE,
) -> None:
    """Train the three-way hypothesis classifier on ContractNLI (outside the held-out fold)."""
    _training_environment()
    from clausewise_lab.train.nli import NLI_ASSETS_DIR, NliTrainConfig, run

    config = NliTrainConfig(
        **_places(ctx, data, work_dir, "nli"),
        **_recipe(epochs, batch_size, max_length, seed, learning_rate, threads),
        out=out or NLI_ASSETS_DIR,
        init=init,
        pair_config=NliPairConfig(hard_negatives=hard_negatives, random_negatives=random_negatives),
        reuse_trained=reuse_trained,
    )
    report = run(config, log=_log)
    held = report["heldout"]
    console.print(f"held-out pieces: accuracy {held['accuracy']}, recall {held['recall']}")
    console.print(f"confusion (rows gold): {held['confusion']}")


@train_app.command("provisions")
def train_provisions(
    ctx: typer.Context,
    data: Path | None = _DATA,
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Where head.npz, config.json and MODEL_CARD.md go (default: clausewise/core/assets/provisions).",
    ),
    regularisation: float = typer.Option(1.0, "--c", help="Inverse regularisation strength of each head."),
    folds: int = typer.Option(
        4, "--folds", help="Contract groups for the out-of-fold threshold calibration."
    ),
    min_df: int = typer.Option(
        5, "--min-df", help="Training clauses a word or word pair needs to be a feature."
    ),
    ngram_weight: float = typer.Option(
        3.0, "--ngram-weight", help="Length of the word features beside the clause vector (0: vectors only)."
    ),
    work_dir: Path | None = typer.Option(
        None,
        "--work-dir",
        help="Where clause vectors are kept between runs (default: <data_dir>/train/provisions).",
    ),
    training_contracts: int = typer.Option(
        0,
        "--training-contracts",
        min=0,
        help="Fit on the first N training contracts only, to compare embedders in bounded time "
        "(0 = all); the held-out contracts are all scored.",
    ),
) -> None:
    """Fit the provision presence classifier on CUAD (outside the held-out fold) and calibrate it."""
    from clausewise_lab.train.provisions import PROVISIONS_ASSETS_DIR, ProvisionTrainConfig, run

    runtime = state_of(ctx).runtime()
    root = require(Path(data or runtime.settings.paths.bench_data))
    config = ProvisionTrainConfig(
        data=root,
        out=out or PROVISIONS_ASSETS_DIR,
        regularisation=regularisation,
        folds=folds,
        min_df=min_df,
        ngram_weight=ngram_weight,
        work_dir=work_dir or runtime.settings.paths.data_dir / "train" / "provisions",
        training_contracts=training_contracts or None,
    )
    report = run(config, runtime.embedder, log=_log)
    table = Table(title="Provision presence, macro F1")
    for column in ("split", "contracts", "macro F1"):
        table.add_column(column)
    for split in ("out_of_fold", "heldout", "heldout_at_0.5"):
        table.add_row(split, str(report[split]["contracts"]), f"{report[split]['macro_f1']:.4f}")
    console.print(table)


@train_app.command("router")
def train_router(
    ctx: typer.Context,
    out: Path | None = typer.Option(
        None,
        "--out",
        help="Where head.npz, config.json, report.json and MODEL_CARD.md go "
        "(default: clausewise/core/assets/router).",
    ),
    regularisation: float = typer.Option(10.0, "--c", help="Inverse regularisation strength of both heads."),
    folds: int = typer.Option(
        4, "--folds", min=2, help="Folds of the tune half the thresholds are chosen on."
    ),
    seed: int = typer.Option(13, "--seed", help="Seed of the folds."),
) -> None:
    """Fit the question router on the provision lists' example questions, outside.yaml and the tune
    half of the phrasing set, with thresholds chosen out of fold on that half."""
    from clausewise_lab.train.router import ROUTER_ASSETS_DIR, RouterTrainConfig, run

    runtime = state_of(ctx).runtime()
    config = RouterTrainConfig(
        out=out or ROUTER_ASSETS_DIR, regularisation=regularisation, folds=folds, seed=seed
    )
    report = run(config, runtime.embedder, log=_log)
    tune = report["tune_out_of_fold"]
    console.print(
        f"Thresholds {report['thresholds']}; tune half out of fold: right {tune['right']}, wrong "
        f"{tune['wrong']}, none {tune['none']}, outside routed {tune['outside_routed']}, qualified routed "
        f"{tune['qualified_routed']}; way round {tune['way_round']}"
    )


@train_app.command("encoder")
def train_encoder(
    ctx: typer.Context,
    data: Path | None = _DATA,
    out: Path | None = typer.Option(
        None, "--out", help="Where the encoder's folder goes (default: clausewise/core/assets/encoder)."
    ),
    work_dir: Path | None = typer.Option(
        None,
        "--work-dir",
        help="Torch model, ONNX exports and report.json (default: <data_dir>/train/encoder).",
    ),
    base: Path | None = typer.Option(
        None,
        "--base",
        help="A sentence-transformers folder to start from (default: all-MiniLM-L6-v2's wheel).",
    ),
    epochs: float = typer.Option(1.0, "--epochs", help="Training epochs."),
    batch_size: int = typer.Option(32, "--batch-size", help="Triplets per step (the in-batch negatives)."),
    max_length: int = typer.Option(256, "--max-length", help="Tokens per text."),
    learning_rate: float = typer.Option(3e-5, "--learning-rate", help="AdamW peak learning rate."),
    max_triplets: int | None = typer.Option(
        None, "--max-triplets", help="Train on at most this many triplets (a bounded run)."
    ),
    objective: list[str] = typer.Option(
        ["triplets"],
        "--objective",
        help="What the encoder learns, repeatable: 'triplets' (clause to provision and question to "
        "clause, contrastive) and 'clauses' (every labelled clause, a multi-label head).",
    ),
    seed: int = _SEED,
    threads: int = _THREADS,
    reuse_trained: bool = _REUSE,
) -> None:
    """Fine-tune the contract encoder (clause to provision, question to clause), export int8 ONNX."""
    _training_environment()
    from clausewise_lab.train.encoder import ENCODER_ASSETS_DIR, EncoderTrainConfig, run

    config = EncoderTrainConfig(
        **_places(ctx, data, work_dir, "encoder"),
        **_recipe(epochs, batch_size, max_length, seed, learning_rate, threads),
        out=out or ENCODER_ASSETS_DIR,
        base=base,
        max_triplets=max_triplets,
        objectives=tuple(objective),
        reuse_trained=reuse_trained,
    )
    report = run(config, log=_log)
    held = report["calibration_triplets"]
    console.print(
        f"calibration triplets ({held['triplets']}): frozen {held['frozen']}, fine-tuned "
        f"{held['trained_float']}, int8 {held['shipped_int8']}; int8 vs float: {report['agreement']}"
    )


def register(app: typer.Typer) -> None:
    app.add_typer(train_app, name="train")
