"""The audit log: records chained by hash, so an edited, removed or moved record is named by
`audit verify`; a writer killed with SIGKILL mid-write leaves a valid chain; key changes are
recorded by the CLI and read back with `clausewise audit`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from indexes.audit_log import AuditLog
from tests.test_cli import cli  # noqa: F401  (the CLI fixture)


def _filled(path: Path, count: int = 5) -> AuditLog:
    log = AuditLog(path)
    for n in range(count):
        log.append(f"key{n % 2}", "ask", contract_id="mutual-nda", version=1, clause_ids=[f"{n}.1", f"{n}.2"])
    return log


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def test_an_intact_log_verifies_and_every_kind_of_tampering_is_named(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = _filled(path)
    check = log.verify()
    assert check.valid and check.records == 5
    assert [r.seq for r in log.records()] == [1, 2, 3, 4, 5]
    original = _lines(path)

    edited = json.loads(original[2])
    edited["clause_ids"] = ["9.9"]  # who saw what, rewritten
    path.write_text("".join([*original[:2], json.dumps(edited) + "\n", *original[3:]]), encoding="utf-8")
    assert (log.verify().broken_at, log.verify().reason) == (3, "its content does not match its hash")

    path.write_text("".join([*original[:2], *original[3:]]), encoding="utf-8")  # one removed
    assert log.verify().broken_at == 3 and "chain" in log.verify().reason

    path.write_text("".join([original[0], original[2], original[1], *original[3:]]), encoding="utf-8")
    assert log.verify().broken_at == 2  # two swapped

    path.write_text("".join(original[:4]), encoding="utf-8")  # the last one removed: still a chain,
    assert log.verify().valid and log.verify().records == 4  # but the next record's number shows it
    log.append("key0", "search", contract_id="mutual-nda")
    assert [r.seq for r in log.records()][-1] == 5


def test_a_torn_last_line_is_not_tampering_and_the_next_write_cuts_it(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = _filled(path, 3)
    with path.open("ab") as handle:
        handle.write(b'{"seq": 4, "at": "2026-')  # a writer killed mid-write
    check = log.verify()
    assert check.valid and check.records == 3 and check.torn_tail
    log.append("key1", "delete", contract_id="mutual-nda")
    assert log.verify().valid and not log.verify().torn_tail and log.verify().records == 4


_WRITER = """
import sys
from pathlib import Path
from indexes.audit_log import AuditLog
log = AuditLog(Path(sys.argv[1]))
n = 0
while True:
    log.append("key-writer", "search", contract_id="c" * 2000, clause_ids=[str(i) for i in range(200)])
    n += 1
    if n == 20:
        print("writing", flush=True)
"""


def test_writers_killed_mid_write_leave_a_valid_chain(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    root = Path(__file__).resolve().parents[1]
    for _ in range(3):
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", _WRITER, str(path)],
                cwd=root,
                stdout=subprocess.PIPE,
                env={**os.environ, "PYTHONPATH": str(root)},
            )
            for _ in range(2)
        ]
        for writer in writers:
            assert writer.stdout is not None and writer.stdout.readline().strip() == b"writing"
        time.sleep(0.2)
        for writer in writers:
            writer.send_signal(signal.SIGKILL)
            writer.wait(10)
        check = AuditLog(path).verify()
        assert check.valid, check
    log = AuditLog(path)
    log.append("key0", "ask", contract_id="after")
    check = log.verify()
    assert check.valid and check.records >= 120 and not check.torn_tail


def test_key_changes_are_recorded_and_the_cli_reads_and_verifies_the_log(cli) -> None:  # noqa: F811
    code, out, _ = cli("keys", "create", "--tenant", "acme", "--name", "counsel")
    assert code == 0
    key_id = out.split()[1]
    code, out, _ = cli("keys", "revoke", key_id)
    assert code == 0
    code, out, _ = cli("audit", "--tenant", "acme", "--format", "json")
    assert code == 0
    records = json.loads(out)
    assert [(r["action"], r["actor"]) for r in records] == [("key_created", "cli"), ("key_revoked", "cli")]
    assert all(key_id in r["detail"] for r in records) and all("cw_" not in r["detail"] for r in records)
    code, out, _ = cli("audit", "verify", "--tenant", "acme")
    assert code == 0 and "intact: 2 records" in out


def test_the_cli_names_a_tampered_record_and_fails(cli, tmp_path: Path) -> None:  # noqa: F811
    code, _, _ = cli("keys", "create", "--tenant", "acme")
    code, _, _ = cli("keys", "create", "--tenant", "acme")
    path = tmp_path / "store" / "tenants" / "acme" / "audit.jsonl"
    lines = _lines(path)
    path.write_text(lines[1], encoding="utf-8")  # the first record removed
    code, out, _ = cli("audit", "verify", "--tenant", "acme")
    assert code == 1 and "broken at line 1" in out


@pytest.mark.parametrize("fmt", ["jsonl", "table"])
def test_the_log_exports_as_json_lines_or_a_table(cli, fmt) -> None:  # noqa: F811
    cli("keys", "create", "--tenant", "acme")
    code, out, _ = cli("audit", "--tenant", "acme", "--format", fmt)
    assert code == 0 and "key_created" in out
    if fmt == "jsonl":
        assert json.loads(out.strip().splitlines()[0])["hash"]
