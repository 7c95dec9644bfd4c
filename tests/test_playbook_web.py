"""The page's playbook review in a real headless Chromium (Debian's, driven by Playwright) against
a live server on loopback: a playbook uploaded and chosen, the supply agreement reviewed against
it, the table filling in with verdicts and risk colours, a position's clause beside the
playbook's position, the redline with its insertions and deletions, and the DOCX download read
back with its tracked changes."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES
from tests.test_service_playbooks import OURS
from tests.test_web import browser, page_fixture, screen, site_holding  # noqa: F401  (the module's browser fixture)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(hub, tmp_path_factory: pytest.TempPathFactory):
    with site_holding(
        hub, tmp_path_factory.mktemp("playbook-web"), EXAMPLES / "supply-agreement.txt"
    ) as live:
        yield live


page = page_fixture("html[data-ready][data-playbook-ready]")


def test_a_playbook_review_fills_the_table_shows_the_redline_and_downloads_it(page, tmp_path: Path) -> None:
    page.click('.bar .tab[data-view="playbook"]')
    page.wait_for_selector('#playbook-choice option[value="playbook-commercial@2026.1"]', state="attached")
    playbook = tmp_path / "our-terms.yaml"
    playbook.write_text(OURS, encoding="utf-8")
    page.set_input_files("#playbook-upload", str(playbook))
    page.wait_for_function("document.querySelector('#playbook-choice').value === 'our-terms@1'")
    page.select_option("#playbook-choice", "playbook-commercial@2026.1")
    page.click("#run-playbook")
    page.wait_for_selector("#playbook-summary:not([hidden])", timeout=120_000)
    rows = page.locator("#playbook-grid tbody tr")
    assert rows.count() == 15
    assert (
        page.locator('#playbook-grid tr[data-position="governing-law"] .verdict').inner_text()
        == "meets fallback 1"
    )
    assert (
        page.locator('#playbook-grid tr[data-position="non-compete"] .risk').get_attribute("class")
        == "risk r-high"
    )
    assert "Overall risk: high" in page.locator("#playbook-summary").inner_text()

    page.click('#playbook-grid tr[data-position="liability-cap"] th button')
    detail = page.locator("#playbook-detail")
    assert "three (3) months" in detail.locator('[data-side="contract"]').inner_text()
    assert "at least 12 months" in detail.locator('[data-side="playbook"]').inner_text()
    assert detail.locator(".redline del").inner_text() == "three (3) months"
    assert detail.locator(".redline ins").inner_text() == "twelve (12) months"
    screen(page, "playbook-review")

    page.click('#playbook-grid tr[data-position="termination-for-convenience"] th button')
    assert "terminate this Agreement for convenience" in detail.locator(".redline ins").inner_text()
    page.click('#playbook-grid tr[data-position="governing-law"] th button')  # no redline to show
    assert detail.locator(".redline").count() == 0 and "null" not in detail.inner_text()

    with page.expect_download() as waiting:
        page.click("#playbook-redline")
    saved = tmp_path / "redline.docx"
    waiting.value.save_as(saved)
    with zipfile.ZipFile(saved) as docx:
        body = docx.read("word/document.xml").decode("utf-8")
    assert "<w:ins " in body and "<w:del " in body and "twelve (12) months" in body
