"""The ``openai`` model backend against a real OpenAI-compatible server: llama.cpp's own HTTP
server (the xllamacpp wheel) serving the embedded 0.5B GGUF on loopback. Structured output and
log-probabilities go over HTTP, and Clausewise pointed at the server answers a question about
the sample NDA from the clause that governs, every quote verified."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from clausewise.core.backends.llama_http import LlamaHttpServer
from clausewise.core.backends.model_files import EMBEDDED_MODELS, assemble, is_installed
from clausewise.core.backends.openai_compat import create_server_model
from clausewise.core.backends.structured import invoke_structured, yes_probability
from clausewise.core.config import LLMSettings, load_settings
from clausewise.core.errors import ContextOverflow
from tests.conftest import EXAMPLES
from tools.citations import QuoteVerifier

SMALL = EMBEDDED_MODELS["qwen2.5-coder-0.5b"]
KEY_ENV = "CLAUSEWISE_TEST_LLM_KEY"
pytestmark = [
    pytest.mark.real_models,
    pytest.mark.skipif(
        not is_installed(SMALL), reason="the 0.5B model packages are not installed: pip install -e '.[small]'"
    ),
]


class Law(BaseModel):
    jurisdiction: str


@pytest.fixture(scope="module")
def llm_server(tmp_path_factory: pytest.TempPathFactory):
    models = tmp_path_factory.mktemp("models")
    # one thread: two cores shared with the tests' other work run llama.cpp's barrier slowly
    server = LlamaHttpServer(assemble(SMALL, models), alias=SMALL.name, threads=1, context_tokens=4096)
    with server:
        yield server


@pytest.fixture
def llm_settings(llm_server, monkeypatch: pytest.MonkeyPatch) -> LLMSettings:
    monkeypatch.setenv(KEY_ENV, llm_server.api_key)
    return LLMSettings(
        backend="openai", base_url=llm_server.base_url, model=SMALL.name, api_key_env=KEY_ENV, max_tokens=300
    )


def test_structured_output_and_log_odds_over_http(llm_settings) -> None:
    model = create_server_model(llm_settings)
    law = invoke_structured(
        model,
        [
            HumanMessage(
                content="Which jurisdiction? <clause>This Agreement is governed by English law.</clause>"
            )
        ],
        Law,
    )
    assert "Engl" in law.jurisdiction
    p_yes = yes_probability(
        model, [HumanMessage(content="Answer yes or no. Is Paris the capital of France?")]
    )
    p_no = yes_probability(model, [HumanMessage(content="Answer yes or no. Is Paris the capital of Japan?")])
    assert p_yes is not None and p_no is not None and p_yes > p_no
    with pytest.raises(ContextOverflow):
        model.invoke([HumanMessage(content="clause " * 8000)])


def test_a_question_answered_through_the_server_with_verified_citations(
    hub, llm_settings, tmp_path: Path
) -> None:
    from clausewise.api import Clausewise
    from clausewise.runtime import Runtime

    settings = load_settings(
        overrides={
            "paths": {"data_dir": str(tmp_path)},
            "models": {"llm": llm_settings.model_dump(mode="json")},
        }
    )
    api = Clausewise(runtime=Runtime(settings, hub=hub))
    api.ingest(EXAMPLES / "mutual-nda.txt")
    report = api.ask("mutual-nda", "Which law governs this agreement?", turns=1)
    assert report.metadata.models == [SMALL.name]  # every call went to the server
    assert report.addressed and any(
        s.node_id == "9.1" and "England and Wales" in s.quote for s in report.sources
    )
    verifier = QuoteVerifier(api.runtime.store.open("mutual-nda").document.text)
    assert report.sources and all(verifier.is_at(s.quote, s.span) for s in report.sources)
