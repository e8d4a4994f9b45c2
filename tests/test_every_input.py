"""Issue 10, "every input ends as a record": lone surrogates, interruptions and
missing grounding metadata all end as a stored record with an audit entry."""

from __future__ import annotations

import json
from typing import Sequence

import pytest

from core import textsafe
from core.generators.base import Generator
from core.models import AnswerRecord, Draft, DraftSupport, GeneratorInfo, RetrievedChunk, sha256_hex
from tests.gemini_server import Reply, StubGemini
from tests.generators.test_gemini import CHUNKS, IDS, gc_body, gen, grounded_body, split_sse_json

QUESTION = "CronJob 的时间表语法是什么？"


class FakeStop(BaseException):
    """Stands in for Streamlit's StopException / RerunException (BaseException subclasses)."""


class Streaming(Generator):
    """Yields ``pieces`` one by one, then raises ``interrupt`` (if given) or yields a Draft."""

    name = "streaming"

    def __init__(self, pieces: Sequence[str], interrupt: BaseException | None = None):
        self.pieces = list(pieces)
        self.interrupt = interrupt

    def generate(self, question, chunks: Sequence[RetrievedChunk], history=(), on_text=None):
        assert on_text is not None, "the pipeline streams"
        for piece in self.pieces:
            on_text(piece)
        if self.interrupt is not None:
            raise self.interrupt
        text = "".join(self.pieces)
        return Draft(
            parts=(text,),
            supports=(DraftSupport(start=0, end=len(text), chunk_ids=(chunks[0].chunk_id,)),),
            generator=self.info,
        )


def _repairs(record: AnswerRecord) -> dict[str, int]:
    return {a.detail["field"]: a.detail["count"] for a in record.audit if a.detail.get("kind") == "lone_surrogate"}


# --------------------------------------------------------------------------- lone surrogates


def test_scrub_keeps_length_and_counts():
    assert textsafe.scrub("Pod \udcff 是\ud83d") == ("Pod \ufffd 是\ufffd", 2)
    assert textsafe.scrub("正常 😀") == ("正常 😀", 0)


def test_question_with_lone_surrogate_is_answered_sanitized_and_audited(sample_engine):
    r = sample_engine.ask("CronJob \udcff 的时间表语法是什么？")
    assert r.query == "CronJob \ufffd 的时间表语法是什么？"
    assert r.status in ("answered", "unverifiable")
    assert _repairs(r) == {"query": 1}
    stored = sample_engine.records.get(r.answer_id)
    assert stored == r
    json.loads(r.model_dump_json())  # encodable


def test_invisible_characters_in_a_question_do_not_split_its_words(sample_engine):
    """Helper report, session 11: "流\u200b感\u200b疫\u200b苗…" was refused while the same question without the
    zero-width spaces was answered. The invisible characters are dropped before the question is read."""
    plain = sample_engine.ask("CronJob 的时间表语法是什么？", save=False)
    hidden = sample_engine.ask("Cron\u200bJob\ufeff 的时\u200c间表\u2060语法是什么？", save=False)
    assert hidden.query == plain.query == "CronJob 的时间表语法是什么？"
    assert hidden.status == plain.status == "answered"
    assert hidden.answer_text == plain.answer_text


def test_question_repair_is_kept_on_every_status(sample_engine):
    r = sample_engine.ask("\ud800" + "长" * 2100)  # too long: an error record, still audited
    assert r.status == "error" and _repairs(r) == {"query": 1}
    assert sample_engine.records.get(r.answer_id).query.startswith("\ufffd")


def test_generator_output_with_lone_surrogate_is_stored_with_offsets_intact(sample_engine):
    pieces = ["CronJob 使用 Cron 语法 \ud83d。"]
    seen: list[str] = []
    r = sample_engine.ask(QUESTION, generator=Streaming(pieces), on_text=seen.append)
    assert r.answer_text == "CronJob 使用 Cron 语法 \ufffd。"
    assert seen == [r.answer_text]  # the page never receives a lone surrogate
    assert [(s.start, s.end) for s in r.supports] == [(0, len(r.answer_text))]
    assert _repairs(r) == {"generator_output.parts.0": 1}
    assert sample_engine.records.get(r.answer_id) == r


