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


# Claims dev sentences the verifier got wrong (issue 28); chunk texts are the sample's visible text
# (network-policies.md, cron-jobs.md, stateful-set.md) cut to the units that matter.

POLICY_ONE = snap(
    "```yaml\n  ingress:\n  - from:\n    - namespaceSelector:\n        matchLabels:\n          user: alice\n"
    "      podSelector:\n        matchLabels:\n          role: client\n```\n\n"
    "此策略在 `from` 数组中仅包含一个元素，只允许来自标有 `role=client` 的 Pod "
    "且该 Pod 所在的名字空间中标有 `user=alice` 的连接。但是**这项**策略：",
    "docs/network-policies.md@v1#14",
)
POLICY_TWO = snap(
    "```yaml\n  ingress:\n  - from:\n    - namespaceSelector:\n        matchLabels:\n          user: alice\n"
    "    - podSelector:\n        matchLabels:\n          role: client\n```\n\n"
    "它在 `from` 数组中包含两个元素，允许来自本地名字空间中标有 `role=client` 的 "
    "Pod 的连接，**或**来自任何名字空间中标有 `user=alice` 的任何 Pod 的连接。\n\n"
    "如有疑问，请使用 `kubectl describe` 查看 Kubernetes 如何解释该策略。",
    "docs/network-policies.md@v1#15",
)


def test_a_runner_up_about_another_case_does_not_contradict_the_scope_the_best_passage_states():
    # The best passage says 只允许; the runner-up (the two-element policy) says 任何: no clash.
    s = "写在 `from` 的同一个元素里时，只允许来自特定名字空间里特定 Pod 的连接。"
    v = verify(s, [POLICY_ONE, POLICY_TWO])
    assert v.verdict == "supported", v
    # With only the runner-up the scope does clash.
    assert verify(s, [POLICY_TWO]).verdict == "contradicted"


def test_the_same_statement_about_another_object_type_is_unsupported_not_contradicted():
    chunk = snap(
        "StatefulSet 的 `.spec.updateStrategy` 字段让你可以配置和禁用 Pod 的自动滚动更新。"
        "默认的更新策略是 `RollingUpdate`，另一个可选值是 `OnDelete`。",
        "docs/stateful-set.md@v1#9",
    )
    other = snap("DaemonSet 确保全部（或者某些）节点上运行一个 Pod 的副本。", "docs/daemonset.md@v1#0")
    v = verify("DaemonSet 的默认更新策略是 `RollingUpdate`，另一个可选值是 `OnDelete`。", [chunk, other])
    assert v.verdict == "unsupported", v
    assert "StatefulSet" in v.reason and "DaemonSet" in v.reason
    # A swapped value (not an object type) stays a contradiction.
    policy = snap(
        "* `Forbid`： CronJob 不允许并发任务执行；如果新任务的执行时间到了而老任务没有执行完，CronJob 会忽略新任务的执行。\n"
        "* `Replace`：如果新任务的执行时间到了而老任务没有执行完，CronJob 会用新任务替换当前正在运行的任务。"
    )
    w = verify("如果设成 `Replace`，老任务还没跑完时 CronJob 会直接忽略这次新任务。", [policy])
    assert w.verdict == "contradicted", w


def test_a_number_in_a_chunk_that_does_not_name_the_sentences_object_is_no_contradiction():
    chunk = snap("控制器会在你提供的名称后附加 11 个字符，名称的最大长度不能超过 63 个字符。")
    v = verify("另外，ConfigMap 的单个键名长度不能超过 64 个字符。", [chunk])
    assert v.verdict == "unsupported", v
    # The same numbers in a chunk about ConfigMap keys are a contradiction.
    same = snap("ConfigMap 的单个键名长度不能超过 63 个字符。")
    assert verify("另外，ConfigMap 的单个键名长度不能超过 64 个字符。", [same]).verdict == "contradicted"
