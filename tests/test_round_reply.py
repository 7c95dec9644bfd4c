"""Our answer to the other side's round, in their own Word file: their changes kept, ours added
under our author (their changes that made a playbook position worse rejected: their insertions
deleted, their deletions put back, a struck clause restored whole), each with a Word comment.
Read back with our parser (every change accepted: as intended; ours rejected: as theirs; all
rejected: as their text before) and, where LibreOffice is installed, as LibreOffice reads it.
On a services agreement (a cap cut and an exclusivity clause inserted, beside a change no
position covers, which stays) and an NDA (its reverse-engineering clause struck)."""

from __future__ import annotations

import io
import re
import shutil
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
from docx import Document
from lxml import etree

from clausewise.core.config import load_settings
from clausewise.runtime import Runtime
from clausewise_lab.evals.reply_reading import odt_accepted_lines
from clausewise_lab.evals.word_files import Change, Para, WordFile, write_word_file
from tests.test_playbook import as_odt
from tests.test_round_assessment import EXAMPLES
from tests.test_word_revisions import THEM, services_agreement
from tools.playbook.positions import load_positions
from tools.round_reply import text_of, without_ours

US = "Buyer Counsel"
WHEN = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _cap_cut_to(spec: WordFile, words: str) -> WordFile:
    """``spec`` (the services agreement) with their cap cut from twelve months to ``words``."""
    spec.paragraphs[2] = Para(
        [
            "Liability. Supplier's liability is limited to the fees paid in the ",
            Change("del", THEM, "twelve (12)"),
            Change("ins", THEM, words),
            " months before the claim.",
        ],
        style="List Number",
    )
    return spec


def _services_with_a_harmless_change() -> WordFile:
    """Their cap cut to three months (below the playbook's fallback of six), an exclusivity clause
    inserted, and a word no position covers."""
    spec = _cap_cut_to(services_agreement(), "three (3)")
    spec.paragraphs[1] = Para(
        [
            "Services. Supplier shall ",
            Change("ins", THEM, "promptly "),
            "provide the services described in Schedule 1.",
        ],
        style="List Number",
    )
    return spec


def _nda_with_reverse_engineering_struck() -> WordFile:
    lines = [
        " ".join(line.split())
        for line in (EXAMPLES / "mutual-nda.txt").read_text().splitlines()
        if line.strip()
    ]
    return WordFile(
        [
            Para([Change("del", THEM, line)], mark=Change("del", THEM, ""))
            if re.match(r"2\.4 Neither Party shall reverse engineer", line)
            else Para([line])
            for line in lines
        ]
    )


@pytest.fixture(scope="module")
def api(hub, tmp_path_factory: pytest.TempPathFactory):
    from clausewise.api import Clausewise

    folder = tmp_path_factory.mktemp("round-reply")
    api = Clausewise(
        runtime=Runtime(load_settings(overrides={"paths": {"data_dir": str(folder / "data")}}), hub=hub)
    )
    api.ingest(write_word_file(folder / "services.docx", _services_with_a_harmless_change()))
    api.ingest(write_word_file(folder / "nda-round.docx", _nda_with_reverse_engineering_struck()))
    api.ingest(write_word_file(folder / "services-six.docx", _cap_cut_to(services_agreement(), "six (6)")))
    api.ingest(write_word_file(folder / "msa-round.docx", _msa_round()))
    return api


def _msa_round() -> WordFile:
    """The example services agreement as a Word file (a paragraph a line) in which they cut the
    renewal notice from ninety days to ten (below the fallback of thirty) and the cap from twelve
    months of fees to nine (above the fallback of six)."""
    cuts = {
        "ninety (90) days before the end": "ten (10)",
        "the twelve (12) months before the event": "nine (9)",
    }
    paragraphs = []
    for line in (EXAMPLES / "services-agreement.txt").read_text().splitlines():
        line = " ".join(line.split())
        if not line:
            continue
        cut = next((place for place in cuts if place in line), None)
        if cut is None:
            paragraphs.append(Para([line]))
            continue
        old = re.match(r"(?:the )?(\w+ \(\d+\))", cut).group(1)
        head, tail = line.split(old, 1)
        paragraphs.append(Para([head, Change("del", THEM, old), Change("ins", THEM, cuts[cut]), tail]))
    return WordFile(paragraphs)


@pytest.fixture(scope="module")
def services_reply(api):
    """The services round answered once (deciding both texts is the slow part), for every test."""
    return api.reply_to_round("services", load_positions("playbook-commercial"), author=US, when=WHEN)


def _original(api, contract: str) -> bytes:
    index = api.runtime.store.open(contract)
    try:
        return index.original.read_bytes()
    finally:
        index.close()


