"""The conversation list and one answer's action row in a real browser (Debian's
chromium via Playwright), at 1400×900 and on a 390×844 phone: the row is inside
the viewport, 复制 puts the answer on the clipboard, 新对话 starts an empty
conversation and the earlier one is listed and reopens; an earlier answer's ⋯ is a 40×40 px
target, its 编辑问题 popover opens whole above the chat input, and 发送 closes it and brings the
new turn to the top of the view; the ⋯ is named 更多操作, a question past 2,000 characters stays in
the box and is answered 问题太长, and the 知识库 uploader states its limit in Chinese (issue 30).
Screenshots go to artifacts/ (conversations-<size>.png, library-uploader.png)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.test_browser import ARTIFACTS, CHROMIUM, browser, run_app, send_question  # noqa: F401 - browser is a fixture

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUESTION = "Init 容器有什么用？"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian chromium is not installed")
    with run_app(tmp_path_factory.mktemp("conv-data"), YINZHENG_EMBEDDING="hash") as url:
        yield url


@pytest.mark.parametrize("width,height", [(1400, 900), (390, 844)])
def test_conversation_list_and_action_row(server, browser, width, height):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": width, "height": height})
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = context.new_page()
    send_question(page, server, QUESTION)
    page.locator("sup.yz-cite").first.wait_for(timeout=120_000)
    row = page.locator("[class*='st-key-actions-']").first
    row.wait_for(timeout=60_000)
    row.get_by_role("button", name="重新生成").wait_for(timeout=30_000)
    # every control of the row is inside the viewport horizontally
    for control in (
        row.get_by_role("button", name="复制（含脚注）"),
        row.get_by_role("button", name="重新生成"),
        row.get_by_role("button", name="编辑问题"),
        row.get_by_test_id("stFeedback").first,
    ):
        control.scroll_into_view_if_needed()
        b = control.bounding_box()
        assert b and b["x"] >= 0 and b["x"] + b["width"] <= width, b
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / f"conversations-answer-{width}.png"), full_page=False)

    # 复制 copies the answer text (the answer's Markdown, without footnote markers)
    copy = row  # the copy buttons are inline (no iframe)
    copy.get_by_role("button", name="复制", exact=True).click()
    copy.get_by_role("button", name="已复制").wait_for(timeout=5_000)  # the button says so for 2 s
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.strip() and "[^" not in copied
    copy.get_by_role("button", name="复制（含脚注）").click()
    page.wait_for_timeout(500)
    assert "[^1]:" in page.evaluate("navigator.clipboard.readText()")

    # the sidebar: 新对话 starts an empty conversation; the earlier one is listed and reopens
    first = page.evaluate("location.href")
    assert "c=" in first
    sidebar = page.get_by_test_id("stSidebar")
    if not sidebar.is_visible() or (sidebar.bounding_box() or {}).get("x", 0) < 0:
        page.get_by_test_id("stExpandSidebarButton").click()
    entry = sidebar.get_by_role("button", name=QUESTION).first
    entry.wait_for(timeout=30_000)
    sidebar.get_by_role("button", name="新对话").click()
    page.wait_for_function(f"() => location.href !== {first!r}", timeout=30_000)
    page.wait_for_function("() => document.querySelectorAll('sup.yz-cite').length === 0", timeout=30_000)
    if not sidebar.is_visible():
        page.get_by_test_id("stExpandSidebarButton").click()
    b = entry.bounding_box()
    assert b and b["x"] >= 0 and b["x"] + b["width"] <= width, b
    page.screenshot(path=str(ARTIFACTS / f"conversations-sidebar-{width}.png"), full_page=False)
    entry.click()
    page.locator("sup.yz-cite").first.wait_for(timeout=60_000)
    assert page.evaluate("location.href") == first
    context.close()


def _ask_two(page, server: str) -> None:  # noqa: ANN001
    """Two turns in a new conversation: QUESTION, then a Service question; waits for both answers."""
    send_question(page, server, QUESTION)
    page.wait_for_function("document.querySelectorAll('.yz-answer').length >= 1", timeout=120_000)
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill("Service 有哪些类型？")
    box.press("Enter")
    page.wait_for_function("document.querySelectorAll('.yz-answer').length >= 2", timeout=120_000)
    page.wait_for_timeout(500)


def _regenerate_first(page, server: str) -> None:  # noqa: ANN001
    """Two turns (``_ask_two``), then 重新生成 of the first answer from its ⋯ row; waits for the new version."""
    _ask_two(page, server)
    first = page.locator("[class*='st-key-actions-']").first
    first.get_by_role("button").first.click()  # ⋯
    first.get_by_role("button", name="重新生成").click(timeout=30_000)
    page.wait_for_function("document.querySelectorAll('.yz-answer').length >= 3", timeout=120_000)


def test_an_earlier_answer_opens_its_row_and_a_rating_reruns_only_that_row(server, browser):
    """Two turns: the first answer shows ⋯, which opens its full row; a 👍 there is a fragment
    run (a handful of websocket messages), not a run of the page (which resends every element)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    frames: list[int] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(len(f))))
    _ask_two(page, server)
    first = page.locator("[class*='st-key-actions-']").first
    assert first.get_by_role("button", name="重新生成").count() == 0
    start = len(frames)
    first.get_by_role("button").first.click()  # ⋯
    first.get_by_role("button", name="重新生成").wait_for(timeout=30_000)
    page.wait_for_timeout(1500)
    page_run = len(frames) - start  # opening the row is one run of the page
    start = len(frames)
    first.get_by_test_id("stFeedback").locator("button").first.click()
    first.get_by_role("button", name="补充说明").wait_for(timeout=30_000)
    page.wait_for_timeout(1500)
    assert len(frames) - start < page_run / 2, (len(frames) - start, page_run)
    page.close()


