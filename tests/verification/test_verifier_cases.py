"""The three faults a new user met (issue 28), each with the exact words of the issue, plus the
verifier's public API (``core.verification.support.verify_passages``): long and many passages, joint support,
odd input. Chunk texts are the sample's visible Markdown (cron-jobs.md, time zone section) or written here.
"""

from __future__ import annotations

from datetime import datetime, timezone

from core.models import AnswerRecord, ChunkSnapshot, GeneratorInfo, Support, sha256_hex
from core.verification.support import verify, verify_passages, verify_record

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def snap(text: str, cid: str = "docs/cron.md@v1#7") -> ChunkSnapshot:
    return ChunkSnapshot(
        chunk_id=cid,
        document_id=cid.split("#")[0],
        source_id=cid.split("@")[0],
        version="v1",
        title="CronJob",
        heading_path=("CronJob",),
        text=text,
        content_sha256=sha256_hex(text),
        rank=1,
        relevance=0.9,
        retrieved_at=T0,
    )


TIME_ZONE = snap(
    "## 时区    {#time-zones}\n\n对于没有指定时区的 CronJob，\n"
    '{{< glossary_tooltip term_id="kube-controller-manager" text="kube-controller-manager" >}}\n'
    "基于本地时区解释排期表（Schedule）。\n\n你可以通过将 `.spec.timeZone`\n"
    "设置为一个有效[时区](https://en.wikipedia.org/wiki/List_of_tz_database_time_zones)的名称，\n"
    '为 CronJob 指定一个时区。例如设置 `.spec.timeZone: "Etc/UTC"` 将告诉\nKubernetes 基于世界标准时间解读排期表。'
)
CRON_TZ = snap(
    "### 不支持的时区规范   {#unsupported-timezone-spec}\n\n"
    "以这种方式指定时区是 **未正式支持的**（而且也从未正式支持过）。\n\n"
    "如果你尝试设置包含 `TZ` 或 `CRON_TZ` 时区规范的排期表，\n"
    "Kubernetes 会向客户端报告一条[警告](/blog/2020/09/03/warnings/)。\n"
    "后续的 Kubernetes 版本将完全阻止设置非正式的时区机制。",
    cid="docs/cron.md@v1#8",
)
UPLOAD = snap(
    "值班安排\n星河团队每周四下午交接班，交接记录写在共享值班表里。夜班由两名工程师轮流负责。",
    cid="upload/duty.md@v1#0",
)


def record(text: str, chunks: tuple[ChunkSnapshot, ...], cited: dict[str, str]) -> AnswerRecord:
    supports = []
    for sentence, cid in cited.items():
        start = text.index(sentence)
        supports.append(Support(start=start, end=start + len(sentence), chunk_ids=(cid,)))
    return AnswerRecord(
        query="q",
        answer_text=text,
        status="answered",
        generator=GeneratorInfo(name="x"),
        chunks=chunks,
        supports=tuple(supports),
    )


def test_utc_where_the_chunk_says_local_time_zone_is_not_supported():
    v = verify("对于没有指定时区的 CronJob，CronJob 默认使用 UTC 时区解释排期表。", [TIME_ZONE])
    assert v.verdict == "contradicted", (v.verdict, v.score, v.reason)
    assert v.score < 0.5 and "本地" in v.reason


def test_a_sentence_copied_from_a_chunk_with_cron_tz_is_supported_in_the_chat():
    sentence = "如果你尝试设置包含 `TZ` 或 `CRON_TZ` 时区规范的排期表，Kubernetes 会向客户端报告一条警告。"
    out = verify_record(record(sentence, (CRON_TZ,), {sentence: CRON_TZ.chunk_id}))
    sup = out.supports[0]
    assert (sup.verdict, sup.verdict_reason) == ("supported", None), sup.verdict_reason


def test_an_uncited_sentence_contradicting_the_upload_is_marked_contradicted_in_the_chat():
    good = "交接记录写在共享值班表里。"
    bad = "星河团队每周五下午交接班。"
    out = verify_record(record(good + bad, (UPLOAD,), {good: UPLOAD.chunk_id}))
    flagged = [s for s in out.supports if s.start == len(good)]
    assert flagged and flagged[0].verdict == "contradicted" and flagged[0].status == "needs_review"
    assert "周四" in flagged[0].verdict_reason and flagged[0].chunk_ids == (UPLOAD.chunk_id,)
    assert out.supports[0].verdict == "supported"


def test_an_uncited_sentence_the_chunks_do_not_contradict_gets_no_support():
    text = "交接记录写在共享值班表里。另外，团队每季度组织一次团建。"
    out = verify_record(record(text, (UPLOAD,), {"交接记录写在共享值班表里。": UPLOAD.chunk_id}))
    assert len(out.supports) == 1


# ----------------------------------------------------------------- the public API and `core verify`

