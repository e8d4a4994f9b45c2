"""When a signed-in session is over (issue 25): its ID token has expired, or its user
signed out after the token was issued.

Streamlit's ``st.login`` keeps the provider's ID-token claims in a signed cookie that the
browser keeps for 30 days (``AUTH_COOKIE_MAX_AGE_SECONDS`` in Streamlit 1.67's
``starlette_server_config``) and ``st.logout`` only deletes it from the browser that signs
out: a copy of the cookie would stay signed in. So every run checks :func:`session_over`:

* ``exp`` (Unix seconds, OpenID Connect Core 1.0 §2): at or past it the session is over;
  a missing or unreadable ``exp`` is over too (OIDC requires the claim).
* ``iat`` against :meth:`SessionLedger.ended_at`, the user's last sign-out: 退出登录 records
  it (:meth:`SessionLedger.end_sessions`) and every session whose token was issued at or
  before it is over, in every browser and on every replica (the time is stored in the
  answer store's database, table ``session_ends``, revision r0003). It is the user's
  session generation: a Streamlit session cannot carry a counter of its own into a copied
  cookie, but the token's issue time travels with it. A provider clock ahead of the app's
  by *s* seconds lets a token issued in the last *s* seconds before the sign-out live on.

Light: the standard library and ``core.store.sql`` (SQLAlchemy), no engine.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Literal, Mapping

import sqlalchemy as sa

from core.errors import RecordError
from core.store.sql import SqlDatabase, upsert

_metadata = sa.MetaData()
SESSION_ENDS = sa.Table("session_ends", _metadata, sa.Column("user_id", sa.Text), sa.Column("ended_at", sa.Float))


def _seconds(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if math.isfinite(seconds) else None


def session_over(
    claims: Mapping[str, Any], ended_at: float | None, now: float
) -> Literal["expired", "signed_out"] | None:
    """Why the session of ID-token ``claims`` is over at ``now`` (Unix seconds), or None
    while it lasts: ``"expired"`` when ``exp`` is at or before ``now`` (or missing or not a
    number), ``"signed_out"`` when the user signed out (``ended_at``, Unix seconds) at or
    after ``iat`` (or ``iat`` is missing while a sign-out is recorded)."""
    exp = _seconds(claims.get("exp"))
    if exp is None or exp <= now:
        return "expired"
    if ended_at is not None:
        iat = _seconds(claims.get("iat"))
        if iat is None or iat <= ended_at:
            return "signed_out"
    return None


class SessionLedger:
    """The sign-out time of each user (opaque user id), in the answer store's database.

    ``location``: as for ``core.records.store.RecordStore`` (a SQLite file or a database URL);
    opening runs the answer store's migrations. Raises ``RecordError`` on any storage failure."""

    def __init__(self, location: Path | str) -> None:
        self._database = SqlDatabase(location, error=RecordError, label="the answer store", migrations="records")

    def close(self) -> None:
        """Close the pooled connections (reopened on the next use)."""
        self._database.close()

    def end_sessions(self, user_id: str, at: float) -> None:
        """Record that ``user_id`` signed out at ``at`` (Unix seconds): every session whose
        token was issued at or before it is over. A time before the stored one is ignored
        (replicas whose clocks differ never move it back)."""
        with self._database.write() as db:
            upsert(db, SESSION_ENDS, {"user_id": user_id, "ended_at": at}, ["user_id"])  # a first sign-out
            db.execute(
                sa.update(SESSION_ENDS)
                .where(SESSION_ENDS.c.user_id == user_id, SESSION_ENDS.c.ended_at < at)
                .values(ended_at=at)
            )

    def ended_at(self, user_id: str) -> float | None:
        """When ``user_id`` last signed out (Unix seconds), or None if never."""
        with self._database.read() as db:
            return db.execute(sa.select(SESSION_ENDS.c.ended_at).where(SESSION_ENDS.c.user_id == user_id)).scalar()
