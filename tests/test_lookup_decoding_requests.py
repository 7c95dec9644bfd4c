"""``clausewise eval lookup-decoding`` asks every design the same restatement requests: the
example contracts' planned sentences under the writer's own prompt and JSON schema."""

from __future__ import annotations

from clausewise_lab.evals.lookup_decoding import DESIGNS, restatement_requests


def test_each_design_is_asked_the_writers_restatement_of_the_planned_sentences() -> None:
    requests = restatement_requests()
    assert len(requests) == 4  # two example contracts, two planned questions each
    for request in requests:
        assert request["response_format"]["json_schema"]["name"] == "Restatement"
        assert request["temperature"] == 0 and request["cache_prompt"] is False
        user = request["messages"][-1]["content"]
        assert "[1]" in user and "[2]" in user  # at least two planned sentences, numbered
    assert DESIGNS[0].kind.endswith("NONE")  # the baseline every speed is divided by
    assert len({d.name for d in DESIGNS}) == len(DESIGNS)
