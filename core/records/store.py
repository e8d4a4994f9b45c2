"""The answer store: one row per ``AnswerRecord``, and the metadata of
conversations, in a SQLite file or any database SQLAlchemy reaches (``core.store.sql``;
``YINZHENG_DATABASE_URL``, e.g. PostgreSQL shared by several app replicas).

The row holds the record as JSON plus indexed columns (created_at, status,
conversation_id, query, user_id). A conversation is the records sharing a
``conversation_id``; the ``conversations`` table only adds what a person set
(a title, hidden) and when, keyed by (``owner``, ``conversation_id``): each user's
metadata of a conversation id is their own (``owner`` = the user id, ``''`` for local
mode; revision r0002), so another user holding the id reads and changes nothing of it.
A conversation is never deleted, only hidden.
The layout is versioned by Alembic (``core/store/migrations/records``, version table
``alembic_version_records``), run on open; its first revision adopts a file made
before Alembic (``PRAGMA user_version`` 0 = answers only, 1 = plus ``conversations``)
by adding only what it lacks; no row is rewritten.
``user_id`` is who asked, an opaque id (``core.records.access.opaque_user_id``), kept only in
its column, never in the record JSON, so it cannot reach a page, an export or a prompt;
a store made by :meth:`RecordStore.for_user` writes it and reads only that user's rows
and conversations (another user's answer or conversation id is "not found"). Stores
made before the column existed get it on open (revision r0001; their rows have no user
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
from datetime import datetime
from pathlib import Path
from typing import Iterable, NamedTuple, Sequence

import sqlalchemy as sa
from pydantic import ValidationError
from sqlalchemy.sql.expression import ColumnElement

from core.errors import RecordError
from core.models import AnswerRecord, Feedback, utc_now
from core.records.presentation import snippet
from core.store.sql import SqlDatabase, json_text, upsert

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
    """The earlier turns of a conversation for ``core.engine.ask``: ``(question,
    answer)`` pairs of the last ``limit`` records (oldest first, as ``records`` are),
    with the answer ``""`` for a turn that has no answer to show (no_evidence,
    error, blocked). Every user question counts, so a follow-up to an unanswered
    question still carries its subject. A regenerated answer stands for the turn it
    regenerated (the newest version of each turn, :func:`conversation_turns`). The chat
    page and ``ask --conversation`` both use this."""
    latest = [turn[-1] for turn in conversation_turns(records)]
    turns = [(r.query, r.answer_text if r.status in _ANSWERED else "") for r in latest]
    return turns[-limit:] if limit > 0 else []


_metadata = sa.MetaData()
#: The tables as the statements see them; their layout is made by ``core/store/migrations/records``.
ANSWERS = sa.Table(
    "answers",
    _metadata,
    *(
        sa.Column(name, sa.Text)
        for name in ("answer_id", "created_at", "status", "conversation_id", "query", "record_json", "user_id")
    ),
)
CONVERSATIONS = sa.Table(
    "conversations",
    _metadata,
    sa.Column("owner", sa.Text),
    sa.Column("conversation_id", sa.Text),
    sa.Column("title", sa.Text),
    sa.Column("hidden", sa.Integer),
    sa.Column("created_at", sa.Text),
    sa.Column("updated_at", sa.Text),
)

#: Longest conversation title kept, in code points.
TITLE_MAX = 80
#: Length of a conversation's preview, in code points.
PREVIEW_CHARS = 80


class Conversation(NamedTuple):
    """One conversation as the sidebar and 历史 list it.

    ``title``: the title a person gave it, else its first question (whitespace
    runs as one space; untrusted text). ``turns``: its questions asked (a regenerated
    answer is a version of its turn, not a turn: ``conversation_turns``). ``created_at``/``updated_at``: its first and last record
    (UTC ISO 8601 strings as stored). ``preview``: the start of its last answer
    text (or last question when no answer has text) as plain text on one line
    (``core.records.presentation.snippet``: no Markdown syntax), at most :data:`PREVIEW_CHARS`
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
    """Stores and reads answer records. Raises ``RecordError`` on any storage failure.

    ``location``: the SQLite file (a ``Path``, made when missing) or a database URL
    (``Settings.records_location``; ``core.store.sql.parse_url``). Opening it runs the store's
    migrations (``core/store/migrations/records``), so a file made by an older version is adopted."""

    def __init__(self, location: Path | str) -> None:
        self._database = SqlDatabase(location, error=RecordError, label="the answer store", migrations="records")
        self.path = Path(self._database.url.database or "") if self._database.dialect == "sqlite" else None
        self.user_id: str | None = None

    def for_user(self, user_id: str | None) -> "RecordStore":
        """This store seen by ``user_id`` (sharing its database): saves are stamped with the
        id, and ``get``/``list``/``history`` return only that user's records. ``None``: the
        unfiltered local single-user store."""
        view = copy.copy(self)
        view.user_id = user_id
        return view

    def close(self) -> None:
        """Close the pooled connections (reopened on the next use)."""
        self._database.close()

    @property
    def _owner(self) -> str:
        """The ``conversations.owner`` of this store's metadata: the user id, ``''`` in local mode."""
        return self.user_id or ""

    def _mine(self, table: sa.FromClause) -> list[ColumnElement[bool]]:
        """The condition "written by this store's user" on ``table`` (none in local mode)."""
        return [] if self.user_id is None else [table.c.user_id == self.user_id]

    def save(self, record: AnswerRecord) -> None:
        """Store ``record`` (replacing a stored one with its ``answer_id``)."""
        row = {
            "answer_id": record.answer_id,
            "created_at": record.created_at.isoformat(),
            "status": record.status,
            "conversation_id": record.conversation_id,
            "query": record.query,
            "record_json": record.model_dump_json(),
            "user_id": self.user_id,
        }
        with self._database.write() as db:
            upsert(db, ANSWERS, row, ["answer_id"], [c for c in row if c != "answer_id"])

    def set_feedback(self, answer_id: str, feedback: Feedback | None) -> AnswerRecord:
        """Store ``feedback`` (None clears it) in the record ``answer_id`` and return the
        updated record (read and written in one transaction). Raises ``RecordError`` when
        there is no such record (or it is another user's)."""
        with self._database.write() as db:
            js = db.execute(
                sa.select(ANSWERS.c.record_json)
                .where(ANSWERS.c.answer_id == answer_id, *self._mine(ANSWERS))
                .with_for_update()
            ).scalar()
            if js is None:
                raise RecordError(f"no answer record {answer_id!r}")
            updated = self._parse(js).model_copy(update={"feedback": feedback})
            db.execute(
                sa.update(ANSWERS).where(ANSWERS.c.answer_id == answer_id).values(record_json=updated.model_dump_json())
            )
        return updated

    def _set_conversation(self, conversation_id: str, column: str, value: object) -> None:
        now = utc_now().isoformat()
        with self._database.write() as db:
            if (
                self.user_id is not None
                and db.execute(
                    sa.select(1).where(ANSWERS.c.conversation_id == conversation_id, *self._mine(ANSWERS)).limit(1)
                ).first()
                is None
            ):
                raise RecordError(f"no conversation {conversation_id!r}")  # another user's, or none
            key = {"owner": self._owner, "conversation_id": conversation_id}
            upsert(db, CONVERSATIONS, {**key, "created_at": now, "updated_at": now}, list(key))
            db.execute(
                sa.update(CONVERSATIONS)
                .where(CONVERSATIONS.c.owner == self._owner, CONVERSATIONS.c.conversation_id == conversation_id)
                .values({column: value, "updated_at": now})
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

        ``text`` keeps those whose title or any question contains it (case-insensitive,
        ``lower()`` of both sides: ASCII only on SQLite, all of Unicode on PostgreSQL;
        ``%`` and ``_`` match themselves); ``only`` keeps the one with that id. Records
        without a conversation id are not listed."""
        a, c, f, last = ANSWERS.alias("a"), CONVERSATIONS.alias("c"), ANSWERS.alias("f"), ANSWERS.alias("l")
        first_query = (
            sa.select(f.c.query)
            .where(f.c.conversation_id == a.c.conversation_id, *self._mine(f))
            .order_by(f.c.created_at)
            .limit(1)
            .scalar_subquery()
        )
        last_text = (
            sa.select(sa.func.coalesce(sa.func.nullif(json_text(last.c.record_json, "answer_text"), ""), last.c.query))
            .where(last.c.conversation_id == a.c.conversation_id, *self._mine(last))
            .order_by(last.c.created_at.desc())
            .limit(1)
            .scalar_subquery()
        )
        hidden = sa.func.coalesce(c.c.hidden, 0)
        where = [a.c.conversation_id.is_not(None), *self._mine(a)]
        if only is not None:
            where.append(a.c.conversation_id == only)
        if not include_hidden:
            where.append(hidden == 0)
        newest = sa.func.max(a.c.created_at)
        # turns = questions asked: a regenerated answer is another version of its turn (conversation_turns)
        asked = sa.func.sum(sa.case((json_text(a.c.record_json, "regenerated_from").is_(None), 1), else_=0))
        stmt = (
            sa.select(
                a.c.conversation_id,
                sa.func.min(a.c.created_at),
                newest,
                asked,
                sa.func.max(c.c.title),
                sa.func.max(hidden),
                first_query,
                last_text,
            )
            .select_from(a.outerjoin(c, sa.and_(c.c.conversation_id == a.c.conversation_id, c.c.owner == self._owner)))
            .where(*where)
            .group_by(a.c.conversation_id)
            .order_by(newest.desc())
            .limit(limit)
        )
        if text:

            def matches(column: ColumnElement) -> ColumnElement:
                return sa.case((column.icontains(text, autoescape=True), 1), else_=0)

            stmt = stmt.having(sa.or_(sa.func.max(matches(c.c.title)) == 1, sa.func.sum(matches(a.c.query)) > 0))
        with self._database.read() as db:
            rows = db.execute(stmt).all()
        return [
            Conversation(
                conversation_id=cid,
                title=title or _one_line(first or "", TITLE_MAX),
                first_question=first or "",
                turns=turns,
                created_at=created,
                updated_at=updated,
                preview=snippet(last or "", PREVIEW_CHARS),
                renamed=title is not None,
                hidden=bool(hidden),
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
        with self._database.read() as db:
            js = db.execute(
                sa.select(ANSWERS.c.record_json).where(ANSWERS.c.answer_id == answer_id, *self._mine(ANSWERS))
            ).scalar()
        return self._parse(js) if js is not None else None

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
        """Newest first (oldest first within a conversation), filtered; ``text``: the question
        contains it (case-insensitive as in :meth:`conversations`).

        A row whose JSON cannot be read as a record (corrupt, or written by a
        newer version) is skipped, logged and listed in the result's ``skipped``;
        storage failures still raise ``RecordError``.
        """
        where = self._mine(ANSWERS)
        if text:
            where.append(ANSWERS.c.query.icontains(text, autoescape=True))
        if status:
            where.append(ANSWERS.c.status == status)
        if since:
            where.append(ANSWERS.c.created_at >= since.isoformat())
        if conversation_id:
            where.append(ANSWERS.c.conversation_id == conversation_id)
        order = ANSWERS.c.created_at.asc() if conversation_id else ANSWERS.c.created_at.desc()
        stmt = sa.select(ANSWERS.c.answer_id, ANSWERS.c.record_json).where(*where).order_by(order).limit(limit)
        with self._database.read() as db:
            rows = db.execute(stmt).all()
        records, skipped = [], []
        for answer_id, js in rows:
            try:
                records.append(self._parse(js))
            except RecordError as exc:
                log.warning("skipping unreadable answer record %s: %s", answer_id, exc)
                skipped.append(SkippedRow(answer_id, str(exc)))
        return RecordList(records, skipped)
