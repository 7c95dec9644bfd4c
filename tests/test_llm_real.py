"""The real embedded 0.5B model, offline: structured answers, streaming, log-probs, overflow."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from clausewise.core.backends.structured import invoke_structured, yes_probability
from clausewise.core.config import load_settings
from clausewise.core.errors import ContextOverflow
from tests.helpers import SMALL_MODEL, needs_small_model, small_llm

pytestmark = [pytest.mark.real_models, needs_small_model]


@pytest.fixture(scope="module")
def runtime(hub, tmp_path_factory: pytest.TempPathFactory):
    from clausewise.runtime import Runtime

    data_dir = tmp_path_factory.mktemp("llm")
    settings = load_settings(
        overrides={"paths": {"data_dir": str(data_dir)}, "models": small_llm(96, context_tokens=2048)}
    )
    return Runtime(settings, hub=hub)


class GoverningLaw(BaseModel):
    jurisdiction: str
    quote: str


def test_structured_answer_from_the_sample_contract(runtime) -> None:
    clause = next(
        line
        for line in (Path("examples") / "mutual-nda.txt").read_text().splitlines()
        if line.startswith("9.1 Governing law")
    )
    model = runtime.chat_model("answerer")
    answer = invoke_structured(
        model,
        [
            SystemMessage(
                content="Extract the governing law from the clause. Answer in JSON with keys jurisdiction "
                "and quote (copied exactly from the clause)."
            ),
            HumanMessage(content=f"<clause>{clause}</clause>"),
        ],
        GoverningLaw,
    )
    assert "England" in answer.jurisdiction
    record = runtime.ledger.records[-1]
    assert record.role == "answerer" and record.model == SMALL_MODEL
    assert record.prompt_tokens > 20 and record.completion_tokens > 3


def test_streaming_tokens(runtime) -> None:
    model = runtime.chat_model("writer")
    pieces = [
        chunk.content
        for chunk in model.stream([HumanMessage(content="Count from 1 to 5, separated by commas.")])
    ]
    text = "".join(pieces)
    assert len([p for p in pieces if p]) >= 5 and "3" in text


def test_log_odds_prefer_the_true_answer(runtime) -> None:
    model = runtime.chat_model("judge")
    question = (
        "Answer yes or no. Does this clause set a governing law? <clause>This Agreement is governed by the "
        "laws of the State of New York.</clause>"
    )
    unrelated = (
        "Answer yes or no. Does this clause set a governing law? <clause>The Supplier shall deliver the "
        "goods within ten days.</clause>"
    )
    p_yes = yes_probability(model, [HumanMessage(content=question)])
    p_no = yes_probability(model, [HumanMessage(content=unrelated)])
    assert p_yes is not None and p_no is not None
    assert p_yes > p_no


def test_context_overflow_is_a_typed_error(runtime) -> None:
    model = runtime.chat_model("writer")
    with pytest.raises(ContextOverflow, match="context_tokens"):
        model.invoke([HumanMessage(content="clause " * 4000)])


def test_an_unloaded_model_frees_its_server_and_loads_again_on_the_next_request(runtime) -> None:
    model = runtime.chat_model("answerer")
    model.invoke([HumanMessage(content="Say yes.")])
    pool = runtime.hub.llama_servers
    assert pool.loaded() >= 1
    pool.unload_all()
    assert pool.loaded() == 0
    assert model.invoke([HumanMessage(content="Say yes.")]).content  # loaded again, lazily
    assert pool.loaded() >= 1
