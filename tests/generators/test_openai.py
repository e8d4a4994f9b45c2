"""The OpenAI-compatible generator: the real ``openai`` client against the local
stub server on 127.0.0.1 (``tests/gemini_server.py`` serves any JSON/SSE script).
Offline; each test takes well under a second except the timeout one (~0.5 s)."""

from __future__ import annotations

import json
import socket

import pytest

from core.config import Settings
from core.errors import (
    AuthenticationError,
    ConfigError,
    GenerationError,
    GeneratorNetworkError,
    GeneratorTimeoutError,
    QuotaError,
)
from core.generators import registry
from core.generators.openai_chat import PLACEHOLDER_KEY, make_openai_generator
from core.grounding import supports as grounding
from tests.gemini_server import Reply, StubGemini
from tests.generators.test_gemini import CHUNKS, IDS, STRUCTURED, STRUCTURED_TEXT
from tests.openai_stub import MODEL, chunks_sse, completion


def gen(stub: StubGemini, **kw):
    kw.setdefault("max_retries", 0)
    kw.setdefault("timeout_s", 5)
    settings = Settings(openai_base_url=f"{stub.base_url}/v1", llm_model=MODEL)
    return make_openai_generator(settings, **kw)


ANSWER = json.dumps(STRUCTURED, ensure_ascii=False)


def _check_structured(draft) -> None:
    assert draft.text == STRUCTURED_TEXT
    assert draft.generator.name == "openai" and draft.generator.model == MODEL
    g = grounding.ground(draft, IDS)
    assert [s.chunk_ids for s in g.supports] == [(IDS[0],), (IDS[1],), (IDS[1],)]
    first = g.supports[0]
    assert g.answer_text[first.start : first.end] == "Pod 是 Kubernetes 中最小的可部署计算单元。"
    assert any("invented#9" in json.dumps(a.model_dump(), ensure_ascii=False) for a in g.audit)


def test_structured_output_request_and_answer():
    with StubGemini([Reply(json=completion(ANSWER))]) as stub:
        draft = gen(stub).generate("Pod 是什么？", CHUNKS, [("之前的问题", "之前的回答。")])
    _check_structured(draft)
    req = stub.requests[-1]
    assert req.path == "/v1/chat/completions"
    assert req.headers["authorization"] == f"Bearer {PLACEHOLDER_KEY}"  # a local server needs no key
    body = req.body
    assert body["model"] == MODEL and body.get("stream") in (None, False)
    assert body["response_format"]["type"] == "json_schema"
    assert "chunk_ids" in json.dumps(body["response_format"]["json_schema"]["schema"])
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    assert body["messages"][2]["content"] == "之前的回答。"
    last = body["messages"][-1]["content"]
    assert all(f"### chunk_id: {cid}" in last for cid in IDS) and last.endswith("Question: Pod 是什么？")
    assert all(cid in body["messages"][0]["content"] for cid in IDS)


@pytest.mark.parametrize("content", [ANSWER, f"```json\n{ANSWER}\n```", f"```\n{ANSWER}\n```"])
def test_json_in_content_and_in_a_fence(content):
    """A server without structured output returns the JSON as plain content, maybe fenced."""
    with StubGemini([Reply(json=completion(content))]) as stub:
        _check_structured(gen(stub).generate("q", CHUNKS))


def test_api_key_is_sent_when_configured():
    with StubGemini([Reply(json=completion(ANSWER))]) as stub:
        gen(stub, api_key="sk-test").generate("q", CHUNKS)
    assert stub.requests[-1].headers["authorization"] == "Bearer sk-test"


def test_streaming_hands_visible_sentences_then_the_draft():
    shown: list[str] = []
    with StubGemini([Reply(sse=chunks_sse(ANSWER, pieces=12))]) as stub:
        draft = gen(stub).generate("q", CHUNKS, on_text=shown.append)
    assert stub.requests[-1].body["stream"] is True
    assert len(shown) > 2 and "{" not in "".join(shown)
    assert draft.text.startswith("".join(shown)) and "".join(shown) == STRUCTURED_TEXT
    _check_structured(draft)


