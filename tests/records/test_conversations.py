"""Conversations, answer feedback and retrieval settings in core (issue 15, part A):
the record store lists conversations (titled, newest first, searchable, renamed,
hidden but never deleted), opens a file made before conversations had metadata,
stores feedback in the record and exports it; a person's retrieval settings are
applied (documents filtered before ranking, top-k, threshold) and recorded."""

from __future__ import annotations

import json
import sqlite3
from datetime import timedelta
from pathlib import Path
from typing import Iterator

import pytest

from core.errors import RecordError
from core.models import AnswerRecord, Feedback, GeneratorInfo
from core.records.export import answer_markdown, conversation_to_markdown, to_markdown
from core.records.store import RecordStore, conversation_turns
from core.retrieval.hybrid import RetrievalOptions
from tests.fakes import T0

GEN = GeneratorInfo(name="extractive")


def rec(answer_id: str, query: str, minutes: int, conversation_id: str | None = "c1", **kw) -> AnswerRecord:
    return AnswerRecord(
        answer_id=answer_id, query=query, status=kw.pop("status", "answered"), generator=GEN,
        created_at=T0 + timedelta(minutes=minutes), conversation_id=conversation_id,
        answer_text=kw.pop("answer_text", f"回答 {answer_id}"), **kw,
    )  # fmt: skip


@pytest.fixture()
def store(database_location) -> Iterator[RecordStore]:
    """The store on each backend (``database_location``: SQLite, and PostgreSQL when configured)."""
    s = RecordStore(database_location)
    for r in (
        rec("a1", "Pod 是什么？", 0, "c1"),
        rec("a2", "它怎么重启？", 1, "c1"),
        rec("b1", "Service 的类型", 5, "c2", status="no_evidence", answer_text=""),
        rec("x1", "没有对话的回答", 9, None),
    ):
        s.save(r)
    yield s
    s.close()


def test_conversations_are_titled_by_their_first_question_newest_first(store: RecordStore) -> None:
    convs = store.conversations()
    assert [c.conversation_id for c in convs] == ["c2", "c1"]  # c2's last record is newer; x1 has none
    c1 = convs[1]
    assert (c1.title, c1.first_question, c1.turns) == ("Pod 是什么？", "Pod 是什么？", 2)
    assert c1.preview == "回答 a2"  # the last answer's text
    assert convs[0].preview == "Service 的类型"  # no answer text: the question
    assert c1.created_at < c1.updated_at


def test_search_rename_and_hide_never_delete(store: RecordStore) -> None:
    assert [c.conversation_id for c in store.conversations(text="重启")] == ["c1"]  # any question matches
    store.rename_conversation("c2", "  服务\n类型   笔记 ")
    assert store.conversation("c2").title == "服务 类型 笔记"  # type: ignore[union-attr]
    assert [c.conversation_id for c in store.conversations(text="笔记")] == ["c2"]  # the title matches
    store.rename_conversation("c2", "")
    assert store.conversation("c2").title == "Service 的类型"  # type: ignore[union-attr]
    store.hide_conversation("c1")
    assert [c.conversation_id for c in store.conversations()] == ["c2"]
    assert store.conversation("c1").hidden  # type: ignore[union-attr]
    assert len(store.list(conversation_id="c1")) == 2  # hidden, never deleted
    assert [c.conversation_id for c in store.conversations(include_hidden=True)] == ["c2", "c1"]
    store.hide_conversation("c1", hidden=False)
    assert [c.conversation_id for c in store.conversations()] == ["c2", "c1"]


def test_a_store_file_made_before_conversation_metadata_opens_and_upgrades(tmp_path: Path) -> None:
    """A file with the previous layout (answers only, user_version 0) and a stored v2 record."""
    path = tmp_path / "old.sqlite3"
    old = rec("old1", "旧的问题", 0, "old-c").model_dump(mode="json")
    old["schema_version"] = 2
    del old["feedback"], old["regenerated_from"]
    with sqlite3.connect(path) as db:
        db.executescript(
            """CREATE TABLE answers (
                answer_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
                conversation_id TEXT, query TEXT NOT NULL, record_json TEXT NOT NULL);
            CREATE INDEX answers_created ON answers(created_at);
            CREATE INDEX answers_conversation ON answers(conversation_id, created_at);"""
        )
        db.execute(
            "INSERT INTO answers VALUES (?,?,?,?,?,?)",
            ("old1", old["created_at"], "answered", "old-c", "旧的问题", json.dumps(old, ensure_ascii=False)),
        )
    db.close()
    store = RecordStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    db.close()
    assert [c.title for c in store.conversations()] == ["旧的问题"]
    store.rename_conversation("old-c", "改过名")
    updated = store.set_feedback("old1", Feedback(rating="up"))
    assert updated.feedback.rating == "up" and updated.schema_version == 3  # type: ignore[union-attr]
    assert store.get("old1") == updated
    assert store.conversation("old-c").title == "改过名"  # type: ignore[union-attr]


