"""Issue 25 (items 1, 4, 6): every page shows only what the signed-in user may ask *now*
(``Engine.may_read``, the access half of ``Engine.searchable``), read on each run.

Signed in through AppTest: ``[auth]`` in ``at.secrets`` and the OIDC claims in ``at.user``;
the access list in ``at.secrets["yinzheng"]`` is re-read on every run, so changing it
between two runs of one session is a revocation taking effect at the next rerun."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.ingest.run import ingest
from core.records.access import AccessConfig, User
from tests.conftest import page_html
from tests.fakes import build_engine

ROOT = Path(__file__).resolve().parents[2]
QUESTION = "青龙项目的预算是多少？"
OLD = "# 青龙项目预算\n\n青龙项目的预算为五百万元，由财务部在三月审批。预算包括设备采购与人员费用。\n"
NEW = "# 青龙项目预算\n\n青龙项目的预算已调整为六百万元，由财务部在三月审批。预算包括设备采购与人员费用。\n"
AUTH = {
    "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
    "cookie_secret": "test-cookie",
    "client_id": "c",
    "client_secret": "s",
    "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
}
BOB = {
    "is_logged_in": True,
    "iss": "https://idp",
    "sub": "bob",
    "email": "bob@example.com",
    "email_verified": True,
    "name": "Bob",
    "iat": int(time.time()) - 60,
    "exp": int(time.time()) + 3600,
}  # an ID token valid for the test (issue 25)


def _section(*secret_access: str) -> dict:
    return {"knowledge_bases": {"secret": {"access": list(secret_access)}}}


@pytest.fixture()
def secret_kb(page_env):
    """``default`` (the one-file corpus) and ``secret`` (qinglong.md, the budget) before the app runs."""
    engine = build_engine(page_env / "data", [page_env / "corpus"])
    engine.index.knowledge_bases.create("secret")
    folder = page_env / "secret"
    folder.mkdir()
    (folder / "qinglong.md").write_text(OLD, encoding="utf-8")
    assert not ingest(engine.index, [folder], embed=False, knowledge_base="secret").failures
    yield page_env, engine
    engine.index.close()


def _app(page: str | None = None, section: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.secrets["auth"] = AUTH
    at.secrets["yinzheng"] = section if section is not None else _section("bob@example.com")
    at.user = dict(BOB)
    if page:
        at.switch_page(page)
    return at


def _run(at: AppTest) -> AppTest:
    at.run()
    assert not at.exception, at.exception
    return at


def _shown(at: AppTest) -> str:
    """Every text the page and its sidebar show (HTML bodies, Markdown, captions, warnings, text, options)."""
    parts = [page_html(at)]
    for kind in ("markdown", "caption", "warning", "info", "error", "text"):
        parts += [str(getattr(el, "value", "")) for el in at.get(kind)]
    parts += [" ".join(m.options) for m in at.multiselect] + [" ".join(s.options) for s in at.selectbox]
    return "\n".join(parts)


def test_a_revoked_user_sees_their_snapshot_but_not_the_current_version(secret_kb):
    """Attack 1: Bob asked over ``secret``, was removed from its list, the document changed;
    his snapshot link showed the new text (已调整为六百万元) in its 当前 column."""
    env, engine = secret_kb
    bob = User.from_claims(BOB, AUTH["cookie_secret"])
    as_bob = dataclasses.replace(
        engine,
        records=engine.records.for_user(bob.user_id),
        user=bob,
        access=AccessConfig.from_mapping(_section("bob@example.com")),
    )
    record = as_bob.ask(QUESTION, knowledge_bases=["secret"])
    snap = next(c for c in record.chunks if c.source_id == "qinglong.md")
    (env / "secret" / "qinglong.md").write_text(NEW, encoding="utf-8")
    assert ingest(engine.index, [env / "secret"], embed=False, knowledge_base="secret").failures == []

    at = _app("app_pages/sources.py")
    at.query_params["answer_id"] = record.answer_id
    at.query_params["chunk_id"] = snap.chunk_id
    shown = _shown(_run(at))
    assert "已调整" in shown and "来源已更新" in shown  # still allowed: the 当前 column (the test can fail)

    at.secrets["yinzheng"] = _section("alice@example.com")  # Bob removed: the next rerun
    shown = _shown(_run(at))
    assert "五百万" in shown  # his own answer's snapshot stays his
    version = engine.index.current_versions()["secret/qinglong.md"]
    assert "已调整" not in shown and "来源已更新" not in shown and version not in shown
    assert "无权" in shown  # says why there is no current version
    assert "来源已更新" in _shown(_run(_app("app_pages/history.py")))  # his answer's card, while allowed
    history = _shown(_run(_app("app_pages/history.py", _section("alice@example.com"))))
    assert "来源已更新" not in history and "已调整" not in history  # nor a badge on his answer's card


def test_a_forged_knowledge_base_lists_no_document_of_it(secret_kb):
    """Attack 4: 检索的知识库 rewritten to ``secret`` in the websocket message (a value the widget
    never offered) listed 青龙项目预算 · qinglong.md under 只检索这些文档."""
    at = _app(section=_section("alice@example.com"))
    _run(at)
    at.session_state["knowledge_bases"] = ["secret"]  # what the forged message puts there
    _run(at)  # the second run draws the sidebar before the page
    documents = at.multiselect(key="documents")
    assert not [o for o in documents.options if "青龙" in o or "qinglong" in o]
    assert "青龙" not in _shown(at) and "secret" not in at.multiselect(key="knowledge_bases").options
    at.session_state["documents"] = ["qinglong.md"]  # a forged document filter is dropped, not used
    at.chat_input[0].set_value(QUESTION)
    _run(at)
    (record,) = secret_kb[1].records.list(limit=1)
    assert record.knowledge_bases == ("default",)
    assert "qinglong.md" not in json.loads(str(record.retrieval.get("documents") or "[]"))


def test_sidebar_counts_only_the_knowledge_bases_the_user_may_ask(secret_kb):
    """Attack 6: 全部知识库：N 篇文档 counted ``secret`` for a user who may not ask it."""
    env, engine = secret_kb
    mine = engine.index.documents("default")
    every = engine.index.documents()
    assert len(every) > len(mine)
    captions = " ".join(c.value for c in _run(_app(section=_section("alice@example.com"))).sidebar.caption)
    assert f"{len(mine)} 篇文档，{sum(r.chunk_count for r in mine)} 个片段" in captions
    assert f"{len(every)} 篇文档" not in captions
    captions = " ".join(c.value for c in _run(_app()).sidebar.caption)  # Bob allowed: both
    assert f"{len(every)} 篇文档，{sum(r.chunk_count for r in every)} 个片段" in captions


def _options_page(engine, state: dict) -> None:  # noqa: ANN001 - AppTest.from_function runs this alone
    import streamlit as st

    from components.sidebar import retrieval_options

    st.session_state.update(state)
    st.text(repr(retrieval_options(engine).documents))


@pytest.mark.parametrize(
    "state, documents",
    [
        ({"knowledge_bases": ["secret"], "documents": ["qinglong.md"]}, None),  # dropped: every document
        ({"knowledge_bases": ["secret"], "documents": ["qinglong.md", "start.md"]}, ("start.md",)),
        ({"documents": ["start.md"]}, ("start.md",)),
    ],
)
def test_a_forged_document_filter_is_not_used(secret_kb, state, documents):
    """Attack 4, the question's side: a chosen document the panel does not offer the user is
    dropped by ``retrieval_options`` itself, whatever the session state holds."""
    worker = User.from_claims({"iss": "i", "sub": "w", "email": "worker@example.com"}, "k")
    engine = dataclasses.replace(
        secret_kb[1], user=worker, access=AccessConfig.from_mapping(_section("alice@example.com"))
    )
    at = _run(AppTest.from_function(_options_page, args=(engine, state), default_timeout=30))
    assert at.text[0].value == repr(documents)
