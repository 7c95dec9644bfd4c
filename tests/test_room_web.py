"""The page's questions grid in a real headless Chromium (Debian's, driven by Playwright) against a
live server on loopback: questions added as columns over two contracts, cells filling in, the
filter by answer, a clause opening the contract at its highlighted words, a cell's detail, the
roll-up, and the Excel and CSV downloads read back with their quotes and clause ids."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from clausewise.service.app import create_app
from tests.conftest import EXAMPLES
from tests.fakes import LegalScript
from tests.live import LiveServer, scripted_runtimes, wait_job
from tests.test_service import GOVERNING, service_settings
from tests.test_web import browser, opened_page, screen  # noqa: F401  (the module's browser fixture)

pytestmark = pytest.mark.browser

LAW = "Which law governs the agreement?"
EXPIRY = "When does the agreement expire?"
NON_COMPETE = "Is there a non-compete clause?"


@pytest.fixture(scope="module")
def site(hub, tmp_path_factory: pytest.TempPathFactory):
    settings = service_settings(tmp_path_factory.mktemp("room-web"))
    app = create_app(
        settings, runtime_factory=scripted_runtimes(LegalScript(GOVERNING, "English law")), hub=hub
    )
    with LiveServer(app) as live:
        with live.client() as client:
            for name in ("mutual-nda", "services-agreement"):
                with (EXAMPLES / f"{name}.txt").open("rb") as handle:
                    upload = client.post("/v1/contracts", files={"file": (f"{name}.txt", handle)}).json()
                assert wait_job(client, upload["job"]["id"])["status"] == "done"
        yield live


@pytest.fixture
def page(browser, site):  # noqa: F811
    yield from opened_page(browser, site.url, "html[data-ready][data-room-ready]")


def _cell(page, contract: str, column: int):
    return page.locator(f'#room-grid tbody tr[data-contract="{contract}"] td').nth(column)


def _add(page, *questions: str) -> None:
    """Add questions as columns and wait until every cell of the grid is answered."""
    columns = page.locator("#room-grid thead th").count() or 1
    page.fill("#room-question", "\n".join(questions))
    page.click("#add-question")
    page.wait_for_function(
        """(columns) => document.querySelectorAll('#room-grid thead th').length === columns
            && !document.querySelector('#room-grid td.pending')
            && document.querySelector('#room-grid').dataset.running === '0'""",
        arg=columns + len(questions),
        timeout=120_000,
    )
    assert not page.locator("#room-exports").is_hidden()


def test_questions_as_columns_fill_filter_open_and_download(page) -> None:
    from openpyxl import load_workbook

    page.click('.bar .tab[data-view="questions"]')
    page.wait_for_selector('.contract-picks[data-for="questions"] input[value="services-agreement"]')
    _add(page, LAW, EXPIRY)
    assert page.locator("#room-grid thead th").all_inner_texts() == [
        "Contract",
        f"Q1. {LAW}",
        f"Q2. {EXPIRY}",
    ]
    assert _cell(page, "mutual-nda", 0).locator("button.answer").inner_text() == "England"
    assert _cell(page, "services-agreement", 0).locator("button.answer").inner_text() == "New York"
    assert _cell(page, "services-agreement", 1).get_attribute("data-answer") == "value"
    _add(page, NON_COMPETE)  # a third column, its own job
    assert page.locator("#room-grid thead th").count() == 4
    answers = [_cell(page, c, 2).get_attribute("data-answer") for c in ("mutual-nda", "services-agreement")]
    assert all(a in ("yes", "no", "unclear", "not addressed") for a in answers)  # never blank
    screen(page, "questions-grid")

    # filter by answer, then by words
    page.select_option("#room-filter-question", label=f"Q1. {LAW}")
    page.select_option("#room-filter-answer", "value")
    assert page.locator("#room-grid tbody tr").count() == 2
    page.select_option("#room-filter-answer", "yes")
    assert page.locator("#room-grid tbody tr").count() == 0
    page.select_option("#room-filter-answer", "")
    page.fill("#room-filter-text", "new york")
    rows = page.locator("#room-grid tbody tr")
    assert rows.count() == 1 and rows.first.get_attribute("data-contract") == "services-agreement"
    page.fill("#room-filter-text", "")

    # the roll-up under the grid
    rollup = page.locator("#room-rollup").inner_text()
    assert "2 contract(s): 2 state a value" in rollup and "England (1): mutual-nda" in rollup

    # a cell's detail, then its clause opens the contract at the highlighted words
    _cell(page, "services-agreement", 0).locator("button.answer").click()
    detail = page.locator("#room-detail")
    assert "New York [1]" in detail.inner_text() and "governed by the laws of the State of New York" in (
        detail.inner_text()
    )

    # the downloads: the three columns, every cell with its quotes and clause ids
    with page.expect_download() as waiting:
        page.click('#room-exports button[data-format="xlsx"]')
    assert waiting.value.suggested_filename == "clausewise-room.xlsx"
    book = load_workbook(io.BytesIO(Path(waiting.value.path()).read_bytes()))
    grid = [[c.value for c in row] for row in book["grid"].iter_rows()]
    assert grid[0] == ["contract", LAW, EXPIRY, NON_COMPETE]
    assert grid[2][:3] == ["services-agreement", "New York (11.1)", "three (3) years (4.1/s1)"]
    with page.expect_download() as waiting:
        page.click('#room-exports button[data-format="csv"]')
    lines = list(csv.DictReader(io.StringIO(Path(waiting.value.path()).read_text(encoding="utf-8"))))
    assert len(lines) == 6
    law = next(r for r in lines if r["contract"] == "services-agreement" and r["question"] == LAW)
    assert law["clauses"] == "11.1" and "State of New York" in law["quotes"]

    _cell(page, "services-agreement", 0).locator("button.clause").click()
    page.wait_for_selector("#viewer mark.hl-text")
    assert "New York" in page.locator("#viewer mark.hl-text").first.inner_text()
