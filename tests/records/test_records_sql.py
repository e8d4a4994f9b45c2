"""The answer store on a database URL (issue 17): the same behaviour on SQLite and
PostgreSQL (``database_location`` runs each test on both; PostgreSQL only with
``YINZHENG_TEST_DATABASE_URL``), a record written through one store (a replica) read
through another, one Alembic schema version for both, a SQLite file made by the code
before Alembic adopted as it is, and storage failures as ``RecordError`` without the
URL's password."""

from __future__ import annotations

import sqlite3
import threading
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa

from core.errors import RecordError
from core.models import AnswerRecord, Feedback, GeneratorInfo
from core.records.store import RecordStore
from tests.fakes import T0

ALICE, BOB = "a" * 32, "b" * 32


def rec(answer_id: str, query: str, minutes: int, conversation_id: str | None = "c1", **kw) -> AnswerRecord:
    return AnswerRecord(
        answer_id=answer_id, query=query, status=kw.pop("status", "answered"), generator=GeneratorInfo(name="extractive"),
        created_at=T0 + timedelta(minutes=minutes), conversation_id=conversation_id,
        answer_text=kw.pop("answer_text", f"回答 {answer_id}"), **kw,
    )  # fmt: skip


def _version(location) -> str:
    url = location if isinstance(location, str) else f"sqlite:///{location}"
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as conn:
            return conn.execute(sa.text("SELECT version_num FROM alembic_version_records")).scalar_one()
    finally:
        engine.dispose()


def test_a_record_written_through_one_store_opens_through_another(database_location) -> None:
    one, two = RecordStore(database_location), RecordStore(database_location)  # two replicas, one database
    try:
        record = rec("r1", "Pod 是什么？", 0, answer_text="Pod 是最小的部署单元。")
        one.for_user(ALICE).save(record)
        got = two.for_user(ALICE).get("r1")
        assert got == record and got.model_dump_json() == record.model_dump_json()
        two.for_user(ALICE).rename_conversation("c1", "我的 Pod 笔记")
        assert one.for_user(ALICE).conversation("c1").title == "我的 Pod 笔记"  # type: ignore[union-attr]
        assert one.for_user(ALICE).conversation("c1").preview == "Pod 是最小的部署单元。"  # type: ignore[union-attr]
        assert _version(database_location) == "r0003"
    finally:
        one.close()
        two.close()


def test_each_user_sees_only_their_own_records_and_conversations(database_location) -> None:
    store = RecordStore(database_location)
    try:
        alice, bob = store.for_user(ALICE), store.for_user(BOB)
        alice.save(rec("a1", "Alice 的问题", 0, "ca"))
        bob.save(rec("b1", "Bob 的问题", 1, "cb"))
        assert [r.answer_id for r in alice.list()] == ["a1"]
        assert bob.get("a1") is None and alice.get("a1") is not None
        assert [c.conversation_id for c in bob.conversations()] == ["cb"]
        assert [c.conversation_id for c in store.conversations()] == ["cb", "ca"]  # local mode: all
        for change in (
            lambda: bob.rename_conversation("ca", "x"),
            lambda: bob.hide_conversation("ca"),
            lambda: bob.set_feedback("a1", Feedback(rating="up")),
        ):
            with pytest.raises(RecordError):
                change()
        assert alice.conversation("ca").title == "Alice 的问题"  # type: ignore[union-attr]
        assert alice.get("a1").feedback is None  # type: ignore[union-attr]
        alice.hide_conversation("ca")
        assert alice.conversations() == [] and alice.conversations(include_hidden=True)[0].hidden
    finally:
        store.close()


def test_a_conversation_id_of_another_user_shares_nothing_with_its_owner(database_location) -> None:
    """Issue 25 item 3: Bob holding Alice's ``?c=`` asked in it, then read her title, renamed
    it (Markdown that her sidebar rendered) and hid it from her list."""
    store = RecordStore(database_location)
    try:
        alice, bob = store.for_user(ALICE), store.for_user(BOB)
        alice.save(rec("a1", "Alice 的问题", 0, "ca"))
        alice.rename_conversation("ca", "Alice 的私人标题")
        bob.save(rec("b1", "Bob 的问题", 1, "ca"))  # Bob opened ?c=ca and asked
        mine = bob.conversation("ca")
        assert mine is not None and (mine.title, mine.renamed, mine.turns) == ("Bob 的问题", False, 1)
        assert not bob.conversations(text="私人")  # her title is not searchable by him either
        bob.rename_conversation("ca", "![](http://127.0.0.1:8701/p)")
        bob.hide_conversation("ca")
        theirs = alice.conversation("ca")
        assert theirs is not None and (theirs.title, theirs.hidden, theirs.turns) == ("Alice 的私人标题", False, 1)
        assert [c.conversation_id for c in alice.conversations()] == ["ca"]
        assert bob.conversation("ca").title == "![](http://127.0.0.1:8701/p)"  # type: ignore[union-attr] - his own
        alice.hide_conversation("ca")
        assert bob.conversation("ca").hidden  # type: ignore[union-attr] - each one's flag
        alice.hide_conversation("ca", hidden=False)
        assert not alice.conversation("ca").hidden and bob.conversation("ca").hidden  # type: ignore[union-attr]
        store.rename_conversation("ca", "本机标题")  # local mode: the operator's own metadata
        assert alice.conversation("ca").title == "Alice 的私人标题"  # type: ignore[union-attr]
    finally:
        store.close()