@pytest.mark.parametrize("stream", [False, True])
def test_malformed_json_is_an_error_naming_the_model(stream):
    reply = Reply(sse=chunks_sse('{"answer": [{"text": "半句')) if stream else Reply(json=completion("这不是 JSON"))
    with StubGemini([reply]) as stub, pytest.raises(GenerationError, match="JSON") as err:
        gen(stub).generate("q", CHUNKS, on_text=(lambda _: None) if stream else None)
    assert MODEL in str(err.value)


def test_truncated_reply_says_it_was_cut_off():
    with StubGemini([Reply(sse=chunks_sse('{"answer": [{"text": "被截', finish="length"))]) as stub:
        with pytest.raises(GenerationError, match="截断"):
            gen(stub).generate("q", CHUNKS, on_text=lambda _: None)


def test_content_filter_is_a_blocked_draft():
    with StubGemini([Reply(json=completion("", finish="content_filter"))]) as stub:
        draft = gen(stub).generate("q", CHUNKS)
    assert draft.status == "blocked" and "content_filter" in draft.message


@pytest.mark.parametrize(
    "status, exc, words",
    [
        (401, AuthenticationError, ["OPENAI_API_KEY", "401"]),
        (403, AuthenticationError, ["403"]),
        (404, GenerationError, ["YINZHENG_LLM_MODEL", MODEL, "404"]),
        (500, GenerationError, ["500"]),
    ],
)
def test_http_errors_are_mapped(status, exc, words):
    body = {"error": {"message": f"status {status}", "type": "x"}}
    with StubGemini([Reply(status=status, json=body)]) as stub, pytest.raises(exc) as err:
        gen(stub).generate("q", CHUNKS)
    assert all(w in str(err.value) for w in words)


def test_429_is_retried_by_the_sdk_then_succeeds():
    busy = Reply(status=429, json={"error": {"message": "slow down"}}, headers={"retry-after-ms": "10"})
    with StubGemini([busy, Reply(json=completion(ANSWER))]) as stub:
        draft = gen(stub, max_retries=2).generate("q", CHUNKS)
    assert len(stub.requests) == 2 and draft.text == STRUCTURED_TEXT


def test_429_after_the_retries_is_a_quota_error():
    busy = Reply(status=429, json={"error": {"message": "slow down"}}, headers={"retry-after-ms": "10"})
    with StubGemini([busy]) as stub, pytest.raises(QuotaError, match="429"):
        gen(stub, max_retries=1).generate("q", CHUNKS)
    assert len(stub.requests) == 2


def test_timeout():
    with StubGemini([Reply(json=completion(ANSWER), delay=2.0)]) as stub, pytest.raises(GeneratorTimeoutError):
        gen(stub, timeout_s=0.3).generate("q", CHUNKS)


def test_refused_connection_names_the_url_and_how_to_start_the_server():
    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(openai_base_url=f"http://127.0.0.1:{port}/v1", llm_model=MODEL)
    g = make_openai_generator(settings, max_retries=0, timeout_s=5)
    with pytest.raises(GeneratorNetworkError) as err:
        g.generate("q", CHUNKS)
    assert f"http://127.0.0.1:{port}/v1" in str(err.value) and "ollama serve" in str(err.value)


def test_missing_model_names_the_variable():
    with pytest.raises(ConfigError, match="YINZHENG_LLM_MODEL"):
        make_openai_generator(Settings(openai_base_url="http://127.0.0.1:1/v1"))


