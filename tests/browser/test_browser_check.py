"""The 核查 page in a real browser (Debian chromium + Playwright): a checked text with
all three marks, an open card with the highlighted quote, and the snapshot page
scrolled to the quote. Screenshots at 1400×900 and 390×844 go to artifacts/.

The data folder is prepared before the app starts: the sample is ingested with the
``hash`` embedder (no model) and two checked records are stored (one over sample
chunks, one citing a long chunk whose quote lies far below the fold).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from core.models import sha256_hex
from tests.browser.test_browser import ARTIFACTS, CHROMIUM, browser, click_in_card, open_card, run_app  # noqa: F401 - browser is a fixture
from tests.checked import checked_record, sample_checked_record

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason="Debian chromium is not installed (apt-get install chromium)"
    ),
]

SIZES = {"desktop": (1400, 900), "mobile": (390, 844)}


def _long_record(sample):  # noqa: ANN001
    """The sample's checked text, its contradicted sentence citing a long chunk (source since deleted)."""
    a, b, c = sample.chunks
    text = "与问题无关的说明文字，用来把引文推到页面下方\n" * 120 + b.text
    long_b = b.model_copy(
        update={
            "text": text,
            "content_sha256": sha256_hex(text),
            "chunk_id": b.chunk_id + "-long",
            "source_id": "gone/long.md",
        }
    )
    return checked_record(a, long_b, c, answer_id="checked-long")


@pytest.fixture(scope="module")
def check_server(tmp_path_factory):
    from core.config import Settings
    from core.engine import Engine
    from core.ingest.run import ingest
    from tests.conftest import SAMPLE

    data = tmp_path_factory.mktemp("browser-check-data")
    settings = Settings(data_dir=data, embedding="hash")
    engine = Engine.open(settings)
    report = ingest(engine.index, [SAMPLE], embed=False, base_url=settings.corpus_base_url)
    assert not report.failures
    sample = sample_checked_record(engine.index.active_chunks())
    engine.records.save(sample)
    engine.records.save(_long_record(sample))
    with run_app(data, YINZHENG_EMBEDDING="hash") as url:
        yield url


def _open(browser, url: str, size: str):  # noqa: ANN001
    ARTIFACTS.mkdir(exist_ok=True)
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url, wait_until="domcontentloaded")
    return page


@pytest.mark.parametrize("size", list(SIZES))
def test_checked_text_shows_three_marks_and_the_quote(check_server, browser, size):  # noqa: F811
    width, height = SIZES[size]
    page = _open(browser, f"{check_server}/check?answer_id=checked-sample", size)
    page.locator("sup.yz-cite").first.wait_for(timeout=120_000)
    assert page.locator("sup.yz-cite").count() == 3
    assert page.locator("sup.yz-cite-contradicted").count() == 1 and page.locator("sup.yz-cite-review").count() == 1
    for mark, words in (
        (".yz-contradicted", "⚠ 与来源矛盾"),
        (".yz-review", "待复核"),
        (".yz-unsupported", "本段无出处"),
    ):
        assert page.locator(mark).first.is_visible() and page.locator(mark).first.inner_text() == words
    sup = page.locator("sup.yz-cite-contradicted")
    card = open_card(sup)
    assert "来源写的是 3，句子写的是 10" in card.inner_text()
    quote = card.locator("mark")
    assert quote.inner_text() == "默认设置分别为 3 和 1。" and quote.is_visible()
    box = card.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= width and box["y"] >= 0, box
    page.screenshot(path=str(ARTIFACTS / f"check-{size}.png"), full_page=False)
    page.close()


def test_snapshot_page_scrolls_to_the_highlighted_quote(check_server, browser):  # noqa: F811
    page = _open(browser, f"{check_server}/check?answer_id=checked-long", "desktop")
    sup = page.locator("sup.yz-cite-contradicted")
    sup.locator("button.yz-cite-link").wait_for(timeout=120_000)
    link = sup.locator("a.yz-card-link")  # the card's link to the snapshot page (a new tab)
    assert link.get_attribute("href").endswith("&support=1")
    with page.context.expect_page(timeout=30_000) as new_tab:
        click_in_card(sup, "a.yz-card-link")
    snap = new_tab.value
    mark = snap.locator("mark#yz-quote")
    mark.wait_for(timeout=60_000)
    assert mark.inner_text() == "默认设置分别为 3 和 1。"
    # scrolled: the quote (after 120 lines of filler) is inside the viewport
    snap.wait_for_function(
        "() => { const r = document.getElementById('yz-quote').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= window.innerHeight; }",
        timeout=10_000,
    )
    snap.screenshot(path=str(ARTIFACTS / "snapshot-quote.png"), full_page=False)
    snap.close()
    page.close()


@pytest.mark.skipif(
    importlib.util.find_spec("core.check") is None,
    reason="core.check is not in this build yet",
)
def test_checking_a_pasted_text(check_server, browser):  # noqa: F811
    page = _open(browser, f"{check_server}/check", "desktop")
    box = page.locator("textarea").first
    box.wait_for(timeout=120_000)
    box.fill("CronJob 创建基于时隔重复调度的 Job。默认设置分别为 10 和 1。Kubernetes 由火星开源基金会于 2031 年发布。")
    page.get_by_role("button", name="核查").click()
    page.locator(".yz-unsupported").first.wait_for(timeout=120_000)
    assert page.locator("sup.yz-cite").count() >= 2
    assert page.locator(".yz-contradicted").inner_text() == "⚠ 与来源矛盾"
    sup = page.locator("sup.yz-cite-contradicted")
    assert "默认设置分别为 3 和 1" in open_card(sup).locator("mark").inner_text()
    page.screenshot(path=str(ARTIFACTS / "check-live.png"), full_page=False)
    page.close()


@pytest.mark.skipif(
    importlib.util.find_spec("core.check") is None,
    reason="core.check is not in this build yet",
)
def test_checking_against_pasted_sources(check_server, browser):  # noqa: F811
    """Another system's answer checked against the sources it was given (issue 28): the card of the
    contradicted sentence names 粘贴的来源 1 and highlights the pasted passage."""
    page = _open(browser, f"{check_server}/check", "desktop")
    boxes = page.locator("textarea")
    boxes.first.wait_for(timeout=120_000)
    boxes.nth(0).fill("星河团队每周五下午交接班。交接记录写在共享值班表里。团队每季度组织一次团建。")
    boxes.nth(1).fill(
        "[1] 值班安排：星河团队每周四下午交接班。\n[2] 交接记录写在共享值班表里，夜班由两名工程师轮流负责。"
    )
    page.get_by_role("button", name="核查").click()
    page.locator(".yz-unsupported").first.wait_for(timeout=120_000)
    assert page.locator("sup.yz-cite").count() == 2
    assert page.locator(".yz-contradicted").inner_text() == "⚠ 与来源矛盾"
    card = open_card(page.locator("sup.yz-cite-contradicted"))
    assert "粘贴的来源 1" in card.inner_text() and "周四" in card.inner_text()
    assert card.locator("mark").inner_text() == "值班安排：星河团队每周四下午交接班。"
    page.screenshot(path=str(ARTIFACTS / "check-pasted.png"), full_page=False)
    page.close()
