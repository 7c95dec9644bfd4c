"""The web page in a real headless Chromium (Debian's, driven by Playwright; no browser is ever
downloaded) against a live server on loopback: uploads (a PDF, a scanned PDF, a corrupt file),
asking with streamed steps, citations highlighted exactly on their pages (a quote across a page
break on both), checks and the review grid, DOCX and CSV exports read back, another tenant's key
seeing nothing, the 800-pixel layout, the keyboard. Screenshots of each screen go to
``test-artifacts/screens/``."""

from __future__ import annotations

import csv
import io
import re
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from clausewise.service.app import create_app
from clausewise_lab.evals.highlight_bench import CHROMIUM, CHROMIUM_ARGS, inside
from indexes.store import ContractStore
from tests.conftest import EXAMPLES, REPO
from tests.fakes import LegalScript
from tests.helpers import keyed_settings, needs_small_model, small_llm
from tests.live import LiveServer, scripted_runtimes, wait_job
from tests.test_service import GOVERNING, legal_app, service_settings

pytestmark = pytest.mark.browser
SCREENS = REPO / "test-artifacts" / "screens"
ACROSS_PAGES = (
    "who need to know the Confidential Information for the Purpose. 1.2 Headings are for convenience only"
)


class RoutedScript(LegalScript):
    """The scripted replies, quoting what the question asks about: the governing-law clause, or
    a sentence that runs over the first page break of the sample PDF."""

    def __call__(self, messages, kwargs) -> str:
        question = str(messages[-1].content).split("<question>", 1)[-1].split("</question>", 1)[0]
        self.quote = ACROSS_PAGES if "heading" in question.lower() else GOVERNING
        return super().__call__(messages, kwargs)


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.is_file():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium); .ci/run installs it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def site(hub, tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("web")
    settings = service_settings(data)
    with LiveServer(
        create_app(
            settings, runtime_factory=scripted_runtimes(RoutedScript(GOVERNING, "English law")), hub=hub
        )
    ) as live:
        yield live, settings


def opened_page(browser, url: str, ready: str = "html[data-ready]"):
    """The page at ``url`` in a fresh 1280 x 900 browser context, once ``ready`` matches; the
    context closes when the generator does (the page fixtures of the browser tests)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    tab = context.new_page()
    tab.goto(url + "/")
    tab.wait_for_selector(ready)
    yield tab
    context.close()


@contextmanager
def site_holding(hub, data: Path, contract: Path) -> Iterator[LiveServer]:
    """A live server of the scripted legal app (uploads up to 5 MB) keeping its data in ``data``,
    ``contract`` uploaded and ingested (the site of a browser module that works on one file)."""
    with LiveServer(legal_app(service_settings(data, parsing={"max_file_mb": 5}), hub)) as live:
        with live.client() as client, contract.open("rb") as handle:
            upload = client.post("/v1/contracts", files={"file": (contract.name, handle)}).json()
            assert wait_job(client, upload["job"]["id"])["status"] == "done"
        yield live


def page_fixture(ready: str) -> Callable[..., Iterator[Any]]:
    """The ``page`` fixture of a browser module whose ``site`` fixture is one live server: the
    page at the site, opened once ``ready`` (the module's view is set up) matches."""

    @pytest.fixture
    def page(browser, site):
        yield from opened_page(browser, site.url, ready)

    return page


@pytest.fixture
def page(browser, site):
    yield from opened_page(browser, site[0].url)


def screen(page, name: str) -> None:
    SCREENS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENS / f"{name}.png"), full_page=False)


def upload(page, *paths: Path) -> None:
    page.set_input_files("#file-input", [str(p) for p in paths])
    for path in paths:
        page.wait_for_selector(f'#uploads li[data-file="{path.name}"][data-state="ready"]', timeout=180_000)


def with_the_nda(page) -> None:
    """The sample NDA's PDF in the library: uploaded now unless an earlier test did (the tests
    share the module's site, and each may run alone)."""
    if not page.locator('#contracts tr[data-contract="mutual-nda"]').count():
        upload(page, EXAMPLES / "mutual-nda.pdf")


def nda_alone_picked(page, view: str, picks: str) -> None:
    """The ``view`` tab open with the sample NDA the only contract ticked in its ``picks`` list."""
    with_the_nda(page)
    page.click(f'.bar .tab[data-view="{view}"]')
    page.wait_for_selector(f'.contract-picks[data-for="{picks}"] input')
    for box in page.locator(f'.contract-picks[data-for="{picks}"] input').all():
        box.set_checked(box.get_attribute("value") == "mutual-nda")


