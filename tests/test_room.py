"""Ask a data room: one question (or several) over many contracts, a verified quick answer per
cell. The pieces by hand (the argument rule, cells that say less, value groups, the roll-up, the
exports read back), then the Python API and the command line on the example contracts with the
shipped classifiers (the language model scripted where a question reaches it)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest

from clausewise.cli.room_args import split_arguments
from clausewise.core.errors import ConfigError, ContractNotFound
from clausewise.core.report import ShortAnswer, Source
from clausewise.core.room import RoomCell, question_key, room_questions
from tests.conftest import EXAMPLES, without_clausewise_environment
from tools.citations import QuoteVerifier
from tools.room.cells import NEEDS_REPORT, cell_of
from tools.room.normalize import value_key
from tools.room.render import render
from tools.room.rollup import rollup

TEXT = (
    "9.1 This Agreement is governed by the laws of the State of New York. "
    "9.2 Neither party may assign this Agreement without the prior written consent of the other party. "
    "4.1 The term is three (3) years from the Effective Date."
)
LAW = "This Agreement is governed by the laws of the State of New York."
ASSIGN = "Neither party may assign this Agreement without the prior written consent of the other party."


def _source(number: int, quote: str, node: str = "9.1", text: str = TEXT) -> Source:
    start = text.index(quote)
    return Source(
        number=number, contract_id="c", node_id=node, pages=[1], span=(start, start + len(quote)), quote=quote
    )


# --- the argument rule --------------------------------------------------------------------------


KNOWN = {"nda-a", "nda-b", "msa"}


def _split(*arguments: str, every: bool = False):
    return split_arguments(
        arguments,
        lambda a: a in KNOWN,
        lambda a: ContractNotFound(f"no contract {a!r}", hint="see `clausewise contracts list`"),
        every_contract=every,
    )


def test_leading_contracts_then_questions() -> None:
    split = _split("nda-a", "msa", "Which law governs?", "Can it be assigned?")
    assert split.contracts == ["nda-a", "msa"]
    assert split.questions == ["Which law governs?", "Can it be assigned?"]
    # the first argument naming no contract starts the questions, whatever follows
    assert _split("nda-a", "Which law?").questions == ["Which law?"]


def test_all_makes_every_argument_a_question() -> None:
    split = _split("nda-a", "Which law governs?", every=True)
    assert (
        split.every_contract and split.contracts == [] and split.questions == ["nda-a", "Which law governs?"]
    )
    with pytest.raises(ConfigError, match="no question"):
        _split(every=True)


def test_ambiguous_or_unresolved_arguments_are_refused_with_a_hint() -> None:
    with pytest.raises(ContractNotFound, match="no contract 'nope'") as unknown:
        _split("nope", "Which law governs?")
    assert "contracts list" in unknown.value.hint
    with pytest.raises(ConfigError, match="no question: every argument names a contract") as none:
        _split("nda-a", "nda-b")
    assert 'nda-a nda-b "' in none.value.hint
    with pytest.raises(ConfigError, match="ambiguous arguments: 'msa' names a contract") as late:
        _split("nda-a", "Which law governs?", "msa")
    assert "before the first question" in late.value.hint
    with pytest.raises(ConfigError, match="no contract and no question"):
        _split()


def test_questions_are_keyed_by_their_words_and_checked() -> None:
    assert question_key("Which law governs?") == question_key("  which LAW   governs? ")
    assert question_key("Which law governs?") != question_key("Which courts?")
    asked = room_questions(["Which law governs?", "which law governs?", "Can it be assigned?"])
    assert [q for _, q in asked] == ["Which law governs?", "Can it be assigned?"]
    with pytest.raises(ConfigError, match="empty"):
        room_questions(["Which law?", "   "])
    with pytest.raises(ConfigError, match="no question"):
        room_questions([])
    with pytest.raises(ConfigError, match="at most 50"):
        room_questions([f"Question number {n}?" for n in range(51)])
    with pytest.raises(ConfigError, match="characters"):
        room_questions(["why " * 300])


# --- cells say less rather than wrong -----------------------------------------------------------


def test_a_verified_answer_is_shown_with_its_clauses() -> None:
    verifier = QuoteVerifier(TEXT)
    law = ShortAnswer(form="value", value="New York", value_type="law", normalized="new york", sources=[1])
    cell = cell_of("q1", "Which law?", law, [_source(1, LAW)], verifier)
    assert (cell.answer, cell.value, cell.line, cell.clauses()) == (
        "value",
        "New York",
        "New York [1]",
        ["9.1"],
    )
    assert cell.shown() == "New York (9.1)"
    yes = ShortAnswer(form="verdict", verdict="yes", sources=[1], decided_by="provision classifier")
    cell = cell_of("q2", "Consent to assign?", yes, [_source(1, ASSIGN, "9.2")], verifier)
    assert (cell.answer, cell.cited, cell.decided_by) == ("yes", [1], "provision classifier")


def test_cells_that_cannot_show_their_ground_say_unclear() -> None:
    verifier = QuoteVerifier(TEXT)
    # a "yes" without a source
    bare = cell_of("q", "Q?", ShortAnswer(form="verdict", verdict="yes"), [], verifier)
    assert bare.answer == "unclear" and "no verified source" in bare.note
    # a source whose quote is not the contract's text at its span
    moved = _source(1, LAW).model_copy(update={"span": (0, len(LAW))})
    cell = cell_of("q", "Q?", ShortAnswer(form="verdict", verdict="yes", sources=[1]), [moved], verifier)
    assert cell.answer == "unclear" and cell.sources == [] and "did not verify" in cell.note
    # a value its cited source does not state
    wrong = ShortAnswer(form="value", value="Delaware", value_type="law", sources=[1])
    cell = cell_of("q", "Which law?", wrong, [_source(1, LAW)], verifier)
    assert cell.answer == "unclear" and cell.value == "" and "not found in its cited sources" in cell.note
    assert (
        cell.closest == [1]
        and cell.line == "Unclear: the contract does not settle this (closest clauses: [1])"
    )
    # no short answer at all (an open question): unclear, never blank
    cell = cell_of("q", "What happens to data?", None, [], verifier)
    assert cell.answer == "unclear" and cell.line == NEEDS_REPORT


def test_absence_is_an_answer_that_shows_the_closest_clauses() -> None:
    verifier = QuoteVerifier(TEXT)
    no = ShortAnswer(form="verdict", verdict="no", closest=[1], decided_by="provision classifier")
    cell = cell_of("q", "Non-compete?", no, [_source(1, ASSIGN, "9.2")], verifier)
    assert (cell.answer, cell.cited, cell.closest) == ("no", [], [1])
    assert cell.shown() == "no (9.2)"
    absent = ShortAnswer(form="value", verdict="not addressed", closest=[1])
    cell = cell_of("q", "Notice period?", absent, [_source(1, ASSIGN, "9.2")], verifier)
    assert cell.answer == "not addressed" and cell.shown() == "not addressed (closest: 9.2)"


# --- values grouped, the roll-up ---------------------------------------------------------------


def test_values_are_grouped_by_jurisdiction_days_and_dates() -> None:
    assert value_key("the State of New York", "law", "new york") == value_key("New York", "law")
    assert value_key("New York", "law").label == "New York"
    assert value_key("England", "law").key != value_key("New York", "law").key
    three_years = value_key("three (3) years", "duration", "3 years")
    assert three_years.key == value_key("thirty-six months", "duration", "36 months").key == "days:1096"
    assert three_years.label == "3 years"
    assert (
        value_key("one (1) month", "notice period", "1 month").key == value_key("30 days", "", "30 days").key
    )
    assert (
        value_key("ten business days", "notice period", "10 business days").key
        != value_key("10 days", "notice period", "10 days").key
    )
    assert value_key("June 21, 1999", "date", "1999-06-21").key == value_key("21 June 1999", "expiry").key
    assert (
        value_key("Until the last  warranty ends.", "condition").key
        == value_key("until the last warranty ends", "condition").key
    )


def _cell(key: str, answer: str, value: str = "", value_type: str = "law", normalized: str = "") -> RoomCell:
    return RoomCell(
        key=key,
        question="Q",
        answer=answer,
        value=value,
        value_type=value_type,
        normalized=normalized,
        line=answer,
    )


def test_the_rollup_counts_groups_and_finds_the_outliers() -> None:
    laws = ["New York"] * 7 + ["the State of New York", "Texas"]
    rows = [(f"c{n}", _cell("law", "value", v, normalized="")) for n, v in enumerate(laws)]
    rows.append(("c9", _cell("law", "not addressed")))
    rows += [(f"c{n}", _cell("assign", "yes")) for n in range(8)] + [("c8", _cell("assign", "no"))]
    rows += [("c9", _cell("assign", "unclear"))]
    summary = rollup([("law", "Which law?"), ("assign", "Consent?"), ("empty", "Nobody?")], rows, ["bad.pdf"])
    law, assign, empty = summary.questions
    assert law.counts["value"] == 9 and law.counts["not addressed"] == 1 and law.majority == "value"
    assert [(g.label, len(g.contracts)) for g in law.values] == [("New York", 8), ("Texas", 1)]
    assert law.values[0].wordings == ["New York", "the State of New York"]
    assert {(o.contract_id, o.shown) for o in law.outliers} == {("c9", "not addressed"), ("c8", "Texas")}
    assert assign.majority == "yes" and [o.contract_id for o in assign.outliers] == ["c8"]
    assert assign.counts["unclear"] == 1 and "8 of 9 contracts say yes" in assign.outliers[0].why
    assert empty.contracts == 0 and empty.outliers == [] and summary.errors == ["bad.pdf"]


def test_no_majority_and_all_distinct_values_make_no_outliers() -> None:
    parties = [
        (f"c{n}", _cell("p", "value", f"Party {n} Inc.", "party", f"party {n} inc.")) for n in range(5)
    ]
    split = [(f"d{n}", _cell("v", "yes" if n % 2 else "no")) for n in range(6)]
    summary = rollup([("p", "Who?"), ("v", "Yes?")], parties + split)
    assert summary.questions[0].outliers == [] and len(summary.questions[0].values) == 5
    assert summary.questions[1].majority is None and summary.questions[1].outliers == []


def test_the_grid_exports_carry_quotes_clause_ids_and_the_rollup(tmp_path: Path) -> None:
    from openpyxl import load_workbook

    verifier = QuoteVerifier(TEXT)
    law = ShortAnswer(form="value", value="New York", value_type="law", normalized="new york", sources=[1])
    cell = cell_of(question_key("Which law?"), "Which law?", law, [_source(1, LAW)], verifier)
    questions = [(cell.key, "Which law?")]
    rows = [("msa", cell, ""), ("broken.pdf", None, "the PDF is corrupt")]
    summary = rollup(questions, [(c, x) for c, x, _ in rows], ["broken.pdf"])
    lines = list(csv.DictReader(io.StringIO(render("csv", questions, rows, summary))))
    assert lines[0]["clauses"] == "9.1" and LAW in lines[0]["quotes"] and lines[0]["answer"] == "value"
    assert lines[1]["answer"] == "error" and "corrupt" in lines[1]["note"]
    markdown = render("md", questions, rows, summary)
    assert "| msa | New York (9.1) |" in markdown and "error: the PDF is corrupt" in markdown
    assert f'"{LAW}"' in markdown and "**New York** (1): msa" in markdown
    data = json.loads(render("json", questions, rows, summary))
    assert data["grid"][0]["cells"][0]["shown"] == "New York (9.1)" and data["grid"][1]["error"]
    assert data["rollup"]["questions"][0]["values"][0]["contracts"] == ["msa"]
    path = tmp_path / "room.xlsx"
    path.write_bytes(render("xlsx", questions, rows, summary))
    book = load_workbook(path)
    assert book.sheetnames == ["grid", "cells", "roll-up"]
    assert [c.value for c in book["grid"][2]] == ["msa", "New York (9.1)"]
    cells = [[c.value for c in row] for row in book["cells"].iter_rows()]
    assert cells[1][5] == "9.1" and LAW in cells[1][7]


# --- the Python API and the command line on the example contracts ------------------------------


QUESTIONS = [
    "Which law governs the agreement?",
    "When does the agreement expire?",
    "Is there a non-compete clause?",
]


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory, hub):
    """A runtime (the shipped classifiers; no model for what they do not cover) with the sample
    NDA and the services agreement ingested, and their folder with a corrupt file beside them."""
    from clausewise.core.config import load_settings
    from clausewise.runtime import Runtime

    base = tmp_path_factory.mktemp("room")
    folder = base / "room"
    folder.mkdir()
    for name in ("mutual-nda.txt", "services-agreement.txt"):
        shutil.copyfile(EXAMPLES / name, folder / name)
    (folder / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\n%% truncated")
    settings = load_settings(
        overrides={"paths": {"data_dir": str(base / "data")}, "decision": {"model_decides": False}}
    )
    runtime = Runtime(settings, hub=hub)
    for name in ("mutual-nda.txt", "services-agreement.txt"):
        runtime.archivist().ingest(folder / name)
    return runtime, folder


def test_a_contract_answers_all_its_questions_with_one_decider(room, monkeypatch) -> None:
    from clausewise.api import Clausewise

    runtime, _ = room
    built = []
    real = runtime.decider
    monkeypatch.setattr(
        runtime, "decider", lambda index, **kw: built.append(index.contract_id) or real(index, **kw)
    )
    api = Clausewise(runtime=runtime)
    items = list(
        api.ask_room(["mutual-nda", "services-agreement"], QUESTIONS, journal=runtime.tenant_dir / "j.jsonl")
    )
    assert built == ["mutual-nda", "services-agreement"]  # one decider per contract, not per cell
    cells = {(i.contract_id, i.result.question): i.result for i in items}
    assert len(cells) == 6 and all(not i.resumed for i in items)
    assert cells[("mutual-nda", QUESTIONS[0])].shown() == "England (9.1)"
    assert cells[("services-agreement", QUESTIONS[0])].shown() == "New York (11.1)"
    assert cells[("services-agreement", QUESTIONS[1])].value == "three (3) years"
    for contract in ("mutual-nda", "services-agreement"):
        text = runtime.store.open(contract)
        try:
            document = text.document.text
        finally:
            text.close()
        for (owner, _), cell in cells.items():
            if owner != contract:
                continue
            assert cell.answer in ("yes", "no", "partly", "value", "not addressed", "unclear")
            assert all(document[s.span[0] : s.span[1]] == s.quote for s in cell.sources)
            if cell.answer == "value":
                assert cell.value in " ".join(s.quote for s in cell.sources if s.number in cell.cited)


def test_a_folder_room_is_resumable_and_an_unreadable_file_is_its_row(room) -> None:
    from clausewise.api import Clausewise
    from clausewise.cli.results import folder_files

    runtime, folder = room
    api = Clausewise(runtime=runtime)
    files = folder_files(folder)
    first = list(api.ask_room(files, QUESTIONS[:2]))
    errors = [i for i in first if i.error]
    assert [i.contract_id for i in errors] == ["broken.pdf"] and "pdf" in errors[0].error.lower()
    assert sum(1 for i in first if i.result) == 4 and not any(i.resumed for i in first)
    again = list(api.ask_room(files, QUESTIONS[:2]))
    assert all(i.resumed for i in again if i.result)
    assert [i.result for i in again if i.result] == [i.result for i in first if i.result]
    fresh = list(api.ask_room(files, QUESTIONS[:2], fresh=True))
    assert not any(i.resumed for i in fresh)


@pytest.fixture
def cli(room, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, hub):
    from tests.test_cli import _run, with_the_sessions_models

    without_clausewise_environment(monkeypatch)
    monkeypatch.setenv("COLUMNS", "200")
    with_the_sessions_models(monkeypatch, hub)
    runtime, _ = room
    data = str(runtime.settings.paths.data_dir)
    return lambda *args: _run(capsys, "--data-dir", data, "--decision.model-decides", "false", *args)


def test_the_cli_grid_over_a_folder_with_exports(cli, room, tmp_path: Path) -> None:
    _, folder = room
    out = tmp_path / "grid.csv"
    code, output, _ = cli("ask", str(folder), *QUESTIONS[:2], "--out", str(out))
    assert code == 0, output
    assert "Q1. Which law governs the agreement?" in output
    assert "broken.pdf: not read" in output
    assert "Q1 England (9.1) · Q2 two (2) years (6.1)" in output
    assert "services-agreement" in output and "New York (11.1)" in output
    lines = list(csv.DictReader(out.open(encoding="utf-8")))
    assert {(r["contract"], r["answer"]) for r in lines} >= {("mutual-nda", "value"), ("broken.pdf", "error")}
    governing = next(r for r in lines if r["contract"] == "services-agreement" and "law" in r["question"])
    assert governing["clauses"] == "11.1" and "New York" in governing["quotes"] and governing["spans"]
    code, output, err = cli("ask", "--all", QUESTIONS[0], "--format", "json")
    assert code == 0
    data = json.loads(output)  # with --format, standard output holds the result alone
    assert [row["contract_id"] for row in data["grid"]] == ["mutual-nda", "services-agreement"]
    assert "Q1. Which law governs" in err and "(from the previous run)" not in err  # other sources
    code, output, _ = cli("ask", "--all", QUESTIONS[0])
    assert code == 0 and "(from the previous run)" in output


def test_the_cli_refuses_unclear_arguments(cli) -> None:
    code, _, err = cli("ask", "mutual-nda", "services-agreement")
    assert code == 2 and "no question" in err
    code, _, err = cli("ask", "nope", "Which law governs?")
    assert code == 4 and "no contract 'nope'" in err and "clausewise contracts list" in err
    code, _, err = cli("ask", "mutual-nda", "Which law governs?", "services-agreement")
    assert code == 2 and "ambiguous arguments" in err
    code, _, err = cli("ask", "mutual-nda", "services-agreement", "Which law?", "--format", "html")
    assert code == 2 and "md, csv, json, xlsx" in err
    code, _, err = cli("ask", "mutual-nda", "services-agreement", "Which law?", "--report", "mutual-nda:3")
    assert code == 2 and "question 3 of 1" in err


def test_one_contract_and_one_question_keep_the_quick_answer(cli) -> None:
    code, output, _ = cli(
        "ask", "services-agreement", "Which law governs the agreement?", "--quick", "--format", "json"
    )
    assert code == 0
    answer = json.loads(output)
    assert answer["short_answer"]["line"] == "New York [1]" and answer["contract_id"] == "services-agreement"


def test_a_quick_answer_asked_back_is_answered_once_a_provision_is_chosen(cli) -> None:
    """Rule "ask back" through the command line, with the shipped router: each offered provision
    keyed; asked again with --provision, that provision's decider answers; a key no provision has
    is refused with what to do (exit 4)."""
    asked = ("ask", "services-agreement", "Can the customer walk away from the deal at will?", "--quick")
    code, output, _ = cli(*asked, "--format", "json")
    short = json.loads(output)["short_answer"]
    assert code == 0 and short["verdict"] == "unclear" and short["options"]
    assert short["line"].startswith("Unclear which provision") and "Did you mean:" in short["line"]
    chosen = short["options"][0]["key"]
    code, output, _ = cli(*asked, "--provision", chosen, "--format", "json")
    decided = json.loads(output)["short_answer"]
    # its decider answers: a verdict, or (the way round unsure) what the contract has
    assert code == 0 and decided["decided_by"] == "provision classifier" and not decided["options"]
    assert decided["provision"] == short["options"][0]["name"] and (decided["sources"] or decided["closest"])
    assert decided["verdict"] in ("yes", "no") or decided["found"] == "present"
    code, _, err = cli(*asked, "--provision", "cuad:no-such-provision")
    assert code == 4 and "cuad:no-such-provision" in err and "offered back" in err


PROVISIONS = """name: two
provisions:
  - key: governing-law
    name: Governing Law
    kind: fact
    question: Which state or country's law governs the interpretation of the contract?
    keywords: [governed by, laws of]
  - key: non-compete
    name: Non-Compete
    question: Is a party restricted from competing with the other party?
    keywords: [compete, competing business]