def test_feedback_is_stored_with_the_record_and_exported(store: RecordStore) -> None:
    fb = Feedback(rating="down", comment="漏了 [链接](javascript:x) 一步", given_at=T0)
    store.set_feedback("a2", fb)
    got = store.get("a2")
    assert got is not None and got.feedback == fb
    assert json.loads(got.model_dump_json())["feedback"]["rating"] == "down"  # the JSON export
    md = to_markdown(got)
    assert "## 反馈" in md and "👎 没用" in md
    assert "\\[链接\\](javascript:x)" in md and " [链接](" not in md  # the comment is escaped: no link
    assert "👎 没用" in conversation_to_markdown(store.list(conversation_id="c1"))
    assert "## 反馈" not in to_markdown(store.get("a1"))  # type: ignore[arg-type]
    store.set_feedback("a2", None)
    assert store.get("a2").feedback is None  # type: ignore[union-attr]
    with pytest.raises(RecordError):
        store.set_feedback("nope", fb)


def test_regenerated_answers_join_the_turn_they_regenerate() -> None:
    records = [
        rec("q1", "一", 0), rec("q2", "二", 1), rec("r1", "一", 2, regenerated_from="q1"),
        rec("r2", "一", 3, regenerated_from="r1"), rec("orphan", "三", 4, regenerated_from="gone"),
    ]  # fmt: skip
    turns = conversation_turns(records)
    assert [[r.answer_id for r in t] for t in turns] == [["q1", "r1", "r2"], ["q2"], ["orphan"]]
    assert "原回答 q1 仍保留" in to_markdown(records[2])


def test_copy_text_with_and_without_footnotes(sample_engine) -> None:
    record = sample_engine.ask("Pod 的重启策略有哪些？", save=False)
    assert record.supports
    plain = answer_markdown(record, footnotes=False)
    noted = answer_markdown(record, footnotes=True)
    assert plain == record.answer_text.rstrip() + "\n" and "[^" not in plain
    assert "[^1]" in noted and "[^1]: " in noted and "## 问题" not in noted
    empty = rec("n", "q", 0, status="no_evidence", answer_text="")
    assert answer_markdown(empty, footnotes=False).strip()  # a status message, never empty


def test_retrieval_options_are_applied_and_recorded(sample_engine) -> None:
    question = "Pod 的重启策略有哪些？"
    plain = sample_engine.ask(question, save=False)
    sources = {c.source_id for c in plain.chunks}
    assert plain.retrieval["sufficiency_threshold_source"] == "calibrated"
    other = sorted({c.source_id for c in sample_engine.index.active_chunks().values()} - sources)[:2]
    only = sample_engine.ask(question, save=False, options=RetrievalOptions(documents=tuple(other)))
    assert {c.source_id for c in (*only.chunks, *(c.chunk for c in only.candidates))} <= set(other)
    assert json.loads(str(only.retrieval["documents"])) == other
    strict = sample_engine.ask(question, save=False, options=RetrievalOptions(top_k=3, evidence_threshold=1.0))
    assert strict.status == "no_evidence"  # no chunk reaches probability 1.0
    assert strict.retrieval["top_k"] == 3 and len(strict.candidates) <= 3
    assert strict.sufficiency.threshold == 1.0  # type: ignore[union-attr]
    assert strict.retrieval["sufficiency_threshold_source"] == "user"
    loose = sample_engine.ask(question, save=False, options=RetrievalOptions(evidence_threshold=0.0))
    assert loose.status == "answered" and loose.sufficiency.threshold == 0.0  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="top_k"):
        RetrievalOptions(top_k=0)
    with pytest.raises(ValueError, match="evidence_threshold"):
        RetrievalOptions(evidence_threshold=1.5)


def test_preview_is_plain_text_without_markdown_syntax(tmp_path: Path) -> None:
    """The tester's input: 历史's preview showed backticks and list bullets of the answer's Markdown."""
    s = RecordStore(tmp_path / "records.sqlite3")
    s.save(rec("m1", "副本数？", 0, "m", answer_text="- 稳定的副本数由 `.spec.replicas` 决定\n- **滚动**更新"))
    (conv,) = s.conversations()
    assert conv.preview == "稳定的副本数由 .spec.replicas 决定 滚动更新"