def test_conversation_metadata_of_an_r0001_database_goes_to_the_owner_of_its_answers(database_location) -> None:
    """r0002: a row whose answers all have one user becomes theirs; mixed users, no user or
    no answers: the operator's (local mode)."""
    engine = sa.create_engine(
        database_location if isinstance(database_location, str) else f"sqlite:///{database_location}",
        poolclass=sa.pool.NullPool,
    )
    users = [ALICE, ALICE, BOB, None]
    with engine.begin() as db:  # the r0001 layout, as the code before issue 17 left it
        db.execute(
            sa.text("""CREATE TABLE answers (answer_id TEXT PRIMARY KEY, created_at TEXT NOT NULL,
            status TEXT NOT NULL, conversation_id TEXT, query TEXT NOT NULL, record_json TEXT NOT NULL, user_id TEXT)""")
        )
        db.execute(
            sa.text("""CREATE TABLE conversations (conversation_id TEXT PRIMARY KEY, title TEXT,
            hidden INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)""")
        )
        for i, cid in enumerate(("ca", "cm", "cm", "cn")):
            r = rec(f"{cid}-{i}", f"{cid} 问题", i, cid)
            db.execute(
                sa.text("INSERT INTO answers VALUES (:a, :t, 'answered', :c, :q, :j, :u)"),
                {
                    "a": r.answer_id,
                    "t": r.created_at.isoformat(),
                    "c": cid,
                    "q": r.query,
                    "j": r.model_dump_json(),
                    "u": users[i],
                },
            )
        for cid in ("ca", "cm", "cn", "co"):
            db.execute(
                sa.text("INSERT INTO conversations VALUES (:c, :t, 1, 'x', 'x')"), {"c": cid, "t": f"{cid} 标题"}
            )
    engine.dispose()
    store = RecordStore(database_location)
    try:
        alice, bob = store.for_user(ALICE), store.for_user(BOB)
        assert (alice.conversation("ca").title, alice.conversation("ca").hidden) == ("ca 标题", True)  # type: ignore[union-attr]
        for user in (alice, bob):  # two users asked in cm: its title and flag are nobody's but the operator's
            assert (user.conversation("cm").title, user.conversation("cm").hidden) == ("cm 问题", False)  # type: ignore[union-attr]
        assert store.conversation("cm").title == "cm 标题" and store.conversation("cn").title == "cn 标题"  # type: ignore[union-attr]
        assert _version(database_location) == "r0003"
    finally:
        store.close()


def test_search_ignores_ascii_case_and_takes_wildcards_literally(database_location) -> None:
    store = RecordStore(database_location)
    try:
        store.save(rec("p1", "What is a POD?", 0, "c1"))
        store.save(rec("p2", "CPU 用到 100% 怎么办", 1, "c2"))
        store.save(rec("p3", "CPU 用到 1000 怎么办", 2, "c3"))
        assert [r.answer_id for r in store.list(text="pod")] == ["p1"]
        assert [r.answer_id for r in store.list(text="100%")] == ["p2"]  # % is not a wildcard
        assert [r.answer_id for r in store.list(text="_")] == []
        assert [c.conversation_id for c in store.conversations(text="100%")] == ["c2"]
        store.rename_conversation("c3", "Quota_笔记")
        assert [c.conversation_id for c in store.conversations(text="quota_")] == ["c3"]
    finally:
        store.close()


def test_records_list_newest_first_and_a_conversation_oldest_first(database_location) -> None:
    store = RecordStore(database_location)
    try:
        for k, minutes in enumerate((5, 0, 61, 3)):  # ISO times: 'T00:05', 'T01:01', … compared as text
            store.save(rec(f"r{k}", f"问题 {k}", minutes))
        assert [r.answer_id for r in store.list()] == ["r2", "r0", "r3", "r1"]
        assert [r.answer_id for r in store.list(conversation_id="c1")] == ["r1", "r3", "r0", "r2"]
        assert [r.answer_id for r in store.list(since=T0 + timedelta(minutes=4))] == ["r2", "r0"]
        assert store.conversation("c1").turns == 4  # type: ignore[union-attr]
    finally:
        store.close()


def test_a_regenerated_answer_is_a_version_of_its_turn_not_a_turn(database_location) -> None:
    """New-user pass: 5 questions with one 重新生成 were listed as "6 轮"."""
    store = RecordStore(database_location)
    try:
        store.save(rec("q1", "问题 1", 0))
        store.save(rec("q2", "问题 2", 1))
        store.save(rec("q2b", "问题 2", 2, regenerated_from="q2"))
        store.save(rec("q2c", "问题 2", 3, regenerated_from="q2b"))
        (conversation,) = store.conversations()
        assert conversation.turns == 2
        assert [c.conversation_id for c in store.conversations(only="c1")] == ["c1"]
    finally:
        store.close()


