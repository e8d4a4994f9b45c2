"""``--kb NAME`` on the command line (ingest, ask, check, eval, export) and ``kb``
(list, create, rename, hide, show), run in-process through ``core.cli.main`` on a
temporary data folder with the hash embedder and a two-file corpus."""

from __future__ import annotations

import json

import pytest

from core.cli import main
from tests.store.test_kb_migration import LEGACY

DOCS = LEGACY / "docs"
QUESTION = "CronJob 的时区默认是什么？"


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """``run(*argv) -> (exit code, stdout, stderr)`` over one data folder whose knowledge
    bases ``alpha`` and ``beta`` (made by ``ingest --kb``) hold the same two files."""
    data = tmp_path_factory.mktemp("cli-kb")
    mp = pytest.MonkeyPatch()
    mp.setenv("YINZHENG_DATA_DIR", str(data / "data"))
    mp.setenv("YINZHENG_CORPUS", str(DOCS))
    mp.setenv("YINZHENG_EMBEDDING", "hash")

    def run(*argv: str, capsys) -> tuple[int, str, str]:
        code = main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    yield run, data
    mp.undo()


@pytest.mark.slow  # about 20 s on a shared machine (first jieba load, three engines)
def test_ingest_ask_check_export_with_kb(cli, capsys, tmp_path):
    run, _ = cli
    for name in ("alpha", "beta"):
        code, out, err = run("ingest", str(DOCS), "--kb", name, "--no-embed", "--json", capsys=capsys)
        assert code == 0, err
        assert f"created knowledge base {name!r}" in err
        assert json.loads(out)["counts"]["added"] == 2
    code, out, err = run("kb", "list", "--json", capsys=capsys)
    assert [kb["name"] for kb in json.loads(out)] == ["default", "alpha", "beta"]
    assert all("settings" not in kb for kb in json.loads(out))

    code, out, err = run("ask", QUESTION, "--kb", "beta", "--json", capsys=capsys)
    assert code == 0, err
    record = json.loads(out)
    assert record["status"] == "answered" and record["knowledge_bases"] == ["beta"]
    assert record["chunks"] and all(c["chunk_id"].startswith("beta/") for c in record["chunks"])
    assert all(c["knowledge_base"] == "beta" for c in record["chunks"])

    code, out, err = run("ask", QUESTION, "--kb", "alpha", "--kb", "beta", "--json", capsys=capsys)
    assert json.loads(out)["knowledge_bases"] == ["alpha", "beta"]

    code, out, err = run("export", record["answer_id"], "--kb", "alpha", capsys=capsys)
    assert code == 1 and "in knowledge base 'alpha'" in err and out == ""
    code, out, err = run("export", record["answer_id"], "--kb", "beta", capsys=capsys)
    assert code == 0 and json.loads(out)["answer_id"] == record["answer_id"]

    text = tmp_path / "claim.txt"
    text.write_text("CronJob 的时区默认取 kube-controller-manager 所在的时区。", encoding="utf-8")
    code, out, err = run("check", str(text), "--kb", "alpha", "--json", capsys=capsys)
    assert code == 0, err
    checked = json.loads(out)
    assert checked["knowledge_bases"] == ["alpha"]
    assert checked["chunks"] and all(c["chunk_id"].startswith("alpha/") for c in checked["chunks"])


def test_unknown_or_hidden_kb_is_exit_1_with_the_reason(cli, capsys):
    run, _ = cli
    code, out, err = run("ask", QUESTION, "--kb", "nope", capsys=capsys)
    assert code == 1 and "没有名为 'nope' 的知识库" in err and out == ""
    code, out, err = run("kb", "create", "Bad Name", capsys=capsys)
    assert code == 1 and "无效" in err
    assert run("kb", "create", "gamma", "--title", "丙", capsys=capsys)[0] == 0
    assert run("kb", "rename", "gamma", "丙（新）", capsys=capsys)[1].split() == ["gamma", "丙（新）"]
    assert run("kb", "hide", "gamma", capsys=capsys)[0] == 0
    code, out, err = run("ask", QUESTION, "--kb", "gamma", capsys=capsys)
    assert code == 1 and "已隐藏" in err
    assert run("kb", "show", "gamma", capsys=capsys)[1].split() == ["gamma", "丙（新）"]


def test_eval_indexes_into_and_searches_the_named_kb(cli, capsys, tmp_path):
    run, _ = cli
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        json.dumps({"id": "1", "question": QUESTION, "answers": ["kube-controller-manager"]}, ensure_ascii=False)
        + "\n",
        encoding="utf-8",
    )
    data = tmp_path / "eval-data"
    report_path = tmp_path / "report.json"
    code, out, err = run(
        "eval",
        str(questions),
        str(DOCS),
        "--kb",
        "team-x",
        "--data-dir",
        str(data),
        "--no-dense",
        "--quiet",
        "--report",
        str(report_path),
        capsys=capsys,
    )
    assert code == 0, err
    report = json.loads(report_path.read_text(encoding="utf-8"))
    assert report["config"]["knowledge_base"] == "team-x" and report["config"]["documents"] == 2
    from core.store.catalog import Catalog

    catalog = Catalog(data / "catalog.sqlite3")
    assert len(catalog.documents("team-x")) == 2 and catalog.documents("default") == []


def test_data_dir_on_the_command_line_chooses_the_data_folder(tmp_path, capsys, monkeypatch):
    """A helper's round (session 21): the data folder could only be chosen with ``YINZHENG_DATA_DIR``. Every command but
    ``eval`` (which has its own) takes ``--data-dir DIR``, nested ones after their own name (``kb list --data-dir``); the
    knowledge base made there is listed there and not in the folder the variable names."""
    from core.cli import build_parser

    parser = build_parser()
    assert parser.parse_args(["ask", "q", "--data-dir", "/x"]).run_data_dir.name == "x"
    assert parser.parse_args(["kb", "list", "--data-dir", "/y"]).run_data_dir.name == "y"
    assert parser.parse_args(["eval", "--dev", "--data-dir", "/w"]).data_dir.name == "w"  # eval's own
    monkeypatch.setenv("YINZHENG_DATA_DIR", str(tmp_path / "by-variable"))
    monkeypatch.setenv("YINZHENG_EMBEDDING", "hash")
    chosen = tmp_path / "by-option"
    assert main(["kb", "create", "gamma", "--data-dir", str(chosen)]) == 0
    assert main(["kb", "list", "--json", "--data-dir", str(chosen)]) == 0
    listed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert "gamma" in [kb["name"] for kb in listed]
    monkeypatch.setenv("YINZHENG_DATA_DIR", str(tmp_path / "by-variable"))
    assert main(["kb", "list", "--json"]) == 0
    assert "gamma" not in [kb["name"] for kb in json.loads(capsys.readouterr().out.strip().splitlines()[-1])]