import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_verify_passages_finds_the_quote_across_passages_in_code_points():
    passages = ["𠀀𠀀无关的第一段。", "前言。\n备份任务每天凌晨两点运行，结果保存在对象存储中，保留 30 天。"]
    out = verify_passages("备份结果保存在对象存储中，保留 30 天。", passages)
    assert out["verdict"] == "supported" and 0.5 <= out["score"] <= 1
    assert out["passage"] == 1 and passages[1][out["start"] : out["end"]].startswith("备份任务每天凌晨两点运行")
    assert out["reason"] is None


def test_a_statement_two_passages_support_jointly_is_supported():
    passages = ["[1] 这座大桥于 1998 年开工建设。", "[2] 大桥全长 3200 米，2003 年建成通车。"]
    out = verify_passages("这座大桥于 1998 年开工建设，全长 3200 米。", passages)
    assert out["verdict"] == "supported", out
    alone = verify_passages("这座大桥于 1998 年开工建设，全长 3200 米。", passages[:1])
    assert alone["verdict"] != "supported"


@pytest.mark.parametrize(("sentence", "passages"), [("", ["来源。"]), ("一句话。", []), ("一句话。", ["   "])])
def test_verify_passages_odd_input_is_unsupported_with_score_zero(sentence, passages):
    out = verify_passages(sentence, passages)
    assert (out["verdict"], out["score"], out["passage"]) == ("unsupported", 0.0, None) and out["reason"]


def test_verify_passages_rejects_non_strings():
    with pytest.raises(TypeError):
        verify_passages("一句话。", "不是列表")
    with pytest.raises(TypeError):
        verify_passages("一句话。", [1, 2])


def test_verify_passages_reads_a_100k_character_passage():
    big = "无关的填充文字。" * 12_000 + "备份结果保存在对象存储中，保留 30 天。" + "其他内容。" * 2000
    assert len(big) > 100_000
    out = verify_passages("备份结果保存在对象存储中，保留 30 天。", [big])
    assert out["verdict"] == "supported" and big[out["start"] : out["end"]] == "备份结果保存在对象存储中，保留 30 天。"


def test_core_verify_cli_bad_lines_get_an_error_line_and_the_batch_goes_on():
    good = {
        "sentence": "备份结果保存在对象存储中，保留 30 天。",
        "passages": ["备份结果保存在对象存储中，保留 30 天。"],
    }
    lines = [
        json.dumps(good, ensure_ascii=False).encode(),
        b'{"sentence": "", "passages": ["x"]}',
        b'{"sentence": "a", "passages": []}',
        b"\xff\xfe not utf-8",
        b"not json",
        b'{"sentence": "a", "passages": "x"}',
        b"",
        json.dumps(
            {"sentence": "备份结果保留 90 天。", "passages": ["备份结果保留 30 天。"]}, ensure_ascii=False
        ).encode(),
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "core", "verify", "--json", "-"],
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    out = [json.loads(x) for x in proc.stdout.decode("utf-8").splitlines()]
    assert len(out) == 7
    assert out[0]["verdict"] == "supported" and set(out[0]) == {"verdict", "score", "passage", "start", "end", "reason"}
    assert [o.get("line") for o in out[1:6]] == [2, 3, 4, 5, 6]
    assert "空" in out[1]["error"] and "passages" in out[2]["error"] and "UTF-8" in out[3]["error"]
    assert "JSON" in out[4]["error"] and "passages" in out[5]["error"]
    assert out[6]["verdict"] == "contradicted" and "30" in out[6]["reason"]


def test_check_page_path_marks_utc_against_the_sample_chunk_contradicted(tmp_path):
    """核查 through the knowledge base (``check_text``), with the sample's cron-jobs.md ingested."""
    import shutil

    from core.check import check_text
    from core.config import Settings
    from core.engine import Engine
    from core.ingest.run import ingest
    from core.store.embeddings import HashingEmbedder

    src = ROOT.parent / "shared" / "corpus" / "k8s-zh-sample" / "docs" / "concepts" / "workloads" / "controllers"
    corpus = tmp_path / "docs"
    corpus.mkdir()
    shutil.copy(src / "cron-jobs.md", corpus / "cron-jobs.md")
    eng = Engine.open(Settings(data_dir=tmp_path / "data", corpus_dir=corpus, embedding="hash"), HashingEmbedder())
    assert not ingest(eng.index, [corpus], embed=False, base_url=None).failures
    text = "对于没有指定时区的 CronJob，CronJob 默认使用 UTC 时区解释排期表。"
    record = check_text(eng, text, save=False)
    assert [s.verdict for s in record.supports] == ["contradicted"], [
        (s.verdict, s.verification_score) for s in record.supports
    ]
    sup = record.supports[0]
    chunk = record.chunk(sup.chunk_ids[0])
    assert "本地时区" in chunk.text[sup.aligned_quote.start : sup.aligned_quote.end]