def test_registry_offers_openai_only_when_configured():
    assert "openai" not in registry.offered(Settings())
    assert "openai" not in registry.offered(Settings(llm_model=MODEL))  # no endpoint, no key
    local = Settings(openai_base_url="http://localhost:11434/v1", llm_model=MODEL)
    assert registry.offered(local) == ["extractive", "openai"]
    assert registry.label("openai", local) == f"OpenAI 兼容模型（{MODEL}）"
    assert any("YINZHENG_LLM_MODEL" in h for h in registry.hints(Settings()))


def test_server_rejecting_response_format_is_asked_again_without_it():
    def respond(seen):
        if "response_format" in seen.body:
            return Reply(status=400, json={"error": {"message": "response_format.type json_schema is unavailable"}})
        return Reply(json=completion(f"```json\n{ANSWER}\n```"))

    with StubGemini([], responder=respond) as stub:
        g = gen(stub)
        _check_structured(g.generate("q", CHUNKS))
        g.generate("q", CHUNKS)
    forms = [r.body.get("response_format", {}).get("type") for r in stub.requests]
    assert forms == ["json_schema", "json_object", None, None]  # each form once, then none for good


# what llama-cpp-python's server (llama_cpp.server 0.3.x) answers for OpenAI's json_schema form:
# its request model allows only "text" / "json_object", and a failed validation is its HTTP 500
LLAMA_CPP_PYTHON_REFUSAL = (
    "1 validation error for CreateChatCompletionRequest\nresponse_format.type\n"
    "  Input should be 'text' or 'json_object' [type=literal_error, input_value='json_schema', input_type=str]"
)


@pytest.mark.parametrize("status", [422, 500])
def test_server_knowing_only_json_object_gets_the_schema_in_that_form(status):
    """llama-cpp-python's server turns ``{"type": "json_object", "schema": ...}`` into its grammar."""

    def respond(seen):
        if seen.body.get("response_format", {}).get("type") == "json_schema":
            return Reply(status=status, json={"error": {"message": LLAMA_CPP_PYTHON_REFUSAL}})
        return Reply(json=completion(ANSWER))

    with StubGemini([], responder=respond) as stub:
        g = gen(stub)
        _check_structured(g.generate("q", CHUNKS))
        _check_structured(g.generate("q", CHUNKS))
    forms = [r.body.get("response_format", {}).get("type") for r in stub.requests]
    assert forms == ["json_schema", "json_object", "json_object"]
    sent = stub.requests[-1].body["response_format"]
    assert "chunk_ids" in json.dumps(sent["schema"])


def test_max_tokens_is_sent_only_when_set():
    with StubGemini([Reply(json=completion(ANSWER)), Reply(json=completion(ANSWER))]) as stub:
        gen(stub).generate("q", CHUNKS)
        settings = Settings(openai_base_url=f"{stub.base_url}/v1", llm_model=MODEL, llm_max_tokens=300)
        make_openai_generator(settings, max_retries=0, timeout_s=5).generate("q", CHUNKS)
    assert "max_tokens" not in stub.requests[0].body and stub.requests[1].body["max_tokens"] == 300


def test_other_400_is_an_error_not_a_retry():
    with StubGemini([Reply(status=400, json={"error": {"message": "context length exceeded"}})]) as stub:
        with pytest.raises(GenerationError, match="400"):
            gen(stub).generate("q", CHUNKS)
    assert len(stub.requests) == 1


def test_schema_allows_only_the_sent_ids_and_at_least_one_sentence():
    """A server that compiles the schema into a grammar (llama.cpp) cannot emit an id we did not
    send, nor an empty answer; the 270M model in tests/generators/test_real_model.py answered {"answer": []}."""
    with StubGemini([Reply(json=completion(ANSWER))]) as stub:
        gen(stub).generate("q", CHUNKS)
    schema = stub.requests[-1].body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["answer"]["minItems"] == 1
    ids = schema["$defs"]["AnswerSentence"]["properties"]["chunk_ids"]
    assert ids["items"]["enum"] == IDS and ids["maxItems"] == len(IDS)
