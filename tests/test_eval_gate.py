"""The per-layer evaluation gate, run by the test command: every layer measured on its fixed
sample of the development data is within its tolerance of the committed baseline; a regression
introduced on purpose (retrieval by BM25 alone, no reranker) fails and names its layer; and the
comparison itself, with figures where higher and where lower is better."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from clausewise.core.config import load_settings, with_overrides
from clausewise.runtime import Runtime
from clausewise_lab.evals import gate


@pytest.fixture(scope="module")
def gate_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gate")


@pytest.fixture(scope="module")
def measured(hub, bench_data: Path, gate_data: Path) -> dict:
    runtime = Runtime(load_settings(overrides={"paths": {"data_dir": str(gate_data)}}), hub=hub)
    started = time.perf_counter()
    results = gate.measure(runtime, bench_data)
    results["total_seconds"] = round(time.perf_counter() - started, 1)
    return results


def test_main_passes_the_gate_on_every_layer(measured: dict) -> None:
    assert set(measured["layers"]) == set(gate.LAYERS)
    found = gate.regressions(measured["layers"], gate.load_baseline())
    assert not found, [r.describe() for r in found]
    print(f"gate: {measured['seconds']} total {measured['total_seconds']} s")


def test_a_regression_introduced_on_purpose_fails_the_gate_and_names_its_layer(
    hub, bench_data: Path, gate_data: Path, measured: dict
) -> None:
    settings = load_settings(overrides={"paths": {"data_dir": str(gate_data)}})
    weakened = with_overrides(settings, {"retrieval": {"rankers": ["bm25"], "reranker": "none"}})
    results = gate.measure(Runtime(weakened, hub=hub), bench_data, layers=("retrieval",))
    found = gate.regressions(results["layers"], gate.load_baseline())
    assert found and {r.layer for r in found} == {"retrieval"}, found
    assert "retrieval: recall_at" in found[0].describe()


def _baseline(value: float, higher_is_better: bool, tolerance: float) -> dict:
    spec = {"value": value, "higher_is_better": higher_is_better, "tolerance": tolerance}
    return {"layers": {"layer": {"figure": spec}}}


@pytest.mark.parametrize(
    ("higher_is_better", "measured", "fails"),
    [
        (True, 0.80, False),  # the baseline itself
        (True, 0.76, False),  # within the tolerance
        (True, 0.74, True),  # below it
        (True, 0.99, False),  # better
        (False, 0.84, False),
        (False, 0.86, True),  # a rate that should fall rose beyond the tolerance
        (False, 0.10, False),
    ],
)
def test_a_figure_fails_only_when_it_moves_the_wrong_way_beyond_its_tolerance(
    higher_is_better: bool, measured: float, fails: bool
) -> None:
    found = gate.regressions({"layer": {"figure": measured}}, _baseline(0.80, higher_is_better, 0.05))
    assert bool(found) == fails


def test_a_missing_figure_fails_and_an_unmeasured_layer_is_not_compared() -> None:
    assert gate.regressions({"layer": {}}, _baseline(0.8, True, 0.05))[0].measured is None
    assert gate.regressions({"other": {"figure": 0.0}}, _baseline(0.8, True, 0.05)) == []


def test_updating_the_baseline_keeps_direction_and_tolerance() -> None:
    updated = gate.updated_baseline({"layer": {"figure": 0.9}}, _baseline(0.8, True, 0.05))
    assert updated["layers"]["layer"]["figure"] == {"value": 0.9, "higher_is_better": True, "tolerance": 0.05}


def test_updating_one_layer_keeps_the_others() -> None:
    previous = {
        "layers": {
            **_baseline(0.8, True, 0.05)["layers"],
            "other": {"kept": {"value": 0.5, "higher_is_better": True, "tolerance": 0.1}},
        }
    }
    updated = gate.updated_baseline({"layer": {"figure": 0.9}}, previous)
    assert updated["layers"]["layer"]["figure"]["value"] == 0.9
    assert updated["layers"]["other"] == previous["layers"]["other"]


def test_the_baseline_is_written_back_as_committed_one_line_per_figure() -> None:
    committed = gate.BASELINE.read_text(encoding="utf-8")
    assert gate.baseline_json(gate.load_baseline()) == committed
