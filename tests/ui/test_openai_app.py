"""The OpenAI-compatible generator through the whole product: the real ``openai``
client against the local stub server, streamed, grounded, stored and rendered in
the chat page (AppTest); a follow-up sends clean history; a malformed reply is
an error record that keeps the question and the evidence."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from core.generators.openai_chat import OpenAIChatGenerator
from tests.conftest import ask_in_chat, page_html
from tests.gemini_server import Reply, StubGemini
from tests.openai_stub import chunks_sse, citing_responder, completion, first_block

QUESTION = "CronJob 的时间表语法是什么？"
FOLLOW_UP = "它的时区怎么设置？"


@pytest.fixture()
def openai_env(app_env, monkeypatch):
    with StubGemini([], responder=citing_responder) as stub:
        monkeypatch.setenv("YINZHENG_GENERATOR", "openai")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{stub.base_url}/v1")
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("YINZHENG_LLM_MODEL", "qwen2.5:7b")
        yield stub


def test_openai_answer_in_chat_is_streamed_grounded_stored_and_rendered(openai_env, sample_engine):
    stub = openai_env
    at = ask_in_chat(QUESTION, "openai")

    req = stub.requests[-1]
    assert req.path == "/v1/chat/completions" and req.body["stream"] is True
    cited, sentence = first_block(req)
    record = sample_engine.records.list(text=QUESTION, limit=1)[0]
    assert (record.generator.name, record.generator.model) == ("openai", "qwen2.5:7b")
    assert record.status == "answered"
    assert [s.chunk_ids for s in record.supports] == [(cited,)]
    assert record.answer_text[record.supports[0].start : record.supports[0].end] == sentence
    assert any("invented#1" in json.dumps(a.model_dump(), ensure_ascii=False) for a in record.audit)

    html = page_html(at)
    assert html.count('<sup class="yz-cite') == 1 and "待复核" not in html  # one verified marker
    assert html.count("本段无出处") >= 2
    assert "invented#1" not in re.sub(r'<details class="yz-audit">.*?</details>', "", html, flags=re.S)

    # the follow-up sends the earlier turn as clean text: no markers, no 本段无出处, no HTML
    at.chat_input[0].set_value(FOLLOW_UP).run(timeout=120)
    assert not at.exception, at.exception
    msgs = stub.requests[-1].body["messages"]
    assert [m["role"] for m in msgs[:3]] == ["system", "user", "assistant"]
    assert msgs[1]["content"] == QUESTION and msgs[2]["content"] == record.answer_text
    assert "本段无出处" not in msgs[2]["content"] and "<" not in msgs[2]["content"]


def test_malformed_reply_is_an_error_record_keeping_question_and_evidence(sample_engine):
    with StubGemini([Reply(sse=chunks_sse('{"answer": [{"text": "半句', pieces=3))]) as stub:
        g = OpenAIChatGenerator(model="m", base_url=f"{stub.base_url}/v1", max_retries=0, timeout_s=5)
        shown: list[str] = []
        record = sample_engine.ask(QUESTION, generator=g, on_text=shown.append, save=False)
    assert record.status == "error" and "JSON" in record.error
    assert record.query == QUESTION and len(record.chunks) >= 1
    assert "".join(shown) == "半句"  # what was streamed before the failure


def _rewriting_responder(seen):
    """The rewrite request (no response_format) gets a fixed query; the answer request cites."""
    if "response_format" not in seen.body:
        return Reply(json=completion("CronJob 时区 timeZone 设置"))
    return citing_responder(seen)


@pytest.mark.parametrize("help_on", [True, False])
def test_llm_query_help_rewrites_the_retrieval_query_only_when_enabled(sample_engine, help_on):
    settings = sample_engine.settings.model_copy(update={"llm_query_help": help_on})
    engine = dataclasses.replace(sample_engine, settings=settings, generators={})
    with StubGemini([], responder=_rewriting_responder) as stub:
        g = OpenAIChatGenerator(model="m", base_url=f"{stub.base_url}/v1", max_retries=0, timeout_s=5)
        record = engine.ask(FOLLOW_UP, generator=g, history=[(QUESTION, "CronJob 使用 Cron 语法。")], save=False)
    rewrites = [r for r in stub.requests if "response_format" not in r.body]
    if help_on:
        assert record.retrieval_query == "CronJob 时区 timeZone 设置"
        (req,) = rewrites
        assert [m["role"] for m in req.body["messages"]] == ["system", "user", "assistant", "user"]
        assert req.body["messages"][-1]["content"].endswith(FOLLOW_UP)
    else:
        assert rewrites == [] and record.retrieval_query != "CronJob 时区 timeZone 设置"
    assert record.status == "answered"


def test_failed_query_help_falls_back_to_the_rule_based_query(sample_engine):
    settings = sample_engine.settings.model_copy(update={"llm_query_help": True})
    engine = dataclasses.replace(sample_engine, settings=settings, generators={})

    def respond(seen):
        if "response_format" not in seen.body:
            return Reply(status=500, json={"error": {"message": "boom"}})
        return citing_responder(seen)

    with StubGemini([], responder=respond) as stub:
        g = OpenAIChatGenerator(model="m", base_url=f"{stub.base_url}/v1", max_retries=0, timeout_s=5)
        record = engine.ask(QUESTION, generator=g, save=False)
    assert record.status == "answered" and record.retrieval_query in (None, QUESTION)