"""
PLAYBOOK = """name: law-only
version: "1"
positions:
  - id: governing-law
    clause: Governing Law
    standard: {law: [England]}
    risk: medium
"""
#: Every command that takes --format, on the room's contracts (the real deciders, no language model).
FORMATTED = {
    "check": ["check", "mutual-nda", "--hypothesis", "The agreement is governed by English law."],
    "review": ["review", "mutual-nda", "--provisions", "{provisions}"],
    "playbook": ["playbook", "mutual-nda", "--playbook", "{playbook}"],
    "ask --quick": ["ask", "mutual-nda", "Which law governs the agreement?", "--quick"],
    "ask, a grid": ["ask", "mutual-nda", "services-agreement", "Which law governs the agreement?"],
    "audit": ["audit"],
}
TEXT_FORMATS = {"check": "csv", "review": "md", "playbook": "md", "ask --quick": "md", "ask, a grid": "csv"}


@pytest.mark.parametrize("command", list(FORMATTED))
def test_format_puts_the_result_alone_on_standard_output_with_or_without_out(
    cli, command: str, tmp_path: Path
) -> None:
    provisions, playbook = tmp_path / "two.yaml", tmp_path / "law.yaml"
    provisions.write_text(PROVISIONS, encoding="utf-8")
    playbook.write_text(PLAYBOOK, encoding="utf-8")
    args = [a.format(provisions=provisions, playbook=playbook) for a in FORMATTED[command]]
    code, printed, _ = cli(*args, "--format", "json")
    assert code == 0
    shown = json.loads(printed)  # nothing but the result on standard output
    if command == "audit":  # it writes no file: its records, as a list
        assert isinstance(shown, list) and all("action" in record for record in shown)
        return
    saved = tmp_path / "result.json"
    code, printed, err = cli(*args, "--format", "json", "--out", str(saved))
    assert code == 0 and "written to" in err
    assert json.loads(printed) == json.loads(saved.read_text(encoding="utf-8"))  # the same result, both ways
    text = TEXT_FORMATS[command]
    code, printed, _ = cli(*args, "--format", text)
    assert code == 0 and printed.strip() and not printed.lstrip().startswith(("{", "["))
    if text == "csv":
        assert "," in printed.splitlines()[0]
    # without --format, a file gets the result and standard output the human view
    as_file = tmp_path / f"result.{text}"
    code, printed, _ = cli(*args, "--out", str(as_file))
    assert code == 0 and as_file.read_text(encoding="utf-8").strip() and "written to" in printed


def test_selected_cells_get_their_full_report(room, tmp_path: Path) -> None:
    from clausewise.api import Clausewise
    from clausewise.cli.room_args import RoomArguments
    from clausewise.cli.room_cmd import run_room
    from tests.fakes import LegalScript
    from tests.live import scripted_runtimes

    runtime, _ = room
    scripted = scripted_runtimes(LegalScript("governed by the laws of the State of New York", "New York law"))
    api = Clausewise(runtime=scripted(runtime.settings, runtime.hub))
    out = tmp_path / "grid.md"
    run_room(
        api,
        RoomArguments(["mutual-nda", "services-agreement"], QUESTIONS[:2]),
        fmt=None,
        out=out,
        fresh=False,
        reports=["services-agreement:1"],
        reports_dir=None,
        context="",
        instructions="",
        turns=1,
    )
    assert "| services-agreement | New York (11.1) |" in out.read_text(encoding="utf-8")
    reports = sorted((tmp_path / "grid-reports").iterdir())
    assert [p.name for p in reports] == ["services-agreement-q1.md"]
    assert "New York" in reports[0].read_text(encoding="utf-8")


def test_contract_text_in_the_terminal_grid_is_never_read_as_markup() -> None:
    from rich.console import Console

    from clausewise.cli.room_cmd import _cell_text, _grid_table

    cell = RoomCell(key="q1", question="Q?", answer="value", value="[/bold] thirty [red]days", line="x")
    console = Console(record=True, width=120)
    console.print(_grid_table([("q1", "Q?")], [("[b]nda", cell, ""), ("bad.pdf", None, "[/x] corrupt")]))
    console.print(_cell_text(cell))
    shown = console.export_text()
    assert "[/bold] thirty [red]days" in shown and "[b]nda" in shown and "[/x] corrupt" in shown
