"""The offline support verifier (core/verification/support.py): one test per kind of
contradiction, a paraphrase that must pass, an invented sentence that must fail,
aligned-quote offsets in code points, record verification and the pipeline
call for a Gemini answer from a recorded response.

The texts are written for these tests (not taken from the claims dev set).
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest

from core.models import AnswerRecord, ChunkSnapshot, GeneratorInfo, Support, sha256_hex
from core.verification.support import verify, verify_record

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


def snap(text: str, cid: str = "docs/a.md@v1#0", title: str = "文档") -> ChunkSnapshot:
    return ChunkSnapshot(
        chunk_id=cid,
        document_id=cid.split("#")[0],
        source_id=cid.split("@")[0],
        version="v1",
        title=title,
        heading_path=(title,),
        text=text,
        content_sha256=sha256_hex(text),
        rank=1,
        relevance=0.9,
        retrieved_at=T0,
    )


UPLOAD = snap("上传限制\n上传的单个文件不能超过 1 MiB，超出时服务器返回 413。管理员可以在配置文件里调整这个上限。")
STORAGE = snap(
    "回收策略决定删除申领之后怎样处理数据卷。\n"
    "- `Retain`：删除申领后保留数据卷，由管理员手动清理。\n"
    "- `Delete`：删除申领时一并删除数据卷和底层存储。",
    cid="docs/storage.md@v1#3",
)
CLASS = snap(
    "存储类创建以后，它的 `provisioner` 字段不能修改。只有集群管理员可以创建存储类。", cid="docs/class.md@v1#0"
)
BACKUP = snap(
    "备份任务每天凌晨两点运行，结果保存在对象存储中，保留 30 天。失败时任务会在一小时后重试一次。",
    cid="docs/backup.md@v1#1",
)


@pytest.mark.parametrize(
    ("sentence", "chunk", "kind_words"),
    [
        ("上传的单个文件最大可以有 2 MiB。", UPLOAD, ("1 MiB", "2 MiB")),  # number + unit
        ("存储类创建以后，仍然可以随时修改它的 `provisioner` 字段。", CLASS, ("不能修改", "肯定")),  # negation
        (
            "设为 `Delete` 时，删除申领后会保留数据卷，由管理员手动清理。",
            STORAGE,
            ("`Retain`", "`Delete`"),
        ),  # named object
        ("所有用户都可以创建存储类。", CLASS, ("只/仅", "所有")),  # scope / quantifier
        ("备份结果保存在对象存储中，保留 90 天。", BACKUP, ("30 天", "90 天")),
    ],
    ids=["number", "negation", "entity", "scope", "number-days"],
)
def test_each_kind_of_contradiction(sentence, chunk, kind_words):
    v = verify(sentence, [chunk])
    assert v.verdict == "contradicted", v
    assert v.chunk_id == chunk.chunk_id and v.aligned_quote is not None
    assert all(w in v.reason for w in kind_words), v.reason
    assert 0.0 <= v.score < 0.3


@pytest.mark.parametrize(
    ("sentence", "chunk"),
    [
        ("备份结果会存到对象存储里，保留 30 天。", BACKUP),
        ("如果备份失败，任务会在一小时以后再重试一次。", BACKUP),
        ("选 `Retain` 的话，删除申领之后数据卷还在，要管理员手动清理。", STORAGE),
        ("单个上传文件的上限是 1 MiB，管理员能在配置文件中调整。", UPLOAD),
    ],
)
def test_paraphrase_passes(sentence, chunk):
    v = verify(sentence, [chunk, CLASS])
    assert v.verdict == "supported", v
    assert v.chunk_id == chunk.chunk_id
    assert v.reason is None and v.score >= 0.5  # a probability of support (core.verification.support_model)


@pytest.mark.parametrize(
    "sentence",
    [
        "备份任务完成后会自动发送邮件通知 `backup-admins` 组。",  # invented name
        "每个集群最多可以创建 64 个存储类。",  # invented limit
        "日志默认写到标准输出，由节点上的代理统一收集。",  # nothing to do with the sources
    ],
)
def test_invented_sentence_fails(sentence):
    v = verify(sentence, [BACKUP, CLASS, STORAGE])
    assert v.verdict != "supported", v
    assert v.reason and v.score < 0.5


def test_aligned_quote_counts_code_points_with_emoji_and_cjk():
    text = "🚀 部署说明 😀\n第一步：安装依赖。第二步：运行 `make deploy` 命令部署服务 👍。最后检查日志。"
    chunk = snap(text)
    v = verify("运行 `make deploy` 命令来部署服务。", [chunk])
    assert v.verdict == "supported"
    q = v.aligned_quote
    expected = "第二步：运行 `make deploy` 命令部署服务 👍。"
    assert text[q.start : q.end] == expected
    assert q.start == text.index(expected) == 18  # code points: each emoji counts one
    assert len(text[: q.start].encode("utf-8")) != q.start  # bytes would differ


def test_empty_inputs_are_unsupported_not_errors():
    assert verify("", [BACKUP]).verdict == "unsupported"
    assert verify("。", [BACKUP]).verdict == "unsupported"
    v = verify("备份每天运行。", [snap("", cid="gemini:web:abc")])  # a web source without text
    assert v.verdict == "unsupported" and v.aligned_quote is None and "来源" in v.reason


def record_with(text: str, spans: list[tuple[str, str]]) -> AnswerRecord:
    supports = []
    for sentence, cid in spans:
        start = text.index(sentence)
        supports.append(Support(start=start, end=start + len(sentence), chunk_ids=(cid,)))
    return AnswerRecord(
        query="q",
        answer_text=text,
        status="answered",
        generator=GeneratorInfo(name="x"),
        chunks=(BACKUP, STORAGE),
        supports=tuple(supports),
    )


def test_verify_record_fills_fields_keeps_every_support_and_does_not_mutate():
    good = "备份结果保存在对象存储中，保留 30 天。"
    bad = "备份任务每周运行一次，结果保留 90 天。"
    record = record_with(good + bad, [(good, BACKUP.chunk_id), (bad, BACKUP.chunk_id)])
    before = record.model_dump_json()
    out = verify_record(record)
    assert record.model_dump_json() == before
    assert [(s.start, s.end, s.chunk_ids) for s in out.supports] == [
        (s.start, s.end, s.chunk_ids) for s in record.supports
    ]
    first, second = out.supports
    assert (first.verdict, first.status, first.verdict_reason) == ("supported", "verified", None)
    assert second.verdict == "contradicted" and second.status == "needs_review" and "90" in second.verdict_reason
    q = first.aligned_quote
    assert q.chunk_id == BACKUP.chunk_id and BACKUP.text[q.start : q.end].startswith("备份任务每天凌晨两点运行")
    restored = AnswerRecord.model_validate_json(out.model_dump_json())
    assert restored == out


def test_a_support_citing_the_wrong_chunk_needs_review():
    sentence = "备份结果保存在对象存储中，保留 30 天。"
    record = record_with(sentence, [(sentence, STORAGE.chunk_id)])
    sup = verify_record(record).supports[0]
    assert sup.verdict == "unsupported" and sup.status == "needs_review"


# ----------------------------------------------------------------- Gemini through the pipeline


def test_gemini_recorded_response_sentence_its_chunk_does_not_support_needs_review(tmp_path):
    """A mode-1 Gemini answer (real client, stub server replaying a recorded body)
    cites the right chunk for a changed number: the pipeline keeps the support
    and marks it needs_review with a verdict other than supported."""
    from core.config import Settings
    from core.engine import ask
    from core.generators.gemini import default_retry_options, make_gemini_generator
    from core.models import Chunk, RetrievedChunk
    from core.retrieval.hybrid import RetrievalResult
    from core.retrieval.query import ResolvedQuery
    from tests.gemini_server import Reply, StubGemini

    texts = [BACKUP.text, STORAGE.text]
    evidence = tuple(
        RetrievedChunk(
            chunk=Chunk(
                chunk_id=f"docs/g.md@v1#{i}",
                document_id="docs/g.md@v1",
                source_id="docs/g.md",
                version="v1",
                ordinal=i,
                title="备份",
                heading_path=("备份",),
                text=t,
            ),
            rank=i + 1,
            relevance=0.9,
            retrieved_at=T0,
        )
        for i, t in enumerate(texts)
    )
    ids = [rc.chunk_id for rc in evidence]

    class FixedRetriever:
        def resolve(self, question: str, history=()) -> ResolvedQuery:
            return ResolvedQuery(question, question)

        def retrieve(self, question) -> RetrievalResult:
            return RetrievalResult(chunks=evidence, evidence=evidence, config={"retriever": "fixed"})

    answer = {
        "answer": [
            {"text": "备份任务每天凌晨两点运行，结果保存在对象存储中。", "chunk_ids": [ids[0]]},
            {"text": "备份会保留 90 天 😀。", "chunk_ids": [ids[0]]},
        ]
    }
    body = {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": json.dumps(answer, ensure_ascii=False)}]},
                "finishReason": "STOP",
            }
        ],
        "modelVersion": "gemini-2.5-flash",
    }
    settings = Settings(gemini_api_key="test-key", data_dir=tmp_path)
    with StubGemini([Reply(json=body)]) as stub:
        gen = make_gemini_generator(
            "gemini", settings, base_url=stub.base_url, retry_options=default_retry_options(attempts=1), timeout_s=5
        )
        record = ask("备份保留多久？", retriever=FixedRetriever(), generator=gen, records=None, settings=settings)
    assert record.status == "answered" and len(record.supports) == 2
    ok, wrong = record.supports
    assert ok.verdict == "supported" and ok.status == "verified"
    assert record.answer_text[wrong.start : wrong.end].startswith("备份会保留 90 天")
    assert wrong.verdict != "supported" and wrong.status == "needs_review"
    assert wrong.chunk_ids == (ids[0],) and "30" in wrong.verdict_reason


def test_numbers_keep_units_and_skip_numbers_inside_names():
    from core.verification.cues import numbers

    found = numbers("删除操作带有30秒钟的宽限期，v1.25 起上限是 1 MiB，端口8080；UTF-8、k8s、e5 不算。")
    assert [(v, u) for v, u, _ in found] == [("30", "秒"), ("1.25", ""), ("1", "mib"), ("8080", "")]
    assert [w for _, _, w in found][2] == "1 MiB"


def test_number_written_without_spaces_between_chinese_is_compared():
    chunk = snap("重启回退计时器在容器正常运行10分钟后重置。", cid="docs/restart.md@v1#0")
    v = verify("容器正常运行30分钟后，重启回退计时器才会重置。", [chunk])
    assert v.verdict == "contradicted" and "10分钟" in v.reason and "30分钟" in v.reason


def test_a_quoted_table_row_with_escaped_pipes_and_asterisks_in_code_is_supported() -> None:
    """A helper's round (session 15): the extractive answer quoted the row "`filter.pattern` | `*.tmp\\|*.swp` | …"
    verbatim and the verifier flagged it "来源中没有 `*.tmp|*.swp`": the source's emphasis stripping ate the
    asterisks inside the code span, and the table's escaped pipe was not read as a pipe."""
    from core.verification.cues import plain

    source = (
        "| 配置项 | 默认值 | 说明 |\n| --- | --- | --- |\n"
        "| `filter.pattern` | `*.tmp\\|*.swp` | 忽略的文件模式，多个模式用 `\\|` 分隔。 |\n"
    )
    row = "`filter.pattern` | `*.tmp\\|*.swp` | 忽略的文件模式，多个模式用 `\\|` 分隔。"
    assert row in source
    v = verify(row, [snap(source)])
    assert v.verdict == "supported", v
    assert plain("**重要**，`*.tmp` 和 *强调*") == "重要，`*.tmp` 和 强调"
