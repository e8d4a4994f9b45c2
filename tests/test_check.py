"""核查 mode in core (core/check.py) and its command line (`python -m core check`),
over a small corpus written here, with the hashing embedder (no model)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

DOCS = {
    "backup.md": "# 备份\n\n## 计划\n\n备份任务每天凌晨两点运行，结果保存在对象存储中，保留 30 天。"
    "失败时任务会在一小时后重试一次。\n",
    "upload.md": "# 上传\n\n## 限制\n\n上传的单个文件不能超过 1 MiB，超出时服务器返回 413。"
    "管理员可以在配置文件里调整这个上限。\n",
}
SUPPORTED = "备份结果会存到对象存储里，保留 30 天。"
CONTRADICTED = "上传的单个文件最大可以有 2 MiB 😀。"
UNSUPPORTED = "每次备份完成后，系统会给值班人员发送短信提醒。"
TEXT = f"{SUPPORTED}{CONTRADICTED}\n\n{UNSUPPORTED}\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("check-corpus")
    for name, body in DOCS.items():
        (d / name).write_text(body, encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def engine(tmp_path_factory, corpus):
    from core.config import Settings
    from core.engine import Engine
    from core.ingest.run import ingest
    from core.store.embeddings import HashingEmbedder

    settings = Settings(data_dir=tmp_path_factory.mktemp("check-data"), corpus_dir=corpus, embedding="hash")
    eng = Engine.open(settings, HashingEmbedder())
    report = ingest(eng.index, [corpus], embed=True, base_url=None)
    assert not report.failures
    return eng


def span(text: str, sentence: str) -> tuple[int, int]:
    start = text.index(sentence)
    return start, start + len(sentence)


def test_check_text_marks_each_sentence_and_stores_the_record(engine):
    from core.check import check_text

    record = check_text(engine, TEXT)
    assert record.generator.name == "check" and record.answer_text == TEXT and record.status == "answered"
    by_span = {(s.start, s.end): s for s in record.supports}
    ok = by_span[span(TEXT, SUPPORTED)]
    assert ok.verdict == "supported" and ok.status == "verified" and ok.verification_score >= 0.5
    cited = record.chunk(ok.chunk_ids[0])
    assert cited is not None and cited.source_id == "backup.md"
    q = ok.aligned_quote
    assert cited.text[q.start : q.end] == ok.quote and "保留 30 天" in ok.quote
    bad = by_span[span(TEXT, CONTRADICTED)]
    assert bad.verdict == "contradicted" and bad.status == "needs_review"
    assert "1 MiB" in bad.verdict_reason and "2 MiB" in bad.verdict_reason
    assert record.chunk(bad.chunk_ids[0]).source_id == "upload.md"
    u0, u1 = span(TEXT, UNSUPPORTED)
    assert not any(s.start < u1 and u0 < s.end for s in record.supports)  # renders as 本段无出处
    assert {c.chunk_id for c in record.chunks} == {c for s in record.supports for c in s.chunk_ids}
    assert engine.records.get(record.answer_id) == record


def test_check_text_refuses_empty_and_too_long_text_with_a_record(engine):
    from core.check import MAX_CHECK_CHARS, check_text

    empty = check_text(engine, "  \n", save=False)
    assert empty.status == "error" and empty.error and empty.answer_text == "  \n"
    long = check_text(engine, "备" * (MAX_CHECK_CHARS + 1), save=False)
    assert long.status == "error" and str(MAX_CHECK_CHARS) in long.error and not long.supports


def test_check_text_with_nothing_verifiable_is_unverifiable(engine):
    from core.check import check_text

    record = check_text(engine, UNSUPPORTED, save=False)
    assert record.status == "unverifiable" and record.supports == () and record.answer_text == UNSUPPORTED


def run(args, data_dir, corpus, stdin=None):
    env = dict(
        os.environ,
        YINZHENG_DATA_DIR=str(data_dir),
        YINZHENG_CORPUS=str(corpus),
        YINZHENG_EMBEDDING="hash",
        YINZHENG_CORPUS_BASE_URL="none",
        HF_HUB_OFFLINE="1",
    )
    return subprocess.run(
        [sys.executable, "-m", "core", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow
def test_cli_check_file_and_json_lines_on_stdin(tmp_path, corpus):
    data = tmp_path / "data"
    f = tmp_path / "answer.txt"
    f.write_text(TEXT, encoding="utf-8")
    p = run(["check", str(f), "--json"], data, corpus)
    assert p.returncode == 0, p.stderr
    record = json.loads(p.stdout)
    assert record["answer_text"] == TEXT and record["generator"]["name"] == "check"
    assert sorted(s["verdict"] for s in record["supports"]) == ["contradicted", "supported"]
    for s in record["supports"]:
        assert {"verdict", "verification_score", "chunk_ids", "aligned_quote"} <= set(s)

    lines = (
        "\n".join(
            [
                json.dumps({"text": SUPPORTED}, ensure_ascii=False),
                "not json",
                json.dumps({"text": CONTRADICTED}, ensure_ascii=False),
                json.dumps({"txt": 1}),
            ]
        )
        + "\n"
    )
    p = run(["check", "--json", "-"], data, corpus, stdin=lines)
    assert p.returncode == 0, p.stderr
    out = [json.loads(line) for line in p.stdout.splitlines()]
    assert len(out) == 4
    assert out[0]["answer_text"] == SUPPORTED and out[0]["supports"][0]["verdict"] == "supported"
    assert out[1]["line"] == 2 and "JSON" in out[1]["error"]
    assert out[2]["supports"][0]["verdict"] == "contradicted"
    assert out[3]["line"] == 4 and "error" in out[3]

    p = run(["check", str(tmp_path / "missing.txt")], data, corpus)
    assert p.returncode == 1 and "missing.txt" in p.stderr


# ----------------------------------------------------------------- the measure (core/evaluation/claims.py)


def test_quote_matching_ignores_markup_whitespace_and_shortcodes():
    from core.evaluation.claims import quote_in

    chunk = "静态 Pod 的 `spec` 不能引用其他的 API 对象（例如：ServiceAccount、ConfigMap、Secret 等）。"
    assert quote_in("静态 Pod 的 `spec` 不能引用其他的 API 对象（例如：", chunk)
    assert quote_in('{{< glossary_tooltip text="ServiceAccount" term_id="service-account" >}}、', chunk)
    assert quote_in("**不能引用**其他的", chunk)
    assert not quote_in("静态 Pod 的 `spec` 可以引用", chunk)
    assert not quote_in("{{< note >}}", chunk)  # nothing left to match


def test_scores_per_label_flags_kinds_and_latency():
    from core.evaluation.claims import predicted, score_rows
    from core.models import AnswerRecord, GeneratorInfo, Support

    record = AnswerRecord(
        query="q",
        answer_text="甲。乙。丙。",
        status="answered",
        generator=GeneratorInfo(name="check"),
        supports=(
            Support(start=0, end=2, chunk_ids=("a#0",), verdict="supported"),
            Support(start=2, end=4, chunk_ids=("b#0",), verdict="contradicted"),
        ),
    )
    assert predicted(record, 0, 2) == ("supported", ("a#0",))
    assert predicted(record, 0, 4) == ("contradicted", ("a#0", "b#0"))
    assert predicted(record, 4, 6) == ("unsupported", ())
    rows = [
        {"label": "supported", "pred": "supported", "kind": "verbatim", "gold_cited": True},
        {"label": "supported", "pred": "unsupported", "kind": "paraphrase", "gold_cited": False},
        {"label": "contradicted", "pred": "contradicted", "kind": "number", "gold_cited": True},
        {"label": "contradicted", "pred": "supported", "kind": "negation", "gold_cited": False},
        {"label": "unsupported", "pred": "unsupported", "kind": "invented", "gold_cited": False},
    ]
    r = score_rows(rows, [100.0, 200.0])
    assert r["per_label"]["supported"] == {"precision": 0.5, "recall": 0.5, "n": 2}
    assert r["per_label"]["unsupported"] == {"precision": 0.5, "recall": 1.0, "n": 1}
    assert r["flags"] == {"precision": round(2 / 3, 4), "recall": round(2 / 3, 4)}
    assert r["per_kind"]["negation"] == 0.0 and r["per_kind"]["number"] == 1.0
    assert r["supported_cited_to_gold"] == 0.5 and r["contradictions_recognised"] == 0.5
    assert r["accuracy"] == 0.6
    lat = r["latency_ms_per_answer"]
    assert lat["mean"] == 150.0 and lat["max"] == 200.0 and lat["per_5_sentences_mean"] == 300.0


def test_extractive_answers_are_verified_too(engine):
    """The verify step runs for every generator: the extractive default quotes its chunks, so
    each support is supported with an aligned quote inside the cited chunk."""
    record = engine.ask("备份任务每天凌晨两点运行，结果保存在对象存储中保留多少天？", save=False)
    assert record.status == "answered" and record.supports
    for s in record.supports:
        assert s.verdict == "supported" and s.status == "verified" and s.verification_score >= 0.5
        q = s.aligned_quote
        assert q.chunk_id in s.chunk_ids and 0 <= q.start < q.end <= len(record.chunk(q.chunk_id).text)


def test_a_lone_surrogate_in_checked_text_is_repaired_not_an_error(tmp_path):
    """Issue 24's hostile set: a lone surrogate (an undecodable byte) in 核查 text gave an error
    record ('utf-8' codec can't encode character '\\ud800'); it becomes U+FFFD, with an audit entry."""
    from core.check import check_against, check_text
    from tests.fakes import build_engine

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# 备份\n\n备份结果保留 30 天。\n", encoding="utf-8")
    engine = build_engine(tmp_path / "data", [docs])
    for record in (
        check_text(engine, "备份结果保留 30 天。\ud800"),
        check_against(engine, "备份结果保留 30 天。\ud800", "备份结果保留 30 天。\ud800"),
    ):
        assert record.status != "error", record.error
        assert "\ud800" not in record.answer_text and record.answer_text.endswith("\ufffd")
        assert any(a.action == "repaired" for a in record.audit)
        engine.records.get(record.answer_id)  # stored
