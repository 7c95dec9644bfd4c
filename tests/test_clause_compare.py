"""Two texts of a contract compared clause by clause: a value rewritten, a clause struck, inserted or
moved, words in and out, each with its spans in both texts; a moved or renumbered clause is not a
change of its words. Shown on the example supply agreement and NDA edited as a negotiation round
would, on the other side's Word file (before against proposed, with authors), and through the
command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from clausewise.core.comparison import Comparison, TextChange, TextReference
from clausewise.core.config import load_settings
from clausewise.core.domain import ClauseNode, ClauseTree, FileType, NodeKind
from clausewise_lab.evals.word_files import write_word_file
from tests.test_cli import cli  # noqa: F401  (the fixture)
from tests.test_word_revisions import THEM, services_agreement
from tools.clause_compare import compare_texts
from tools.parsing.text import parse_text_file
from tools.parsing.word_file import parse_docx_file
from tools.structure.tree_builder import build_tree

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _read(tmp_path: Path, name: str, text: str) -> tuple[str, ClauseTree]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    document = parse_text_file(path, FileType.TEXT)
    return document.text, build_tree(document, load_settings().structure)


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def _kinds(changes: list[TextChange]) -> list[str]:
    return [c.kind for c in changes]


def _round(tmp_path: Path, before: str, after: str, kinds: list[str]) -> tuple[str, str, Comparison]:
    """The two texts of a negotiation round as read from files, and their comparison, checked
    to hold one change of each of ``kinds`` and nothing else."""
    text_a, tree_a = _read(tmp_path, "before.txt", before)
    text_b, tree_b = _read(tmp_path, "after.txt", after)
    comparison = compare_texts((text_a, tree_a), (text_b, tree_b))
    assert sorted(_kinds(comparison.changes)) == sorted(kinds)
    return text_a, text_b, comparison


def _change(comparison: Comparison, kind: str) -> TextChange:
    return next(c for c in comparison.changes if c.kind == kind)


def test_a_supply_agreement_round_a_value_a_struck_clause_and_a_moved_one_renumbered(tmp_path: Path) -> None:
    before = (EXAMPLES / "supply-agreement.txt").read_text(encoding="utf-8")
    after = _edit(before, "within forty-five (45) days of receipt", "within sixty (60) days of receipt")
    struck = (
        "7.2 Neither Party is liable for any indirect, special or consequential loss, or for any loss of "
        "profits.\n\n"
    )
    after = _edit(after, struck, "").replace("7.3 Insurance.", "7.2 Insurance.")
    moved = re.search(r"8\.5 Entire agreement\.[^\n]*\n\n", after).group(0)
    after = after.replace(moved, "")
    for old, new in (
        ("8.4 Notices", "8.5 Notices"),
        ("8.3 Disputes", "8.4 Disputes"),
        ("8.2 Governing", "8.3 Governing"),
    ):
        after = _edit(after, old, new)
    after = _edit(after, "8.3 Governing", moved.replace("8.5 Entire", "8.2 Entire") + "8.3 Governing")

    text_a, text_b, comparison = _round(
        tmp_path, before, after, ["clause_moved", "clause_struck", "value_changed"]
    )
    value = _change(comparison, "value_changed")
    assert (value.value_before, value.value_after) == ("45 days", "60 days")
    assert text_a[slice(*value.before)] == "forty-five (45)" and text_b[slice(*value.after)] == "sixty (60)"
    assert value.before_clause == value.after_clause == "3.2"
    struck_change = _change(comparison, "clause_struck")
    assert (
        text_a[slice(*struck_change.before)] == struck.strip()
        and struck_change.after[0] == struck_change.after[1]
    )
    move = _change(comparison, "clause_moved")
    assert text_a[slice(*move.before)].startswith("8.5 Entire agreement")
    assert text_b[slice(*move.after)].startswith("8.2 Entire agreement")
    assert (move.before_clause, move.after_clause) == ("8.5", "8.2")
    assert comparison.renumbered >= 4  # 7.3 -> 7.2 and 8.2-8.4 -> 8.3-8.5: numbers, not changes


def test_an_nda_round_a_value_a_struck_clause_and_a_new_paragraph(tmp_path: Path) -> None:
    before = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
    after = _edit(before, "continues for two (2) years", "continues for three (3) years")
    struck = re.search(r"2\.4 Neither Party shall reverse engineer[^\n]*\n\n", after).group(0)
    after = _edit(after, struck, "")
    added = "The Receiving Party shall promptly notify the Disclosing Party of any unauthorised use."
    injunctive = re.search(r"7\.1 Each Party acknowledges[^\n]*\n", after).group(0)
    after = _edit(after, injunctive, injunctive + "\n" + added + "\n")

    _, text_b, comparison = _round(
        tmp_path, before, after, ["clause_inserted", "clause_struck", "value_changed"]
    )
    value = _change(comparison, "value_changed")
    assert (value.value_before, value.value_after) == ("2 years", "3 years")
    inserted = _change(comparison, "clause_inserted")
    assert text_b[slice(*inserted.after)] == added and inserted.before[0] == inserted.before[1]


@pytest.mark.parametrize("name", ["supply-agreement.txt", "mutual-nda.txt"])
def test_a_text_compared_with_itself_has_no_changes(name: str, tmp_path: Path) -> None:
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    first, second = _read(tmp_path, "a.txt", text), _read(tmp_path, "b.txt", text)
    comparison = compare_texts(first, second)
    assert comparison.changes == [] and comparison.renumbered == 0 and comparison.clauses_compared > 10


def _tree(text: str, groups: list[list[int]]) -> ClauseTree:
    """A clause tree cut by hand: the document, then one paragraph per group of line numbers."""
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    ends = [*(s - 1 for s in starts[1:]), len(text)]
    first = starts[groups[0][0]]
    nodes = {
        "document": ClauseNode(id="document", kind=NodeKind.DOCUMENT, start=0, end=len(text), own_end=first)
    }
    for number, group in enumerate(groups, start=1):
        node = ClauseNode(
            id=f"p{number}",
            kind=NodeKind.PARAGRAPH,
            start=starts[group[0]],
            end=ends[group[-1]],
            own_end=ends[group[-1]],
            parent="document",
            depth=1,
        )
        nodes[node.id] = node
        nodes["document"].children.append(node.id)
    return ClauseTree(nodes=nodes)


def _lines(name: str, count: int) -> str:
    lines = [line for line in (EXAMPLES / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    return "\n".join(" ".join(line.split()) for line in lines[:count])


@pytest.mark.parametrize("name", ["supply-agreement.txt", "mutual-nda.txt"])
def test_the_same_lines_cut_into_other_clauses_are_not_a_change(name: str) -> None:
    """Rule "changed lines only": a heading joined to the clause under it in one tree and not in
    the other leaves every line the same, and nothing is reported."""
    text = _lines(name, 8)
    joined = _tree(text, [[0], [1, 2], [3], [4], [5], [6], [7]])
    apart = _tree(text, [[0], [1], [2], [3], [4], [5], [6], [7]])
    assert compare_texts((text, joined), (text, apart)).changes == []


@pytest.mark.parametrize("name", ["supply-agreement.txt", "mutual-nda.txt"])
def test_a_paragraph_added_inside_a_clause_is_a_clause_inserted_and_taken_out_a_clause_struck(
    name: str,
) -> None:
    """Rule "whole paragraphs": words inserted or deleted as whole lines are a clause, even where
    the tree joins that paragraph to the clause before it."""
    before = _lines(name, 8)
    lines = before.split("\n")
    added = "The Supplier shall keep complete and accurate records of its performance."
    after = "\n".join([*lines[:4], added, *lines[4:]])
    tree_before = _tree(before, [[0], [1], [2], [3], [4], [5], [6], [7]])
    tree_after = _tree(after, [[0], [1], [2], [3, 4], [5], [6], [7], [8]])  # joined to the line above
    inserted = compare_texts((before, tree_before), (after, tree_after)).changes
    assert _kinds(inserted) == ["clause_inserted"] and after[slice(*inserted[0].after)] == added
    struck = compare_texts((after, tree_after), (before, tree_before)).changes
    assert _kinds(struck) == ["clause_struck"] and after[slice(*struck[0].before)] == added


def test_the_other_sides_word_file_before_against_proposed_with_its_authors(tmp_path: Path) -> None:
    document = parse_docx_file(write_word_file(tmp_path / "services.docx", services_agreement()))
    before, proposed = document.as_version("before"), document.as_version("proposed")
    structure = load_settings().structure
    from tools.clause_compare import with_authors

    comparison = with_authors(
        compare_texts(
            (before.text, build_tree(before, structure)), (proposed.text, build_tree(proposed, structure))
        ),
        document.tracked,
    )
    assert [(c.kind, c.authors) for c in comparison.changes] == [
        ("value_changed", [THEM]),
        ("clause_inserted", [THEM]),
    ]
    assert (
        comparison.changes[0].before_words == "twelve (12)" and comparison.changes[0].after_words == "six (6)"
    )
    assert comparison.renumbered == 1  # Term: 3 -> 4


@pytest.mark.parametrize(
    ("reference", "parsed"),
    [
        ("nda", TextReference(contract="nda")),
        ("nda@2", TextReference(contract="nda", version=2)),
        ("nda@before", TextReference(contract="nda", text="before")),
        ("nda@3:proposed", TextReference(contract="nda", version=3, text="proposed")),
    ],
)
def test_a_text_reference_names_a_contract_its_version_and_its_text(
    reference: str, parsed: TextReference
) -> None:
    assert TextReference.parse(reference) == parsed and parsed.describe() == reference


def test_the_command_line_reads_the_round_and_compares_its_texts(cli, tmp_path: Path, copy_example) -> None:  # noqa: F811
    path = write_word_file(tmp_path / "services.docx", services_agreement())
    assert cli("ingest", str(path))[0] == 0
    code, out, _ = cli("changes", "services", "--format", "json")
    found = json.loads(out)
    assert code == 0 and found["authors"] == {THEM: 3} and len(found["revisions"]) == 3
    assert [c["kind"] for c in found["comparison"]["changes"]] == ["value_changed", "clause_inserted"]
    code, out, _ = cli("compare", "services@before", "services", "--format", "md")
    assert code == 0 and "| 1 | value changed | 2 | 12 months -> 6 months | Opposing Counsel |" in out
    nda = copy_example("mutual-nda.txt")
    assert cli("ingest", str(nda))[0] == 0
    code, _, err = cli("compare", "mutual-nda@before", "mutual-nda")
    assert code == 3 and "has no tracked changes" in err


@pytest.mark.parametrize(
    "args",
    [["changes", "services"], ["compare", "services@before", "services"]],
    ids=["changes", "compare"],
)
def test_format_puts_the_result_alone_on_standard_output_with_or_without_out(
    cli,  # noqa: F811
    args: list[str],
    tmp_path: Path,
) -> None:
    """The output convention of every command that takes --format (tests/test_room.py has the
    others): JSON alone on standard output, the same with --out; md as text; --out alone writes
    the file and shows the human view."""
    path = write_word_file(tmp_path / "services.docx", services_agreement())
    assert cli("ingest", str(path))[0] == 0
    code, printed, _ = cli(*args, "--format", "json")
    assert code == 0
    shown = json.loads(printed)
    saved = tmp_path / "result.json"
    code, printed, err = cli(*args, "--format", "json", "--out", str(saved))
    assert code == 0 and "written to" in err
    assert json.loads(printed) == json.loads(saved.read_text(encoding="utf-8")) == shown
    code, printed, _ = cli(*args, "--format", "md")
    assert code == 0 and printed.strip() and not printed.lstrip().startswith(("{", "["))
    as_file = tmp_path / "result.md"
    code, printed, _ = cli(*args, "--out", str(as_file))
    assert code == 0 and as_file.read_text(encoding="utf-8").strip() and "written to" in printed
