"""Gemini (mode 1, over our chunks) through the whole product: the real
google-genai client against the local stub server, streamed, grounded, stored
and rendered in the chat page (AppTest)."""

from __future__ import annotations

import json
import re

import pytest

from core.generators.sentences import split_sentences
from tests.conftest import ask_in_chat, page_html
from tests.gemini_server import Reply, StubGemini

QUESTION = "CronJob 的时间表语法是什么？"


def _sse(answer: dict, pieces: int = 4) -> list[dict]:
    text = json.dumps(answer, ensure_ascii=False)
    step = max(1, len(text) // pieces)
    events = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": text[i : i + step]}]}}]}
        for i in range(0, len(text), step)
    ]
    events[-1]["candidates"][0]["finishReason"] = "STOP"
    return events


@pytest.fixture()
def gemini_env(app_env, sample_engine, monkeypatch):
    evidence = sample_engine.retriever().retrieve(QUESTION).evidence
    assert len(evidence) >= 2
    cited = evidence[0].chunk_id
    # a sentence the cited chunk holds word for word, so the verifier finds it supported (issue 13)
    supported = split_sentences(evidence[0].chunk.text)[0][1]
    answer = {
        "answer": [
            {"text": supported, "chunk_ids": [cited]},
            {"text": "资料中没有提到时区的默认值。", "chunk_ids": []},
            {"text": "这一句引用了一个不存在的片段。", "chunk_ids": ["invented#1"]},
        ]
    }
    with StubGemini([Reply(sse=_sse(answer))]) as stub:
        monkeypatch.setenv("YINZHENG_GENERATOR", "gemini")
        monkeypatch.setenv("GEMINI_API_KEY", "test-key")
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", stub.base_url)
        yield stub, cited, [rc.chunk_id for rc in evidence], supported


def test_gemini_answer_in_chat_is_grounded_stored_and_rendered(gemini_env, sample_engine):
    stub, cited, sent, supported = gemini_env
    at = ask_in_chat(QUESTION, "gemini")

    # the request carried our evidence blocks with their chunk ids, and the key
    req = stub.requests[-1]
    assert req.path.endswith(":streamGenerateContent?alt=sse")
    assert req.headers.get("x-goog-api-key") == "test-key"
    prompt = json.dumps(req.body, ensure_ascii=False)
    assert all(cid in prompt for cid in sent)

    record = sample_engine.records.list(text=QUESTION, limit=1)[0]
    assert record.generator.name == "gemini"
    assert record.status == "answered"
    assert [s.chunk_ids for s in record.supports] == [(cited,)]
    assert record.answer_text[record.supports[0].start : record.supports[0].end] == supported
    assert record.supports[0].verdict == "supported"
    assert any("invented#1" in json.dumps(a.model_dump(), ensure_ascii=False) for a in record.audit)

    html = page_html(at)
    assert html.count('<sup class="yz-cite">') == 1
    assert html.count("本段无出处") >= 2
    assert "invented#1" not in re.sub(r'<details class="yz-audit">.*?</details>', "", html, flags=re.S)
    assert "抽取式回答" not in html