def _comments(data: bytes) -> list[tuple[str, str]]:
    with zipfile.ZipFile(io.BytesIO(data)) as docx:
        root = etree.fromstring(docx.read("word/comments.xml"))
    return [(c.get(f"{W}author"), "".join(c.itertext())) for c in root.iter(f"{W}comment")]


def _authors(data: bytes) -> dict[str, int]:
    counts: dict[str, int] = {}
    for element in Document(io.BytesIO(data)).element.body.iter(f"{W}ins", f"{W}del"):
        counts[element.get(f"{W}author")] = counts.get(element.get(f"{W}author"), 0) + 1
    return counts


def _unnumbered(text: str) -> list[str]:
    return [re.sub(r"^\d+(?:\.\d+)*\.?\s+", "", line) for line in text.split("\n") if line.strip()]


def test_the_services_reply_offers_the_fallback_cap_rejects_the_new_clause_and_keeps_the_rest(
    api, services_reply
) -> None:
    original = _original(api, "services")
    answered = services_reply
    reply = answered.data
    accepted = text_of(reply, "proposed")
    # rule "fallback offered": their three months give way to the playbook's fallback, six
    assert "limited to the fees paid in the six (6) months before the claim." in accepted
    assert "three (3)" not in accepted and "twelve (12)" not in accepted and "Exclusivity" not in accepted
    assert list(answered.offered.values()) == ["six (6)"]
    assert "Supplier shall promptly provide the services" in accepted  # no position covers it: theirs stays
    assert text_of(without_ours(reply, US), "proposed") == text_of(original, "proposed")
    assert text_of(reply, "before") == text_of(original, "before")
    assert _authors(reply)[THEM] == _authors(original)[THEM] and _authors(reply)[US] >= 3
    comments = _comments(reply)
    assert len(comments) == len(answered.rejected) == 2 and {author for author, _ in comments} == {US}
    assert all("Our position:" in text for _, text in comments)
    assert any("We can accept six (6) months (our fallback)." in text for _, text in comments)


def test_a_cut_the_fallback_accepts_stays_and_one_below_it_is_met_with_the_fallback(api) -> None:
    """The two fallback rules on a second contract (the example services agreement), and "fallback
    accepted" on the first: a cap cut to nine or six months of fees (the fallback is six) stays;
    a renewal notice cut to ten days (the fallback is thirty) is answered with thirty."""
    commercial = load_positions("playbook-commercial")
    msa = api.reply_to_round("msa-round", commercial, author=US, when=WHEN)
    accepted = text_of(msa.data, "proposed")
    assert "at least thirty (30) days before the end of the then-current term" in accepted
    assert "in the nine (9) months before the event" in accepted  # theirs, accepted at the fallback
    assert list(msa.offered.values()) == ["thirty (30)"] and len(msa.rejected) == 1
    assert text_of(without_ours(msa.data, US), "proposed") == text_of(_original(api, "msa-round"), "proposed")
    six = api.reply_to_round("services-six", commercial, author=US, when=WHEN)
    cap = next(p for p in six.assessment.positions if p.position_id == "liability-cap")
    assert (cap.movement, cap.after.verdict) == ("worse", "meets_fallback")
    assert "fees paid in the six (6) months" in text_of(six.data, "proposed")
    assert "Exclusivity" not in text_of(six.data, "proposed") and len(six.rejected) == 1


def test_the_nda_reply_puts_the_struck_clause_back_whole(api) -> None:
    original = _original(api, "nda-round")
    answered = api.reply_to_round("nda-round", load_positions("playbook-nda"), author=US, when=WHEN)
    accepted = text_of(answered.data, "proposed")
    assert "2.4 Neither Party shall reverse engineer, decompile or disassemble any software" in accepted
    assert accepted == text_of(original, "before")  # the only change was rejected
    assert text_of(without_ours(answered.data, US), "proposed") == text_of(original, "proposed")
    assert len(answered.rejected) == 1


def test_libreoffice_reads_the_reply_as_intended_and_shows_our_changes(
    services_reply, tmp_path: Path
) -> None:
    office = shutil.which("soffice")
    if office is None:
        pytest.skip("LibreOffice is not installed (apt-get install libreoffice-writer-nogui)")
    answered = services_reply
    odt = as_odt(office, answered.data, tmp_path)
    assert odt_accepted_lines(odt) == _unnumbered(text_of(answered.data, "proposed"))
    with zipfile.ZipFile(odt) as opened:
        content = opened.read("content.xml").decode("utf-8")
    assert (
        content.count(f"<dc:creator>{US}</dc:creator>") >= 3 and f"<dc:creator>{THEM}</dc:creator>" in content
    )
