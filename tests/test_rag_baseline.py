"""The one-call RAG baseline of ``eval qa``: one model call per question, the top-5 chunks in
document order in its prompt, verdicts read from the answer's first words, one index per
contract, and chunk spans that are the contract's text. Fake embedder and scripted model: no
model files, no network."""

from __future__ import annotations

import itertools
import re
import zlib
from collections.abc import Sequence

import numpy as np
import pytest

from clausewise_lab.evals.rag_baseline import (
    ROLE,
    OneCallRag,
    chunk_spans,
    parse_value,
    parse_verdict,
)
from tests.fakes import ScriptedChatModel

TOPICS = [
    ("confidentiality", "secret disclosure recipient proprietary information safeguard"),
    ("term", "duration commencement anniversary expiry years period"),
    ("termination", "breach cure notice terminate insolvency cessation"),
    ("payment", "invoice fees currency dollars remittance overdue"),
    ("governing law", "delaware courts jurisdiction venue statute dispute"),
    ("assignment", "assign transfer successor merger consent acquirer"),
    ("indemnity", "indemnify defend losses claims hold harmless"),
    ("warranty", "warrant merchantability fitness defects workmanship remedy"),
    ("liability", "cap consequential damages limitation aggregate exceed"),
    ("audit", "records inspect books examine accountant quarterly"),
    ("insurance", "policy coverage insurer premium certificate underwriter"),
    ("notices", "writing address courier email deemed delivered"),
]


def _contract() -> str:
    """Twelve sections of ~700 characters, each with its own vocabulary, so the bag-of-words
    fake embedder ranks chunks by the words a question shares with them."""
    sections = []
    for number, (title, words) in enumerate(TOPICS, start=1):
        vocabulary = words.split()
        sentences = [
            f"The {vocabulary[i % 6]} of the parties concerning {vocabulary[(i + 1) % 6]} and "
            f"{vocabulary[(i + 2) % 6]} shall apply."
            for i in range(8)
        ]
        sections.append(f"{number}. {title.title()}.\n" + " ".join(sentences))
    return "\n\n".join(sections)


class HashedWords:
    """Deterministic embeddings: a bag of words hashed into 256 buckets, L2-normalised. Counts
    the texts it embeds, so a test can tell whether a contract was embedded again."""

    model_id = "hashed-words"
    dimension = 256

    def __init__(self) -> None:
        self.embedded = 0

    def embed(self, texts: Sequence[str], progress=None) -> np.ndarray:
        self.embedded += len(texts)
        rows = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                rows[row, zlib.crc32(word.encode()) % self.dimension] += 1.0
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        return rows / np.maximum(norms, 1e-12)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed(texts)


def _evidence_blocks(prompt: str) -> list[str]:
    evidence = prompt.split("<evidence>", 1)[1].split("</evidence>", 1)[0].strip()
    return re.split(r"\n\n(?=\[\d+\] )", evidence)


def test_one_call_with_the_top_five_chunks_in_document_order() -> None:
    text = _contract()
    embedder = HashedWords()
    model = ScriptedChatModel(replies=["Yes, the recipient must safeguard secret information."])
    baseline = OneCallRag(embedder, model)
    question = "Must the recipient keep proprietary information secret and safeguard it?"

    answer = baseline.answer(text, question, "yes/no")

    assert len(model.calls) == 1
    # the expected top 5, computed apart from llama-index: cosine similarity of the fake vectors
    spans = chunk_spans(text)
    scores = embedder.embed([text[a:b] for a, b in spans]) @ embedder.embed([question])[0]
    ranked = np.argsort(-scores, kind="stable")
    assert scores[ranked[4]] > scores[ranked[5]]  # no tie at the cut
    expected = sorted(spans[i] for i in ranked[:5])
    assert answer.spans == expected
    prompt = str(model.calls[0][0][-1].content)
    blocks = _evidence_blocks(prompt)
    assert blocks == [f"[{n}] {text[a:b]}" for n, (a, b) in enumerate(expected, start=1)]
    assert f"<question>{question}</question>" in prompt
    assert "Start your answer with Yes or No" in prompt
    assert answer.verdict == "yes"
    assert answer.prompt_tokens and answer.completion_tokens
    assert answer.seconds >= 0 and answer.index_seconds > 0


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Yes, the agreement requires it.", "yes"),
        ("No.", "no"),
        ("Not stated", "not addressed"),
        ("Not stated in the passages.", "not addressed"),
        ("**No**, it may be assigned freely.", "no"),
        ("Answer: Yes - section 4 says so.", "yes"),
        ("None of the passages say so.", None),
        ("The agreement says yes.", None),
    ],
)
def test_the_verdict_is_read_from_the_answers_first_words(reply: str, verdict: str | None) -> None:
    assert parse_verdict(reply) == verdict
    baseline = OneCallRag(HashedWords(), ScriptedChatModel(replies=[reply]))
    assert baseline.answer(_contract(), "Is there an audit right?", "yes/no").verdict == verdict