def test_gemini_json_answer_with_half_emoji_is_stored(sample_engine):
    """The real SDK against the recorded-response stub: a mode-1 JSON answer with ``\\ud83d``."""
    cited = sample_engine.retriever().retrieve(QUESTION).evidence[0].chunk_id
    answer = {"answer": [{"text": "CronJob 使用 Cron 语法 \ud83d。", "chunk_ids": [cited]}]}
    raw = json.dumps(answer, ensure_ascii=True)
    assert "\\ud83d" in raw
    with StubGemini([Reply(sse=split_sse_json(raw, 9))]) as stub:
        r = sample_engine.ask(QUESTION, generator=gen("gemini", stub))
    assert r.status == "answered", (r.status, r.error)
    assert r.answer_text == "CronJob 使用 Cron 语法 \ufffd。"
    assert r.supports[0].chunk_ids == (cited,)
    assert _repairs(r) == {"generator_output.parts.0": 1}
    assert sample_engine.records.get(r.answer_id).answer_text == r.answer_text


# --------------------------------------------------------------------------- interruptions


def test_interrupted_stream_is_stored_with_what_was_streamed_then_reraised(sample_engine):
    gen_ = Streaming(["CronJob 使用", " Cron 语法"], interrupt=FakeStop())
    before = {r.answer_id for r in sample_engine.records.list(conversation_id="conv-int")}
    with pytest.raises(FakeStop):
        sample_engine.ask(QUESTION, generator=gen_, conversation_id="conv-int")
    (r,) = [r for r in sample_engine.records.list(conversation_id="conv-int") if r.answer_id not in before]
    assert r.status == "interrupted"
    assert r.query == QUESTION and r.answer_text == "CronJob 使用 Cron 语法"
    assert r.supports == () and r.chunks, "the evidence shown to the generator stays on record"
    assert [a.detail["kind"] for a in r.audit] == ["interrupted"]
    assert r.audit[0].detail["exception"] == "FakeStop"


def test_interruption_raised_by_the_page_callback_is_stored(sample_engine):
    """Streamlit raises StopException inside the page's ``on_text`` (the next st call)."""
    calls = []

    def on_text(piece: str) -> None:
        calls.append(piece)
        if len(calls) == 2:
            raise FakeStop()

    with pytest.raises(FakeStop):
        sample_engine.ask(
            QUESTION, generator=Streaming(["甲。", "乙。", "丙。"]), conversation_id="conv-cb", on_text=on_text
        )
    (r,) = sample_engine.records.list(conversation_id="conv-cb")
    assert r.status == "interrupted" and r.answer_text == "甲。乙。"


def test_interruption_after_the_record_was_stored_does_not_store_twice(sample_engine, monkeypatch):
    original = sample_engine.records.save
    saves = []

    def save_then_stop(record):
        original(record)
        saves.append(record.status)
        if len(saves) == 1:
            raise FakeStop()

    monkeypatch.setattr(sample_engine.records, "save", save_then_stop)
    with pytest.raises(FakeStop):
        sample_engine.ask(
            "CronJob \udcff 的时间表语法是什么？", generator=Streaming(["甲。"]), conversation_id="conv-once"
        )
    monkeypatch.undo()
    assert saves == ["answered", "answered"]  # the finished record again (same id), not a downgraded one
    (stored,) = sample_engine.records.list(conversation_id="conv-once")
    assert stored.status == "answered"
    assert [a.detail["field"] for a in stored.audit if a.detail.get("kind") == "lone_surrogate"] == ["query"]


def test_interrupted_record_renders_partial_text_with_notice():
    from components.answer_view import INTERRUPTED_MESSAGE, render_answer

    r = AnswerRecord(query="q", status="interrupted", answer_text="部分<b>回答</b>", generator=GeneratorInfo(name="x"))
    html = render_answer(r)
    assert INTERRUPTED_MESSAGE in html and 'class="yz-notice yz-interrupted"' in html
    assert "<b>回答</b>" not in html and "本段无出处" in html


# --------------------------------------------------------------------------- grounding metadata


def _kinds(draft_or_record) -> list[str]:
    return [a.detail.get("kind") for a in draft_or_record.audit]


@pytest.mark.parametrize("stream", [False, True])
def test_missing_grounding_metadata_is_flagged_apart_from_empty_supports(stream):
    no_metadata = {"candidates": [{"content": {"parts": [{"text": "无元数据。"}]}, "finishReason": "STOP"}]}
    no_supports = grounded_body([{"text": "没有出处。"}], [], [{"web": {"uri": "https://a.example/x", "title": "a"}}])
    drafts = []
    for body in (no_metadata, no_supports):
        reply = Reply(sse=[body]) if stream else Reply(json=body)
        with StubGemini([reply]) as stub:
            g = gen("gemini-search", stub)
            drafts.append(g.generate("q", [], on_text=lambda _: None) if stream else g.generate("q", []))
    missing, empty = drafts
    assert missing.supports == () and _kinds(missing) == ["grounding_missing"]
    assert empty.supports == () and _kinds(empty) == ["grounding_no_supports"]


