"""What a playbook may expand to and how deep it may nest, measured before anything builds or
serialises it; a tenant's playbook versions created once and for good; the built-in playbooks
found at their own version. The HTTP doors are tested on a live server in
tests/test_service_playbooks.py; the abuse families of ``clausewise eval serve`` send them 20
times at once."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from clausewise.cli.main import run
from clausewise.core.errors import PlaybookConflict, PlaybookNotFound, YamlTooComplex
from clausewise_lab.evals.abuse_families import alias_bomb, deep_playbook, largest_playbook, positions_of
from tools.checks.suites import parse_suite
from tools.playbook.positions import load_positions, parse_positions
from tools.playbook.shelf import PlaybookShelf
from tools.playbooks import MAX_YAML_CHARS

LAUGHS = "".join(f"l{n}: &l{n} [" + ", ".join([f"*l{n - 1}" if n else "lol"] * 9) + "]\n" for n in range(9))


@pytest.mark.parametrize("text", [alias_bomb(), LAUGHS], ids=["one anchor 5,000 times", "nested laughs"])
def test_aliases_that_multiply_a_playbook_are_refused_before_it_is_built(text: str) -> None:
    assert len(text) < MAX_YAML_CHARS  # small as sent: only its expansion is too large
    with pytest.raises(YamlTooComplex, match="expands to more than 200,000 characters") as refused:
        parse_positions(text, "their playbook")
    assert refused.value.exit_code == 2 and "alias" in refused.value.hint
    with pytest.raises(YamlTooComplex):  # every kind of playbook is read through the same bound
        parse_suite(text, "their suite")


def test_aliases_that_keep_a_playbook_small_are_read_as_written_out() -> None:
    aliased = """
name: ours
version: "1"
positions:
  - id: cap
    clause: Cap on Liability
    standard: &year {duration: {at_least: 12 months}}
    risk: high
  - id: term
    clause: Renewal Term
    standard: *year
    risk: low
"""
    written = aliased.replace("&year ", "").replace("*year", "{duration: {at_least: 12 months}}")
    assert parse_positions(aliased, "aliased") == parse_positions(written, "written")


@pytest.mark.parametrize(
    "text",
    [deep_playbook(), "name: deep\npositions:\n" + "".join("  " * i + "- k:\n" for i in range(1, 400))],
    ids=["flow lists 3,000 deep", "block mappings 400 deep"],
)
def test_nesting_past_the_bound_is_refused_without_a_recursion_error(text: str) -> None:
    with pytest.raises(YamlTooComplex, match="nested more than 32 levels deep"):
        parse_positions(text, "deep")


def test_the_largest_playbook_allowed_is_read_and_one_character_more_is_not() -> None:
    largest = largest_playbook("largest")
    assert len(parse_positions(largest, "largest").positions[0].examples) > 2000
    with pytest.raises(YamlTooComplex, match="over the 200,000"):
        parse_positions(largest + "#" * (MAX_YAML_CHARS - len(largest) + 1), "too long")


def test_every_built_in_playbook_is_within_the_bounds() -> None:
    for name in ("playbook-commercial", "playbook-nda"):
        assert load_positions(name).positions


def _race(shelf: PlaybookShelf, texts: dict[str, str]) -> dict[str, object]:
    """Put every text at the same moment, each from its own thread: what each put returned."""
    outcomes: dict[str, object] = {}
    start = threading.Barrier(len(texts))

    def put(risk: str) -> None:
        start.wait()
        try:
            outcomes[risk] = shelf.put(texts[risk])
        except PlaybookConflict as conflict:
            outcomes[risk] = conflict

    racers = [threading.Thread(target=put, args=(risk,)) for risk in texts]
    for racer in racers:
        racer.start()
    for racer in racers:
        racer.join()
    return outcomes


def test_two_uploads_of_one_version_at_once_keep_one_for_good(tmp_path: Path) -> None:
    shelf = PlaybookShelf(tmp_path / "playbooks")
    for round_number in range(12):
        version = f"r{round_number}"
        texts = {risk: positions_of(version, risk) for risk in ("low", "high")}
        outcomes = _race(shelf, texts)
        kept = [risk for risk, outcome in outcomes.items() if not isinstance(outcome, PlaybookConflict)]
        assert len(kept) == 1, outcomes
        assert shelf.get("race", version).positions[0].risk == kept[0]
        assert shelf.put(texts[kept[0]]).created is False  # the same text again: kept, not re-created
    assert not list((tmp_path / "playbooks").glob(".upload-*"))  # no temporary file left


def test_a_built_in_playbook_is_found_at_its_own_version_only(tmp_path: Path) -> None:
    shelf = PlaybookShelf(tmp_path / "playbooks")
    builtin = load_positions("playbook-nda")
    assert shelf.get("playbook-nda", builtin.version) == builtin
    with pytest.raises(PlaybookNotFound, match=r"version '1999\.1'"):
        shelf.get("playbook-nda", "1999.1")


def test_the_command_line_refuses_an_expanding_playbook_in_one_line_with_exit_code_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name, text in (("bomb.yaml", alias_bomb()), ("deep.yaml", deep_playbook())):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(SystemExit) as exited:
            run(["--data-dir", str(tmp_path / "data"), "playbook", "any-contract", "--playbook", str(path)])
        err = capsys.readouterr().err
        assert exited.value.code == 2
        assert "Traceback" not in err and "RecursionError" not in err
        assert len([line for line in err.splitlines() if line.strip()]) == 1
        assert ("expands to more than" in err) or ("nested more than" in err)
