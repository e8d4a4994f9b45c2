"""The answer store: one SQLite (WAL) row per ``AnswerRecord``.

The row holds the record as JSON plus indexed columns (created_at, status,
conversation_id, query, user_id). ``user_id`` is who asked, an opaque id
(``core.access.opaque_user_id``), kept only in its column, never in the record JSON, so
it cannot reach a page, an export or a prompt; a store made by :meth:`RecordStore.for_user`
writes it and reads only that user's rows (another user's answer id is "not found").
Stores made before the column existed get it on open (``ALTER TABLE``; their rows have
no user and are visible only in local single-user mode). Records keep their own chunk snapshots, so replay
never depends on the current index. Rows written by an older version are
upgraded on read (``core.models.migrate_record_data``, keyed by
``schema_version``); a row that cannot be read is skipped by :meth:`RecordStore.list`
and reported in ``RecordList.skipped``, never fatal for a page.
"""

from __future__ import annotations

import copy
import logging
import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import ContextManager, Iterable, NamedTuple, Sequence

from pydantic import ValidationError

from core.errors import RecordError
from core.models import AnswerRecord
from core.sqlite import Database

log = logging.getLogger(__name__)


class SkippedRow(NamedTuple):
    """A stored row that could not be read: its id and why (English, for logs and the page)."""

    answer_id: str
    reason: str


class RecordList(list):  # list[AnswerRecord]
    """The records :meth:`RecordStore.list` could read; ``skipped`` lists the rows it could not."""

    def __init__(self, records: Iterable[AnswerRecord] = (), skipped: Iterable[SkippedRow] = ()) -> None:
        super().__init__(records)
        self.skipped: tuple[SkippedRow, ...] = tuple(skipped)


#: Earlier turns a new question of a conversation is asked with.
HISTORY_TURNS = 4
_ANSWERED = ("answered", "unverifiable")


def conversation_history(records: Sequence[AnswerRecord], limit: int = HISTORY_TURNS) -> list[tuple[str, str]]:
    """The earlier turns of a conversation for ``core.pipeline.ask``: ``(question,
    answer)`` pairs of the last ``limit`` records (oldest first, as ``records`` are),
    with the answer ``""`` for a turn that has no answer to show (no_evidence,
    error, blocked). Every user question counts, so a follow-up to an unanswered
    question still carries its subject. The chat page and ``ask --conversation``
    both use this."""
    turns = [(r.query, r.answer_text if r.status in _ANSWERED else "") for r in records]
    return turns[-limit:] if limit > 0 else []


_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    answer_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
    conversation_id TEXT, query TEXT NOT NULL, record_json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS answers_created ON answers(created_at);
CREATE INDEX IF NOT EXISTS answers_conversation ON answers(conversation_id, created_at);
"""
# Added in issue 16: run on open when the column is missing (a store made by an older version).
_USER_COLUMN = "ALTER TABLE answers ADD COLUMN user_id TEXT"
_USER_INDEX = "CREATE INDEX IF NOT EXISTS answers_user ON answers(user_id, created_at)"


class RecordStore:
    """Stores and reads answer records. Raises ``RecordError`` on any storage failure."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._database = Database(self.path, error=RecordError, label="the answer store", schema=_SCHEMA)
        self.user_id: str | None = None
        with self._lock, self._db() as db:
            if "user_id" not in {row[1] for row in db.execute("PRAGMA table_info(answers)")}:
                db.execute(_USER_COLUMN)
            db.execute(_USER_INDEX)

    def for_user(self, user_id: str | None) -> "RecordStore":
        """This store seen by ``user_id`` (sharing its database): saves are stamped with the
        id, and ``get``/``list``/``history`` return only that user's records. ``None``: the
        unfiltered local single-user store."""
        view = copy.copy(self)
        view.user_id = user_id
        return view

    def _db(self) -> ContextManager[sqlite3.Connection]:
        """A transaction on a new connection (``core.sqlite``; raises ``RecordError``)."""
        return self._database.transaction()

    def save(self, record: AnswerRecord) -> None:
        with self._lock, self._db() as db:
            db.execute(
                "INSERT OR REPLACE INTO answers (answer_id, created_at, status, conversation_id, query,"
                " record_json, user_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    record.answer_id,
                    record.created_at.isoformat(),
                    record.status,
                    record.conversation_id,
                    record.query,
                    record.model_dump_json(),
                    self.user_id,
                ),
            )

    def history(self, conversation_id: str, limit: int = HISTORY_TURNS) -> list[tuple[str, str]]:
        """``conversation_history`` of the stored records of ``conversation_id``."""
        return conversation_history(self.list(conversation_id=conversation_id, limit=1000), limit)

    def get(self, answer_id: str) -> AnswerRecord | None:
        """The record ``answer_id``, or None (also when it belongs to another user)."""
        sql, args = "SELECT record_json FROM answers WHERE answer_id = ?", [answer_id]
        if self.user_id is not None:
            sql, args = sql + " AND user_id = ?", [answer_id, self.user_id]
        with self._db() as db:
            row = db.execute(sql, args).fetchone()
        return self._parse(row[0]) if row else None

    def _parse(self, js: str) -> AnswerRecord:
        try:
            return AnswerRecord.model_validate_json(js)
        except ValidationError as exc:
            raise RecordError(f"a stored record is not valid: {exc.errors()[0]['msg']}") from exc

    def list(
        self,
        *,
        text: str | None = None,
        status: str | None = None,
        since: datetime | None = None,
        conversation_id: str | None = None,
        limit: int = 100,
    ) -> RecordList:
        """Newest first (oldest first within a conversation), filtered.

        A row whose JSON cannot be read as a record (corrupt, or written by a
        newer version) is skipped, logged and listed in the result's ``skipped``;
        storage failures still raise ``RecordError``.
        """
        where, args = [], []
        if self.user_id is not None:
            where.append("user_id = ?")
            args.append(self.user_id)
        if text:
            where.append("query LIKE ?")
            args.append(f"%{text}%")
        if status:
            where.append("status = ?")
            args.append(status)
        if since:
            where.append("created_at >= ?")
            args.append(since.isoformat())
        if conversation_id:
            where.append("conversation_id = ?")
            args.append(conversation_id)
        order = "ASC" if conversation_id else "DESC"
        sql = "SELECT answer_id, record_json FROM answers"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += f" ORDER BY created_at {order} LIMIT ?"
        with self._db() as db:
            rows = db.execute(sql, (*args, limit)).fetchall()
        records, skipped = [], []
        for answer_id, js in rows:
            try:
                records.append(self._parse(js))
            except RecordError as exc:
                log.warning("skipping unreadable answer record %s: %s", answer_id, exc)
                skipped.append(SkippedRow(answer_id, str(exc)))
        return RecordList(records, skipped)
