"""A plain one-call RAG baseline for ``eval qa``: the yardstick the product is measured against.

What a competent engineer builds in an afternoon with llama-index, on the product's own models so
only the method differs: the contract split with SentenceSplitter (~1,000 characters, small
overlap), embedded with the product's embedder into an in-memory VectorStoreIndex, the top-5
chunks by cosine similarity put in the prompt in document order, and one call to the writer
role's model. No query rewriting, reranking, turns, citations or checks.

Each answer records the spans of the chunks it was shown (so retrieval can be scored against the
gold spans) and the seconds of retrieval plus the call. Embedding a contract is done once per
contract text and timed apart (``index_seconds``): the product's benchmark times its questions
after ingestion, so the baseline's per-question seconds leave its indexing out too.
"""

from __future__ import annotations

import hashlib
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from clausewise.core.prompting import load_prompt
from tools.retrieval.llama_embedding import llama_index_embedding

if TYPE_CHECKING:
    from langchain_core.runnables import Runnable

    from clausewise.core.backends.embeddings import Embedder
    from clausewise.core.domain import Span
    from clausewise.core.report import Verdict
    from clausewise.runtime import Runtime

AnswerForm = Literal["yes/no", "value", "open"]

#: Chunk size and overlap in characters (~256 and ~25 tokens): five chunks and the instructions
#: fit a 1.5B model's prompt budget with room to spare, and one chunk holds a typical clause.
CHUNK_CHARS = 1000
CHUNK_OVERLAP = 100
TOP_K = 5
#: Tagged so the usage ledger keeps the baseline's calls apart from the product's writer calls.
ROLE = "rag-baseline"

INSTRUCTIONS: dict[str, str] = {
    "yes/no": "Start your answer with Yes or No, then give the reason in one or two sentences. "
    "If the passages do not answer the question, answer Not stated.",
    "value": "State only the value asked for (a date, a period, a place, names, an amount), in the "
    "contract's words, with no explanation. If the passages do not state it, answer Not stated.",
    "open": "Answer in at most three sentences. If the passages do not answer the question, "
    "answer Not stated.",
}

_LEAD = re.compile(r"^[\W_]*(?:answer\s*:\s*)?[\W_]*", re.IGNORECASE)
_VERDICT = re.compile(r"(not stated|not addressed|not mentioned|yes|no)\b", re.IGNORECASE)
_NOT_STATED = re.compile(r"not (?:stated|addressed|mentioned)\b", re.IGNORECASE)


@dataclass(frozen=True)
class BaselineAnswer:
    """One baseline answer, with what it was shown and what it cost."""

    question: str
    form: AnswerForm
    text: str
    verdict: Verdict | None
    """yes / no / not addressed from the answer's first words (yes/no questions only)."""
    value: str
    """The answer's first line for value questions ("" when it says Not stated)."""
    spans: list[Span]
    """Character spans of the retrieved chunks in the contract text, in document order."""
    prompt_tokens: int | None
    completion_tokens: int | None
    seconds: float
    """Retrieval (query embedding and search) plus the model call."""
    index_seconds: float
    """Time spent chunking and embedding the contract for this question (0.0 when the index of
    an earlier question on the same text was reused)."""


def parse_verdict(text: str) -> Verdict | None:
    """The verdict the answer opens with ("Yes, ..." -> yes, "No." -> no, "Not stated" -> not
    addressed); None when it opens with anything else, which is scored as a wrong answer."""
    match = _VERDICT.match(_LEAD.sub("", text, count=1))
    if match is None:
        return None
    word = match.group(1).lower()
    return "yes" if word == "yes" else "no" if word == "no" else "not addressed"


