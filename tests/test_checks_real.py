"""Real hypothesis checks on the sample NDA, whose answers we know because we wrote it: with the
shipped NLI classifier (the default judge) and with the embedded 0.5B model as the judge. Each
must reach the right label from the clause that decides it, and every evidence quote is the
contract's text."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import needs_small_model, real_api, small_llm
from tools.checks.suites import adhoc_suite, load_suite

pytestmark = pytest.mark.real_models


@needs_small_model
def test_one_real_hypothesis_on_the_sample_nda(hub, tmp_path: Path) -> None:
    """The 0.5B judge reads the retrieved passages: disclosure to advisers is granted by 2.2
    (to Representatives, which 1.1 defines to include professional advisers)."""
    api = real_api(tmp_path, hub, models=small_llm(300), checks={"exemplars": 0, "judge": "llm"})
    api.ingest(Path("examples/mutual-nda.txt"))
    suite = load_suite("nda")
    advisers = suite.model_copy(update={"hypotheses": [h for h in suite.hypotheses if h.key == "nda-6"]})
    [result] = list(api.check("mutual-nda", advisers))
    assert result.asked_model and result.best_relevance is not None
    assert result.best_relevance >= api.runtime.settings.checks.not_mentioned_below
    assert result.label == "Entailment", (result.label, result.rationale)
    assert "2.2" in [e.node_id for e in result.evidence], [e.node_id for e in result.evidence]
    text = api.runtime.store.open("mutual-nda").document.text
    for evidence in result.evidence:
        assert text[evidence.span[0] : evidence.span[1]].strip() == evidence.quote


def test_the_shipped_classifier_checks_the_sample_nda(hub, tmp_path: Path) -> None:
    """The default judge (the shipped NLI classifier, no language model): clause 5.1 entails the
    no-licence hypothesis and 6.2 the survival of obligations, and each deciding quote is the
    contract's text at its span."""
    api = real_api(tmp_path, hub)
    assert api.runtime.settings.checks.judge == "nli"
    api.ingest(Path("examples/mutual-nda.txt"))
    suite = adhoc_suite(
        [
            "The agreement does not grant the Receiving Party any licence or right in the information.",
            "Some obligations under the agreement continue after it terminates or expires.",
        ]
    )
    licence, survival = list(api.check("mutual-nda", suite))
    assert licence.label == "Entailment" and not licence.asked_model
    assert "Nothing in this Agreement grants" in licence.evidence[0].quote
    assert survival.label == "Entailment" and [e.node_id for e in survival.evidence] == ["6.2"]
    assert "survive the expiry or termination" in survival.evidence[0].quote
    text = api.runtime.store.open("mutual-nda").document.text
    for evidence in [*licence.evidence, *survival.evidence]:
        assert text[evidence.span[0] : evidence.span[1]].strip() == evidence.quote
