"""Streamlit rendering of answer records: one function per thing shown."""

from __future__ import annotations

import json
import uuid
from contextlib import nullcontext
from typing import Callable

import streamlit as st

from components.answer_actions import COPY_ASSETS, ROW_ASSETS, Request, show_answer_actions
from components.answer_view import ANSWER_CSS, ANSWER_SCRIPT
from components.errors import show_app_error
from components.library_view import vector_status
from components.plain import plain
from components.render_cache import answer_html
from core.public import (
    AnswerRecord,
    RetrievalOptions,
    UnsavedRecordError,
    conversation_history,
    conversation_to_json,
    conversation_to_markdown,
    conversation_turns,
    readable,
    record_json,
    to_markdown,
    version_label,
)

#: What every answer on a page shares, drawn once per page by :func:`show_answer_assets`: the
#: answer stylesheet, the copy buttons' style and handler, the action row's phone fit, the snapshot
#: panel's scroll script.
#: Once, not once per answer: twenty copies of an 8 KB stylesheet made every style recalculation of
#: a long chat twenty times the work, and every rerun re-sent them.
ANSWER_ASSETS = ANSWER_CSS + COPY_ASSETS + ROW_ASSETS + ANSWER_SCRIPT


def show_answer_assets() -> None:
    """Draw :data:`ANSWER_ASSETS` (constant: our stylesheets and scripts, no record data).
    Every page that calls :func:`show_record` calls this once per run, before it."""
    st.html(ANSWER_ASSETS, unsafe_allow_javascript=True)


def show_record(record: AnswerRecord, current_versions: dict[str, str | None] | None = None) -> None:
    """Render a stored record (the same code for a live and a replayed answer); its
    HTML is rendered once per version state (``components.render_cache``). The page
    draws the shared styles first (:func:`show_answer_assets`)."""
    # the answer HTML is sanitized (nh3, then DOMPurify) and holds no script
    st.html(answer_html(record, current_versions), unsafe_allow_javascript=True)


#: Turns of a conversation drawn at once; earlier ones wait behind one button, so a long
#: conversation costs each rerun (a question, a page switch) what a short one does (issue 18).
SHOWN_TURNS = 10


def show_conversation(engine, records: list[AnswerRecord], *, asking: bool = False, regenerating: str | None = None):  # noqa: ANN001, ANN201 - Engine; a container or None
    """A conversation (records oldest first), turn by turn: the question once, then each
    version of its answer (a regenerated one after the one it regenerated, both kept).
    The latest turn's answers draw their full action row, earlier ones a ⋯ button that
    opens it (``show_answer_actions(compact=True)``); ``asking``: this run answers a new
    question below, so every answer shown here is an earlier one. Only the latest
    :data:`SHOWN_TURNS` turns are drawn (one fewer while ``asking`` a new question: the new turn
    is the last one, so the next run draws the same turns) until 显示更早的 N 轮对话 is clicked (for
    the rest of the session, per conversation).

    ``regenerating``: the id of the answer this run regenerates. Its turn's versions are
    labelled with the new one counted, and an empty container is left under them and
    returned, for :func:`answer_request` to draw the new version in (None: no such answer
    drawn here, the new version goes at the end); so it appears in its place on the run that makes it."""
    versions = readable.current_versions(engine)
    turns = conversation_turns(records)
    shown = SHOWN_TURNS - 1 if asking and regenerating is None else SHOWN_TURNS
    hidden = earlier_turns_hidden(turns, records[0].conversation_id if records else "", shown)
    slot = None
    for t, turn in enumerate(turns[hidden:], start=hidden + 1):
        with st.chat_message("user"):
            st.text(turn[0].query)
        here = regenerating is not None and any(r.answer_id == regenerating for r in turn)
        counted = [*turn, Request(turn[0].query, regenerating)] if here else turn  # the new version counted
        for n, record in enumerate(turn, start=1):
            with st.chat_message("assistant"):
                if len(counted) > 1:
                    st.caption(version_label(n, counted))
                show_record(record, versions)
                show_answer_actions(engine, record, compact=asking or t < len(turns))
        if here:
            slot = st.container()
    return slot


def earlier_turns_hidden(turns: list[list[AnswerRecord]], conversation_id: str, shown: int) -> int:
    """How many of the oldest ``turns`` stay hidden to draw the latest ``shown`` (0: all are drawn);
    draws the button that shows them."""
    key = f"_all_turns-{conversation_id}"
    hidden = max(0, len(turns) - shown)
    if not hidden or st.session_state.get(key):
        return 0
    st.button(
        f"显示更早的 {hidden} 轮对话",
        key=f"earlier-{conversation_id}",
        type="tertiary",
        icon=":material/expand_less:",
        on_click=st.session_state.__setitem__,
        args=(key, True),
    )
    return hidden