def word_boxes(settings, contract: str, span: tuple[int, int]) -> dict[int, list[tuple]]:
    index = ContractStore(settings).open(contract)
    try:
        boxes: dict[int, list[tuple]] = {}
        for number, box in index.document.words.boxes_for(span):
            boxes.setdefault(number, []).append(box)
        return boxes
    finally:
        index.close()


def drawn(page, number: int) -> list[tuple[float, float, float, float]]:
    """The highlight rectangles on page ``number``, in PDF points."""
    return page.evaluate(
        """([number, width, height]) => {
          const figure = document.querySelector(`#viewer .page[data-page="${number}"]`);
          const img = figure.querySelector("img").getBoundingClientRect();
          return [...figure.querySelectorAll(".hl")].map((el) => {
            const r = el.getBoundingClientRect();
            return [(r.left - img.left) / img.width * width, (r.top - img.top) / img.height * height,
                    (r.right - img.left) / img.width * width, (r.bottom - img.top) / img.height * height];
          });
        }""",
        [number, 612.0, 792.0],
    )


def covered(box, rects, tolerance: float = 0.6) -> bool:
    """Within a rectangle the page drew, give or take the rendering's 0.6 points."""
    return inside(box, rects, tolerance)


def _last_report(live) -> dict:
    with live.client() as client:
        newest = client.get("/v1/jobs").json()["jobs"][0]["id"]  # (a listing shows no results)
        return client.get(f"/v1/jobs/{newest}").json()["result"]


def ask(page, contract: str, question: str, turns: int = 3) -> None:
    page.click(f'#contracts tr[data-contract="{contract}"] button:text("Open")')
    page.wait_for_selector("#viewer .page")
    page.select_option("#turns", str(turns))
    page.fill("#question", question)
    page.click("#ask-button")
    # the report itself (the quick answer shown before it has sources too, but no summary)
    page.wait_for_selector('#report h2:text-is("Summary")', timeout=900_000)


def test_a_question_asked_back_offers_a_button_per_provision_and_a_click_answers_it(page, site) -> None:
    """Rule "ask back" on the page: the shipped router cannot place the wording, so the answer
    names the reading it would take and offers one button per provision; a click asks the same
    question again, answered by that provision's decider."""
    live, _ = site
    with_the_nda(page)
    ask(page, "mutual-nda", "Is it clear which state's rules apply?", turns=1)
    options = page.locator("#report .short-answer .options button.option")
    assert options.count() >= 1 and "Did you mean" in page.locator("#report .short-answer").inner_text()
    chosen = options.first.get_attribute("data-provision")
    name = options.first.inner_text()
    options.first.click()
    page.wait_for_selector("#report .short-answer:not(:has(.options))", timeout=900_000)
    page.wait_for_selector('#report h2:text-is("Summary")', timeout=900_000)
    report = _last_report(live)
    assert report["short_answer"]["provision"] == name and not report["short_answer"]["options"]
    with live.client() as client:
        newest = client.get("/v1/jobs").json()["jobs"][0]["id"]
        assert client.get(f"/v1/jobs/{newest}").json()["request"]["provision"] == chosen
    # in a chat, the choice is the thread's next message
    page.click("#tab-chat")
    page.fill("#chat-input", "Is it clear which state's rules apply?")
    page.click("#send-button")
    offered = page.locator("#messages .report .short-answer .options button.option")
    offered.first.wait_for(timeout=900_000)
    offered.first.click()
    page.wait_for_function(
        "() => document.querySelectorAll('#messages li.assistant-msg .report').length === 2", timeout=900_000
    )
    last = page.locator("#messages li.assistant-msg .report").last
    assert not last.locator(".options").count() and name in last.locator(".short-answer").inner_text()


def test_library_uploads_a_pdf_and_a_scan_and_refuses_a_corrupt_file(
    page, site, tmp_path: Path, tesseract
) -> None:
    corrupt = tmp_path / "broken.pdf"
    corrupt.write_bytes(b"%PDF-1.7 not really a PDF")
    upload(page, EXAMPLES / "mutual-nda.pdf", EXAMPLES / "mutual-nda-scanned.pdf")
    page.set_input_files("#file-input", str(corrupt))
    refused = page.wait_for_selector('#uploads li[data-file="broken.pdf"][data-state="refused"]')
    assert "could not be read" in refused.inner_text() and "re-export" in refused.inner_text()
    rows = page.locator("#contracts tbody tr")
    assert {rows.nth(i).get_attribute("data-contract") for i in range(rows.count())} >= {
        "mutual-nda",
        "mutual-nda-scanned",
    }
    assert "OCR" in page.locator('#contracts tr[data-contract="mutual-nda-scanned"]').inner_text()
    # contracts are listed by title and parties (from the preamble), the file name beside
    row = page.locator('#contracts tr[data-contract="mutual-nda"]')
    assert row.locator(".title").inner_text() == "MUTUAL NON-DISCLOSURE AGREEMENT"
    assert row.locator(".parties").inner_text() == "Northwind Analytics Ltd. · Brightwater Health Inc."
    assert row.locator("td.file").inner_text() == "mutual-nda.pdf"
    screen(page, "library")