@pytest.mark.parametrize("width,height", [(1400, 900), (390, 844)])
def test_editing_an_earlier_question_fits_the_screen_closes_and_shows_the_new_turn(server, browser, width, height):
    """New-user pass (desktop and phone): the ⋯ of an earlier answer was a 16×40 px target; on a phone
    its 编辑问题 popover covered the chat input and ran past the viewport; after 发送 the popover stayed
    open and the new turn was off-screen."""
    page = browser.new_page(viewport={"width": width, "height": height})
    _ask_two(page, server)
    first = page.locator("[class*='st-key-actions-']").first
    more = first.get_by_role("button").first  # ⋯
    more.scroll_into_view_if_needed()
    b = more.bounding_box()
    assert b and b["width"] >= 40 and b["height"] >= 40, b
    more.click()
    edit = first.get_by_role("button", name="编辑问题")
    edit.wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    popover = page.get_by_test_id("stPopoverBody")
    edit.click()  # once to measure the popover's height
    popover.get_by_label("修改问题后重新发送").wait_for(timeout=10_000)
    tall = popover.bounding_box()["height"]
    page.keyboard.press("Escape")
    popover.wait_for(state="detached", timeout=10_000)
    # the tester's place: opened under its button, it would end over the chat input, still inside the
    # viewport (so the popover does not flip above its button by itself)
    chat_input = page.get_by_test_id("stChatInput")
    top = chat_input.bounding_box()["y"]
    edit.evaluate(
        "(b, y) => { const r = b.getBoundingClientRect(); let s = b.parentElement;"
        " while (s && !(s.scrollHeight > s.clientHeight && /auto|scroll/.test(getComputedStyle(s).overflowY)))"
        " s = s.parentElement; if (s) s.scrollTop += r.bottom - y; }",
        top + 40 - tall,
    )
    page.wait_for_timeout(300)
    edit.click()
    popover.get_by_label("修改问题后重新发送").wait_for(timeout=10_000)
    page.wait_for_timeout(500)
    p = popover.bounding_box()
    input_top = chat_input.bounding_box()["y"]
    page.screenshot(path=str(ARTIFACTS / f"conversations-edit-popover-{width}.png"), full_page=False)
    assert p and p["y"] >= 0 and p["y"] + p["height"] <= min(height, input_top), (p, input_top)
    assert p["x"] >= 0 and p["x"] + p["width"] <= width, p

    popover.get_by_label("修改问题后重新发送").fill("Pod 的重启策略有哪些？")
    popover.get_by_role("button", name="发送").click()
    page.wait_for_function("document.querySelectorAll('.yz-answer').length >= 3", timeout=120_000)
    page.wait_for_timeout(1000)
    assert page.get_by_test_id("stPopoverBody").count() == 0  # closed
    turn = page.get_by_test_id("stChatMessage").filter(has_text="Pod 的重启策略有哪些？").first
    t = turn.bounding_box()
    assert t and 0 <= t["y"] and t["y"] + t["height"] <= height / 2, t  # the new turn starts at the top of the view
    page.screenshot(path=str(ARTIFACTS / f"conversations-edit-sent-{width}.png"), full_page=False)
    page.close()