def answer_request(
    engine,
    request: Request,
    records: list[AnswerRecord],
    *,
    conversation_id: str,
    generator: str | None,
    options: RetrievalOptions,
    knowledge_bases: list[str] | None = None,
    before_answer: Callable[[], None] | None = None,
    where=None,
) -> AnswerRecord:  # noqa: ANN001 - Engine; a container
    """Answer a typed, edited or regenerate ``request`` in the conversation ``records`` over
    ``knowledge_bases`` (None or empty: ``default``) and show it with its action row: a new
    question (its bubble, then the answer) below the conversation; a regenerated answer in
    ``where``, the place :func:`show_conversation` left under its turn (None: below the
    conversation, under its question), labelled as the version it is. No rerun here: it would
    redraw what the person may be reading. A request from a button (edit, regenerate) scrolls the
    page to the new turn or version (:func:`_scroll_to_turn`), as a typed question brings its answer
    into view. A regenerated answer is asked with the turns before the one it regenerates.
    ``before_answer`` runs inside the answer's bubble, after the question is shown (the chat waits
    there for the first ingest)."""
    earlier, turn = records, None
    if request.regenerated_from is not None:
        turns = conversation_turns(records)
        at = next(
            (i for i, t in enumerate(turns) if any(r.answer_id == request.regenerated_from for r in t)), len(turns)
        )
        earlier = [r for t in turns[:at] for r in t]
        turn = turns[at] if at < len(turns) else None
    in_place = where is not None and turn is not None
    with where if in_place else nullcontext():
        if not in_place:
            with st.chat_message("user"):
                st.text(request.question)
        with st.chat_message("assistant"):
            if turn is not None:
                st.caption(version_label(len(turn) + 1, [*turn, request]))  # as the next run labels it
            if before_answer is not None:
                before_answer()
            record = ask_and_show(
                engine,
                request.question,
                generator=generator,
                conversation_id=conversation_id,
                history=conversation_history(earlier),
                options=options,
                regenerated_from=request.regenerated_from,
                knowledge_bases=knowledge_bases,
            )
            show_answer_actions(engine, record)
            if not request.from_input:
                _scroll_to_turn(this_answer=in_place)
    return record


#: How the view stays on a new turn (``_scroll_to_turn``): it is scrolled to the top of the view, and put
#: back there when something else scrolls the page (Streamlit scrolls a chat to its bottom as a run draws,
#: which carried a regenerated version off-screen) until the run has been over for 3 s (at most 20 s),
#: or at once when the person scrolls, taps, clicks or types. While it holds, the page's root element
#: carries ``data-yz-hold`` (the browser test scrolls the page only while it is there: on a loaded
#: machine the hold could end before the test's scroll, CI stop 32).
_HOLD_TURN_JS = """requestAnimationFrame(function () {
  const m = document.getElementById(MARK), own = OWN;
  const all = Array.from(document.querySelectorAll("[data-testid=stChatMessage]"));
  const msg = m && m.closest("[data-testid=stChatMessage]");
  const turn = msg && (own ? msg : all[all.indexOf(msg) - 1]);
  if (!turn) return;
  turn.style.scrollMarginTop = "4.5rem";  // below the app's fixed header
  const pin = function () { turn.scrollIntoView({ block: "start", behavior: "instant" }); };
  pin();
  const top = turn.getBoundingClientRect().top, start = performance.now(), events = ["wheel", "touchstart", "keydown", "mousedown"];
  let quit = false, idle = null;
  const root = document.documentElement;
  root.dataset.yzHold = MARK;
  const stop = function () { quit = true; };
  events.forEach(function (e) { window.addEventListener(e, stop, { capture: true, passive: true }); });
  (function hold() {
    const now = performance.now(), running = !!document.querySelector("[data-testid=stStatusWidget]");
    idle = running ? null : (idle === null ? now : idle);
    if (quit || !turn.isConnected || now - start > 20000 || (idle !== null && now - idle > 3000)) {
      events.forEach(function (e) { window.removeEventListener(e, stop, { capture: true }); });
      if (root.dataset.yzHold === MARK) delete root.dataset.yzHold;
      return;
    }
    if (Math.abs(turn.getBoundingClientRect().top - top) > 2) pin();
    requestAnimationFrame(hold);
  })();
});"""


