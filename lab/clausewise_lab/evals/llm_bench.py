"""``clausewise eval llm``: speed, memory and structured-output reliability of the embedded models.

Each model runs in its own subprocess so that its peak memory is its own. Figures per model:
load time, prefill and decode tokens/s (from llama.cpp's timings, prompt cache off), the share of
50 extraction prompts (CUAD dev clauses) answered with valid JSON (first attempt, and after the
repair parser and one retry), seconds per prompt, and peak resident memory. ``--mode prompt``
measures the same without constrained decoding (what a server without JSON-schema support gets).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from clausewise.core.config import load_settings
from clausewise.core.errors import StructuredOutputError
from clausewise_lab import EXAMPLES

CATEGORIES = (
    "Governing Law",
    "Agreement Date",
    "Parties",
    "Expiration Date",
    "Renewal Term",
    "Notice Period to Terminate Renewal",
    "Termination for Convenience",
    "Cap on Liability",
)
GOALS = {"valid_json_after_repair": 0.98}


class ClauseExtraction(BaseModel):
    """What the benchmark asks the model to extract from one clause."""

    category: str = Field(description="The provision category asked about.")
    present: bool = Field(description="Whether the text contains this provision.")
    value: str | None = Field(description="The extracted value (a date, a jurisdiction, a duration, names).")
    quote: str = Field(description="The shortest verbatim quote from the text that supports the value.")


def extraction_prompts(data: Path, limit: int) -> list[tuple[str, str]]:
    """(category, clause text) pairs from CUAD dev answers, taken round-robin over the categories
    (one answer per contract and category, with 200 characters of context on each side)."""
    from clausewise_lab.evals.data import require

    entries = json.loads(require(data / "cuad" / "cuad_dev.json").read_text(encoding="utf-8"))["data"]
    by_category: dict[str, list[tuple[str, str]]] = {c: [] for c in CATEGORIES}
    for entry in entries:
        paragraph = entry["paragraphs"][0]
        for qa in paragraph["qas"]:
            category = next((c for c in CATEGORIES if f'"{c}"' in qa["question"]), None)
            if category is None or not qa["answers"]:
                continue
            answer = qa["answers"][0]
            start = max(0, answer["answer_start"] - 200)
            end = min(len(paragraph["context"]), answer["answer_start"] + len(answer["text"]) + 200)
            by_category[category].append((category, paragraph["context"][start:end]))
    prompts: list[tuple[str, str]] = []
    for position in range(max(len(v) for v in by_category.values())):
        for category in CATEGORIES:
            if position < len(by_category[category]) and len(prompts) < limit:
                prompts.append(by_category[category][position])
    return prompts


def _messages(category: str, text: str) -> list:
    return [
        SystemMessage(
            content="You extract provisions from contracts. Answer with one JSON object with the keys "
            "category, present, value and quote. The quote must be copied exactly from the text."
        ),
        HumanMessage(content=f"<category>{category}</category>\n<text>\n{text}\n</text>"),
    ]


def run_worker(
    model_name: str, data: Path, data_dir: Path, limit: int, threads: int, mode: str = "json_schema"
) -> dict[str, Any]:
    """Measure one embedded model in this process (called in a subprocess by :func:`run`)."""
    from clausewise.core.backends.structured import invoke_structured
    from clausewise.runtime import Runtime

    settings = load_settings(
        overrides={
            "paths": {"data_dir": str(data_dir)},
            "models": {"llm": {"embedded_model": model_name, "cache": "off", "threads": threads}},
        }
    )
    runtime = Runtime(settings)
    started = time.perf_counter()
    model = runtime.base_model(settings.models.llm)
    model.invoke([HumanMessage(content="OK")], max_tokens=1)
    load_seconds = getattr(model.server, "load_seconds", None) or (time.perf_counter() - started)

    contract = (EXAMPLES / "services-agreement.txt").read_text()
    prefill = model.invoke(
        [HumanMessage(content=f"<contract>{contract[:3600]}</contract>\nSay OK.")],
        max_tokens=1,
        cache_prompt=False,
    )
    decode = model.invoke(
        [
            HumanMessage(
                content="Write a 120-word plain-English summary of what a "
                "limitation of liability clause does."
            )
        ],
        max_tokens=160,
        cache_prompt=False,
    )
    prompts = extraction_prompts(data, limit)
    first_try = valid = 0
    seconds: list[float] = []
    failures: list[str] = []
    for category, text in prompts:
        calls_before = len(runtime.ledger.records)
        started = time.perf_counter()
        try:
            invoke_structured(model, _messages(category, text), ClauseExtraction, mode=mode, retries=1)
            valid += 1
            first_try += len(runtime.ledger.records) - calls_before == 1
        except StructuredOutputError as error:
            failures.append(f"{category}: {error.message[:160]}")
        seconds.append(time.perf_counter() - started)
    n = max(len(prompts), 1)
    return {
        "model": model_name,
        "structured_mode": mode,
        "threads": threads or None,
        "load_seconds": round(load_seconds, 2),
        "prefill_tokens": prefill.response_metadata["timings"].get("prompt_n"),
        "prefill_tokens_per_second": round(
            prefill.response_metadata["timings"].get("prompt_per_second", 0), 1
        ),
        "decode_tokens": decode.response_metadata["timings"].get("predicted_n"),
        "decode_tokens_per_second": round(
            decode.response_metadata["timings"].get("predicted_per_second", 0), 1
        ),
        "structured_prompts": len(prompts),
        "valid_json_first_attempt": round(first_try / n, 4),
        "valid_json_after_repair": round(valid / n, 4),
        "seconds_per_structured_prompt": round(sum(seconds) / n, 2),
        "failures": failures,
        "peak_memory_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def run(
    models: list[str], data: Path, data_dir: Path, limit: int, threads: int, mode: str = "json_schema"
) -> dict[str, Any]:
    results = []
    for name in models:
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "clausewise_lab.evals.llm_bench",
                "--model",
                name,
                "--data",
                str(data),
                "--data-dir",
                str(data_dir),
                "--limit",
                str(limit),
                "--threads",
                str(threads),
                "--mode",
                mode,
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if completed.returncode != 0:
            results.append({"model": name, "error": completed.stderr.strip().splitlines()[-1:]})
            continue
        results.append(json.loads(completed.stdout.strip().splitlines()[-1]))
    return {"benchmark": "llm", "data": str(data), "goals": GOALS, "models": results}


def main() -> None:
    parser = argparse.ArgumentParser(description="one model of `clausewise eval llm` (internal)")
    parser.add_argument("--model", required=True)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--limit", type=int, default=50)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--mode", choices=["json_schema", "json_object", "prompt"], default="json_schema")
    args = parser.parse_args()
    print(json.dumps(run_worker(args.model, args.data, args.data_dir, args.limit, args.threads, args.mode)))


if __name__ == "__main__":
    main()
