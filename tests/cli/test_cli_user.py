"""``--user ID`` on the command line: ``ask``, ``check`` and ``export`` apply the page's
access policy (``[yinzheng]``) and per-user records to that signed-in user; without it the
operator sees everything. In-process through ``core.cli.main`` (hash embedder, two files)."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from tests.store.test_kb_migration import LEGACY

QUESTION = "CronJob 的时区默认是什么？"
ALICE, BOB, MALLORY = "a" * 32, "b" * 32, "c" * 32
SECTION = {"knowledge_bases": {"default": {"access": ["@example.com"]}}}


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    data = tmp_path_factory.mktemp("cli-user") / "data"
    mp = pytest.MonkeyPatch()
    mp.setenv("YINZHENG_DATA_DIR", str(data))
    mp.setenv("YINZHENG_CORPUS", str(LEGACY / "docs"))
    mp.setenv("YINZHENG_EMBEDDING", "hash")
    mp.setattr("core.engine.secrets_section", lambda name: SECTION if name == "yinzheng" else {})

    def run(capsys, *argv: str) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    yield run, data
    mp.undo()


def test_ask_and_export_as_a_user(cli, capsys, tmp_path):
    run, _ = cli
    code, out, err = run(capsys, "ask", QUESTION, "--json", "--user", ALICE, "--email", "Alice@Example.com")
    assert code == 0, err
    alice = json.loads(out)
    assert alice["status"] == "answered" and alice["chunks"]
    code, out, err = run(capsys, "ask", QUESTION, "--json", "--user", MALLORY, "--email", "m@evil.org")
    assert code == 0, err
    refused = json.loads(out)
    assert refused["status"] == "no_evidence" and not refused["chunks"] and not refused["candidates"]
    assert "无权检索知识库 default" in err

    assert run(capsys, "export", alice["answer_id"], "--user", BOB)[0] == 1  # another user's id: not found
    code, out, _ = run(capsys, "export", alice["answer_id"], "--user", ALICE)
    assert code == 0 and json.loads(out)["answer_id"] == alice["answer_id"]
    assert run(capsys, "export", alice["answer_id"])[0] == 0  # the operator sees everything
    assert run(capsys, "export", refused["answer_id"], "--user", ALICE)[0] == 1

    text = tmp_path / "claim.txt"
    text.write_text("CronJob 的时区默认取 kube-controller-manager 所在的时区。", encoding="utf-8")
    code, out, err = run(capsys, "check", str(text), "--json", "--user", MALLORY)
    assert code == 0, err
    assert json.loads(out)["status"] == "unverifiable" and not json.loads(out)["chunks"]
    code, out, err = run(capsys, "check", str(text), "--json", "--user", BOB, "--email", "bob@example.com")
    assert json.loads(out)["chunks"]


def test_bad_user_arguments_are_clear_errors(cli, capsys):
    run, _ = cli
    with pytest.raises(SystemExit) as exc:
        main(["ask", QUESTION, "--user", "alice@example.com"])
    assert exc.value.code == 2 and "32-hex" in capsys.readouterr().err
    code, _, err = run(capsys, "ask", QUESTION, "--email", "bob@example.com")
    assert code == 1 and "--email needs --user" in err
