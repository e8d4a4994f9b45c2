"""Sign-in and the signed-in user's view of the engine.

When ``.streamlit/secrets.toml`` has an ``[auth]`` section, the app uses Streamlit's
built-in OpenID Connect login (``st.login``, ``st.user``, ``st.logout``; it needs Authlib);
without it the app runs in local single-user mode and says so in the sidebar. The
``[yinzheng]`` section (administrators, per-knowledge-base access and redaction) is read
by ``core.records.access.AccessConfig.from_mapping``; see the README, "Users and knowledge bases".

Every run of a signed-in session checks that it has not ended (``core.records.sessions``: the ID
token's ``exp``, and the user's last 退出登录 on any browser or replica) and signs it out
(``st.logout``) when it has; 退出登录 ends every session of that user.

Pages call :func:`scoped` on the engine: its record store shows only the user's records
(another user's conversation or answer id is "not found"), retrieval sees only the
knowledge bases the user may ask, and redaction follows the knowledge base's setting.
The opaque user id stays in the engine and the store; nothing here renders it.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Mapping

import streamlit as st

from core.public import AccessConfig, User

if TYPE_CHECKING:  # app.py imports this before the heavy modules (core.engine loads jieba, chromadb)
    from core.public import Engine, SessionLedger


def _secret(name: str) -> Mapping[str, Any]:
    try:
        value = st.secrets.get(name)
    except Exception:  # noqa: BLE001 - no secrets file, or an unreadable one: local mode
        return {}
    return value if isinstance(value, Mapping) else {}


def auth_configured() -> bool:
    """Whether ``[auth]`` is configured (then every page requires sign-in)."""
    return bool(_secret("auth"))


def access_config() -> AccessConfig:
    """The ``[yinzheng]`` section as ``AccessConfig`` (user ids keyed by ``user_id_key``,
    else by ``[auth] cookie_secret``). Raises ``ConfigError`` naming a bad key."""
    return AccessConfig.from_mapping(_secret("yinzheng"), fallback_key=str(_secret("auth").get("cookie_secret", "")))


def _signed_in() -> bool:
    return bool(st.user.to_dict().get("is_logged_in"))  # absent (not False) outside a real session


def current_user() -> User | None:
    """The signed-in user, or None in local single-user mode (or before sign-in)."""
    if not auth_configured() or not _signed_in():
        return None
    return access_config().user(st.user.to_dict())


@st.cache_resource(show_spinner=False)
def session_ledger() -> SessionLedger:
    """The sign-out times in the answer store's database (``Settings.records_location``),
    opened once per process. Cached here, not in ``components.resources``: it is needed
    before the engine's modules load, and only in signed-in mode (SQLAlchemy, no engine)."""
    from core.public import (
        SessionLedger,  # noqa: PLC0415
        load_settings,  # noqa: PLC0415 - local mode never imports SQLAlchemy here
    )

    return SessionLedger(load_settings().records_location)


def _end_if_over(user: User) -> None:
    """Sign this session out and stop the run when its ID token has expired or ``user``
    signed out after it was issued (``core.records.sessions.session_over``)."""
    from core.public import session_over  # noqa: PLC0415 - see session_ledger

    if session_over(st.user.to_dict(), session_ledger().ended_at(user.user_id), time.time()) is not None:
        st.logout()  # clears st.user for this session and sends the browser to /auth/logout (cookie deleted)
        st.stop()


def _providers() -> list[str | None]:
    """Named providers (``[auth.NAME]`` tables), or ``[None]`` for one unnamed provider."""
    named = [k for k, v in _secret("auth").items() if isinstance(v, Mapping)]
    return named or [None]


def require_sign_in() -> User | None:
    """Local mode: None. With ``[auth]``: the signed-in user, or a sign-in screen and
    ``st.stop()`` for a visitor; a session that has ended is signed out (``st.logout``,
    ``st.stop()``). Raises ``ConfigError`` or ``RecordError`` (the sign-out times cannot be read)."""
    if not auth_configured():
        return None
    if not _signed_in():
        st.title("引证 · 请先登录")
        st.write("此应用已启用登录：登录后只会看到你自己的对话与历史。")
        for provider in _providers():
            label = "登录" if provider is None else f"使用 {provider} 登录"
            if st.button(label, type="primary", key=f"login-{provider}"):
                st.login(provider)  # None: the unnamed [auth] provider
        st.stop()
    user = current_user()
    if user is not None:
        _end_if_over(user)
    return user


def is_admin(user: User | None) -> bool:
    """Local mode: yes. Signed in: listed in ``[yinzheng] admins``."""
    return access_config().is_admin(user)


def may_ask(knowledge_base: str) -> bool:
    """Whether the current user may ask ``knowledge_base`` (local mode: yes)."""
    return access_config().policy(knowledge_base).may_ask(current_user())


def scoped(engine: Engine, user: User | None = None) -> Engine:
    """``engine`` as ``user`` (default: the current user) may use it: records filtered and
    stamped by the opaque user id, retrieval limited to the user's knowledge bases, each
    question redacted by the policies of the knowledge bases it searches. The shared parts (index, models) are reused."""
    user = user if user is not None else current_user()
    config = access_config()
    # retrieval searches only the knowledge bases the user may ask (Engine.searchable), and each
    # question is redacted by the policies of the knowledge bases it searches
    return engine.for_user(user, config)


def show_user_box(user: User | None, where=None) -> None:  # noqa: ANN001 - a container
    """The sidebar line that says who is signed in (or that this is local mode), with 退出;
    ``where``: a container in the sidebar to draw into (default: the end of the sidebar)."""
    with where if where is not None else st.sidebar:
        if user is None:
            st.caption("单用户本地模式：未配置登录（.streamlit/secrets.toml 中的 [auth]），所有记录对本机可见。")
            return
        st.text(f"已登录：{user.name or '（未提供姓名）'}")  # from the provider: text, never Markdown
        if st.button("退出登录", key="logout"):
            try:  # ends this user's sessions everywhere, a copied cookie's included
                session_ledger().end_sessions(user.user_id, time.time())
            finally:
                st.logout()
