"""Issue 29 in a real browser (Debian chromium + Playwright), at 1400×900 and on a 390×844 phone: a
PDF citation's card names its pages, its in-place snapshot and its snapshot page show the stored
page image with the quote's boxes (on both pages of a sentence over a page break), scrolled to.
Screenshots go to artifacts/ (look at them)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("pypdfium2", reason="pypdfium2 (requirements.txt) is not installed")

from tests.browser.test_browser import (
    ARTIFACTS,
    click_in_card,
    open_card,
    run_app,
    send_question,
    wait_until_still,
)  # noqa: E402,F401
from tests.browser.test_browser_cards import chromium  # noqa: E402,F401 - the module-scoped browser fixture
from tests.pdf_fixtures import policy_pdf  # noqa: E402

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUESTION = "借用人归还前要删除个人数据并恢复出厂设置吗？"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory):
    from tests.fakes import build_engine

    root = tmp_path_factory.mktemp("pdf-app")
    docs = root / "docs"
    docs.mkdir()
    (docs / "policy.pdf").write_bytes(policy_pdf())
    build_engine(root / "data", [docs])
    with run_app(root / "data", YINZHENG_EMBEDDING="hash") as url:
        yield url


def _inside(box, width: int, height: int) -> bool:  # noqa: ANN001
    return (
        bool(box)
        and box["x"] >= -1
        and box["y"] >= -1
        and box["x"] + box["width"] <= width + 1
        and box["y"] + box["height"] <= height + 1
    )


def _check_boxes(scope) -> None:  # noqa: ANN001
    """The page images are shown and every quote box lies on its image."""
    frames = scope.locator(".yz-pdf-frame")
    assert frames.count() == 2, "the quote runs over a page break: both pages"
    for i in range(frames.count()):
        img = frames.nth(i).locator("img.yz-pdf-img")
        assert img.evaluate("i => i.complete && i.naturalWidth > 0")
        ib = img.bounding_box()
        marks = frames.nth(i).locator("mark.yz-pdf-box")
        assert marks.count() >= 1
        for j in range(marks.count()):
            mb = marks.nth(j).bounding_box()
            assert mb and mb["width"] > 5 and mb["height"] > 3
            assert ib["x"] - 1 <= mb["x"] and mb["x"] + mb["width"] <= ib["x"] + ib["width"] + 1


def _open_snapshot_in_place(page, url: str, phone: bool):  # noqa: ANN001, ANN202
    send_question(page, url, QUESTION, timeout=180_000)
    sup = page.locator("sup.yz-cite").first
    sup.wait_for(timeout=180_000)
    wait_until_still(sup)
    if phone:
        sup.scroll_into_view_if_needed()
        sup.locator("button.yz-cite-link").tap()
        card = sup.locator(".yz-card")
        card.wait_for(state="visible", timeout=5_000)
    else:
        card = open_card(sup)
    assert re.search(r"第 1–\d 页", card.inner_text()), card.inner_text()
    if phone:
        sup.locator("button.yz-card-open").tap()
    else:
        click_in_card(sup, "button.yz-card-open")
    panel = page.locator(".yz-snap-pop:popover-open")
    panel.wait_for(state="visible", timeout=5_000)
    return panel


@pytest.mark.parametrize("width,height", [(1400, 900), (390, 844)])
def test_pdf_citation_shows_the_page_with_the_quote(app_url, chromium, width, height):  # noqa: ANN001
    ARTIFACTS.mkdir(exist_ok=True)
    phone = width < 600
    kw = {"has_touch": True, "is_mobile": True} if phone else {}
    context = chromium.new_context(viewport={"width": width, "height": height}, **kw)
    page = context.new_page()
    panel = _open_snapshot_in_place(page, app_url, phone)
    mark = panel.locator("mark.yz-pdf-box").first
    mark.wait_for(state="visible", timeout=10_000)
    page.wait_for_timeout(500)
    assert _inside(mark.bounding_box(), width, height)  # scrolled to the quote
    _check_boxes(panel)
    page.screenshot(path=str(ARTIFACTS / f"pdf-inplace-{width}.png"))
    href = panel.locator("a.yz-snap-page").get_attribute("href")
    page.keyboard.press("Escape")
    # the snapshot page (what 在新标签页打开快照页 opens)
    page.goto(app_url + "/" + href.lstrip("./"))
    first = page.locator("mark.yz-pdf-box").first
    first.wait_for(state="visible", timeout=30_000)
    page.wait_for_timeout(1_500)
    assert _inside(first.bounding_box(), width, height)
    _check_boxes(page)
    page.screenshot(path=str(ARTIFACTS / f"pdf-snapshot-page-{width}.png"))
    context.close()