def test_asking_streams_the_steps_in_order_and_citations_highlight_exactly(page, site) -> None:
    live, settings = site
    with_the_nda(page)
    page.click('#contracts tr[data-contract="mutual-nda"] button:text("Open")')
    page.wait_for_selector("#viewer .page")
    exports = page.locator("#report-exports button")
    assert exports.count() == 4 and all(exports.nth(i).is_disabled() for i in range(4))  # no report yet
    page.click('#contract .toolbar button[data-view="library"]')
    # what the report area shows, each time it changes: the quick answer, then the report
    page.evaluate(
        """() => {
          window.reportStages = [];
          new MutationObserver(() => {
            const shown = document.querySelector('#report .quick-answer') ? 'quick'
              : document.querySelector('#report .short-answer') ? 'report' : 'empty';
            if (window.reportStages.at(-1) !== shown) window.reportStages.push(shown);
          }).observe(document.querySelector('#report'), { childList: true });
        }"""
    )
    ask(page, "mutual-nda", "Which law governs this agreement?")
    assert all(exports.nth(i).is_enabled() for i in range(4))
    steps = page.locator("#steps li").evaluate_all("items => items.map(i => i.dataset.event)")
    # the law is settled by the value reader: shown first, then explained without a research turn
    expected = ["queued", "running", "start", "answer", "draft", "final"]
    assert [s for s in steps if s in [*expected, "question", "research"]] == expected
    assert [s for s in page.evaluate("() => window.reportStages") if s != "empty"] == ["quick", "report"]
    assert page.locator("#report [data-quick]").get_attribute("data-quick") == "confirmed"
    source = page.locator('#report .sources li[data-source="1"]')
    assert "9.1" in source.inner_text() and GOVERNING in source.inner_text()
    # the bottom line comes first: the law, read from the verified source it cites
    short = page.locator("#report .short-answer")
    assert short.inner_text().startswith("England [1]") and "value reader" in short.inner_text()
    assert (
        page.evaluate("() => document.querySelector('#report .short-answer').nextElementSibling.className")
        == "answer"
    )
    page.click('#report .ref[data-ref="1"]')
    page.wait_for_selector("#viewer .hl")
    span = tuple(_last_report(live)["sources"][0]["span"])
    boxes = word_boxes(settings, "mutual-nda", span)
    assert len(boxes) == 1, boxes  # the clause is on one page
    [(number, words)] = boxes.items()
    rects = drawn(page, number)
    assert rects and all(covered(box, rects) for box in words)
    assert page.evaluate(
        "() => [...new Set([...document.querySelectorAll('#viewer .hl')].map(e => e.dataset.page))]"
    ) == [str(number)]
    screen(page, "answer-with-highlight")
    # the report downloads as Word, with its numbered sources
    with page.expect_download() as waiting:
        page.click('#report-exports button[data-format="docx"]')
    from docx import Document

    document = Document(waiting.value.path())
    text = "\n".join(p.text for p in document.paragraphs)
    assert "Sources" in text and "[1] 9.1 Governing law" in text and GOVERNING in text
    assert text.index("Short answer") < text.index("Summary") and "England [1]" in text


def test_a_quote_across_a_page_break_is_highlighted_on_both_pages(page, site) -> None:
    live, settings = site
    with_the_nda(page)
    ask(page, "mutual-nda", "What do the headings mean?")
    source = page.locator('#report .sources li[data-source="1"]')
    assert "1.2 Headings" in source.inner_text()
    source.locator("button.source-link").click()
    page.wait_for_selector('#viewer .hl[data-page="2"]')
    span = tuple(_last_report(live)["sources"][0]["span"])
    boxes = word_boxes(settings, "mutual-nda", span)
    assert sorted(boxes) == [1, 2]
    for number in (1, 2):
        rects = drawn(page, number)
        assert rects and all(covered(box, rects) for box in boxes[number]), number