def _open_together(location, n: int) -> tuple[list[RecordStore], list[BaseException]]:
    """``n`` threads each open a ``RecordStore`` on ``location`` at once: (stores, errors)."""
    stores: list[RecordStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            stores.append(RecordStore(location))
        except BaseException as exc:  # noqa: BLE001 - reported by the caller
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return stores, errors


def test_stores_opened_together_migrate_once(database_location) -> None:
    stores, errors = _open_together(database_location, 4)
    try:
        assert errors == [] and len(stores) == 4
        stores[0].save(rec("m1", "迁移", 0))
        assert all(s.get("m1") is not None for s in stores)
        assert _version(database_location) == "r0003"
    finally:
        for s in stores:
            s.close()


def test_a_file_made_by_the_code_before_alembic_is_adopted_as_it_is(tmp_path: Path) -> None:
    """The layout the code before issue 17 made (user_version 1, ``user_id`` added on open)."""
    path = tmp_path / "records.sqlite3"
    old = rec("o1", "旧问题", 0, "oc")
    with sqlite3.connect(path) as db:
        db.executescript("""
            CREATE TABLE answers (answer_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, status TEXT NOT NULL,
                conversation_id TEXT, query TEXT NOT NULL, record_json TEXT NOT NULL, user_id TEXT);
            CREATE INDEX answers_created ON answers(created_at);
            CREATE INDEX answers_conversation ON answers(conversation_id, created_at);
            CREATE INDEX answers_user ON answers(user_id, created_at);
            CREATE TABLE conversations (conversation_id TEXT PRIMARY KEY, title TEXT,
                hidden INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL);
            PRAGMA user_version = 1;""")
        db.execute(
            "INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                old.answer_id,
                old.created_at.isoformat(),
                old.status,
                old.conversation_id,
                old.query,
                old.model_dump_json(),
                ALICE,
            ),
        )
        db.execute("INSERT INTO conversations VALUES ('oc', '旧标题', 0, 'x', 'x')")
    db.close()
    store = RecordStore(path)
    try:
        assert store.for_user(ALICE).get("o1") == old
        assert store.for_user(ALICE).conversation("oc").title == "旧标题"  # type: ignore[union-attr] - her answers
        assert store.for_user(BOB).conversation("oc") is None
    finally:
        store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 1  # the code before Alembic still opens it
        assert db.execute("SELECT version_num FROM alembic_version_records").fetchall() == [("r0003",)]
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


def test_a_database_that_cannot_be_reached_is_a_record_error_without_the_password() -> None:
    with socket_free_port() as port:
        with pytest.raises(RecordError, match="the answer store") as err:
            RecordStore(f"postgresql+psycopg://yz:s3cret-pw@127.0.0.1:{port}/yz?connect_timeout=2")
    assert "s3cret-pw" not in str(err.value) and "127.0.0.1" in str(err.value)
    for url, says in (
        ("postgresql+psycopg://yz:s3cret-pw@[::1", "not a database URL"),
        ("nosuchdb://yz:s3cret-pw@h/x", "SQLite and PostgreSQL only"),
        ("mysql://yz:s3cret-pw@h/x", "SQLite and PostgreSQL only"),
        ("postgresql+nosuch://yz:s3cret-pw@h/x", "driver SQLAlchemy does not know"),
    ):
        with pytest.raises(RecordError, match=says) as err:
            RecordStore(url)
        assert "s3cret-pw" not in str(err.value)


class socket_free_port:  # noqa: N801 - a context manager used like a function
    """A local TCP port nobody listens on (bound, not listening, while the block runs)."""

    def __enter__(self) -> int:
        import socket

        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        return self._sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        self._sock.close()


def test_a_forked_child_never_reuses_the_parents_connections(database_location) -> None:
    import os

    store = RecordStore(database_location)
    try:
        store.save(rec("f1", "分叉", 0))
        assert store._database.engine.pool.checkedin() >= 1  # noqa: SLF001 - the parent keeps one idle
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: an empty pool, and its own connection still works
            ok = store._database.engine.pool.checkedin() == 0 and store.get("f1") is not None  # noqa: SLF001
            os.write(write, b"1" if ok else b"0")
            os._exit(0)
        os.close(write)
        assert os.read(read, 1) == b"1"
        os.waitpid(pid, 0)
        assert store.get("f1") is not None  # the parent's connections are intact
    finally:
        store.close()


def test_many_stores_opening_a_new_sqlite_file_together_all_open(tmp_path: Path) -> None:
    """CI (load ~10): one of four stores opening a new file together failed with "database is
    locked": SQLite answers a lost switch to WAL without its busy handler. 40 rounds of 6 openers
    (about 1 in 15 rounds failed before the fix)."""
    errors: list[BaseException] = []
    for round_ in range(40):
        stores, failed = _open_together(tmp_path / f"r{round_}.sqlite3", 6)
        errors += failed
        for s in stores:
            s.close()
    assert errors == []