def _scroll_to_turn(*, this_answer: bool) -> None:
    """Scroll the page so the new turn starts at the top of the view and keep it there while the run
    ends (``_HOLD_TURN_JS``): the chat message this is drawn in (``this_answer``: a regenerated version
    in its place), else the one before it (the question). Drawn once the answer is there (before it,
    the page was too short to bring the question up); the element id is new each time, so the browser
    runs the script once per request."""
    mark = f"yz-turn-{uuid.uuid4().hex[:12]}"
    script = _HOLD_TURN_JS.replace("MARK", json.dumps(mark)).replace("OWN", "true" if this_answer else "false")
    st.html(f'<span id="{mark}"></span><script>{script}</script>', unsafe_allow_javascript=True)


def ask_and_show(
    engine,
    question: str,
    *,
    generator: str | None,
    conversation_id: str,
    history: list[tuple[str, str]],
    options: RetrievalOptions | None = None,
    regenerated_from: str | None = None,
    knowledge_bases: list[str] | None = None,
) -> AnswerRecord:  # noqa: ANN001 - Engine
    """Ask, stream the answer text while it is generated, then re-render it with
    its markers and cards from the stored record (the same view as a replay).
    ``knowledge_bases``: the ones searched (None or empty: ``default``).

    When the store fails (``UnsavedRecordError``) the answer is still shown, under
    the error message; other ``AppError`` s propagate to the page's ``page_guard``."""
    live = st.empty()
    streamed: list[str] = []

    def on_text(piece: str) -> None:
        streamed.append(piece)
        live.text("".join(streamed) + " ▌")

    try:
        with st.spinner("正在检索与作答…"):
            record = engine.ask(
                question,
                generator=generator,
                conversation_id=conversation_id,
                history=history,
                on_text=on_text,
                options=options,
                regenerated_from=regenerated_from,
                knowledge_bases=knowledge_bases,
            )
    except UnsavedRecordError as exc:  # the answer exists but is not stored: show both
        live.empty()
        show_app_error(exc, "保存回答")
        show_record(exc.record, readable.current_versions(engine))
        return exc.record
    live.empty()
    show_record(record, readable.current_versions(engine))
    return record


def show_index_status(engine, worker) -> None:  # noqa: ANN001 - Engine / EmbeddingWorker
    """The size of what ``engine``'s user may ask (documents and chunks of the knowledge bases
    ``core.readable.askable_bases`` offers: 全部知识库 when that is every one, else 可检索的知识库)
    and the vector build's progress (``components.library_view.vector_status``; without counts
    when the user may not ask every base), drawn on each run.
    Not an auto-rerunning fragment: with one in the sidebar the browser benchmark lost
    about one answer in 20 while vectors were being built (stored, never shown)."""
    _index_status(engine, worker)


def _index_status(engine, worker) -> None:  # noqa: ANN001
    askable = readable.askable_bases(engine)  # the sidebar is on every page: every base the user may ask
    every = set(askable) == {kb.name for kb in engine.knowledge_base_store.list(include_hidden=True)}
    rows = readable.documents(engine, askable)
    label = "全部知识库" if every else "可检索的知识库"
    st.caption(f"{label}：{len(rows)} 篇文档，{sum(r.chunk_count for r in rows)} 个片段")
    vector_status(engine, counts=every)
    owner = engine.store_owner()
    if owner is not None:
        st.caption("向量库由另一个进程持有：本进程用目录中缓存的向量检索，新向量由它补齐。")
        st.text(owner.describe())  # its command line: text, never Markdown
    if worker is not None and worker.error:
        st.warning(plain(worker.error))


def show_export_buttons(records: list[AnswerRecord], stem: str) -> None:
    """Download buttons: the full record(s) as JSON, and Markdown with footnote citations.
    The files are made when a button is clicked (Streamlit's deferred download), not on
    every run of the page that shows the buttons."""
    if not records:
        return
    records = list(records)
    one = len(records) == 1
    c1 = c2 = st.container()  # stacked: two columns in the sidebar cut "导出 Markdown" to "导出 Markd…"
    c1.download_button(
        "导出 JSON",
        (lambda: record_json(records[0])) if one else (lambda: conversation_to_json(records)),
        file_name=f"{stem}.json",
        mime="application/json",
        key=f"json-{stem}",
        on_click="ignore",  # a download needs no rerun
    )
    c2.download_button(
        "导出 Markdown",
        (lambda: to_markdown(records[0])) if one else (lambda: conversation_to_markdown(records)),
        file_name=f"{stem}.md",
        mime="text/markdown",
        key=f"md-{stem}",
        on_click="ignore",
    )
