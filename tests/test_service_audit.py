"""The audit log over HTTP: a scripted run of every audited action against a live server (two
tenants, keys) is recorded, each record naming the key's id (never its secret), the contract,
its version and the clauses returned; only an admin key reads it, and only its own tenant's."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.conftest import EXAMPLES
from tests.helpers import keyed_settings
from tests.live import LiveServer, wait_job
from tests.test_service import PROVISIONS, SURVIVAL, error_of, legal_app

NDA = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
PLAYBOOK = """name: audited-terms
version: "1"
positions:
  - id: law
    clause: Governing Law
    standard: {law: [England]}
    risk: low
"""


@pytest.fixture(scope="module")
def audited(hub, tmp_path_factory: pytest.TempPathFactory):
    settings, keys = keyed_settings(tmp_path_factory.mktemp("audited"))
    user, user_key = keys.create("acme", "associate")
    admin, admin_key = keys.create("acme", "general counsel", admin=True)
    _, other_key = keys.create("beta", "other firm", admin=True)
    app = legal_app(settings, hub)
    with LiveServer(app) as live:
        yield live, (user.id, user_key), (admin.id, admin_key), other_key


def test_every_audited_action_over_http_is_recorded_with_its_key_and_clauses(audited) -> None:
    live, (user_id, user_key), (_, admin_key), other_key = audited
    with live.client(user_key) as acme:
        first = acme.post("/v1/contracts", files={"file": ("mutual-nda.txt", NDA.encode())}).json()["job"]
        assert wait_job(acme, first["id"])["status"] == "done"
        amended = NDA.replace("twelve (12) months", "eighteen (18) months")
        second = acme.post(
            "/v1/contracts",
            files={"file": ("mutual-nda.txt", amended.encode())},
            data={"new_version": "true"},
        ).json()["job"]
        assert wait_job(acme, second["id"])["status"] == "done"
        searched = acme.get("/v1/contracts/mutual-nda/search", params={"q": "governing law", "k": 3}).json()
        asked = acme.post("/v1/contracts/mutual-nda/ask", json={"question": "Which law governs?"})
        assert asked.status_code == 200, asked.text
        ask_job = next(j["id"] for j in acme.get("/v1/jobs").json()["jobs"] if j["kind"] == "ask")
        check = acme.post("/v1/checks", json={"contracts": ["mutual-nda"], "hypotheses": [SURVIVAL]}).json()
        assert wait_job(acme, check["id"])["status"] == "done"
        review = acme.post("/v1/reviews", json={"contracts": ["mutual-nda"], "playbook": PROVISIONS}).json()
        assert wait_job(acme, review["id"])["status"] == "done"
        playbook = acme.post("/v1/playbook-reviews", json={"contracts": ["mutual-nda"]}).json()
        assert wait_job(acme, playbook["id"])["status"] == "done"
        assert acme.get(f"/v1/jobs/{ask_job}/result", params={"format": "md"}).status_code == 200
        assert acme.get(f"/v1/jobs/{check['id']}/result").status_code == 200
        assert acme.get("/v1/contracts/mutual-nda/text", params={"start": 0, "end": 500}).status_code == 200
        assert acme.get("/v1/contracts/mutual-nda/tree").status_code == 200
        assert acme.get("/v1/contracts/mutual-nda").status_code == 200
        assert acme.post("/v1/playbooks", json={"yaml": PLAYBOOK}).status_code == 201
        assert acme.post("/v1/playbooks", json={"yaml": PLAYBOOK}).status_code == 201  # kept already
        assert acme.get("/v1/contracts/mutual-nda/original").status_code == 200
        assert acme.delete("/v1/contracts/mutual-nda", params={"version": 1}).status_code == 204
        refused = acme.get("/v1/audit")  # not an admin key
        assert refused.status_code == 403 and "--admin" in error_of(refused)["hint"]
    with live.client(admin_key) as admin:
        audit = admin.get("/v1/audit").json()
        jsonl = admin.get("/v1/audit", params={"format": "jsonl"}).text
    records = audit["records"]
    assert audit["intact"] and audit["total"] == len(records)
    actions = Counter(r["action"] for r in records)
    for action in (
        "ingest",
        "new_version",
        "search",
        "ask",
        "check",
        "review",
        "playbook_review",
        "export",
        "delete",
        "read",
    ):
        assert actions[action] >= 1, (action, actions)
    assert actions["export"] == 2  # the report as Markdown, the original file
    assert actions["playbook_created"] == 1  # the same text sent again changes nothing
    created = next(r for r in records if r["action"] == "playbook_created")
    assert "audited-terms version 1" in created["detail"] and created["contract_id"] == ""
    reads = [r["detail"] for r in records if r["action"] == "read"]
    for what in (
        "its text, characters 0-500",
        "its clause tree",
        "its details",
        f"the result of job {check['id']}",
    ):
        assert any(what in detail for detail in reads), (what, reads)
    assert all(r["actor"] == user_id for r in records)
    assert all(r["contract_id"] == "mutual-nda" for r in records if r["action"] != "playbook_created")
    by_action = {r["action"]: r for r in records}
    assert by_action["search"]["clause_ids"] == [p["node_id"] for p in searched]
    assert by_action["ask"]["clause_ids"] and by_action["new_version"]["version"] == 2
    assert by_action["delete"]["version"] == 1
    assert user_key not in json.dumps(records) and admin_key not in jsonl
    assert [json.loads(line)["seq"] for line in jsonl.splitlines()] == [r["seq"] for r in records]
    with live.client(other_key) as beta:
        assert beta.get("/v1/audit").json()["records"] == []  # another tenant's log is its own
