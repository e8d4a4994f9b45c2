"""Ingest paths (issue 10): symlink loops end with a reason, file names that
are not UTF-8 get a safe source id, and `ingest --json` stays valid UTF-8."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.config import Settings
from core.ingest.corpus import iter_source_files, load_sources
from core.ingest.library import ingest_folder
from core.ingest.run import ingest
from core.ingest.sourcetext import escape_surrogates
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex
from tests.conftest import make_settings

ROOT = Path(__file__).resolve().parents[2]
BAD_NAME = b"bad\xffname.md"  # 0xff never occurs in UTF-8


def _md(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"## 一节\n\n{body}\n", encoding="utf-8")


def _bad_name_file(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    raw = os.fsencode(folder) + b"/" + BAD_NAME
    try:
        with open(raw, "wb") as f:
            f.write(f"## 一节\n\n{body}\n".encode())
    except OSError as exc:  # a file system that refuses such names
        pytest.skip(f"cannot create a non-UTF-8 file name here: {exc}")
    return Path(os.fsdecode(raw))


def _cli(args: list[str], data_dir: Path) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, YINZHENG_DATA_DIR=str(data_dir), YINZHENG_EMBEDDING="hash", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, env=env, capture_output=True, timeout=120)


def test_symlink_loop_as_ingest_path_is_a_failure_not_a_traceback(tmp_path):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    parsed, failures = load_sources([loop])
    assert parsed == []
    assert [(f.source_id, f.reason) for f in failures] == [("loop", "loop：无法读取（符号链接循环）")]
    assert Settings(data_dir=tmp_path / "d", corpus_dir=tmp_path).base_url_for(loop) is None
    index = KnowledgeIndex(make_settings(tmp_path / "data"), HashingEmbedder())
    report = ingest_folder(index, loop)
    assert "符号链接循环" in report.failures[0].reason and report.results == {}


def test_walk_follows_symlinked_folders_once_and_ends_on_loops(tmp_path):
    docs, outside = tmp_path / "docs", tmp_path / "outside"
    _md(docs / "a.md", "甲")
    _md(docs / "sub" / "b.md", "乙")
    _md(outside / "c.md", "丙")
    (docs / "sub" / "back").symlink_to(docs, target_is_directory=True)  # a loop to an ancestor
    (docs / "sub" / "self").symlink_to(docs / "sub", target_is_directory=True)
    (docs / "ext").symlink_to(outside, target_is_directory=True)  # content outside: followed
    (docs / "dangling.md").symlink_to(tmp_path / "missing.md")
    (docs / "spin.md").symlink_to(docs / "spin.md")
    assert [s for _, s in iter_source_files([docs])] == ["a.md", "dangling.md", "ext/c.md", "spin.md", "sub/b.md"]
    parsed, failures = load_sources([docs])
    assert sorted(p.document.source_id for p in parsed) == ["a.md", "ext/c.md", "sub/b.md"]
    reasons = {f.source_id: f.reason for f in failures}
    assert reasons == {
        "dangling.md": "dangling.md：无法读取（不存在（或是失效的符号链接））",
        "spin.md": "spin.md：无法读取（符号链接循环）",
    }


def _main(args: list[str], data_dir: Path, monkeypatch, capsys) -> tuple[int, str]:
    from core.__main__ import main

    monkeypatch.setenv("YINZHENG_DATA_DIR", str(data_dir))
    monkeypatch.setenv("YINZHENG_EMBEDDING", "hash")
    code = main(args)
    return code, capsys.readouterr().out


def test_cli_ingest_of_a_symlink_loop_exits_cleanly(tmp_path, monkeypatch, capsys):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    code, out = _main(["ingest", str(loop), "--no-embed", "--json"], tmp_path / "data", monkeypatch, capsys)
    assert code == 1  # nothing was read: a script sees it (a helper's round, session 18: it was 0)
    report = json.loads(out)
    assert report["counts"]["failed"] == 1 and "符号链接循环" in report["files"][0]["reason"]


def test_cli_ingest_exits_1_only_when_nothing_was_read(tmp_path, monkeypatch, capsys):
    code, out = _main(["ingest", str(tmp_path / "nope"), "--no-embed"], tmp_path / "data", monkeypatch, capsys)
    assert code == 1 and "failed" in out
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "ok.md").write_text("# 规定\n\n入池前须冲洗身体。\n", "utf-8")
    (folder / "empty.md").write_bytes(b"")
    code, out = _main(["ingest", str(folder), "--no-embed"], tmp_path / "data", monkeypatch, capsys)
    assert code == 0 and "failed 1" in out  # the broken file is listed, the other one ingested


def test_escape_surrogates():
    assert escape_surrogates("普通名字.md") == "普通名字.md"
    assert escape_surrogates(os.fsdecode(BAD_NAME)) == "bad\\xffname.md"
    assert escape_surrogates("a\ud800b") == "a\\ud800b"
    assert escape_surrogates(os.fsdecode(BAD_NAME)).encode("utf-8")


def test_non_utf8_file_name_is_ingested_under_an_escaped_id_with_a_warning(tmp_path):
    folder = tmp_path / "docs"
    path = _bad_name_file(folder, "斑马线协议规定了握手步骤。")
    index = KnowledgeIndex(make_settings(tmp_path / "data"), HashingEmbedder())
    for given, sid in ((folder, "bad\\xffname.md"), (path, "bad\\xffname.md")):
        report = ingest(index, [given], embed=False)
        assert not report.failures, report.failures
        assert set(report.results) == {sid}
        assert report.warnings[sid] == [f"文件名含有非 UTF-8 字节，按来源 ID {sid} 导入"]
        json.dumps(report.as_dict(), ensure_ascii=False).encode("utf-8")  # strict: no lone surrogate
    chunks = list(index.active_chunks().values())
    assert [c.source_id for c in chunks] == ["bad\\xffname.md"] and "斑马线协议" in chunks[0].text
    assert chunks[0].chunk_id.encode("utf-8")


def test_broken_file_with_a_non_utf8_name_reports_a_safe_reason(tmp_path):
    folder = tmp_path / "docs"
    path = _bad_name_file(folder, "x")
    path.write_bytes(b"")
    parsed, failures = load_sources([folder])
    assert parsed == []
    (f,) = failures
    assert f.source_id == "bad\\xffname.md" and f.reason == "bad\\xffname.md：文件为空，未导入"
    assert f.path.encode("utf-8")


@pytest.mark.slow
def test_cli_ingest_json_is_valid_utf8_with_a_non_utf8_file_name(tmp_path):
    folder = tmp_path / "docs"
    _bad_name_file(folder, "内容。")
    (folder / "empty.md").write_bytes(b"")
    p = _cli(["ingest", str(folder), "--no-embed", "--json"], tmp_path / "data")
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    report = json.loads(p.stdout.decode("utf-8"))  # strict decode: fails on a raw 0xff byte
    files = {f["source_id"]: f for f in report["files"]}
    assert files["bad\\xffname.md"]["result"] == "added"
    assert files["empty.md"]["result"] == "failed" and "文件为空" in files["empty.md"]["reason"]


def test_cli_ingest_text_output_names_escaped_files_and_warnings(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "docs"
    _bad_name_file(folder, "内容。")
    code, out = _main(["ingest", str(folder), "--no-embed"], tmp_path / "data", monkeypatch, capsys)
    assert code == 0
    assert out.encode("utf-8") and "added    bad\\xffname.md" in out
    assert "warning: 文件名含有非 UTF-8 字节" in out and "warned 1;" in out
