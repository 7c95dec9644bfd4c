"""The clausewise command line, end to end on the example contracts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clausewise.cli.main import run
from clausewise.core.errors import ConfigError
from indexes.audit_log import local_actor
from tests.conftest import without_clausewise_environment


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        run(list(args))
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def with_the_sessions_models(monkeypatch: pytest.MonkeyPatch, hub) -> None:
    """Commands run in this process build their runtime on the test session's loaded models, as
    commands in one process would share them, instead of loading every model again per command."""
    from clausewise.cli.app import AppState
    from clausewise.runtime import Runtime

    monkeypatch.setattr(
        AppState, "runtime", lambda self, tenant=None: Runtime(self.settings(tenant), hub=hub)
    )


@pytest.fixture
def cli(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, hub):
    without_clausewise_environment(monkeypatch)
    monkeypatch.setenv("COLUMNS", "200")
    with_the_sessions_models(monkeypatch, hub)
    data = tmp_path / "store"
    return lambda *args: _run(capsys, "--data-dir", str(data), *args)


def test_ingest_list_show_tree_delete(cli, copy_example) -> None:
    nda = copy_example("mutual-nda.txt")
    code, out, _ = cli("ingest", str(nda))
    assert code == 0 and "✓ mutual-nda" in out and "12 definitions" in out
    code, out, _ = cli("ingest", str(nda))
    assert code == 0 and "unchanged" in out
    code, out, _ = cli("contracts", "list")
    assert code == 0 and "mutual-nda" in out
    code, out, _ = cli("contracts", "show", "mutual-nda")
    assert code == 0 and "Confidential Information (1.1/Confidential Information)" in out
    code, out, _ = cli("tree", "mutual-nda", "--depth", "2")
    assert code == 0
    assert "2.1 section" in out and "Schedule 1 schedule NOTICE DETAILS" in out
    assert "2.1(b)" not in out  # depth 2 stops above the list items
    code, out, _ = cli("tree", str(nda), "--node", "2.1")  # a file path resolves to its contract
    assert code == 0 and "2.1(b) list_item" in out
    code, out, _ = cli("contracts", "delete", "mutual-nda", "--yes")
    assert code == 0
    code, _, err = cli("tree", "mutual-nda")
    assert code == 4 and "no contract 'mutual-nda'" in err
    # whatever the door, the audit log says who read or changed which contract: here the local user
    code, out, _ = cli("audit", "--format", "json")
    records = json.loads(out)
    assert code == 0 and [r["action"] for r in records] == ["ingest", "read", "read", "read", "delete"]
    assert all(r["actor"] == local_actor() and r["contract_id"] == "mutual-nda" for r in records)
    assert "clause tree" in records[2]["detail"] and records[0]["version"] == 1
    assert cli("audit", "verify")[0] == 0


def test_a_changed_file_is_a_new_version_only_when_asked_and_versions_are_kept(cli, copy_example) -> None:
    nda = copy_example("mutual-nda.txt")
    assert cli("ingest", str(nda))[0] == 0
    nda.write_text(
        nda.read_text(encoding="utf-8").replace("twelve (12) months", "eighteen (18) months"),
        encoding="utf-8",
    )
    code, _, err = cli("ingest", str(nda))
    assert code == 4 and "already holds other content (version 1" in err and "--new-version" in err
    code, out, _ = cli("ingest", str(nda), "--new-version")
    assert code == 0 and "mutual-nda version 2" in out
    code, out, _ = cli("contracts", "show", "mutual-nda")
    assert code == 0 and "mutual-nda, version 2" in out and "Versions of mutual-nda" in out
    versions = out[out.index("Versions of mutual-nda") :]
    assert [line.split("│")[1].strip() for line in versions.splitlines() if line.startswith("│")] == [
        "1",
        "2",
    ]
    assert "live" in versions.splitlines()[-2] and "MUTUAL NON-DISCLOSURE AGREEMENT" in out
    code, out, _ = cli("contracts", "show", "mutual-nda", "--version", "1")
    assert code == 0 and "mutual-nda, version 1" in out
    code, out, _ = cli("contracts", "list")
    assert code == 0 and "2 (of 2)" in out and "Northwind Analytics Ltd." in out
    code, _, err = cli("contracts", "delete", "mutual-nda", "--version", "2", "--yes")
    assert code == 4 and "live version" in err  # the live version goes only with the contract
    code, out, _ = cli("contracts", "delete", "mutual-nda", "--version", "1", "--yes")
    assert code == 0 and "Deleted version 1" in out
    code, _, err = cli("contracts", "show", "mutual-nda", "--version", "1")
    assert code == 4 and "no version 1" in err
    code, out, _ = cli("contracts", "delete", "mutual-nda", "--yes")
    assert code == 0 and "its 1 version(s)" in out


def test_folder_ingest_with_tenant(cli, tmp_path: Path, copy_example) -> None:
    copy_example("mutual-nda.txt")
    copy_example("services-agreement.txt")
    code, out, _ = cli("ingest", str(tmp_path / "inputs"), "--tenant", "acme")
    assert code == 0 and "mutual-nda" in out and "services-agreement" in out
    code, out, _ = cli("contracts", "list", "--tenant", "acme")
    assert "services-agreement" in out
    code, out, _ = cli("contracts", "list")
    assert "No contracts" in out


def test_config_show_and_setting_flags(cli) -> None:
    code, out, _ = cli("--retrieval.rrf-k", "33", "config", "show", "--json")
    assert code == 0 and json.loads(out)["retrieval"]["rrf_k"] == 33
    code, out, _ = cli("config", "show")
    assert "--parsing.ocr-dpi" in out and "CLAUSEWISE_PARSING__OCR_DPI" in out
    code, _, err = cli("--retrieval.rrf-kay", "3", "config", "show")
    assert code == 2 and "did you mean --retrieval.rrf-k" in err
    code, _, err = cli("--preset", "nope", "config", "show")
    assert code == 2 and "unknown preset" in err


def test_scanned_pdf_ingests_through_ocr(cli, tesseract: str) -> None:
    code, out, _ = cli("ingest", "examples/mutual-nda-scanned.pdf")
    assert code == 0 and "4 OCR'd" in out


def test_playbook_on_a_folder_writes_the_reviews_and_a_redline_per_contract(
    cli, tmp_path: Path, copy_example
) -> None:
    copy_example("supply-agreement.txt")
    folder = copy_example("services-agreement.txt").parent
    out, redlines = tmp_path / "review.json", tmp_path / "redlines"
    code, printed, _ = cli("playbook", str(folder), "--out", str(out), "--redline", str(redlines))
    assert code == 0 and "supply-agreement: overall risk high" in printed
    reviews = {r["contract"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    assert set(reviews) == {"supply-agreement", "services-agreement"}
    assert len(reviews["supply-agreement"]["positions"]) == 15
    assert sorted(p.name for p in redlines.iterdir()) == [
        "services-agreement-redline.docx",
        "supply-agreement-redline.docx",
    ]
    code, _, err = cli("playbook", "supply-agreement", "--playbook", str(tmp_path / "missing.yaml"))
    assert code == 2 and "no playbook" in err


def test_a_lab_command_without_the_lab_says_how_to_install_it() -> None:
    import typer
    from typer.testing import CliRunner

    from clausewise.cli.main import stand_in_for_the_lab

    app = typer.Typer()  # the command line as on a machine without the lab
    app.command("ingest")(lambda: None)
    stand_in_for_the_lab(app, added=set())
    for command in ("eval", "train"):
        result = CliRunner().invoke(app, [command, "gate", "--out", "x.json"])
        assert isinstance(result.exception, ConfigError) and result.exception.exit_code == 2
        assert "comes with the lab" in str(result.exception) and "pip install -e ./lab" in str(
            result.exception
        )