def test_a_regenerated_version_appears_under_its_turn_in_view(server, browser):
    """New-user pass: 重新生成 of an earlier answer drew the new version at the end of the chat (off-screen)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    _regenerate_first(page, server)
    page.wait_for_timeout(1000)
    messages = page.get_by_test_id("stChatMessage")
    assert "第 2/2 版（重新生成）" in messages.nth(2).inner_text()  # question, version 1, version 2, next question…
    assert "Service 有哪些类型？" in messages.nth(3).inner_text()
    b = messages.nth(2).bounding_box()
    assert b and 0 <= b["y"] <= 900 / 2, b
    page.screenshot(path=str(ARTIFACTS / "conversations-regenerated-1400.png"), full_page=False)
    page.close()


_SCROLL_TO_BOTTOM_WHILE_HELD = """() => { if (!document.documentElement.dataset.yzHold) return false;
    let s = document.querySelector('[data-testid=stChatMessage]');
    while (s && !(s.scrollHeight > s.clientHeight && /auto|scroll/.test(getComputedStyle(s).overflowY))) s = s.parentElement;
    (s || document.scrollingElement).scrollTop = 1e9; return true; }"""


def test_the_view_stays_on_a_regenerated_version_until_the_person_scrolls(server, browser):
    """CI, once: the regenerated version was scrolled into view, then Streamlit scrolled the chat to its
    bottom as the run went on drawing (y = -1499). Something scrolling the page right after the answer
    is undone; a person's own scroll is not."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    _regenerate_first(page, server)
    version = page.get_by_test_id("stChatMessage").nth(2)
    # as Streamlit's scroll to the bottom does, while the hold is on (checked and done in one step in
    # the page: CI stop 32 scrolled after the hold had ended on a loaded machine)
    page.wait_for_function(_SCROLL_TO_BOTTOM_WHILE_HELD, timeout=60_000)
    page.wait_for_timeout(400)
    held = version.bounding_box()
    assert held and 0 <= held["y"] <= 900 / 2, held
    page.mouse.move(700, 450)
    page.mouse.wheel(0, 1500)  # the person scrolls: the view is theirs
    page.wait_for_timeout(600)
    moved = version.bounding_box()
    assert moved and moved["y"] < held["y"] - 300, (held, moved)
    page.close()


def test_the_more_button_of_an_earlier_answer_is_named_in_chinese(server, browser):
    """Issue 30 item 6: the ⋯ of an earlier answer was announced as 'more_horiz icon' (an icon-only
    button). Its accessible name is 更多操作; the label is for screen readers only (the button stays ⋯)."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    _ask_two(page, server)
    first = page.locator("[class*='st-key-actions-']").first
    more = first.get_by_role("button", name="更多操作")
    more.wait_for(timeout=30_000)
    b = more.bounding_box()
    assert b and 40 <= b["width"] <= 60, b  # still a ⋯ target, the label not drawn beside it
    more.click()
    first.get_by_role("button", name="重新生成").wait_for(timeout=30_000)
    page.close()


def test_the_uploader_shows_its_limit_in_chinese_not_streamlits_english_line(server, browser):
    """Issue 30 item 6: the drop zone said '50MB per file • MD, …' (Streamlit's, English). That line
    is hidden and the page's Chinese caption says the limit and the types."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(f"{server}/library", wait_until="domcontentloaded")
    zone = page.get_by_test_id("stFileUploaderDropzone")
    zone.wait_for(timeout=180_000)
    # the page's stylesheet that hides the line is drawn in the same run as the drop zone, maybe a moment after it
    # (a CI run, session 21, looked in between): what a person sees once the run is drawn
    caption = page.get_by_text("每个文件最大 50 MB", exact=False)
    caption.wait_for(timeout=60_000)
    page.get_by_test_id("stFileUploaderDropzoneInstructions").wait_for(state="hidden", timeout=30_000)
    assert not page.get_by_test_id("stFileUploaderDropzoneInstructions").is_visible()
    assert caption.is_visible()
    ARTIFACTS.mkdir(exist_ok=True)
    zone.screenshot(path=str(ARTIFACTS / "library-uploader.png"))
    page.close()


def test_a_question_past_the_limit_stays_in_the_box_and_gets_a_clear_message(server, browser):
    """Issue 30 item 3: pasting more than 2,000 characters left the chat box empty (Streamlit's box
    drops an input past its max_chars). Now the box keeps it and the answer says it is too long."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(server, wait_until="domcontentloaded")
    box = page.get_by_test_id("stChatInputTextArea")
    box.wait_for(timeout=180_000)
    question = ("Pod的重启策略有哪些取值，分别在什么情况下使用？" * 100)[:2500]
    box.fill(question)
    assert len(box.input_value()) == 2500
    box.press("Enter")
    page.get_by_text("问题太长（2500 个字符）", exact=False).wait_for(timeout=120_000)
    page.close()