def test_a_two_hypothesis_check_opens_its_cells_and_exports_csv(page, site) -> None:
    nda_alone_picked(page, "checks", "check")
    page.check('input[name="source"][value="typed"]')
    page.fill(
        "#typed-hypotheses",
        "Some obligations under the agreement continue after it terminates or expires.\n"
        "The agreement does not grant the Receiving Party any licence or right in the information.",
    )
    page.click("#run-check")
    page.wait_for_selector("#check-exports:not([hidden])", timeout=120_000)
    cells = page.locator("#matrix tbody button.label")
    assert cells.count() == 2 and cells.nth(0).inner_text() == "E"
    cells.nth(0).click()
    detail = page.locator("#cell-detail")
    assert "6.2" in detail.inner_text() and "survive" in detail.inner_text()
    screen(page, "check-matrix")
    with page.expect_download() as waiting:
        page.click('#check-exports button[data-format="csv"]')
    rows = list(csv.DictReader(io.StringIO(Path(waiting.value.path()).read_text(encoding="utf-8"))))
    assert [(r["contract"], r["label"]) for r in rows] == [
        ("mutual-nda", "Entailment"),
        ("mutual-nda", "Entailment"),
    ]
    detail.locator("button.source-link").first.click()  # evidence opens the contract at its words
    page.wait_for_selector("#viewer .hl")


def test_the_review_grid_filters_sorts_and_opens_clauses(page, site) -> None:
    nda_alone_picked(page, "review", "review")
    page.click("#run-review")
    page.wait_for_selector("#review-exports:not([hidden])", timeout=300_000)
    assert page.locator("#review-grid tbody tr").count() == 41
    page.check("#present-only")
    present = page.locator("#review-grid tbody tr").count()
    assert 0 < present < 41
    page.fill("#review-filter", "governing")
    row = page.locator('#review-grid tbody tr[data-provision="governing-law"]')
    assert row.count() == 1 and "present" in row.inner_text()
    screen(page, "review-grid")
    row.locator("button.source-link").first.click()
    page.wait_for_selector("#viewer .hl")


