"""A chat turn through the OpenAI-compatible generator in a real browser (Debian
chromium + Playwright): the stub server streams the JSON answer slowly, the page
shows the sentences while they arrive (no markers yet), then the final record
with one marker, 本段无出处 and the invented id only in the audit. Screenshots:
artifacts/openai-streaming.png, artifacts/openai-final.png."""

from __future__ import annotations

import functools

from tests.browser.test_browser import ARTIFACTS, ask, browser, pytestmark, run_app  # noqa: F401 (fixture, marks)
from tests.gemini_server import StubGemini
from tests.openai_stub import citing_responder


def test_openai_turn_streams_then_shows_markers_and_the_audit(tmp_path, browser):  # noqa: F811
    with (
        StubGemini([], responder=functools.partial(citing_responder, pace=0.6)) as stub,
        run_app(
            tmp_path / "data",
            YINZHENG_GENERATOR="openai",
            YINZHENG_EMBEDDING="hash",
            OPENAI_BASE_URL=f"{stub.base_url}/v1",
            OPENAI_API_KEY="",
            YINZHENG_LLM_MODEL="qwen2.5:7b",
        ) as server,
    ):
        page = ask(browser, server, "CronJob 的时间表语法是什么？")
        page.get_by_text("资料中没有提到", exact=False).first.wait_for(timeout=120_000)
        streaming = page.locator("sup.yz-cite").count()
        page.screenshot(path=str(ARTIFACTS / "openai-streaming.png"), full_page=False)
        page.locator("sup.yz-cite").first.wait_for(timeout=60_000)
        assert streaming == 0  # the streamed preview is plain text; markers come with the record
        assert page.locator("sup.yz-cite").count() == 1
        assert page.get_by_text("本段无出处").count() >= 2
        audit = page.locator("details.yz-audit")
        audit.locator("summary").click()
        assert "invented#1" in audit.inner_text()
        page.screenshot(path=str(ARTIFACTS / "openai-final.png"), full_page=True)
    assert stub.requests and stub.requests[-1].body["stream"] is True
