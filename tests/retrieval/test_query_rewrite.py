"""The LLM query rewrite (issue 12, items 3/4): with ``llm_query_help`` on, the
configured generator (OpenAI-compatible or Gemini, each through its own SDK
against a local stub) turns (question, history) into a standalone Chinese search
query; retrieval fuses its rankings with those of the local resolution; the query
used is stored in the record; a failed rewrite falls back to the local query and
is logged."""

from __future__ import annotations

import dataclasses
import logging

from core.config import Settings
from core.generators.evidence import QUERY_REWRITE_INSTRUCTION, first_query_line
from core.generators.gemini import default_retry_options, make_gemini_generator
from core.generators.openai_chat import OpenAIChatGenerator
from core.retrieval.query import ResolvedQuery
from tests.gemini_server import Reply, StubGemini
from tests.openai_stub import citing_responder, completion

QUESTION = "CronJob 的时间表语法是什么？"
FOLLOW_UP = "它的时区怎么设置？"
REWRITE = "CronJob 时区 timeZone 设置"


def _helping(engine):
    settings = engine.settings.model_copy(update={"llm_query_help": True})
    return dataclasses.replace(engine, settings=settings, generators={})


def _gemini(stub):
    return make_gemini_generator(
        "gemini",
        Settings(gemini_api_key="test-key"),
        base_url=stub.base_url,
        retry_options=default_retry_options(attempts=1),
        timeout_s=5,
    )


def _gemini_text(text: str) -> dict:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}


def test_fused_query_ranks_the_best_chunks_of_both_texts(sample_engine):
    retriever = sample_engine.retriever(top_k=5)
    a, b = "CronJob 的时区怎么设置？", "Pod 的重启策略 restartPolicy 有哪些取值？"
    top_a = retriever.retrieve(a).chunks[0].chunk_id
    top_b = retriever.retrieve(b).chunks[0].chunk_id
    assert top_a != top_b
    fused = retriever.retrieve(ResolvedQuery(question=a, text=a, also=(b,)))
    ids = [rc.chunk_id for rc in fused.chunks]
    assert top_a in ids and top_b in ids
    assert fused.config["fused_queries"] == b
    # a repeated text adds nothing and is not reported
    same = retriever.retrieve(ResolvedQuery(question=a, text=a, also=(a,)))
    assert "fused_queries" not in same.config
    assert [rc.chunk_id for rc in same.chunks] == [rc.chunk_id for rc in retriever.retrieve(a).chunks]


def test_openai_rewrite_is_fused_with_the_local_resolution_and_stored(sample_engine):
    def respond(seen):
        if "response_format" not in seen.body:
            return Reply(json=completion(f"“{REWRITE}”\n（说明：补全了指代）"))
        return citing_responder(seen)

    with StubGemini([], responder=respond) as stub:
        g = OpenAIChatGenerator(model="m", base_url=f"{stub.base_url}/v1", max_retries=0, timeout_s=5)
        record = _helping(sample_engine).ask(FOLLOW_UP, generator=g, history=[(QUESTION, "")], save=False)
    assert record.retrieval_query == REWRITE  # first line, quotes stripped
    local = sample_engine.retriever().resolve(FOLLOW_UP, [QUESTION]).text
    assert local != FOLLOW_UP and record.retrieval["fused_queries"] == local


def test_gemini_rewrite_query_sends_instruction_and_history(sample_engine):
    with StubGemini([Reply(json=_gemini_text(REWRITE + "\n"))]) as stub:
        g = _gemini(stub)
        record = _helping(sample_engine).ask(
            FOLLOW_UP, generator=g, history=[(QUESTION, "CronJob 使用 Cron 语法。")], save=False
        )
    first = stub.requests[0].body
    assert first["systemInstruction"]["parts"][0]["text"] == QUERY_REWRITE_INSTRUCTION
    assert [c["role"] for c in first["contents"]] == ["user", "model", "user"]
    assert first["contents"][-1]["parts"][0]["text"].endswith(FOLLOW_UP)
    assert first["generationConfig"]["temperature"] == 0
    assert record.retrieval_query == REWRITE
    assert "fused_queries" in record.retrieval


def test_failed_gemini_rewrite_falls_back_to_the_local_query_and_is_logged(sample_engine, caplog):
    with StubGemini(
        [Reply(status=500, json={"error": {"code": 500, "message": "boom", "status": "INTERNAL"}})]
    ) as stub:
        g = _gemini(stub)
        with caplog.at_level(logging.WARNING, logger="core.engine"):
            record = _helping(sample_engine).ask(FOLLOW_UP, generator=g, history=[(QUESTION, "")], save=False)
    local = sample_engine.retriever().resolve(FOLLOW_UP, [QUESTION]).text
    assert record.retrieval_query == local and "fused_queries" not in record.retrieval
    assert any("query rewrite by gemini failed" in r.getMessage() for r in caplog.records)


def test_no_rewrite_request_without_query_help(sample_engine):
    with StubGemini([Reply(json=_gemini_text(REWRITE))]) as stub:
        g = _gemini(stub)
        record = sample_engine.ask(FOLLOW_UP, generator=g, history=[(QUESTION, "")], save=False)
    assert all(
        r.body.get("systemInstruction", {}).get("parts", [{}])[0].get("text") != QUERY_REWRITE_INSTRUCTION
        for r in stub.requests
    )
    assert record.retrieval_query != REWRITE


def test_first_query_line():
    assert first_query_line('  "CronJob 时区"\n说明') == "CronJob 时区"
    assert first_query_line("「灰度发布」") == "灰度发布"
    assert first_query_line("\n \n") is None and first_query_line(None) is None
