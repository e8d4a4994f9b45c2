"""A long conversation costs what a short one does (issue 18): the full action row only under
the latest answer, a ⋯ button under each earlier one that opens the same row (every action
reachable), each row a fragment (a click there reruns the row, not the page), the answer
stylesheet sent once per page, the conversation's exports made only when clicked."""

from __future__ import annotations

import re
import uuid
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest, local_script_runner

from components import render_cache
from components.answer_view import ANSWER_CSS
from components.render_cache import answer_html

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ["Pod 的重启策略有哪些？", "默认是哪一种？", "Init 容器有什么用？"]


@pytest.fixture()
def conversation(app_env):
    """A stored three-turn conversation; returns (conversation id, its records oldest first)."""
    cid = "long-" + uuid.uuid4().hex[:8]
    for q in QUESTIONS:
        app_env.ask(q, conversation_id=cid, history=app_env.records.history(cid))
    return cid, app_env.records.list(conversation_id=cid)


def _open(cid: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params["c"] = cid
    return _run(at)


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def _keys(at: AppTest, prefix: str) -> set[str]:
    return {w.key for w in [*at.button, *at.get("feedback"), *at.text_area] if w.key and w.key.startswith(prefix)}


def test_only_the_latest_answer_draws_its_full_row_and_the_others_open_theirs(conversation, app_env):
    cid, records = conversation
    *earlier, latest = (r.answer_id for r in records)
    at = _open(cid)
    assert _keys(at, "regen-") == {f"regen-{latest}"}
    assert _keys(at, "fb-") == {f"fb-{latest}"}
    assert _keys(at, "more-open-") == {f"more-open-{a}" for a in earlier}
    copies = [h.proto.body for h in at.get("html") if 'class="yz-copy"' in h.proto.body]
    assert len(copies) == 1  # the copy buttons of the latest answer only

    # ⋯ under the first answer opens its row: copy (both texts), regenerate, edit, feedback
    at.button(key=f"more-open-{earlier[0]}").click()
    _run(at)
    assert _keys(at, "regen-") == {f"regen-{earlier[0]}", f"regen-{latest}"}
    assert f"edit-{earlier[0]}" in _keys(at, "edit-") and f"fb-{earlier[0]}" in _keys(at, "fb-")
    assert len([h for h in at.get("html") if 'class="yz-copy"' in h.proto.body]) == 2
    at.feedback(key=f"fb-{earlier[0]}").set_value(1)
    _run(at)
    assert app_env.records.get(earlier[0]).feedback.rating == "up"
    # regenerating the first answer works from its opened row: a new record in its turn
    at.button(key=f"regen-{earlier[0]}").click()
    _run(at)
    stored = app_env.records.list(conversation_id=cid)
    assert len(stored) == 4 and stored[-1].regenerated_from == earlier[0]


def test_an_earlier_answers_question_can_be_edited_and_resent(conversation, app_env):
    cid, records = conversation
    first = records[0].answer_id
    at = _open(cid)
    at.button(key=f"more-open-{first}").click()
    _run(at)
    at.text_area(key=f"edit-{first}").set_value("Service 有哪些类型？")
    at.button(key=f"resend-{first}").click()
    _run(at)
    assert [r.query for r in app_env.records.list(conversation_id=cid)][-1] == "Service 有哪些类型？"


def test_while_a_new_question_is_answered_every_earlier_answer_is_compact(conversation):
    cid, records = conversation
    at = _open(cid)
    at.chat_input[0].set_value("Service 有哪些类型？")
    _run(at)
    # the three stored answers are earlier ones now; only the new answer has its full row
    assert _keys(at, "more-open-") == {f"more-open-{r.answer_id}" for r in records}
    assert len(_keys(at, "regen-")) == 1 and not _keys(at, "regen-") & {f"regen-{r.answer_id}" for r in records}


def test_the_stylesheet_is_sent_once_and_each_answer_once(conversation, app_env):
    cid, records = conversation
    at = _open(cid)
    bodies = [h.proto.body for h in at.get("html")]
    assert sum(b.count(ANSWER_CSS) for b in bodies) == 1
    versions = app_env.index.current_versions()
    for record in records:  # the cached HTML, as it is, in one element of its own
        assert bodies.count(answer_html(record, versions)) == 1
    # a second run renders nothing again and sends the identical HTML (Streamlit then sends a large
    # identical message as a reference to the copy the browser has)
    renders = render_cache._ANSWERS.renders
    assert [h.proto.body for h in _run(at).get("html")] == bodies
    assert render_cache._ANSWERS.renders == renders


def test_a_full_action_row_is_a_fragment_and_the_rest_of_the_page_is_not(conversation, monkeypatch):
    """A widget inside a fragment reruns only that fragment (Streamlit's contract); AppTest
    cannot run a fragment alone, so the test reads the deltas: every widget of an open row
    carries that row's fragment id (one fragment per row), the ⋯ buttons, the answers, the
    title and the chat input carry none."""
    cid, records = conversation
    first, latest = records[0].answer_id, records[-1].answer_id
    messages = []
    parse = local_script_runner.parse_tree_from_messages

    def capture(msgs):  # noqa: ANN001
        messages[:] = list(msgs)
        return parse(msgs)

    monkeypatch.setattr(local_script_runner, "parse_tree_from_messages", capture)
    at = _open(cid)
    at.button(key=f"more-open-{first}").click()
    _run(at)  # the first answer's row open, the second's still behind ⋯
    fragments: dict[str, set[str]] = {}  # "<widget kind>-<answer id>" -> fragment ids of its deltas
    for m in messages:
        if m.WhichOneof("type") != "delta" or m.delta.WhichOneof("type") != "new_element":
            continue
        element = m.delta.new_element
        kind = element.WhichOneof("type")
        proto = getattr(element, kind)
        if found := re.search(r"-(regen|fb|resend|more-open)-(\w+)$", getattr(proto, "id", "")):
            fragments.setdefault(f"{found.group(1)}-{found.group(2)}", set()).add(m.delta.fragment_id)
        if kind in ("heading", "chat_input") or (kind == "html" and 'class="yz-copy"' not in proto.body):
            assert not m.delta.fragment_id, f"{kind} drawn inside a fragment"
    rows = {
        aid: fragments[f"regen-{aid}"] | fragments[f"fb-{aid}"] | fragments[f"resend-{aid}"] for aid in (first, latest)
    }
    assert all(len(ids) == 1 and "" not in ids for ids in rows.values())  # each open row: one fragment
    assert rows[first] != rows[latest]  # of its own
    assert fragments[f"more-open-{records[1].answer_id}"] == {""}  # ⋯ is a plain button


def test_the_conversation_exports_are_made_when_clicked_not_on_every_run(conversation, monkeypatch):
    import components.chat_view

    cid, _ = conversation
    made = []
    monkeypatch.setattr(components.chat_view, "conversation_to_markdown", lambda records: made.append(records) or "")
    at = _open(cid)
    buttons = {b.label: b.proto for b in at.get("download_button")}
    assert set(buttons) == {"导出 JSON", "导出 Markdown"}
    assert all(b.deferred_file_id and not b.url for b in buttons.values())
    assert made == []


def test_the_conversation_export_holds_the_turn_just_asked(app_env, monkeypatch):
    """New-user pass: the sidebar's export was drawn before the answer, so it lacked the turn just
    asked (none at all after the first question). It is drawn after the answer now."""
    import components.chat_view

    exported: list[list[str]] = []
    real = components.chat_view.show_export_buttons

    def spy(records, stem):  # noqa: ANN001, ANN202
        exported.append([r.query for r in records])
        return real(records, stem)

    monkeypatch.setattr(components.chat_view, "show_export_buttons", spy)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    _run(at)
    assert exported == []  # a new conversation: nothing to export yet
    at.chat_input[0].set_value(QUESTIONS[0]).run(timeout=120)
    assert not at.exception, at.exception
    assert exported[-1] == [QUESTIONS[0]]
    assert {b.label for b in at.get("download_button")} == {"导出 JSON", "导出 Markdown"}
    at.chat_input[0].set_value(QUESTIONS[1]).run(timeout=120)
    assert not at.exception, at.exception
    assert exported[-1] == QUESTIONS[:2]


def _drawn_answers(at: AppTest) -> list[str]:
    return [m for h in at.get("html") for m in re.findall(r'class="yz-answer" data-answer="([^"]+)"', h.proto.body)]


def test_only_the_latest_turns_are_drawn_until_the_earlier_ones_are_asked_for(conversation, monkeypatch):
    from components import chat_view

    monkeypatch.setattr(chat_view, "SHOWN_TURNS", 2)
    cid, records = conversation
    ids = [r.answer_id for r in records]
    at = _open(cid)
    assert _drawn_answers(at) == ids[1:]  # the oldest turn waits behind the button
    assert [t.value for t in at.text if t.value in QUESTIONS] == QUESTIONS[1:]
    more = at.button(key=f"earlier-{cid}")
    assert more.label == "显示更早的 1 轮对话"
    more.click()
    _run(at)
    assert _drawn_answers(at) == ids
    assert not [b for b in at.button if b.key == f"earlier-{cid}"]
    _run(at)  # stays open for the session
    assert _drawn_answers(at) == ids


def test_a_new_turn_takes_the_place_of_the_oldest_one_drawn(conversation, monkeypatch, app_env):
    """While a question is answered, one earlier turn fewer is drawn: the next run draws the same turns."""
    from components import chat_view

    monkeypatch.setattr(chat_view, "SHOWN_TURNS", 2)
    cid, records = conversation
    at = _open(cid)
    at.chat_input[0].set_value("Service 有哪些类型？")
    _run(at)
    new = app_env.records.list(conversation_id=cid)[-1].answer_id
    assert _drawn_answers(at) == [records[-1].answer_id, new]
    assert at.button(key=f"earlier-{cid}").label == "显示更早的 2 轮对话"
    _run(at)
    assert _drawn_answers(at) == [records[-1].answer_id, new]
