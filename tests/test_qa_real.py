"""One real run of the whole graph with the embedded 0.5B model, one turn, on the sample NDA:
the law is settled before anything is written (the answer event comes first, from the clause
that governs, 9.1), the real writer explains it, and every quote shown is the contract's text at
its span."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise.core.report import Report
from tests.helpers import SMALL_MODEL, needs_small_model, real_api, small_llm
from tools.citations import QuoteVerifier

pytestmark = [pytest.mark.real_models, needs_small_model]


def test_one_turn_report_on_the_sample_nda(hub, tmp_path: Path) -> None:
    from clausewise.api import ProgressEvent

    api = real_api(tmp_path, hub, models=small_llm(400))
    api.ingest(Path("examples/mutual-nda.txt"))
    items = list(api.ask_stream("mutual-nda", "Which law governs this agreement?", turns=1))
    events, report = items[:-1], items[-1]
    assert all(isinstance(e, ProgressEvent) for e in events) and isinstance(report, Report)
    assert [e.event for e in events][:2] == ["start", "answer"] and events[-1].event == "final"
    answer = events[1].data
    assert answer["value"] == "England" and answer["grounds"][0]["node_id"] == "9.1"
    Report.model_validate_json(report.to_json())  # the JSON rendering parses back
    # a settled answer needs no research turn: the writer alone explains it
    assert "research" not in [e.event for e in events] and report.metadata.llm_calls >= 1
    assert report.metadata.models == [SMALL_MODEL]
    text = api.runtime.store.open("mutual-nda").document.text
    verifier = QuoteVerifier(text)
    # what it must find: the governing-law clause, among the verified sources
    assert report.addressed and report.metadata.stopped_because != "not addressed"
    governing = [s for s in report.sources if s.node_id == "9.1"]
    assert governing and "laws of England and Wales" in governing[0].quote, [
        s.node_id for s in report.sources
    ]
    for source in report.sources:
        assert verifier.is_at(source.quote, source.span), source
        assert source.pages == [1]
    assert report.short_answer is not None and report.short_answer.value == "England"
    assert report.title and report.summary and report.preliminary_answer