def test_value_and_open_answers() -> None:
    model = ScriptedChatModel(replies=["Delaware", "Not stated.", "Either party may terminate on notice."])
    baseline = OneCallRag(HashedWords(), model)
    text = _contract()

    law = baseline.answer(text, "Which law governs the agreement?", "value")
    missing = baseline.answer(text, "What is the renewal term?", "value")
    summary = baseline.answer(text, "How can the agreement be terminated?", "open")

    assert (law.value, law.verdict) == ("Delaware", None)
    assert missing.value == ""
    assert summary.text == "Either party may terminate on notice." and summary.value == ""
    assert "State only the value" in str(model.calls[0][0][-1].content)
    assert "at most three sentences" in str(model.calls[2][0][-1].content)
    assert parse_value("Answer: 90 days\nbecause section 2 says so") == "90 days"


def test_the_index_is_built_once_per_contract() -> None:
    text = _contract()
    embedder = HashedWords()
    baseline = OneCallRag(embedder, ScriptedChatModel(replies=["No."], repeat_last=True))
    chunks = len(chunk_spans(text))

    first = baseline.answer(text, "Is there an audit right?", "yes/no")
    assert embedder.embedded == chunks + 1  # the chunks and the question
    second = baseline.answer(text, "Is liability capped?", "yes/no")
    assert embedder.embedded == chunks + 2  # the question only
    assert first.index_seconds > 0 and second.index_seconds == 0.0

    other = text.replace("delaware", "ohio")
    third = baseline.answer(other, "Which law governs?", "yes/no")
    assert third.index_seconds > 0
    assert embedder.embedded == 2 * chunks + 3


def test_chunk_spans_are_the_text_and_cover_it_in_order() -> None:
    text = _contract() + "\n\n" + _contract()  # repeated text: locating a chunk by search is ambiguous
    spans = chunk_spans(text)
    assert len(spans) > 10
    assert all(b - a <= 1000 for a, b in spans)
    assert spans == sorted(spans)
    assert spans[0][0] == 0 and spans[-1][1] == len(text.rstrip())
    # each chunk starts after the previous one, overlaps it by at most 100 characters, and
    # leaves no text out between them
    for (a1, b1), (a2, _) in itertools.pairwise(spans):
        assert a1 < a2 and b1 - 100 <= a2 and text[b1:a2].strip() == ""

    embedder = HashedWords()
    baseline = OneCallRag(embedder, ScriptedChatModel(replies=["No."]))
    answer = baseline.answer(text, "Is there insurance coverage?", "yes/no")
    prompt = str(baseline.model.calls[0][0][-1].content)
    for n, (a, b) in enumerate(answer.spans, start=1):
        assert f"[{n}] {text[a:b]}" in prompt


def test_no_llama_index_global_defaults_are_used() -> None:
    from llama_index.core import Settings

    OneCallRag(HashedWords(), ScriptedChatModel(replies=["No."])).answer(_contract(), "Audit?", "yes/no")
    assert Settings._llm is None and Settings._embed_model is None


def test_unknown_form_is_refused() -> None:
    baseline = OneCallRag(HashedWords(), ScriptedChatModel(replies=[]))
    with pytest.raises(ValueError, match="unknown answer form"):
        baseline.answer(_contract(), "Audit?", "essay")


def test_from_runtime_uses_the_writer_model_tagged_as_the_baseline(settings) -> None:
    from clausewise.runtime import ModelHub, Runtime

    embedder = HashedWords()
    hub = ModelHub()
    hub.embedder = lambda _settings: embedder  # type: ignore[method-assign]
    runtime = Runtime(settings, hub=hub)
    model = ScriptedChatModel(replies=["Yes."], callbacks=[runtime.ledger])
    asked: list[str] = []

    def base_model(llm_settings, progress=None):
        asked.append(llm_settings)
        return model

    runtime.base_model = base_model  # type: ignore[method-assign]
    baseline = OneCallRag.from_runtime(runtime)
    answer = baseline.answer(_contract(), "Is there an audit right?", "yes/no")

    assert asked == [settings.models.for_role("writer")]
    assert baseline.embedder is embedder and answer.verdict == "yes"
    assert [r.role for r in runtime.ledger.records] == [ROLE]
