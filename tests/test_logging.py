"""Logging: structured records from library code, configured by the CLI (-v, --log-json). A
failed model call, a rejected quote and a file skipped in a batch each leave a log line."""

from __future__ import annotations

import io
import json
import logging
import shutil
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage

from clausewise.core.backends.accounting import UsageLedger
from clausewise.core.logs import configure_logging, fields_of
from tests.conftest import EXAMPLES, ingested_sample
from tests.fakes import ScriptedChatModel


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for package in ("clausewise", "agents", "tools", "graphs", "indexes"):
        logging.getLogger(package).setLevel(logging.NOTSET)


def test_json_lines_carry_the_structured_fields(restore_logging) -> None:
    stream = io.StringIO()
    configure_logging(1, json_lines=True, stream=stream)
    logging.getLogger("agents.example").info(
        "ingested %s", "nda.pdf", extra={"contract": "nda", "seconds": 1.5}
    )
    logging.getLogger("some.library").info("not ours: stays below warnings")
    [line] = stream.getvalue().splitlines()
    record = json.loads(line)
    assert record["message"] == "ingested nda.pdf" and record["level"] == "info"
    assert record["logger"] == "agents.example" and record["contract"] == "nda" and record["seconds"] == 1.5


def test_the_cli_logs_an_ingest_as_json(tmp_path: Path, capsys, restore_logging) -> None:
    from clausewise.cli.main import run

    target = tmp_path / "nda.txt"
    shutil.copyfile(EXAMPLES / "mutual-nda.txt", target)
    with pytest.raises(SystemExit) as exit_:
        run(["--data-dir", str(tmp_path / "data"), "--log-json", "-v", "ingest", str(target)])
    assert exit_.value.code in (0, None)
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    ingested = [r for r in lines if r["message"].startswith("ingested")]
    assert ingested and ingested[0]["contract"] == "nda" and ingested[0]["tenant"] == "default"
    assert ingested[0]["seconds"] > 0


def test_a_failed_model_call_is_logged_with_its_role(caplog) -> None:
    class Failing(ScriptedChatModel):
        def _generate(self, *args, **kwargs):
            raise ConnectionError("the server went away")

    model = Failing(callbacks=[UsageLedger()]).with_config(metadata={"clausewise_role": "answerer"})
    with caplog.at_level(logging.WARNING), pytest.raises(ConnectionError):
        model.invoke([HumanMessage(content="hello")])
    [record] = [r for r in caplog.records if r.getMessage().startswith("model call failed")]
    assert "the server went away" in record.getMessage() and fields_of(record)["role"] == "answerer"


FABRICATED = "the Supplier shall indemnify the Purchaser against every loss whatsoever"


def test_a_rejected_quote_is_logged(tmp_path: Path, embedder, caplog) -> None:
    from agents.researcher import ModelAnswer, Researcher
    from clausewise.core.domain import RetrievalQuery
    from tools.retrieval.contract_retriever import ContractRetriever

    with ingested_sample(tmp_path, embedder, {"retrieval": {"reranker": "none"}}) as (settings, index):
        retriever = ContractRetriever(index, embedder, settings.retrieval)
        hits = retriever.search(RetrievalQuery(question="Which law governs?"), 3)
        fabricated = ModelAnswer.model_validate(
            {"answer": "x", "citations": [{"evidence": 1, "quote": FABRICATED}]}
        )
        with caplog.at_level(logging.INFO, logger="agents"):
            verified, rejected = Researcher(settings, index, retriever).verify(fabricated, hits)
    assert verified == [] and rejected == [FABRICATED]
    [record] = [r for r in caplog.records if r.getMessage().startswith("quote rejected")]
    assert fields_of(record)["contract"] == "mutual-nda" and fields_of(record)["quote"] == FABRICATED


def test_a_file_skipped_in_a_batch_is_logged_and_has_its_row(tmp_path: Path, runtime_for, caplog) -> None:
    from clausewise.api import Clausewise
    from clausewise.core.config import load_settings
    from tools.checks.suites import adhoc_suite

    folder = tmp_path / "room"
    folder.mkdir()
    shutil.copyfile(EXAMPLES / "mutual-nda.txt", folder / "a-nda.txt")
    (folder / "b-broken.pdf").write_bytes(b"%PDF-1.7 this is not a PDF at all")
    settings = load_settings(overrides={"paths": {"data_dir": str(tmp_path / "data")}})
    api = Clausewise(runtime=runtime_for(settings))
    suite = adhoc_suite(["The agreement is governed by English law."])
    with caplog.at_level(logging.WARNING, logger="clausewise"):
        items = list(api.check_batch(sorted(folder.iterdir()), suite))
    assert [(i.contract_id, i.error is None) for i in items] == [("a-nda", True), ("b-broken.pdf", False)]
    assert items[0].result is not None and "b-broken.pdf" in (items[1].error or "")
    [record] = [r for r in caplog.records if r.getMessage().startswith("batch: skipped")]
    assert fields_of(record)["file"].endswith("b-broken.pdf")
