"""When a signed-in session is over (issue 25 item 5): a copied session cookie outlived
退出登录 for the cookie's 30 days, and the ID token's ``exp`` was never checked.
``core.records.sessions``: the per-user sign-out time in the answer store's database (shared by
replicas) and the rule every run applies to ``st.user``'s claims."""

from __future__ import annotations

import pytest

from core.records.sessions import SessionLedger, session_over

ALICE, BOB = "a" * 32, "b" * 32
NOW = 1_800_000_000.0


def test_an_expired_or_undated_id_token_is_over() -> None:
    assert session_over({"iat": NOW - 10, "exp": NOW + 3600}, None, NOW) is None
    assert session_over({"iat": NOW - 7200, "exp": NOW - 3600}, None, NOW) == "expired"
    assert session_over({"iat": NOW - 10, "exp": NOW}, None, NOW) == "expired"  # exp: "on or after" (RFC 7519)
    assert session_over({"iat": NOW - 10, "exp": str(NOW + 60)}, None, NOW) is None  # a number as text
    for exp in (None, "soon", [1]):  # OIDC requires exp: a session without one cannot be bounded
        assert session_over({"iat": NOW, "exp": exp}, None, NOW) == "expired"


def test_a_token_issued_before_the_last_sign_out_is_over() -> None:
    claims = {"iat": NOW - 60, "exp": NOW + 3600}
    assert session_over(claims, NOW - 61, NOW) is None  # signed out before this sign-in
    assert session_over(claims, NOW - 30, NOW) == "signed_out"  # the copied cookie after 退出登录
    assert session_over({**claims, "iat": NOW - 30}, NOW - 30, NOW) == "signed_out"  # same instant: over
    assert session_over({"exp": NOW + 3600}, NOW - 30, NOW) == "signed_out"  # no iat: cannot be after it
    assert session_over({"exp": NOW + 3600}, None, NOW) is None


@pytest.fixture()
def ledger(database_location):
    ledger = SessionLedger(database_location)
    yield ledger
    ledger.close()


def test_signing_out_ends_every_session_of_that_user_on_every_replica(ledger, database_location) -> None:
    other = SessionLedger(database_location)  # another replica, the same database
    try:
        assert ledger.ended_at(ALICE) is None
        ledger.end_sessions(ALICE, at=NOW)
        assert other.ended_at(ALICE) == NOW and other.ended_at(BOB) is None
        other.end_sessions(ALICE, at=NOW + 5)
        assert ledger.ended_at(ALICE) == NOW + 5
        ledger.end_sessions(ALICE, at=NOW + 1)  # a replica with a clock behind never moves it back
        assert other.ended_at(ALICE) == NOW + 5
    finally:
        other.close()


def test_the_ledger_shares_the_answer_stores_database(database_location) -> None:
    from core.records.store import RecordStore

    store = RecordStore(database_location)  # migrated first by the answer store ...
    try:
        ledger = SessionLedger(database_location)  # ... then opened by the ledger: one layout, one version table
        ledger.end_sessions(ALICE, at=NOW)
        assert ledger.ended_at(ALICE) == NOW and store.conversations() == []
        ledger.close()
    finally:
        store.close()