def parse_value(text: str) -> str:
    """The value stated: the answer's first non-empty line, without an "Answer:" prefix; "" for
    Not stated."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    line = re.sub(r"^answer\s*:\s*", "", line, flags=re.IGNORECASE).strip()
    return "" if _NOT_STATED.match(line.strip("*_ ")) else line


def _splitter(chunk_chars: int, overlap: int) -> Any:
    """SentenceSplitter counting characters (``tokenizer=list``): no tiktoken file is needed,
    and sizes mean the same whatever model reads the chunks."""
    from llama_index.core.node_parser import SentenceSplitter

    return SentenceSplitter(chunk_size=chunk_chars, chunk_overlap=overlap, tokenizer=list)


def chunk_spans(text: str, chunk_chars: int = CHUNK_CHARS, overlap: int = CHUNK_OVERLAP) -> list[Span]:
    """Spans of SentenceSplitter chunks of ``text`` (sizes in characters), in document order.

    llama-index locates each chunk by searching the text from just after the previous chunk's
    start, which in repetitive text (boilerplate sentences recur in contracts) finds an earlier
    copy inside the previous chunk. A chunk starts at most ``overlap`` characters before the
    previous one ends, so we search from there instead."""
    from llama_index.core import Document

    spans: list[Span] = []
    for node in _splitter(chunk_chars, overlap).get_nodes_from_documents([Document(text=text)]):
        content = node.get_content()
        since = max(spans[-1][0] + 1, spans[-1][1] - overlap) if spans else 0
        start = text.find(content, since)
        if start < 0:  # cannot happen for a splitter that only cuts and strips; never misplace one
            continue
        spans.append((start, start + len(content)))
    return spans


class OneCallRag:
    """The baseline: chunk, embed, retrieve the top 5, one model call. Indexes are kept per
    contract text on the instance (not thread-safe; the benchmark asks one question at a time)."""

    def __init__(
        self, embedder: Embedder, model: Runnable, *, top_k: int = TOP_K, chunk_chars: int = CHUNK_CHARS
    ) -> None:
        self.embedder = embedder
        self.model = model
        self.top_k = top_k
        self.chunk_chars = chunk_chars
        self._indexes: dict[str, Any] = {}

    @classmethod
    def from_runtime(cls, runtime: Runtime, **options: Any) -> OneCallRag:
        """The baseline on the runtime's embedder and its writer model (the product's embedded
        model, its cache and ledger), its calls tagged as the baseline's."""
        model = runtime.chat_model("writer").with_config(metadata={"clausewise_role": ROLE}, run_name=ROLE)
        return cls(runtime.embedder, model, **options)

    def _index(self, text: str) -> tuple[Any, float]:
        """The vector index of ``text`` and the seconds spent building it now (0.0 if cached)."""
        key = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if key in self._indexes:
            return self._indexes[key], 0.0
        from llama_index.core import VectorStoreIndex
        from llama_index.core.callbacks import CallbackManager
        from llama_index.core.schema import TextNode

        started = time.perf_counter()
        overlap = min(CHUNK_OVERLAP, self.chunk_chars // 10)
        nodes = [
            TextNode(
                text=text[a:b],
                metadata={"start": a, "end": b},
                excluded_embed_metadata_keys=["start", "end"],
                excluded_llm_metadata_keys=["start", "end"],
            )
            for a, b in chunk_spans(text, self.chunk_chars, overlap)
        ]
        index = VectorStoreIndex(
            nodes,
            embed_model=llama_index_embedding(self.embedder, batch_size=64),
            # unused for ready nodes, but given: None or [] would build llama-index's global default
            transformations=[_splitter(self.chunk_chars, overlap)],
            callback_manager=CallbackManager([]),
        )
        self._indexes[key] = index
        return index, time.perf_counter() - started

    def retrieve(self, text: str, question: str) -> list[Span]:
        """The spans of the top-k chunks of ``text`` for ``question``, in document order."""
        index, _ = self._index(text)
        return self._search(index, question)

    def _search(self, index: Any, question: str) -> list[Span]:
        results = index.as_retriever(similarity_top_k=self.top_k).retrieve(question)
        return sorted((r.node.metadata["start"], r.node.metadata["end"]) for r in results)

    def answer(self, text: str, question: str, form: AnswerForm) -> BaselineAnswer:
        """Answer ``question`` about the contract ``text`` with one model call; ``form`` is
        "yes/no", "value" or "open"."""
        if form not in INSTRUCTIONS:
            raise ValueError(f"unknown answer form {form!r}; use one of {', '.join(INSTRUCTIONS)}")
        index, index_seconds = self._index(text)  # built (and timed) outside the question's seconds
        started = time.perf_counter()
        spans = self._search(index, question)
        evidence = "\n\n".join(f"[{n}] {text[a:b]}" for n, (a, b) in enumerate(spans, start=1))
        messages = load_prompt("baseline_answer").messages(
            evidence=evidence or "(no passages)", question=question, instructions=INSTRUCTIONS[form]
        )
        reply = self.model.invoke(messages)
        seconds = time.perf_counter() - started
        answer = str(reply.content).strip()
        usage = getattr(reply, "usage_metadata", None) or {}
        return BaselineAnswer(
            question=question,
            form=form,
            text=answer,
            verdict=parse_verdict(answer) if form == "yes/no" else None,
            value=parse_value(answer) if form == "value" else "",
            spans=spans,
            prompt_tokens=usage.get("input_tokens"),
            completion_tokens=usage.get("output_tokens"),
            seconds=round(seconds, 3),
            index_seconds=round(index_seconds, 3),
        )
