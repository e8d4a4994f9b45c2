"""Users, administrators, per-knowledge-base access, the per-user answer store and the
retrieval filter hook (issue 16 part B)."""

from __future__ import annotations

import dataclasses
import sqlite3

import pytest

from core.errors import ConfigError
from core.models import AnswerRecord, GeneratorInfo
from core.records.access import AccessConfig, User, opaque_user_id
from core.records.store import RecordStore

SECTION = {
    "admins": ["Admin@Example.com"],
    "user_id_key": "k",
    "knowledge_bases": {
        "default": {"access": ["@example.com", "carol@other.org"]},
        "hr": {"access": ["admin@example.com"], "redaction": True},
    },
}


def _user(email, sub="s1", verified=True):
    return User.from_claims({"iss": "https://idp", "sub": sub, "email": email, "email_verified": verified}, "k")


def test_opaque_user_id_is_keyed_stable_and_not_the_subject():
    a = opaque_user_id("https://idp", "alice", "k1")
    assert a == opaque_user_id("https://idp", "alice", "k1") and len(a) == 32 and "alice" not in a
    assert a != opaque_user_id("https://idp", "alice", "k2") != opaque_user_id("https://other", "alice", "k1")
    with pytest.raises(ConfigError):
        opaque_user_id("https://idp", "alice", "")


def test_access_lists_admins_and_unverified_emails():
    config = AccessConfig.from_mapping(SECTION)
    admin, bob, carol = _user("admin@example.com"), _user("bob@example.com", "s2"), _user("carol@other.org", "s3")
    mallory = _user("mallory@evil.org", "s4")
    assert config.is_admin(admin) and not config.is_admin(bob) and config.is_admin(None)
    assert [config.policy("default").may_ask(u) for u in (admin, bob, carol, mallory)] == [True, True, True, False]
    assert config.policy("hr").may_ask(admin) and not config.policy("hr").may_ask(bob)
    assert config.policy("unlisted").may_ask(mallory) and config.policy("hr").may_ask(None)
    # an address the provider did not verify grants nothing
    assert not config.is_admin(_user("admin@example.com", "s5", verified=False))
    assert config.policy("hr").redactor() is not None and config.policy("default").redactor() is None
    with pytest.raises(ConfigError, match="admins"):
        AccessConfig.from_mapping({"admins": "admin@example.com"})


def test_an_email_without_email_verified_grants_nothing():
    """Issue 25 item 2: a provider that sends carol's (or the admin's) address without
    ``email_verified`` got her knowledge base (and 知识库)."""
    config = AccessConfig.from_mapping(SECTION)
    carol = User.from_claims({"iss": "https://idp", "sub": "x", "email": "carol@other.org"}, "k")
    admin = User.from_claims({"iss": "https://idp", "sub": "y", "email": "admin@example.com"}, "k")
    assert carol.email is None and not config.policy("default").may_ask(carol)
    assert admin.email is None and not config.is_admin(admin)
    for claim in ("yes", 1, "1", None, "false", "False", 0):  # only true (or "true") verifies
        assert User.from_claims({"iss": "i", "sub": "s", "email": "a@b.c", "email_verified": claim}, "k").email is None
    assert User.from_claims({"iss": "i", "sub": "s", "email": "a@b.c", "email_verified": "true"}, "k").email == "a@b.c"


def test_an_issuer_named_as_never_sending_email_verified_is_trusted_without_it():
    section = {**SECTION, "issuers_without_email_verified": ["https://corp-idp"]}
    config = AccessConfig.from_mapping(section)
    claims = {"sub": "x", "email": "Carol@Other.org"}
    trusted = config.user({**claims, "iss": "https://corp-idp"})
    assert trusted.email == "carol@other.org" and config.policy("default").may_ask(trusted)
    assert config.user({**claims, "iss": "https://other-idp"}).email is None  # only the issuer named
    # an explicit false still counts as unverified, even from a trusted issuer
    assert config.user({**claims, "iss": "https://corp-idp", "email_verified": False}).email is None
    assert config.user({**claims, "iss": "https://corp-idp"}).user_id == opaque_user_id("https://corp-idp", "x", "k")
    with pytest.raises(ConfigError, match="issuers_without_email_verified"):
        AccessConfig.from_mapping({"issuers_without_email_verified": "https://corp-idp"})


def test_askable_keeps_only_the_bases_a_user_may_ask_in_order():
    config = AccessConfig.from_mapping(SECTION)
    assert config.askable(_user("bob@example.com"), ("hr", "default", "open")) == ("default", "open")
    assert config.askable(_user("admin@example.com"), ("hr", "default")) == ("hr", "default")
    assert config.askable(_user("mallory@evil.org"), ("hr", "default")) == ()
    assert config.askable(None, ("hr", "default")) == ("hr", "default")  # local mode


def _as(engine, email, section=SECTION):
    return dataclasses.replace(engine, user=_user(email), access=AccessConfig.from_mapping(section))


def test_a_user_without_access_gets_no_evidence(sample_engine):
    question = "CronJob 的时间表语法是什么？"
    assert sample_engine.ask(question, save=False).status == "answered"
    outsider = _as(sample_engine, "mallory@evil.org")
    assert outsider.searchable() == () and _as(sample_engine, "bob@example.com").searchable() == ("default",)
    record = outsider.ask(question, save=False)
    assert record.status == "no_evidence" and not record.chunks and not record.candidates


def _record(conversation="c1"):
    return AnswerRecord(
        query="q", status="no_evidence", generator=GeneratorInfo(name="extractive"), conversation_id=conversation
    )


def test_each_user_sees_only_their_own_records(tmp_path):
    store = RecordStore(tmp_path / "r.sqlite3")
    alice, bob = store.for_user("a" * 32), store.for_user("b" * 32)
    ra, rb = _record("ca"), _record("cb")
    alice.save(ra)
    bob.save(rb)
    assert alice.get(rb.answer_id) is None and bob.get(ra.answer_id) is None  # a guessed id: not found
    assert [r.answer_id for r in alice.list()] == [ra.answer_id]
    assert alice.list(conversation_id="cb") == []  # a guessed ?c= shows nothing
    assert {r.answer_id for r in store.list()} == {ra.answer_id, rb.answer_id}  # local mode: unfiltered
    assert "a" * 32 not in alice.get(ra.answer_id).model_dump_json()  # the id stays in its column


def test_a_store_made_before_the_user_column_is_migrated_on_open(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = _record()
    with sqlite3.connect(path) as db:  # the schema of the version before issue 16
        db.executescript("""CREATE TABLE answers (answer_id TEXT PRIMARY KEY, created_at TEXT NOT NULL,
            status TEXT NOT NULL, conversation_id TEXT, query TEXT NOT NULL, record_json TEXT NOT NULL);""")
        db.execute(
            "INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?)",
            (
                old.answer_id,
                old.created_at.isoformat(),
                old.status,
                old.conversation_id,
                old.query,
                old.model_dump_json(),
            ),
        )
    store = RecordStore(path)
    assert store.get(old.answer_id) == old  # local mode still sees it
    assert store.for_user("a" * 32).get(old.answer_id) is None  # a signed-in user does not
    store.for_user("a" * 32).save(_record())
    assert len(store.list()) == 2


def test_check_mode_sees_only_the_bases_a_user_may_ask(sample_engine):
    from core.check import check_text

    text = "CronJob 的时间表使用 Cron 语法。"
    assert check_text(sample_engine, text, save=False).supports
    record = check_text(_as(sample_engine, "mallory@evil.org"), text, save=False)
    assert record.status == "unverifiable" and not record.supports and not record.chunks
