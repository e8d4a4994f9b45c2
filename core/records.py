"""The answer store: one SQLite (WAL) row per ``AnswerRecord``, and the
metadata of conversations.

The row holds the record as JSON plus indexed columns (created_at, status,
conversation_id, query, user_id). A conversation is the records sharing a
``conversation_id``; the ``conversations`` table only adds what a person set
(a title, hidden) and when: a conversation is never deleted, only hidden.
Store layout versions (``PRAGMA user_version``): 0 = answers only (files made
before conversations had metadata); 1 = plus ``conversations``. Each change is
additive, so opening an older file creates what it lacks (``CREATE ... IF NOT
EXISTS``) and stamps the version; no row is rewritten.
``user_id`` is who asked, an opaque id (``core.access.opaque_user_id``), kept only in
its column, never in the record JSON, so it cannot reach a page, an export or a prompt;
a store made by :meth:`RecordStore.for_user` writes it and reads only that user's rows
and conversations (another user's answer or conversation id is "not found"). Stores
made before the column existed get it on open (``ALTER TABLE``; their rows have no user
and are visible only in local single-user mode). Records keep their own chunk snapshots, so replay
never depends on the current index. Rows written by an older version are
upgraded on read (``core.models.migrate_record_data``, keyed by
``schema_version``); a row that cannot be read is skipped by :meth:`RecordStore.list`
and reported in ``RecordList.skipped``, never fatal for a page.
"""

from __future__ import annotations

import copy
import logging
import re
import sqlite3
import threading
from datetime import datetime
from pathlib import Path
from typing import ContextManager, Iterable, NamedTuple, Sequence

from pydantic import ValidationError

