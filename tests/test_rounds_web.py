"""The page's view of the other side's redline in a real headless Chromium (Debian's, driven by
Playwright) against a live server on loopback: their Word file read as its two texts side by
side with each change where its words are, the changes clause by clause, filtered by author, held
against the commercial playbook (a job) with each change's risk, filtered by risk, and our reply
downloaded and read back."""

from __future__ import annotations

from pathlib import Path

import pytest

from clausewise_lab.evals.word_files import write_word_file
from tests.test_web import browser, page_fixture, site_holding  # noqa: F401  (the module's browser fixture)
from tests.test_word_revisions import THEM, services_agreement
from tools.round_reply import text_of

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(hub, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("rounds-web")
    word_file = write_word_file(folder / "services.docx", services_agreement())
    with site_holding(hub, folder / "data", word_file) as live:
        yield live


page = page_fixture("html[data-ready][data-rounds-ready]")


def test_their_redline_side_by_side_assessed_filtered_and_answered(page, tmp_path: Path) -> None:
    page.click('.bar .tab[data-view="rounds"]')
    page.wait_for_selector('#round-contract option[value="services"]', state="attached")
    page.click("#round-read")
    page.wait_for_selector("#round-texts:not([hidden])")
    assert page.locator("#round-proposed ins.change").first.inner_text() == "six (6)"
    assert page.locator("#round-before del.change").inner_text() == "twelve (12)"
    assert "Exclusivity" in page.locator("#round-proposed").inner_text()
    assert "Exclusivity" not in page.locator("#round-before").inner_text()
    assert page.locator("#round-grid tbody tr").count() == 2
    assert "3 tracked change(s) by Opposing Counsel (3)" in page.locator("#round-summary").inner_text()

    page.uncheck(f'#round-authors input[value="{THEM}"]')  # their changes hidden
    assert (
        page.locator("#round-proposed .change").count() == 0
        and page.locator("#round-grid tbody tr").count() == 0
    )
    page.check(f'#round-authors input[value="{THEM}"]')

    page.select_option("#round-playbook", "playbook-commercial")
    page.click("#round-assess")
    page.wait_for_selector("#round-reply:not([hidden])", timeout=180_000)
    assert page.locator('#round-grid tr[data-change="1"]').get_attribute("data-risk") == "high"
    assert page.locator('#round-positions li[data-movement="worse"]').count() >= 2
    page.uncheck('#round-risks input[value="high"]')  # both changes made a high-risk position worse
    assert page.locator("#round-grid tbody tr").count() == 0
    page.check('#round-risks input[value="high"]')

    page.fill("#round-author", "Buyer Counsel")
    with page.expect_download() as waiting:
        page.click("#round-reply")
    saved = tmp_path / "reply.docx"
    waiting.value.save_as(saved)
    accepted = text_of(saved.read_bytes(), "proposed")
    # their six months meet the fallback and stay; the new exclusivity clause is rejected
    assert "fees paid in the six (6) months" in accepted and "Exclusivity" not in accepted
