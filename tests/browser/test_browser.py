"""What a person sees, in a real browser: Debian's chromium driven by Playwright.

Starts the app (`streamlit run app.py`) on a free local port with a fresh data
folder (so the first-start ingest runs too), asks a question, hovers a marker,
checks the source card is visible, saves a screenshot under artifacts/, then
clicks through to the snapshot page. Skipped when chromium is not installed.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists(), reason="Debian chromium is not installed (apt-get install chromium)"
    ),
]

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def run_app(data_dir: Path, *, port: int | None = None, extra_args: tuple[str, ...] = (), **env_extra: str):
    """``streamlit run app.py`` on ``port`` (default: a free one) with ``data_dir`` and
    ``extra_args`` for streamlit; yields its base URL."""
    port = port or _free_port()
    env = dict(os.environ, YINZHENG_DATA_DIR=str(data_dir), YINZHENG_BACKGROUND_EMBEDDING="0", HF_HUB_OFFLINE="1")
    env.update(env_extra)  # may turn the background embedding on
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            "app.py",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
            "--browser.gatherUsageStats",
            "false",
            *extra_args,
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("streamlit exited: " + (proc.stdout.read() if proc.stdout else ""))
                time.sleep(0.5)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with run_app(tmp_path_factory.mktemp("browser-data")) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


def send_question(page, url: str, question: str, *, timeout: int = 120_000) -> None:  # noqa: ANN001
    """Open the chat at ``url`` in ``page`` and send ``question`` (does not wait for the answer)."""
    page.goto(url, wait_until="domcontentloaded")
    box = page.get_by_test_id("stChatInputTextArea")
    box.wait_for(timeout=timeout)
    box.fill(question)
    box.press("Enter")


_STILL_JS = """([el, n]) => {
    const r = el.getBoundingClientRect(), key = [r.top, r.left, r.width, r.height].map(Math.round).join();
    if (el.__yzKey !== key) { el.__yzKey = key; el.__yzSame = 0; return false; }
    return ++el.__yzSame >= n;
}"""


def wait_until_still(locator, *, polls: int = 5, timeout: int = 30_000) -> None:  # noqa: ANN001
    """Wait until ``locator``'s box has stayed put for ``polls`` polls 100 ms apart.

    While a run adds elements below an answer (evidence, actions, feedback), Streamlit scrolls the
    chat smoothly to its bottom; a marker hovered meanwhile moves away from the still pointer and its
    card closes, as a hovered element does on any page that scrolls under the mouse."""
    handle = locator.element_handle(timeout=timeout)
    locator.page.wait_for_function(_STILL_JS, arg=[handle, polls], polling=100, timeout=timeout)


def open_card(sup, *, tries: int = 3):  # noqa: ANN001
    """Hover the marker of citation ``sup`` (a ``sup.yz-cite`` locator) once it stands still and
    return its visible card (``.yz-card``); hovers again when the page moved it away meanwhile."""
    card = sup.locator(".yz-card")
    for attempt in range(tries):
        wait_until_still(sup)
        sup.locator("button.yz-cite-link").hover()
        try:
            card.wait_for(state="visible", timeout=5_000)
            return card
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: the marker moved from under the pointer
            if attempt == tries - 1:
                raise
    return card


def click_in_card(sup, selector: str, *, tries: int = 3, **click_args) -> None:  # noqa: ANN001
    """Open the card of ``sup`` (see ``open_card``) and click ``selector`` inside it; opens the card
    again when it closed before the click (its marker moved from under the pointer)."""
    for attempt in range(tries):
        target = open_card(sup).locator(selector)
        try:
            target.click(timeout=5_000, **click_args)
            return
        except Exception:  # noqa: BLE001 - playwright's TimeoutError: the card closed before the click
            if attempt == tries - 1:
                raise


def ask(browser, server: str, question: str):
    """Open the chat in a new 1280×900 page and send ``question``; returns the page."""
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    send_question(page, server, question)
    return page


def test_chat_shows_superscripts_and_an_open_card(server, browser):
    page = ask(browser, server, "Deployment 和 StatefulSet 有什么区别？")
    marker = page.locator("sup.yz-cite button.yz-cite-link").first
    marker.wait_for(timeout=120_000)
    # the run is over once the sidebar's conversation export (drawn after the answer) is there
    page.get_by_test_id("stSidebar").get_by_text("导出本次对话").wait_for(timeout=60_000)
    assert page.locator("sup.yz-cite").count() >= 2
    first = page.locator("sup.yz-cite").first
    assert not first.locator(".yz-card").is_visible()
    card = open_card(first)
    text = card.inner_text()
    assert "相关度" in text and "置信" not in text
    assert card.locator(".yz-card-title").inner_text().strip()
    assert card.locator(".yz-card-path").inner_text().strip()
    # every card opens fully inside the viewport, wherever its marker sits
    for i in range(page.locator("sup.yz-cite").count()):
        box = open_card(page.locator("sup.yz-cite").nth(i)).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 1280 and box["y"] >= 0, (i, box)
    open_card(first)
    page.screenshot(path=str(ARTIFACTS / "chat-card.png"), full_page=False)

    # the card's 新标签页 link opens the stored snapshot page of that chunk in a new tab; the chat stays
    link = card.locator("a.yz-card-link")
    href = link.get_attribute("href")
    assert href and href.startswith("./sources?answer_id=")
    assert link.get_attribute("target") == "_blank"
    path = card.locator(".yz-card-path").inner_text()
    with page.context.expect_page() as new_tab:
        click_in_card(first, "a.yz-card-link")
    snapshot = new_tab.value
    snapshot.get_by_role("heading", name="来源快照").wait_for(timeout=60_000)
    snapshot.get_by_text(path, exact=True).first.wait_for(timeout=60_000)
    snapshot.screenshot(path=str(ARTIFACTS / "snapshot.png"), full_page=False)
    snapshot.close()
    assert page.locator("sup.yz-cite").count() >= 2
    page.close()


def test_no_evidence_in_the_browser(server, browser):
    page = ask(browser, server, "消息队列的消费者重平衡是怎么工作的？")
    page.locator(".yz-no-evidence").wait_for(timeout=120_000)
    assert page.locator("sup.yz-cite").count() == 0
    assert page.locator(".yz-links").count() == 0  # no generic links on a no-evidence answer (issue 15)
    # the retrieved candidates are kept, collapsed, and never shown as citations
    candidates = page.locator("details.yz-candidates").first
    summary = candidates.locator("summary")
    assert summary.inner_text().strip() == "最接近的片段（不作为证据）"
    assert not candidates.locator(".yz-candidate-list").is_visible()
    summary.click()
    candidates.locator(".yz-candidate-list li").first.wait_for(state="visible", timeout=10_000)
    assert "未引用" in candidates.inner_text()
    # no background embedding in this app: the decision is keyword-only and says so
    assert page.locator(".yz-keyword-mode").count() >= 1
    page.screenshot(path=str(ARTIFACTS / "no-evidence.png"), full_page=False)
    page.close()


@pytest.mark.parametrize("path", ["history", "sources?answer_id=nope&chunk_id=x%230"])
def test_deep_link_as_the_first_request_runs_app_py(tmp_path, browser, path):
    """Right after the server starts, a deep link is the first request: the page
    must still come from app.py's st.navigation (its sidebar and page list)."""
    with run_app(tmp_path / "data", YINZHENG_EMBEDDING="hash") as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{url}/{path}", wait_until="domcontentloaded")
        title = "历史回答" if path == "history" else "来源快照"
        page.get_by_role("heading", name=title).wait_for(timeout=120_000)
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_text("生成方式").wait_for(timeout=30_000)  # app.py's shared sidebar
        nav = page.get_by_test_id("stSidebarNav")
        for label in ("问答", "来源快照", "历史", "知识库"):  # st.navigation's titles, not file names
            nav.get_by_text(label, exact=True).wait_for(timeout=10_000)
        assert nav.get_by_text("chat", exact=True).count() == 0
        page.close()
