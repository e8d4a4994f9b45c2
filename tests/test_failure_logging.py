"""Issue 11: what ``ask`` catches broadly is logged with its traceback, and a store
failure hands the finished answer to the page instead of losing it."""

from __future__ import annotations

import logging

import pytest

from core.config import Settings
from core.engine import ask
from core.errors import RecordError, UnsavedRecordError
from core.records.store import RecordStore
from tests.fakes import FakeRetriever, ScriptedGenerator, retrieved

QUESTION = "CronJob 的时间表语法是什么？"
EVIDENCE = [retrieved("cron.md@v1#0", "CronJob 使用 Cron 语法。时区默认为 UTC。", relevance=0.9)]


class FakeStop(BaseException):
    """Stands in for Streamlit's StopException / KeyboardInterrupt (not an ``Exception``)."""


def _ask(tmp_path, generator, *, failing_store: bool = False):
    settings = Settings(data_dir=tmp_path, embedding="hash")
    records = RecordStore(settings.records_path)
    if failing_store:

        def save(record):  # noqa: ANN001
            raise RecordError("answer store error: disk full")

        records.save = save  # type: ignore[method-assign]
    return ask(QUESTION, retriever=FakeRetriever(EVIDENCE), generator=generator, records=records, settings=settings)


def test_a_generator_bug_is_logged_with_its_traceback(tmp_path, caplog):
    with caplog.at_level(logging.ERROR, logger="core.engine"):
        rec = _ask(tmp_path, ScriptedGenerator(fail=KeyError("boom")))
    assert rec.status == "error" and "boom" in rec.error
    logged = [r for r in caplog.records if r.name == "core.engine"]
    assert len(logged) == 1 and "scripted" in logged[0].getMessage()
    assert logged[0].exc_info is not None and logged[0].exc_info[0] is KeyError


def test_a_store_failure_carries_the_finished_answer(tmp_path):
    with pytest.raises(UnsavedRecordError) as info:
        _ask(tmp_path, ScriptedGenerator(), failing_store=True)
    assert isinstance(info.value, RecordError) and "disk full" in str(info.value)
    rec = info.value.record
    assert rec.query == QUESTION and rec.status == "answered"
    assert [c.chunk_id for c in rec.chunks] == ["cron.md@v1#0"]


def test_an_interrupted_turn_that_cannot_be_stored_is_logged_and_the_interruption_propagates(tmp_path, caplog):
    with caplog.at_level(logging.ERROR, logger="core.engine"), pytest.raises(FakeStop):
        _ask(tmp_path, ScriptedGenerator(fail=FakeStop()), failing_store=True)
    logged = [r for r in caplog.records if r.name == "core.engine"]
    assert len(logged) == 1 and "FakeStop" in logged[0].getMessage()
    assert logged[0].exc_info is not None and logged[0].exc_info[0] is UnsavedRecordError
