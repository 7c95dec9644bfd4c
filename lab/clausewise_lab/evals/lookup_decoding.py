"""``clausewise eval lookup-decoding``: does speculative decoding speed up the writer's restatements?

A report's one model call restates the planned sentences (``prompts/answer_restate.md``), and a
restatement copies much of its source, which is what prompt-lookup decoding (llama.cpp's n-gram
speculative decoding) is for: draft the next tokens from the prompt and verify them in one batch.
Each design is loaded as its own llama.cpp server (xllamacpp, the product's embedded engine) with
the embedded 1.5B model and asked the same restatement prompts, built from the example contracts'
planned sentences (how the contract may be ended, each party's duties), with the product's JSON
schema: generated tokens per second (llama.cpp's own timing), drafted and accepted tokens.
Nothing here is a product path; the product loads its server without speculation.
"""

from __future__ import annotations

import secrets
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clausewise.core.prompting import load_prompt
from clausewise.core.results import Restatement
from clausewise_lab import EXAMPLES
from tools.text_plans import EachPartysDuties, EveryGroundToTerminate


@dataclass(frozen=True)
class Design:
    """One way of decoding: llama.cpp's speculative type and its sizes."""

    name: str
    kind: str  # a member of xllamacpp.common_speculative_type
    ngram: tuple[int, int] | None = None  # ngram_simple (size_n, size_m)
    draft_tokens: int | None = None  # the draft model's n_max


DESIGNS = (
    Design("without", "COMMON_SPECULATIVE_TYPE_NONE"),
    Design("lookup 12/48", "COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE", ngram=(12, 48)),
    Design("lookup 3/8", "COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE", ngram=(3, 8)),
    Design("lookup 2/4", "COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE", ngram=(2, 4)),
    Design("lookup map-k", "COMMON_SPECULATIVE_TYPE_NGRAM_MAP_K"),
    Design("0.5B draft model, 4", "COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE", draft_tokens=4),
)
QUESTIONS = {
    "How can this agreement be terminated?": EveryGroundToTerminate(),
    "What are each party's main obligations?": EachPartysDuties(),
}


def restatement_requests(
    contracts: tuple[str, ...] = ("services-agreement", "supply-agreement"),
) -> list[dict]:
    """The writer's restatement requests for the example contracts' planned questions."""
    requests = []
    schema = {
        "type": "json_schema",
        "json_schema": {"name": "Restatement", "schema": Restatement.model_json_schema()},
    }
    for contract in contracts:
        text = (EXAMPLES / f"{contract}.txt").read_text(encoding="utf-8")
        for question, plan in QUESTIONS.items():
            spans = plan.spans(text, None)
            sources = "\n".join(
                f'[{n}] (p. 1): "{" ".join(text[a:b].split())[:600]}"'
                for n, (a, b) in enumerate(spans, start=1)
            )
            messages = load_prompt("answer_restate").messages(
                question=question, parts="none", sources=sources
            )
            roles = {"human": "user", "ai": "assistant", "system": "system"}
            requests.append(
                {
                    "messages": [{"role": roles[m.type], "content": m.content} for m in messages],
                    "max_tokens": 512,
                    "temperature": 0,
                    "cache_prompt": False,
                    "response_format": schema,
                }
            )
    return requests


def _server(model: Path, draft_model: Path, design: Design, threads: int) -> Any:
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model)
    params.n_ctx, params.n_batch, params.n_ubatch, params.n_parallel = 8192, 2048, 512, 1
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads
    params.sampling.seed = 42
    params.verbosity = 0
    params.api_keys = [secrets.token_hex(16)]
    params.speculative.types = [getattr(xllamacpp.common_speculative_type, design.kind)]
    if design.ngram is not None:
        params.speculative.ngram_simple.size_n, params.speculative.ngram_simple.size_m = design.ngram
    if design.draft_tokens is not None:
        params.speculative.draft.mparams.path = str(draft_model)
        params.speculative.draft.cpuparams.n_threads = threads
        params.speculative.draft.n_max = design.draft_tokens
    return xllamacpp.Server(params)


def lookup_decoding(
    model: Path, draft_model: Path, threads: int, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """Generated tokens per second of each design on the same restatement requests (each asked
    twice, the first answer warming the server; the second is measured)."""
    requests = restatement_requests()
    rows = []
    for design in DESIGNS:
        server = _server(model, draft_model, design, threads)
        rates, drafted, accepted, tokens = [], 0, 0, 0
        for request in requests:
            for attempt in range(2):
                reply = server.handle_chat_completions(request)
                timings = reply.get("timings", {})
                if attempt == 1:
                    rates.append(float(timings.get("predicted_per_second", 0.0)))
                    drafted += int(timings.get("draft_n", 0) or 0)
                    accepted += int(timings.get("draft_n_accepted", 0) or 0)
                    tokens += int(reply.get("usage", {}).get("completion_tokens", 0))
        row = {
            "design": design.name,
            "tokens_per_second_median": round(statistics.median(rates), 2),
            "generated_tokens": tokens,
            "drafted": drafted,
            "accepted": accepted,
        }
        log(f"{design.name}: {row['tokens_per_second_median']} tokens/s, {accepted} of {drafted} accepted")
        rows.append(row)
        del server
    base = rows[0]["tokens_per_second_median"] or 1.0
    for row in rows:
        row["speed_over_without"] = round(row["tokens_per_second_median"] / base, 2)
    return {
        "benchmark": "lookup-decoding",
        "requests": len(requests),
        "threads": threads,
        "designs": rows,
        "goal": 2.0,
    }