from core.errors import RecordError
from core.models import AnswerRecord, Feedback, utc_now
from core.presentation import snippet
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
    question still carries its subject. A regenerated answer stands for the turn it
    regenerated (the newest version of each turn, :func:`conversation_turns`). The chat
    page and ``ask --conversation`` both use this."""
    latest = [turn[-1] for turn in conversation_turns(records)]
    turns = [(r.query, r.answer_text if r.status in _ANSWERED else "") for r in latest]
    return turns[-limit:] if limit > 0 else []


_SCHEMA = """
CREATE TABLE IF NOT EXISTS answers (
    answer_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
    conversation_id TEXT, query TEXT NOT NULL, record_json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS answers_created ON answers(created_at);
CREATE INDEX IF NOT EXISTS answers_conversation ON answers(conversation_id, created_at);
CREATE TABLE IF NOT EXISTS conversations (
    conversation_id TEXT PRIMARY KEY, title TEXT, hidden INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
PRAGMA user_version = 1;
"""
# Added in issue 16: run on open when the column is missing (a store made by an older version).
_USER_COLUMN = "ALTER TABLE answers ADD COLUMN user_id TEXT"
_USER_INDEX = "CREATE INDEX IF NOT EXISTS answers_user ON answers(user_id, created_at)"

#: Longest conversation title kept, in code points.
TITLE_MAX = 80
#: Length of a conversation's preview, in code points.
PREVIEW_CHARS = 80


class Conversation(NamedTuple):
    """One conversation as the sidebar and 历史 list it.

    ``title``: the title a person gave it, else its first question (whitespace
    runs as one space; untrusted text). ``turns``: its stored records (regenerated
    answers included). ``created_at``/``updated_at``: its first and last record
    (UTC ISO 8601 strings as stored). ``preview``: the start of its last answer
    text (or last question when no answer has text) as plain text on one line
    (``core.presentation.snippet``: no Markdown syntax), at most :data:`PREVIEW_CHARS`
    code points. ``renamed``: a title was set; ``hidden``: a person hid it.
    """

    conversation_id: str
    title: str
    first_question: str
    turns: int
    created_at: str
    updated_at: str
    preview: str
    renamed: bool = False
    hidden: bool = False


def _one_line(text: str, limit: int) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def conversation_turns(records: Sequence[AnswerRecord]) -> list[list[AnswerRecord]]:
    """The turns of a conversation (records oldest first): each turn is an asked record
    followed by the records that regenerated it (``regenerated_from``, at any depth),
    oldest first. A regeneration whose origin is not in ``records`` starts its own turn."""
    by_id = {r.answer_id: r for r in records}
    turns: list[list[AnswerRecord]] = []
    where: dict[str, list[AnswerRecord]] = {}
    for r in records:
        origin = r.regenerated_from
        turn = where.get(origin) if origin in by_id and origin is not None else None
        if turn is None:
            turn = []
            turns.append(turn)
        turn.append(r)
        where[r.answer_id] = turn
    return turns


def version_label(n: int, turn: Sequence[AnswerRecord]) -> str:
    """The label of the ``n``-th (1-based) record of a turn with several versions, as the
    chat page and the export show it: ``第 n/m 版`` plus ``（重新生成）`` for a regeneration."""
    return f"第 {n}/{len(turn)} 版" + ("（重新生成）" if turn[n - 1].regenerated_from else "")


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

    def set_feedback(self, answer_id: str, feedback: Feedback | None) -> AnswerRecord:
        """Store ``feedback`` (None clears it) in the record ``answer_id`` and return the
        updated record. Raises ``RecordError`` when there is no such record."""
        with self._lock:
            record = self.get(answer_id)
            if record is None:
                raise RecordError(f"no answer record {answer_id!r}")
            updated = record.model_copy(update={"feedback": feedback})
            with self._db() as db:
                db.execute("UPDATE answers SET record_json = ? WHERE answer_id = ?", (updated.model_dump_json(), answer_id))
        return updated

    def _set_conversation(self, conversation_id: str, column: str, value: object) -> None:
        now = utc_now().isoformat()
        with self._lock, self._db() as db:
            if self.user_id is not None and not db.execute(
                "SELECT 1 FROM answers WHERE conversation_id = ? AND user_id = ? LIMIT 1", (conversation_id, self.user_id)
            ).fetchone():
                raise RecordError(f"no conversation {conversation_id!r}")  # another user's, or none
            db.execute(
                "INSERT INTO conversations (conversation_id, created_at, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT(conversation_id) DO NOTHING",
                (conversation_id, now, now),
            )
            db.execute(
                f"UPDATE conversations SET {column} = ?, updated_at = ? WHERE conversation_id = ?",
                (value, now, conversation_id),
            )

    def rename_conversation(self, conversation_id: str, title: str | None) -> None:
        """Give a conversation a title (whitespace runs as one space, at most :data:`TITLE_MAX`
        code points); ``None`` or blank goes back to its first question."""
        title = _one_line(title or "", TITLE_MAX) or None
        self._set_conversation(conversation_id, "title", title)

    def hide_conversation(self, conversation_id: str, hidden: bool = True) -> None:
        """Hide (or show again) a conversation: hidden ones are left out of
        :meth:`conversations` unless asked for; its records are never deleted."""
        self._set_conversation(conversation_id, "hidden", int(hidden))

    def conversations(
        self, *, text: str | None = None, include_hidden: bool = False, limit: int = 50, only: str | None = None
    ) -> list[Conversation]:
        """Conversations newest first (by their last record), at most ``limit``.

        ``text`` keeps those whose title or any question contains it (case-insensitive
        for ASCII, SQLite ``LIKE``); ``only`` keeps the one with that id. Records
        without a conversation id are not listed."""
        where = ["a.conversation_id IS NOT NULL"]
        args: list[object] = []
        mine = ""  # a user's view lists only their own records' conversations
        if self.user_id is not None:
            where.append("a.user_id = ?")
            args.append(self.user_id)
            mine = " AND {t}.user_id = a.user_id"
        if only is not None:
            where.append("a.conversation_id = ?")
            args.append(only)
        if not include_hidden:
            where.append("COALESCE(c.hidden, 0) = 0")
        having, args_having = "", []
        if text:
            having = " HAVING MAX(c.title LIKE ?) = 1 OR SUM(a.query LIKE ?) > 0"
            args_having = [f"%{text}%", f"%{text}%"]
        sql = (
            "SELECT a.conversation_id, MIN(a.created_at), MAX(a.created_at), COUNT(*), c.title, COALESCE(c.hidden, 0),"
            " (SELECT f.query FROM answers f WHERE f.conversation_id = a.conversation_id" + mine.format(t="f") +
            "  ORDER BY f.created_at LIMIT 1),"
            " (SELECT COALESCE(NULLIF(json_extract(l.record_json, '$.answer_text'), ''), l.query) FROM answers l"
            "  WHERE l.conversation_id = a.conversation_id" + mine.format(t="l") + " ORDER BY l.created_at DESC LIMIT 1)"
            " FROM answers a LEFT JOIN conversations c ON c.conversation_id = a.conversation_id"
            f" WHERE {' AND '.join(where)} GROUP BY a.conversation_id{having}"
            " ORDER BY MAX(a.created_at) DESC LIMIT ?"
        )
        with self._db() as db:
            rows = db.execute(sql, (*args, *args_having, limit)).fetchall()
        return [
            Conversation(
                conversation_id=cid, title=title or _one_line(first or "", TITLE_MAX), first_question=first or "",
                turns=turns, created_at=created, updated_at=updated, preview=snippet(last or "", PREVIEW_CHARS),
                renamed=title is not None, hidden=bool(hidden),
            )
            for cid, created, updated, turns, title, hidden, first, last in rows
        ]

    def conversation(self, conversation_id: str) -> Conversation | None:
        """The summary of one conversation (hidden or not), or None when it has no record."""
        found = self.conversations(include_hidden=True, limit=1, only=conversation_id)
        return found[0] if found else None

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
