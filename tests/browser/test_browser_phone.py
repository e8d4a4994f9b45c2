"""On a 390×844 phone, in chromium: the chat box's placeholder fits its collapsed line, and
the 知识库 import report wraps its 原因 column inside the screen. Screenshots go to
``artifacts/`` (look at them). Skipped without chromium, like the other browser tests."""

from __future__ import annotations

import pytest

from tests.browser.test_browser import ARTIFACTS, CHROMIUM, FLAGS, pytestmark, run_app  # noqa: F401 - pytestmark applies here

PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def phone(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    with run_app(tmp_path_factory.mktemp("phone-data"), YINZHENG_EMBEDDING="hash") as url:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            yield browser, url
            browser.close()


def test_the_chat_placeholder_fits_one_line_on_a_phone(phone):
    browser, url = phone
    page = browser.new_page(viewport=PHONE)
    page.goto(url, wait_until="domcontentloaded")
    box = page.get_by_test_id("stChatInputTextArea")
    box.wait_for(timeout=180_000)
    page.wait_for_timeout(1500)
    fit = box.evaluate(
        """el => { const c = document.createElement('canvas').getContext('2d'); c.font = getComputedStyle(el).font;
        return {text: c.measureText(el.placeholder).width, width: el.clientWidth,
                height: el.clientHeight, scroll: el.scrollHeight}; }"""
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "phone-chat-placeholder.png"))
    # the narrowest state is the collapsed box beside the send button (~268 px wide at 390 px)
    assert fit["text"] <= min(fit["width"], 260), fit
    assert fit["scroll"] <= fit["height"] + 2, fit  # nothing below the visible line


def test_the_import_report_wraps_its_reasons_inside_a_phone_screen(phone, tmp_path):
    browser, url = phone
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "empty.md").write_bytes(b"")
    (folder / "_index.md").write_text("---\ntitle: 只有标题\n---\n", encoding="utf-8")  # a long warning
    (folder / ("很长的文件名" * 8 + ".txt")).write_bytes("正文".encode("utf-16-le"))
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{url}/library", wait_until="domcontentloaded")
    path_box = page.get_by_label("或者：服务器上的文件夹路径")
    path_box.wait_for(timeout=180_000)
    path_box.fill(str(folder))
    path_box.press("Enter")
    page.get_by_role("button", name="导入文件夹").click(timeout=30_000)
    table = page.locator("table.yz-report")
    table.wait_for(timeout=120_000)
    table.scroll_into_view_if_needed()
    cells = table.locator("td").evaluate_all(
        "tds => tds.map(td => { const r = td.getBoundingClientRect(); const lh = parseFloat(getComputedStyle(td).lineHeight);"
        " return {text: td.innerText, right: r.right, height: r.height, lh, over: td.scrollWidth - td.clientWidth}; })"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "phone-import-report.png"), full_page=False)
    assert cells and all(c["right"] <= PHONE["width"] and c["over"] <= 0 for c in cells), cells
    warning = next(c for c in cells if "没有可检索的正文" in c["text"])
    assert warning["height"] > 2 * warning["lh"], warning  # the long reason wraps onto several lines, whole
    assert warning["text"].endswith("提问时检索不到")
