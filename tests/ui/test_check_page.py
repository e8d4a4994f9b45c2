"""The 核查 page and the highlighted quote on the snapshot page, with AppTest.

The check function is replaced by a fake (``sys.modules["core.check"]``) that
returns a checked text with every verdict over real sample chunks; when the real
``core.check`` is installed, one more test runs it over the sample.
"""

from __future__ import annotations

import re
import sys
import types
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.checked import CRON, INVENTED, sample_checked_record
from tests.conftest import page_html

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def fake_check(app_env, monkeypatch):
    calls: list[str] = []

    def check_text(engine, text: str):  # noqa: ANN001 - the real signature
        calls.append(text)
        return sample_checked_record(engine.index.active_chunks(), answer_id=f"fake-{len(calls)}")

    monkeypatch.setitem(sys.modules, "core.check", types.SimpleNamespace(check_text=check_text))
    return calls


def _check(at: AppTest, text: str) -> AppTest:
    at.text_area[0].set_value(text)
    at.button[0].click().run(timeout=120)
    assert not at.exception, at.exception
    return at


def test_check_page_shows_all_verdicts_stores_and_exports(app_env, fake_check):
    at = AppTest.from_file(str(ROOT / "app_pages" / "check.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    text = "CronJob 创建基于时隔重复调度的 Job。默认设置分别为 10 和 1。"
    _check(at, text)
    assert fake_check == [text]
    html = page_html(at)
    assert re.findall(r'<sup class="([^"]+)"', html) == [
        "yz-cite",
        "yz-cite yz-cite-contradicted",
        "yz-cite yz-cite-review",
    ]
    assert "⚠ 与来源矛盾" in html and "待复核" in html and "本段无出处" in html and INVENTED in html
    assert "<mark>默认设置分别为 3 和 1。</mark>" in html
    assert "核查结果" in html
    # stored, reachable by URL, exportable, and listed in 历史
    assert at.query_params["answer_id"] == "fake-1"
    assert app_env.records.get("fake-1") is not None
    assert {b.label for b in at.get("download_button")} == {"导出 JSON", "导出 Markdown"}
    fresh = AppTest.from_file(str(ROOT / "app_pages" / "check.py"), default_timeout=120)
    fresh.query_params["answer_id"] = "fake-1"
    fresh.run()
    assert re.findall(r"<sup .*?</sup>", page_html(fresh)) == re.findall(r"<sup .*?</sup>", html)
    hist = AppTest.from_file(str(ROOT / "app_pages" / "history.py"), default_timeout=60)
    hist.run()
    assert any("[核查 · 已回答] CronJob 创建基于时隔" in o for o in hist.selectbox[1].options)


def test_check_page_asks_for_text_first(app_env, fake_check):
    at = AppTest.from_file(str(ROOT / "app_pages" / "check.py"), default_timeout=120)
    at.run()
    _check(at, "   ")
    assert fake_check == []
    assert "请先输入要核查的文本" in at.warning[0].value


def test_check_page_says_when_the_checker_is_missing(app_env, monkeypatch):
    monkeypatch.setitem(sys.modules, "core.check", None)  # import raises ImportError
    at = AppTest.from_file(str(ROOT / "app_pages" / "check.py"), default_timeout=120)
    at.run()
    _check(at, "任意一句话。")
    assert "核查功能在此版本中不可用" in at.error[0].value


def test_check_is_in_the_navigation(app_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    at.switch_page("app_pages/check.py").run()
    assert not at.exception, at.exception
    assert at.title[0].value.startswith("核查")


def _snapshot(app_env, record, chunk_id: str, support: str | None) -> AppTest:
    app_env.records.save(record)
    at = AppTest.from_file(str(ROOT / "app_pages" / "sources.py"), default_timeout=60)
    at.query_params["answer_id"] = record.answer_id
    at.query_params["chunk_id"] = chunk_id
    if support is not None:
        at.query_params["support"] = support
    at.run()
    assert not at.exception, at.exception
    return at


def test_snapshot_page_highlights_and_scrolls_to_the_quote(app_env):
    rec = sample_checked_record(app_env.index.active_chunks(), answer_id="snap-1")
    cid = rec.supports[1].chunk_ids[0]
    at = _snapshot(app_env, rec, cid, "1")
    bodies = [el.proto.body for el in at.get("html")]
    text = rec.chunk(cid).text  # type: ignore[union-attr]
    q = rec.supports[1].aligned_quote
    quote = text[q.start : q.end]  # type: ignore[union-attr]
    assert any(re.search(r'<mark class="yz-quote" id="yz-quote">' + re.escape(quote) + "</mark>", b) for b in bodies)
    assert any("scrollIntoView" in b for b in bodies)
    assert any('<div class="yz-quote-caption">' in b and "与来源矛盾：来源写的是 3" in b for b in bodies)
    assert any('class="yz-snap-md"' in b for b in bodies)  # the Markdown rendered; the raw text only under 原始文本
    assert [t.value for t in at.expander[0].text] == [text]


def test_snapshot_page_with_a_bad_quote_shows_plain_text(app_env):
    from core.models import AlignedQuote

    rec = sample_checked_record(app_env.index.active_chunks(), answer_id="snap-bad")
    bad = rec.supports[1].model_copy(
        update={"aligned_quote": AlignedQuote(chunk_id=rec.supports[1].chunk_ids[0], start=5, end=10_000)}
    )
    rec = rec.model_copy(update={"supports": (rec.supports[0], bad, rec.supports[2])})
    cid = bad.chunk_ids[0]
    at = _snapshot(app_env, rec, cid, "1")
    assert any(t.value == rec.chunk(cid).text for t in at.text)  # type: ignore[union-attr]
    assert not any('id="yz-quote"' in el.proto.body for el in at.get("html"))  # no highlight from the bad offsets


def test_real_check_over_the_sample(app_env):
    pytest.importorskip("core.check")
    at = AppTest.from_file(str(ROOT / "app_pages" / "check.py"), default_timeout=180)
    at.run()
    _check(at, "CronJob 创建基于时隔重复调度的 Job。" + INVENTED)
    html = page_html(at)
    assert '<sup class="yz-cite' in html and "本段无出处" in html
    rec = app_env.records.get(at.query_params["answer_id"])
    assert rec is not None and rec.generator.name == "check" and any(c.source_id == CRON for c in rec.chunks)


def test_snapshot_caption_escapes_the_reason_and_sentence(app_env):
    rec = sample_checked_record(app_env.index.active_chunks(), answer_id="snap-evil")
    evil = rec.supports[1].model_copy(update={"verdict_reason": "<img src=x onerror=alert(1)> [链接](javascript:x)"})
    rec = rec.model_copy(update={"supports": (rec.supports[0], evil, rec.supports[2])})
    at = _snapshot(app_env, rec, evil.chunk_ids[0], "1")
    caption = next(el.proto.body for el in at.get("html") if "yz-quote-caption" in el.proto.body)
    assert "<img" not in caption and "&lt;img src=x onerror=alert(1)&gt; [链接](javascript:x)" in caption


def test_check_page_with_pasted_sources_checks_against_them_only(app_env):
    """Another system's answer checked against the sources it was given (issue 28): the knowledge
    base is not searched; the contradicted sentence cites the pasted passage and its quote is marked."""
    pytest.importorskip("core.check")
    at = AppTest.from_file(str(ROOT / "app_pages" / "check.py"), default_timeout=180)
    at.run()
    at.text_area[0].set_value("星河团队每周五下午交接班。交接记录写在共享值班表里。团队每季度组织一次团建。")
    at.text_area[1].set_value(
        "[1] 值班安排：星河团队每周四下午交接班。\n[2] 交接记录写在共享值班表里，夜班由两名工程师轮流负责。"
    )
    at.button[0].click().run(timeout=180)
    assert not at.exception, at.exception
    html = page_html(at)
    assert re.findall(r'<sup class="([^"]+)"', html) == ["yz-cite yz-cite-contradicted", "yz-cite"]
    assert "⚠ 与来源矛盾" in html and "本段无出处" in html and "粘贴的来源 1" in html and "与粘贴的来源原文核对" in html
    rec = app_env.records.get(at.query_params["answer_id"])
    assert rec is not None and rec.retrieval["retrieval"] == "pasted sources"
    assert [c.chunk_id for c in rec.chunks] == ["pasted-1", "pasted-2"]
    q = rec.supports[0].aligned_quote
    assert rec.chunks[0].text[q.start : q.end] == "值班安排：星河团队每周四下午交接班。"