def test_grounded_answer_with_supports_has_no_grounding_flag():
    body = grounded_body(
        [{"text": "甲乙。"}],
        [{"segment": {"endIndex": 9}, "groundingChunkIndices": [0]}],
        [{"web": {"uri": "https://a.example/x", "title": "a"}}],
    )
    with StubGemini([Reply(json=body)]) as stub:
        d = gen("gemini-search", stub).generate("q", [])
    assert d.supports and d.audit == ()


def test_streamed_answer_without_metadata_is_stored_with_the_flag(sample_engine):
    events = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "Pod 是最小的"}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "部署单元。"}]}, "finishReason": "STOP"}]},
    ]
    with StubGemini([Reply(sse=events)]) as stub:
        r = sample_engine.ask("Pod 是什么？", generator=gen("gemini-search", stub))
    assert r.status == "unverifiable" and r.answer_text == "Pod 是最小的部署单元。"
    assert _kinds(r) == ["grounding_missing"]
    assert _kinds(sample_engine.records.get(r.answer_id)) == ["grounding_missing"]


def test_mode1_answer_is_not_flagged_for_grounding():
    """Mode 1 cites chunk ids in its JSON; grounding metadata is not expected there."""
    answer = {"answer": [{"text": "Pod 是最小单元。", "chunk_ids": [IDS[0]]}]}
    with StubGemini([Reply(json=gc_body(json.dumps(answer, ensure_ascii=False)))]) as stub:
        d = gen("gemini", stub).generate("q", CHUNKS)
    assert d.audit == ()


def test_interactions_without_annotations_are_flagged():
    from core.generators.gemini_interactions import draft_from_interaction

    def body(block: dict) -> dict:
        return {"status": "completed", "outputs": [{"type": "text", **block}]}

    info = GeneratorInfo(name="gemini-search")
    missing = draft_from_interaction(body({"text": "没有注释。"}), info)
    empty = draft_from_interaction(body({"text": "空注释。", "annotations": []}), info)
    assert missing.text == "没有注释。" and _kinds(missing) == ["grounding_missing"]
    assert empty.text == "空注释。" and _kinds(empty) == ["grounding_no_supports"]


def test_cli_batch_reports_a_line_whose_record_cannot_be_stored_and_goes_on(monkeypatch, capsys):
    """One JSON line per input line, also when the answer store fails for one of them."""
    import io
    import sys
    import types

    import core.cli.ask as ask_command
    from core.cli import main
    from core.errors import RecordError

    def ask(q, generator=None, **_):
        if q.startswith("坏"):
            raise RecordError("answer store error: disk full")
        return AnswerRecord(query=q, status="no_evidence", generator=GeneratorInfo(name="x"))

    index = types.SimpleNamespace(
        active_chunks=lambda: [1],
        dense_coverage=lambda: (1, 1),
        store_owner=lambda: None,
        repair_vectors=lambda limit=0: (0, 0),
    )
    monkeypatch.setattr(ask_command, "open_engine", lambda args: types.SimpleNamespace(ask=ask, index=index))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("一\n坏\n三\n".encode())))
    assert main(["ask", "--json", "-"]) == 1
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["query"], r["status"]) for r in out] == [("一", "no_evidence"), ("坏", "error"), ("三", "no_evidence")]
    assert out[1]["stored"] is False and "disk full" in out[1]["error"]


def test_grounding_chunk_title_with_half_emoji_is_stored(sample_engine):
    """Gemini's own sources are untrusted too: a title with ``\\ud83d`` is repaired in the snapshot."""
    text = "甲乙。"
    body = grounded_body(
        [{"text": text}],
        [{"segment": {"endIndex": len(text.encode())}, "groundingChunkIndices": [0]}],
        [{"web": {"uri": "https://a.example/x", "title": "标题 \ud83d"}}],
    )
    with StubGemini([Reply(sse=[body])]) as stub:  # "\ud83d" escaped on the wire
        r = sample_engine.ask("Pod 是什么？", generator=gen("gemini-search", stub))
    assert r.status == "answered", (r.status, r.error)
    assert r.chunks[0].title == "标题 \ufffd"
    assert _repairs(r) == {
        "generator_output.extra_chunks.0.chunk.title": 1,
        "generator_output.extra_chunks.0.chunk.heading_path.0": 1,
    }
    assert r.chunks[0].content_sha256 == sha256_hex(r.chunks[0].text)
    assert sample_engine.records.get(r.answer_id) == r
