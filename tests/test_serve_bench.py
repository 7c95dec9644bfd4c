"""``eval serve``: the streamed asks time their ``answer`` event (the decided short answer, before
the report); the fault run's scorer flags what it must (a planted server path, another tenant's
name it was not sent, a wrong status, a missing hint, a 404 that differs from the answer for
nothing), then a bounded fault run against a live server (scripted replies, real stores and keys,
127.0.0.1) finds nothing unexpected, leaked or lost."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clausewise.core.config import load_settings
from clausewise.runtime import Runtime
from clausewise_lab.evals import hostile_probes as hostile
from clausewise_lab.evals import serve_bench
from clausewise_lab.evals.instruments import scripted_runtimes

NOT_YOURS = (
    '{"error":{"code":"contract_not_found","message":"no contract \'owner-secret-nda\' in tenant '
    '\'bench-other-tenant\'","hint":"see GET /v1/contracts"}}'
)


def _probe(name: str) -> hostile.Probe:
    [probe] = [p for p in hostile.PROBES if p.name == name]
    return probe


def _names(data: Path) -> hostile.Names:
    return hostile.Names(
        contract=hostile.CONTRACT,
        thread="3a67a325f73b",
        job="8ae547225d22b907",
        owner=hostile.OWNER,
        contract_dir=str(data / "tenants" / hostile.OWNER / "contracts" / hostile.CONTRACT),
        keys_file=str(data / "service" / "keys.sqlite"),
    )


def test_streamed_asks_time_the_answer_event_before_the_report(hub, tmp_path: Path) -> None:
    settings = load_settings(overrides={"paths": {"data_dir": str(tmp_path), "tenant": "default"}})
    ingested = Runtime(settings, hub=hub).archivist().ingest(serve_bench.EXAMPLES / "mutual-nda.txt")
    with serve_bench.LoopbackServer(settings, scripted_runtimes(), hub) as url:
        asked = asyncio.run(serve_bench._streamed_asks(url, ingested.contract_id, 2, 1, 300))
    assert asked["errors"] == 0 and asked["answer_seconds"]["n"] == 2  # both questions are decided
    assert asked["first_event_seconds"]["p50"] <= asked["answer_seconds"]["p50"]
    assert asked["answer_seconds"]["p95"] <= asked["report_seconds"]["p95"]


def test_the_scorer_flags_a_planted_path_and_a_name_the_request_did_not_say(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    paths, foreign = [data], [hostile.OWNER, hostile.CONTRACT]
    # the caller's own words echoed back are not a leak; the server's data folder always is
    assert hostile.leaks(NOT_YOURS, f"/v1/contracts/{hostile.CONTRACT}", paths, foreign) == []
    planted = NOT_YOURS.replace("no contract", f"no contract at {data}/tenants/x:")
    said = f'{{"contracts": ["{hostile.CONTRACT}", "{data}/tenants/x"]}}'  # even a path it was sent
    assert hostile.leaks(planted, said, paths, foreign) == [data]
    unsaid = NOT_YOURS.replace("bench-other-tenant", hostile.OWNER)
    assert hostile.leaks(unsaid, f"/v1/contracts/{hostile.CONTRACT}", paths, foreign) == [hostile.OWNER]
    assert hostile.leaks("[]", "", paths, foreign) == []


def test_the_scorer_flags_a_wrong_status_code_or_a_missing_hint() -> None:
    probe = _probe("contract")
    ok = hostile.Sent("GET /v1/contracts/x", "", 404, NOT_YOURS)
    assert hostile.problems_of(probe, ok) == []
    assert hostile.problems_of(probe, hostile.Sent("GET", "", 200, "{}")) == ["status 200, expected 404"]
    assert hostile.problems_of(probe, hostile.Sent("GET", "", 404, "Not Found")) == [
        "no error envelope (expected contract_not_found)"
    ]
    other_code = NOT_YOURS.replace("contract_not_found", "not_found")
    assert hostile.problems_of(probe, hostile.Sent("GET", "", 404, other_code))[0].startswith(
        "code 'not_found'"
    )
    no_hint = NOT_YOURS.replace("see GET /v1/contracts", "")
    assert hostile.problems_of(probe, hostile.Sent("GET", "", 404, no_hint)) == [
        "contract_not_found: no hint"
    ]


def test_a_404_for_anothers_thing_is_compared_with_the_404_for_nothing(tmp_path: Path) -> None:
    names = _names(tmp_path)
    nobody = names.nobody(tmp_path)
    twin = NOT_YOURS.replace(hostile.CONTRACT, nobody.contract)
    assert hostile.normalized(NOT_YOURS, names) == hostile.normalized(twin, nobody)
    telling = NOT_YOURS.replace("no contract", "not your contract")
    assert hostile.normalized(telling, names) != hostile.normalized(twin, nobody)
    # a server path in a body is compared by what a response may show of it: its last part
    assert hostile.fill({"contracts": ["{contract_dir}"]}, nobody) == {"contracts": [nobody.contract_dir]}
    assert hostile.fill("/v1/contracts/{contract_dir_q}/text", names).count("%2F") >= 4


def test_every_kind_of_probe_is_in_a_run_as_long_as_the_list() -> None:
    assert {p.name for p in hostile.catalog(len(hostile.PROBES))} == {p.name for p in hostile.PROBES}
    assert len({p.name for p in hostile.PROBES}) == len(hostile.PROBES)


@pytest.fixture(scope="module")
def fault_results(hub, tmp_path_factory: pytest.TempPathFactory) -> dict:
    data = tmp_path_factory.mktemp("faults")
    settings = load_settings(overrides={"paths": {"data_dir": str(data)}})
    return serve_bench.fault_run(
        settings, hub, data / "faults", probes=len(hostile.PROBES), concurrency=4, asks=2, seconds=300
    )


def test_a_fault_run_against_a_live_server_finds_nothing(fault_results: dict) -> None:
    results = fault_results
    assert results["tried"] == results["probes"] == len(hostile.PROBES)
    assert results["mcp_calls"] == len(hostile.MCP_PROBES)
    assert results["requests"] > results["tried"]  # the twins too
    assert (results["unexpected_statuses"], results["leaks"], results["lost"]) == (0, 0, 0), results[
        "findings"
    ]
    assert results["citations_checked"] >= 2 and results["asks"]["asks"] >= 2
    assert results["asks"]["errors"] == 0 and results["uploads_left"] == 0


def test_every_abuse_family_is_refused_as_expected_on_a_live_server(tmp_path) -> None:
    """`clausewise eval serve`'s abuse families against a real `clausewise serve` process, two
    of each: every status the one expected, no leak, the owner's contract unchanged."""
    from clausewise.core.config import load_settings
    from clausewise_lab.evals import abuse_families

    results = abuse_families.run(load_settings(), tmp_path, rounds=2, concurrency=2)
    assert len(results["families"]) == 24
    assert results["unexpected_statuses"] == 0, results["families"]
    assert 0 < results["largest_job_row_bytes"] < 2_000_000 and results["largest_response_bytes"] < 2_000_000
    assert results["leaks"] == 0 and results["lost"] == 0
    assert all(row["other_requests"] >= 1 for row in results["families"])
    assert results["other_tenant_queue_position_after_flood"] in (0, 1)  # tenants take turns
