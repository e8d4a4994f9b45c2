"""The app without and with ``[auth]`` (AppTest): local single-user mode says so in the
sidebar and keeps every page; with ``[auth]`` a visitor sees only the sign-in screen."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def test_without_auth_the_app_is_in_local_single_user_mode(app_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    assert not at.exception, at.exception
    assert any("单用户本地模式" in c.value for c in at.sidebar.caption)
    assert at.chat_input  # the chat is usable at once


def test_with_auth_a_visitor_sees_only_the_sign_in_screen(app_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.secrets["auth"] = {
        "redirect_uri": "http://127.0.0.1:8501/oauth2callback",
        "cookie_secret": "x",
        "client_id": "c",
        "client_secret": "s",
        "server_metadata_url": "http://127.0.0.1:9/.well-known/openid-configuration",
    }
    at.run()
    assert not at.exception, at.exception
    assert [b.label for b in at.button] == ["登录"]
    assert not at.chat_input and not any("单用户本地模式" in c.value for c in at.sidebar.caption)


def test_a_bad_access_section_is_a_clear_error(app_env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.secrets["yinzheng"] = {"admins": "alice@example.com"}
    at.run()
    assert not at.exception, at.exception
    from components.plain import plain

    assert any(plain("yinzheng.admins") in e.value for e in at.error) and not at.chat_input
