"""Each answer's actions: 复制 (the answer alone, or with its footnotes),
重新生成 (a new record; the old one stays), 编辑问题 (resend an edited question as
a new turn) and 👍/👎 with an optional comment (stored in the record,
``RecordStore.set_feedback``).

A long conversation costs what a short one does: only the latest answers draw the
full row (:func:`show_answer_actions`); each earlier one draws one small ⋯ button
that opens the same row in place (``compact=True``). Each full row is an
``st.fragment``: a rating or a comment reruns that row alone, not the page (and
not the other answers).

Regenerate and resend are *requests*: a button stores one in
``st.session_state[PENDING_KEY]`` and the chat page answers it on the run that
follows (:func:`pending_request`), like a question typed into the chat input;
from inside a row's fragment that run is a full one (``st.rerun()``).
The copy buttons are inline HTML with one delegated click handler installed once
per page (:data:`COPY_ASSETS`, drawn by ``components.chat_view.show_answer_assets``):
the untrusted texts are HTML-escaped attribute values, so answer text cannot end
an attribute or add a tag.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

import streamlit as st

from components.errors import app_error_message
from components.plain import plain
from core.public import AnswerRecord, AppError, Feedback, answer_markdown

if TYPE_CHECKING:
    from core.public import Engine

PENDING_KEY = "pending-request"
RATINGS = {0: "down", 1: "up"}  # st.feedback("thumbs") index -> Feedback.rating


@dataclass(frozen=True)
class Request:
    """A question to answer on the next run: an edited one, or ``regenerated_from`` an answer;
    ``from_input``: typed into the chat input (not a button's request)."""

    question: str
    regenerated_from: str | None = None
    from_input: bool = False


def pending_request() -> Request | None:
    """The request a button left for this run (taken: answered once)."""
    return st.session_state.pop(PENDING_KEY, None)


def _request(request: Request, answer_id: str) -> None:
    """Leave ``request`` for the next run and close the row of ``answer_id`` back to its ⋯ button:
    its 编辑问题 popover would otherwise stay open over the page that answers the request (an open
    popover keeps its state across runs while its element is drawn)."""
    st.session_state[PENDING_KEY] = request
    st.session_state.pop(MORE_KEY.format(answer_id), None)


def _request_edit(answer_id: str) -> None:
    question = (st.session_state.get(f"edit-{answer_id}") or "").strip()
    if question:
        _request(Request(question), answer_id)


#: The copy buttons' look and their one click handler (delegated, installed once per page). The
#: buttons are inline, not an iframe each: twenty iframes made a switch back to a long chat take
#: about 1.4 s longer (measured in chromium, 20 answers: 2.3–2.9 s with, 1.1–1.3 s without).
COPY_ASSETS = """<style>
.yz-copy-row{display:flex;gap:8px;align-items:center;flex-wrap:nowrap}
.yz-copy{font:inherit;min-height:40px;padding:4px 12px;border:1px solid rgba(49,51,63,.2);border-radius:8px;
background:#fff;color:rgb(49,51,63);cursor:pointer;white-space:nowrap}
.yz-copy:hover{border-color:#ff4b4b;color:#ff4b4b}
.yz-copy.done{border-color:#09ab3b;color:#09ab3b}
</style><script>
(function () {
  if (window.__yzCopy) return;
  window.__yzCopy = true;
  async function copy(button) {
    const text = button.getAttribute("data-copy") || "", label = button.getAttribute("data-label") || "";
    try { await navigator.clipboard.writeText(text); }
    catch (e) {
      const ta = document.createElement("textarea"); ta.value = text; document.body.appendChild(ta);
      ta.select(); document.execCommand("copy"); ta.remove();
    }
    button.textContent = "已复制"; button.classList.add("done");
    setTimeout(function () { button.textContent = label; button.classList.remove("done"); }, 2000);
  }
  document.addEventListener("click", function (ev) {
    const button = ev.target && ev.target.closest ? ev.target.closest("button.yz-copy") : null;
    if (button) { ev.preventDefault(); copy(button); }
  }, true);
})();
</script>"""


#: The row's fit on a phone (drawn once per page with :data:`COPY_ASSETS`): the ⋯ button of an earlier
#: answer gets a 40×40 px hit area (it was 16×40: a bare icon), its icon kept where it was (the negative
#: margin); and a popover of a row (编辑问题, 补充说明) that would open over the chat input or past the
#: bottom of the screen brings its button up to the top of the view first, so it opens whole above the
#: input (390×844: it covered the input and ran 3–4 px past the viewport). The popover is Streamlit's
#: (``stPopoverBody``, fixed, placed under its button and following it when the page scrolls). The ⋯
#: button's label (更多操作, its accessible name) is visually hidden, still read by screen readers.
ROW_ASSETS = """<style>
[class*="st-key-more-open-"] button{min-width:40px;min-height:40px;justify-content:center;margin-left:-12px}
[class*="st-key-more-open-"] button [data-testid="stMarkdownContainer"]{position:absolute;width:1px;height:1px;
overflow:hidden;clip:rect(0 0 0 0);clip-path:inset(50%);white-space:nowrap}
</style><script>
(function () {
  if (window.__yzRowFit) return;
  window.__yzRowFit = true;
  function fit(button, tries) {
    const bodies = document.querySelectorAll('[data-testid="stPopoverBody"]');
    const body = bodies[bodies.length - 1];
    if (!body) { if (tries > 0) setTimeout(function () { fit(button, tries - 1); }, 50); return; }
    const input = document.querySelector('[data-testid="stChatInput"]');
    const limit = Math.min(window.innerHeight, input ? input.getBoundingClientRect().top : Infinity) - 8;
    if (body.getBoundingClientRect().bottom <= limit) return;
    button.style.scrollMarginTop = "4.5rem";  // below the app's fixed header
    button.scrollIntoView({ block: "start", behavior: "instant" });
  }
  document.addEventListener("click", function (ev) {
    const button = ev.target && ev.target.closest
      ? ev.target.closest('[class*="st-key-actions-"] [data-testid="stPopover"] button') : null;
    if (button) setTimeout(function () { fit(button, 10); }, 50);
  }, true);
})();
</script>"""


def copy_buttons_html(record: AnswerRecord) -> str:
    """The copy buttons (inline HTML; the handler is :data:`COPY_ASSETS`): 复制 copies
    ``answer_markdown(footnotes=False)``, 复制（含脚注） ``answer_markdown(footnotes=True)``.
    Each text sits HTML-escaped in its button's ``data-copy`` attribute (answer text is
    untrusted: it never becomes markup)."""
    buttons = [
        ("复制", "复制回答正文", answer_markdown(record, footnotes=False)),
        ("复制（含脚注）", "复制回答和脚注形式的出处", answer_markdown(record, footnotes=True)),
    ]
    return (
        '<div class="yz-copy-row">'
        + "".join(
            f'<button type="button" class="yz-copy" title="{escape(title)}" data-label="{escape(label)}" '
            f'data-copy="{escape(text)}">{escape(label)}</button>'
            for label, title, text in buttons
        )
        + "</div>"
    )


#: Session key of the toast a feedback callback leaves for its row (``(text, icon)``), shown by the
#: row's fragment when it runs next (:func:`_actions`). A callback must not draw: one that calls
#: ``st.toast`` during a fragment's rerun makes Streamlit log "A fragment rerun was triggered with a
#: callback that displays one or more elements" (its elements would go to the top of the app).
NOTICE_KEY = "fb-notice-{}"


def _notify(answer_id: str, text: str, icon: str) -> None:
    st.session_state[NOTICE_KEY.format(answer_id)] = (text, icon)


def _save_feedback(engine: Engine, answer_id: str, feedback: Feedback | None, *, keep_comment: bool = False) -> bool:
    """Store ``feedback`` (``keep_comment``: with the comment already stored); a store failure
    becomes a toast (:data:`NOTICE_KEY`; callbacks run outside ``page_guard``)."""
    try:
        if keep_comment and feedback is not None:
            stored = engine.answer(answer_id)
            if stored is not None and stored.feedback is not None:
                feedback = feedback.model_copy(update={"comment": stored.feedback.comment})
        engine.set_feedback(answer_id, feedback)
    except AppError as exc:
        _notify(answer_id, app_error_message(exc, "保存反馈"), ":material/error:")
        return False
    return True


def _store_rating(engine: Engine, record: AnswerRecord) -> None:
    index = st.session_state.get(f"fb-{record.answer_id}")
    _save_feedback(
        engine, record.answer_id, None if index is None else Feedback(rating=RATINGS[index]), keep_comment=True
    )


def _store_comment(engine: Engine, record: AnswerRecord) -> None:
    index = st.session_state.get(f"fb-{record.answer_id}")
    comment = (st.session_state.get(f"fbc-{record.answer_id}") or "").strip() or None
    if index is not None and _save_feedback(engine, record.answer_id, Feedback(rating=RATINGS[index], comment=comment)):
        _notify(record.answer_id, "已保存反馈，谢谢！", ":material/check:")


#: Session keys of the earlier answers whose full action row was opened (``more-<answer_id>``).
MORE_KEY = "more-{}"


def _open_row(answer_id: str) -> None:
    st.session_state[MORE_KEY.format(answer_id)] = True


def show_answer_actions(engine: Engine, record: AnswerRecord, *, compact: bool = False) -> None:
    """The actions under one answer (keys derive from ``record.answer_id``). ``compact``: one
    ⋯ button (``more-open-<id>``) until it is clicked, then the full row; otherwise the full
    row at once. The full row is a fragment of its own; the ⋯ button is not (a fragment per
    earlier answer would cost every run of a long chat more than the one run a click on ⋯ costs)."""
    aid = record.answer_id
    with st.container(key=f"actions-{aid}"):
        if compact and not st.session_state.get(MORE_KEY.format(aid)):
            # the label names the button for screen readers (the icon is aria-hidden); ROW_ASSETS hides it from view
            st.button(
                "更多操作",
                icon=":material/more_horiz:",
                key=f"more-open-{aid}",
                type="tertiary",
                help="复制、重新生成、编辑问题、反馈",
                on_click=_open_row,
                args=(aid,),
            )
        else:
            _actions(engine, record)


@st.fragment
def _actions(engine: Engine, record: AnswerRecord) -> None:
    aid = record.answer_id
    if notice := st.session_state.pop(NOTICE_KEY.format(aid), None):  # left by a feedback callback
        st.toast(plain(notice[0]), icon=notice[1])
    with st.container(horizontal=True, vertical_alignment="center", gap="small"):
        # our own markup; the texts are escaped attribute values (copy_buttons_html), the handler is COPY_ASSETS
        st.html(copy_buttons_html(record), width="content")
        regenerate = st.button(
            "重新生成",
            icon=":material/refresh:",
            key=f"regen-{aid}",
            on_click=_request,
            args=(Request(record.query, aid), aid),
            help="再回答一次；原回答保留。",
        )
        with st.popover("编辑问题", icon=":material/edit:"):
            # no max_chars: Streamlit would cut a longer question; the pipeline says when it is too long
            st.text_area("修改问题后重新发送", value=record.query, key=f"edit-{aid}")
            resend = st.button("发送", key=f"resend-{aid}", type="primary", on_click=_request_edit, args=(aid,))
        default = {"up": 1, "down": 0}.get(record.feedback.rating) if record.feedback else None
        rating = st.feedback("thumbs", key=f"fb-{aid}", default=default, on_change=_store_rating, args=(engine, record))
        if rating is not None:
            with st.popover("补充说明", icon=":material/comment:"):
                st.text_area(
                    "哪里好，哪里不好？（可选）",
                    value=(record.feedback.comment if record.feedback else "") or "",
                    key=f"fbc-{aid}",
                    max_chars=2000,
                )
                st.button("保存说明", key=f"fbc-save-{aid}", on_click=_store_comment, args=(engine, record))
    if (regenerate or resend) and st.session_state.get(PENDING_KEY) is not None:
        st.rerun()  # the request is the page's to answer: a full run, not this fragment's