def test_the_page_at_800_pixels_and_from_the_keyboard(browser, site) -> None:
    context = browser.new_context(viewport={"width": 800, "height": 900})
    page = context.new_page()
    page.goto(site[0].url + "/")
    page.wait_for_selector("html[data-ready]")  # the module script has set up every control
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Tab")
    focused = page.evaluate("() => document.activeElement.textContent")
    assert focused == "Contracts"
    # Enter on the drop zone opens the (multiple) file picker: the page clicks its file input.
    # Counted in the page rather than through Playwright's file-chooser event, which headless
    # chromium did not always emit for a picker opened from a key press.
    page.evaluate(
        "() => { window.picks = 0; document.querySelector('#file-input')"
        ".addEventListener('click', (e) => { window.picks++; e.preventDefault(); }); }"
    )
    page.focus("#dropzone")
    page.keyboard.press("Enter")
    page.keyboard.press(" ")
    assert page.evaluate("() => window.picks") == 2
    assert page.evaluate("() => document.querySelector('#file-input').multiple")
    if page.locator('#contracts tr[data-contract="mutual-nda"]').count():
        page.click('#contracts tr[data-contract="mutual-nda"] button:text("Open")')
        page.wait_for_selector("#viewer .page")
    overflow = page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0
    unlabeled = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea')]
            .filter((el) => !el.labels?.length && !el.getAttribute('aria-label') && !el.closest('label'))
            .map((el) => el.id)"""
    )
    assert unlabeled == []
    screen(page, "narrow")
    context.close()


def test_another_tenants_key_sees_nothing(hub, browser, tmp_path: Path) -> None:
    settings, keys = keyed_settings(tmp_path)
    _, key_a = keys.create("a")
    _, key_b = keys.create("b")
    with LiveServer(legal_app(settings, hub)) as live:
        with live.client(key_b) as client, (EXAMPLES / "mutual-nda.txt").open("rb") as handle:
            wait_job(
                client,
                client.post("/v1/contracts", files={"file": ("mutual-nda.txt", handle)}).json()["job"]["id"],
            )
        context = browser.new_context()
        page = context.new_page()
        page.goto(live.url + "/")
        page.wait_for_selector("html[data-ready]")
        # first visit, no key: the page asks for one in its dialog, not with a developer's error
        page.wait_for_selector("#key-dialog[open]")
        assert "needs an API key" in page.inner_text("#key-reason")
        assert page.locator("#notice").is_hidden()
        page.fill("#key-input", "cw_not_a_real_key")
        page.click("#key-save")
        page.wait_for_selector("#key-dialog[open]")  # refused: asked again, saying why
        page.wait_for_function(
            "() => document.querySelector('#key-reason').textContent.includes('did not accept')"
        )
        for key, expected in ((key_a, []), (key_b, ["mutual-nda"])):
            if not page.locator("#key-dialog[open]").count():
                page.click("#key-button")
            page.fill("#key-input", key)
            page.click("#key-save")
            page.wait_for_function("() => !document.querySelector('#key-dialog').open")
            page.wait_for_timeout(300)
            assert page.locator("#notice").is_hidden()
            rows = page.locator("#contracts tbody tr").evaluate_all(
                "rows => rows.map(r => r.dataset.contract)"
            )
            assert rows == expected, key
        context.close()


def test_an_answer_about_an_older_version_highlights_in_that_version(browser, site, tmp_path: Path) -> None:
    live, _settings = site
    original = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
    with live.client() as client:
        first = client.post("/v1/contracts", files={"file": ("nda-versions.txt", original.encode())})
        wait_job(client, first.json()["job"]["id"])
        thread = client.post("/v1/threads", json={"contract": "nda-versions"}).json()
        answered = client.post(f"/v1/threads/{thread['id']}/messages", json={"content": "Which law governs?"})
        [source] = answered.json()["report"]["sources"][:1]
        assert answered.json()["report"]["metadata"]["contract_version"] == 1
        changed = "AMENDED AND RESTATED\n\n" + original.replace("twelve (12) months", "eighteen (18) months")
        refused = client.post("/v1/contracts", files={"file": ("nda-versions.txt", changed.encode())})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "contract_changed"
        second = client.post(
            "/v1/contracts",
            files={"file": ("nda-versions.txt", changed.encode())},
            data={"new_version": "true"},
        )
        assert wait_job(client, second.json()["job"]["id"])["result"]["version"] == 2
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(live.url + "/")
    page.wait_for_selector('#contracts tr[data-contract="nda-versions"]')
    assert "2 (2 kept)" in page.locator('#contracts tr[data-contract="nda-versions"]').inner_text()
    page.click('#contracts tr[data-contract="nda-versions"] button:text("Open")')
    page.wait_for_selector("#viewer .page")
    page.click("#tab-chat")
    page.wait_for_selector("#messages .report")
    assert "an older version" in page.inner_text("#messages .report .version-badge")
    page.click('#messages .report .ref[data-ref="1"]')
    page.wait_for_selector("#version-note:not([hidden])")
    assert "version 1, an older version" in page.inner_text("#version-note")
    marked = page.inner_text("#viewer mark.hl-text")
    assert marked == original[source["span"][0] : source["span"][1]] and GOVERNING in marked
    screen(page, "older-version-citation")
    page.click('#version-note button:text("Show the live version")')
    page.wait_for_selector("#version-note", state="hidden")
    assert "AMENDED AND RESTATED" in page.inner_text("#viewer")
    context.close()


def test_the_api_documentation_works_offline(browser, site) -> None:
    live, _settings = site
    context = browser.new_context()
    page = context.new_page()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(live.url + "/docs")
    page.wait_for_selector(".swagger-ui .opblock", timeout=30_000)  # rendered from /openapi.json
    assert page.locator(".swagger-ui .opblock").count() >= 25
    assert "/v1/contracts/{contract_id}/ask" in page.inner_text(".swagger-ui")
    assert asked and all(url.startswith(live.url) for url in asked), [
        u for u in asked if not u.startswith(live.url)
    ]
    screen(page, "api-docs")
    context.close()


@pytest.mark.real_models
@needs_small_model
def test_one_question_end_to_end_with_the_real_small_model(hub, browser, tmp_path: Path) -> None:
    settings = service_settings(tmp_path, models=small_llm(400))
    shutil.copyfile(EXAMPLES / "mutual-nda.pdf", tmp_path / "mutual-nda.pdf")
    with LiveServer(create_app(settings, hub=hub)) as live:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.goto(live.url + "/")
        page.wait_for_selector("html[data-ready]")
        upload(page, tmp_path / "mutual-nda.pdf")
        ask(page, "mutual-nda", "Which law governs this agreement?", turns=1)
        sources = page.locator("#report .sources li")
        assert any(re.search(r"\b9\.1\b", sources.nth(i).inner_text()) for i in range(sources.count()))
        page.locator("#report .ref").first.click()
        page.wait_for_selector("#viewer .hl")
        screen(page, "answer-real-model")  # the README's answer screenshot: a real model's
        context.close()
