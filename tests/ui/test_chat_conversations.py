"""The chat's conversations, answer actions and retrieval settings with AppTest
(issue 15, part A): a conversation survives navigation and reopens from 历史;
新对话, rename and hide; regenerate keeps the old record; edit-and-resend;
👍/👎 with a comment stored and exported; the sidebar's retrieval settings are
applied and recorded."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from streamlit.testing.v1 import AppTest

from components.answer_actions import copy_buttons_html
from core.records.export import to_markdown

ROOT = Path(__file__).resolve().parents[2]
CHAT, LIBRARY, HISTORY = "app_pages/chat.py", "app_pages/library.py", "app_pages/history.py"


def _app() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    return at


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def _ask(at: AppTest, question: str) -> AppTest:
    at.chat_input[0].set_value(question)
    return _run(at)


def _questions(at: AppTest) -> list[str]:
    """The user questions the chat shows (st.text inside the user chat messages)."""
    return [t.value for m in at.chat_message if m.name == "user" for t in m.text]


def _answers(at: AppTest) -> int:
    return sum(1 for m in at.chat_message if m.name == "assistant")


def test_a_conversation_survives_navigation_and_browser_back(app_env):
    at = _ask(_app(), "CronJob 的时间表语法是什么？")
    cid = at.query_params["c"]
    # to 知识库: Streamlit drops ?c= on a page switch
    at.switch_page(LIBRARY)
    at.query_params.clear()
    _run(at)
    assert at.title[0].value != "引证 · 有出处的问答"
    at.switch_page(CHAT)
    _run(at)
    assert at.query_params["c"] == cid  # restored, not a new conversation
    assert _questions(at) == ["CronJob 的时间表语法是什么？"]
    # browser Back lands on the chat URL with its ?c=: the same conversation again
    at.query_params["c"] = cid
    _run(at)
    assert at.query_params["c"] == cid and _questions(at) == ["CronJob 的时间表语法是什么？"]


def test_new_conversation_and_the_sidebar_list(app_env):
    at = _ask(_app(), "Init 容器有什么用？")
    first = at.query_params["c"]
    at.button(key="new-conversation").click()
    _run(at)
    second = at.query_params["c"]
    assert second != first and _questions(at) == []
    # the earlier conversation is listed, titled by its first question; clicking reopens it
    entry = at.button(key=f"conv-{first}")
    assert entry.label == "Init 容器有什么用？"
    entry.click()
    _run(at)
    assert at.query_params["c"] == first and _questions(at) == ["Init 容器有什么用？"]
    # searchable
    at.text_input(key="conversation-search").set_value("没有这种对话xyz")
    _run(at)
    assert not [b for b in at.sidebar.button if b.key and b.key.startswith("conv-")]
    assert any("没有符合条件的对话" in c.value for c in at.sidebar.caption)


def test_rename_and_hide_a_conversation(app_env):
    at = _ask(_app(), "Service 有哪些类型？")
    cid = at.query_params["c"]
    at.text_input(key=f"title-{cid}").set_value("我的服务笔记")
    at.button(key=f"rename-{cid}").click()
    _run(at)
    assert at.button(key=f"conv-{cid}").label == "我的服务笔记"
    assert app_env.records.conversation(cid).title == "我的服务笔记"
    at.button(key=f"hide-{cid}").click()
    _run(at)
    assert at.query_params["c"] != cid  # a new, empty conversation is open
    assert not [b for b in at.sidebar.button if b.key == f"conv-{cid}"]
    assert len(app_env.records.list(conversation_id=cid)) == 1  # hidden, never deleted
    # 历史 lists it when asked, and shows it again
    at.switch_page(HISTORY)
    _run(at)
    at.toggle(key="history-hidden").set_value(True)
    _run(at)
    at.button(key=f"unhide-{cid}").click()
    _run(at)
    assert not app_env.records.conversation(cid).hidden


def test_a_conversation_reopens_from_history_in_the_chat(app_env):
    cid = "hist-" + uuid.uuid4().hex[:8]
    app_env.ask("Pod 的重启策略有哪些？", conversation_id=cid)
    app_env.ask("默认是哪一种？", conversation_id=cid, history=app_env.records.history(cid))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.switch_page(HISTORY)
    _run(at)
    # the grouped entry: title (its first question), turns, preview
    texts = [t.value for t in at.text]
    assert "Pod 的重启策略有哪些？" in texts
    assert any(c.value.startswith("2 轮") for c in at.caption)
    at.button(key=f"open-{cid}").click()
    _run(at)
    assert at.query_params["c"] == cid
    assert at.title[0].value == "引证 · 有出处的问答"
    assert _questions(at) == ["Pod 的重启策略有哪些？", "默认是哪一种？"]


def test_regenerate_keeps_the_old_record_and_shows_both(app_env):
    at = _ask(_app(), "Deployment 和 StatefulSet 有什么区别？")
    cid = at.query_params["c"]
    (old,) = app_env.records.list(conversation_id=cid)
    at.button(key=f"regen-{old.answer_id}").click()
    _run(at)
    stored = app_env.records.list(conversation_id=cid)
    assert [r.answer_id for r in stored][0] == old.answer_id and len(stored) == 2
    assert stored[1].regenerated_from == old.answer_id and stored[1].query == old.query
    _run(at)  # the next run shows the turn with both versions
    assert _questions(at) == [old.query] and _answers(at) == 2
    assert [c.value for c in at.caption if "版" in c.value][:2] == ["第 1/2 版", "第 2/2 版（重新生成）"]


def _messages(at: AppTest) -> list[tuple[str, str]]:
    """The chat in page order: ("user", question) and ("assistant", its version caption or "")."""
    out = []
    for m in at.chat_message:
        if m.name == "user":
            out.append(("user", m.text[0].value))
        else:
            out.append(("assistant", next((c.value for c in m.caption if "版" in c.value), "")))
    return out


def test_a_regenerated_version_is_drawn_in_its_turn_on_the_run_that_makes_it(app_env):
    """New-user pass: the new version of an earlier answer was drawn at the end of the chat (its
    question repeated under the last turn) and moved under its turn only on the next run."""
    at = _ask(_ask(_app(), "Pod 是什么？"), "Service 有哪些类型？")
    first = app_env.records.list(conversation_id=at.query_params["c"])[0]
    at.button(key=f"more-open-{first.answer_id}").click()  # ⋯ opens the earlier answer's row
    _run(at)
    at.button(key=f"regen-{first.answer_id}").click()
    _run(at)
    expected = [
        ("user", "Pod 是什么？"),
        ("assistant", "第 1/2 版"),
        ("assistant", "第 2/2 版（重新生成）"),
        ("user", "Service 有哪些类型？"),
        ("assistant", ""),
    ]
    assert _messages(at) == expected
    assert len(app_env.records.list(conversation_id=at.query_params["c"])) == 3
    assert _messages(_run(at)) == expected  # the next run draws the same page: nothing moves


def test_sending_an_edited_question_from_an_earlier_answer_closes_its_row(app_env):
    """New-user pass: 编辑问题 → 发送 from an earlier answer left its popover open over the new turn.
    The row closes back to its ⋯ button (its popover goes with it) on the run that answers."""
    at = _ask(_ask(_app(), "Pod 是什么？"), "Service 有哪些类型？")
    first = app_env.records.list(conversation_id=at.query_params["c"])[0]
    at.button(key=f"more-open-{first.answer_id}").click()
    _run(at)
    at.text_area(key=f"edit-{first.answer_id}").set_value("Pod 的重启策略有哪些？")
    at.button(key=f"resend-{first.answer_id}").click()
    _run(at)
    assert _questions(at)[-1] == "Pod 的重启策略有哪些？"
    assert not [t for t in at.text_area if t.key == f"edit-{first.answer_id}"]  # no popover: the row is closed
    assert at.button(key=f"more-open-{first.answer_id}").label == "更多操作"  # ⋯ again (the label for screen readers)


def test_edit_and_resend_asks_the_edited_question_as_a_new_turn(app_env):
    at = _ask(_app(), "Pod 是什么？")
    cid = at.query_params["c"]
    (old,) = app_env.records.list(conversation_id=cid)
    at.text_area(key=f"edit-{old.answer_id}").set_value("Pod 的重启策略有哪些？")
    at.button(key=f"resend-{old.answer_id}").click()
    _run(at)
    stored = app_env.records.list(conversation_id=cid)
    assert [r.query for r in stored] == ["Pod 是什么？", "Pod 的重启策略有哪些？"]
    assert stored[1].regenerated_from is None


def test_feedback_with_a_comment_is_stored_and_exported(app_env):
    at = _ask(_app(), "Init 容器有什么用？")
    (record,) = app_env.records.list(conversation_id=at.query_params["c"])
    at.feedback(key=f"fb-{record.answer_id}").set_value(0)  # 👎
    _run(at)
    assert app_env.records.get(record.answer_id).feedback.rating == "down"
    at.text_area(key=f"fbc-{record.answer_id}").set_value("没有说明和普通容器的区别")
    at.button(key=f"fbc-save-{record.answer_id}").click()
    _run(at)
    stored = app_env.records.get(record.answer_id)
    assert (stored.feedback.rating, stored.feedback.comment) == ("down", "没有说明和普通容器的区别")
    assert json.loads(stored.model_dump_json())["feedback"]["comment"] == "没有说明和普通容器的区别"
    assert "👎 没用：没有说明和普通容器的区别" in to_markdown(stored)
    # a fresh session shows the stored rating
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    fresh.query_params["c"] = stored.conversation_id
    _run(fresh)
    assert fresh.feedback(key=f"fb-{record.answer_id}").value == 0


def test_retrieval_settings_are_applied_and_recorded(app_env):
    at = _app()
    at.slider(key="top_k").set_value(3)
    at.toggle(key="own_threshold").set_value(True)
    _run(at)
    at.slider(key="evidence_threshold").set_value(1.0)
    _ask(at, "Pod 的重启策略有哪些？")
    (record,) = app_env.records.list(conversation_id=at.query_params["c"])
    assert record.status == "no_evidence" and record.sufficiency.threshold == 1.0
    assert record.retrieval["top_k"] == 3 and record.retrieval["sufficiency_threshold_source"] == "user"
    # documents to search: only one chosen document's chunks are ranked
    doc = sorted(app_env.index.documents(), key=lambda d: d.document.source_id)[0].document.source_id
    at.toggle(key="own_threshold").set_value(False)
    at.multiselect(key="documents").set_value([doc])
    _ask(at, "Pod 的重启策略有哪些？")
    latest = app_env.records.list(conversation_id=at.query_params["c"])[-1]
    assert json.loads(latest.retrieval["documents"]) == [doc]
    shown = (*latest.chunks, *(c.chunk for c in latest.candidates))
    assert shown and all(c.source_id == doc for c in shown)


def test_copy_buttons_embed_both_texts_inertly(sample_engine):
    from html.parser import HTMLParser

    record = sample_engine.ask("Pod 的重启策略有哪些？", save=False)
    hostile = record.model_copy(update={"answer_text": record.answer_text + "</script><img src=x onerror=alert(1)>&"})
    page = copy_buttons_html(hostile)
    assert "<img" not in page and "<script" not in page  # only escaped text in attributes

    class Buttons(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.copies: dict[str, str] = {}

        def handle_starttag(self, tag, attrs):  # noqa: ANN001
            a = dict(attrs)
            if tag == "button" and "yz-copy" in (a.get("class") or ""):
                self.copies[a["data-label"]] = a["data-copy"]

    parsed = Buttons()
    parsed.feed(page)
    assert set(parsed.copies) == {"复制", "复制（含脚注）"}
    # the copied Markdown is as safe as an export (issue 24): the raw HTML is escaped text in it
    assert parsed.copies["复制"].endswith("\\</script\\>\\<img src\\=x onerror\\=alert(1)\\>\\&\n")
    assert "[^1]:" in parsed.copies["复制（含脚注）"] and "[^1]" not in parsed.copies["复制"]


def test_a_store_failure_while_saving_feedback_is_a_message_not_a_crash(app_env, monkeypatch):
    from core.errors import RecordError
    from core.records.store import RecordStore

    at = _ask(_app(), "Init 容器有什么用？")
    (record,) = app_env.records.list(conversation_id=at.query_params["c"])

    def fail(self, answer_id, feedback):
        raise RecordError("the answer store error: disk I/O error")

    monkeypatch.setattr(RecordStore, "set_feedback", fail)
    at.feedback(key=f"fb-{record.answer_id}").set_value(1)
    _run(at)
    assert any("保存反馈失败" in t.value for t in at.toast)


def test_a_question_past_the_limit_gets_a_clear_message_and_is_kept(app_env):
    """Issue 30 item 3: pasting more than 2,000 characters left the box empty (the browser drops a
    paste past ``max_chars``; the server cut what it got). The box takes any length; the pipeline
    refuses past MAX_QUESTION_CHARS code points with a message naming the length and the limit,
    and the record keeps the whole question (shown in the user bubble, editable)."""
    from core.engine import MAX_QUESTION_CHARS

    at = _app()
    assert not at.chat_input[0].proto.max_chars  # no browser-side limit
    question = ("Pod的重启策略有哪些取值，分别在什么情况下使用？" * 100)[: MAX_QUESTION_CHARS + 500]
    _ask(at, question)
    (record,) = app_env.records.list(conversation_id=at.query_params["c"])
    assert record.status == "error" and record.query == question  # the server no longer cuts it to 2,000
    shown = " ".join(h.proto.body for h in at.get("html"))  # the answer's own HTML (components.answer_view)
    assert f"问题太长（{MAX_QUESTION_CHARS + 500} 个字符）" in shown and f"{MAX_QUESTION_CHARS} 个字符以内" in shown
    assert question in _questions(at)
    assert at.text_area(key=f"edit-{record.answer_id}").value == question  # 编辑问题 starts from all of it


def test_saving_a_comment_from_the_row_fragment_draws_nothing_in_its_callback(app_env):
    """New-user pass: 保存说明 (a callback of the row's fragment) called st.toast, and Streamlit logged
    "A fragment rerun was triggered with a callback that displays one or more elements". The
    toast is shown by the row itself, after the callback."""
    import logging

    from streamlit.logger import get_logger

    at = _ask(_app(), "Init 容器有什么用？")
    (record,) = app_env.records.list(conversation_id=at.query_params["c"])
    at.feedback(key=f"fb-{record.answer_id}").set_value(1)
    _run(at)
    at.text_area(key=f"fbc-{record.answer_id}").set_value("清楚")
    at.button(key=f"fbc-save-{record.answer_id}").click()
    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda r: logged.append(r.getMessage())
    root = get_logger("root")  # where Streamlit logs that warning (it does not propagate to pytest's caplog)
    root.addHandler(handler)
    try:
        _run(at)
    finally:
        root.removeHandler(handler)
    assert not [m for m in logged if "callback that displays" in m], logged
    assert any("已保存反馈" in t.value for t in at.toast)
    assert app_env.records.get(record.answer_id).feedback.comment == "清楚"
