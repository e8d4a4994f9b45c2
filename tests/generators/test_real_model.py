"""A real model through the real protocol (issue 30): llama.cpp's server
(``tests/llama_server.py``: llama-cpp-python's ``llama_cpp.server`` on 127.0.0.1, Gemma 3 270M
Q4_K_M) and the ``openai`` generator end to end as configured by its variables
(``YINZHENG_GENERATOR=openai``, ``OPENAI_BASE_URL``, ``YINZHENG_LLM_MODEL``; ``Engine.open``):
a streamed answer in the server's JSON-schema grammar, grounded, stored and rendered by the
chat page's renderer (``python -m components``); chunk ids checked against what was sent;
the LLM query rewrite; the server killed in the middle of a stream.

A 270M model answers badly: these tests check the protocol, not the answers. Marked
``real_model`` and deselected by default (``pyproject.toml``); ``make test-real-model`` installs
the server (compiling llama.cpp once) and runs them, and ``.ci/run`` does after the other steps.
Without the server's interpreter they fail, naming the make target. Each test takes seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

import pytest

from core.config import load_settings
from core.engine import Engine
from core.errors import GenerationError
from core.grounding import supports as grounding
from tests.llama_server import ALIAS, LlamaServer, model_path, real_model_python

pytestmark = pytest.mark.real_model

QUESTION = "CronJob 的时间表语法是什么？"
QUESTIONS = (
    QUESTION,
    "Service 的类型有哪些？",
    "Pod 是什么？",
    "Deployment 如何回滚？",
    "ConfigMap 是什么？",
    "Job 是什么？",
)
FOLLOW_UP = "它的时区怎么设置？"
EARLIER = (QUESTION, "CronJob 的 .spec.schedule 字段使用 Cron 语法。")
MAX_TOKENS = "768"  # bounds each answer: seconds on two cores (384 cut most answers off mid-JSON in CI)
TOP_K = "2"  # two chunks: a short prompt, and less for a 270M base model to copy at length


@pytest.fixture(scope="session")
def gguf():
    python = real_model_python()
    if not python.exists():
        pytest.fail(f"{python} is missing: run `make install-real-model` (or set YINZHENG_REAL_MODEL_PYTHON)")
    return python, model_path(python)


@pytest.fixture(scope="session")
def llama(gguf):
    with LlamaServer(*gguf) as server:
        yield server


@dataclass
class Real:
    engine: Engine
    server: LlamaServer


def open_engine(sample_engine, server: LlamaServer, monkeypatch, **env: str) -> Engine:
    """``Engine.open`` from the environment, as ``make run`` and ``python -m core`` build it."""
    for var, value in {
        "YINZHENG_DATA_DIR": str(sample_engine.settings.data_dir),
        "YINZHENG_EMBEDDING": "hash",
        "YINZHENG_SECOND_EMBEDDING": "none",
        "YINZHENG_GENERATOR": "openai",
        "OPENAI_BASE_URL": server.base_url,
        "YINZHENG_LLM_MODEL": ALIAS,
        "YINZHENG_LLM_MAX_TOKENS": MAX_TOKENS,
        "YINZHENG_TOP_K": TOP_K,
        **env,
    }.items():
        monkeypatch.setenv(var, value)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return Engine.open(load_settings())


@pytest.fixture()
def real(sample_engine, llama, monkeypatch):
    return Real(open_engine(sample_engine, llama, monkeypatch), llama)


def _render(record, tmp_path) -> str:
    path = tmp_path / "record.json"
    path.write_text(record.model_dump_json(), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "components", str(path), "--no-css"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _first_cited(attempt):
    """``attempt(question)`` for the sample questions in turn until its result cites a chunk
    (a 270M base model often cites nothing, or runs into ``max_tokens``); the results so far."""
    tried = []
    for question in QUESTIONS:
        result = attempt(question)
        tried.append(result)
        if result[1]:
            return tried
    pytest.fail(f"the model cited no chunk for any of {QUESTIONS}: {tried}")


def test_streamed_answer_in_the_schema_grammar_is_grounded_stored_and_rendered(real, tmp_path):
    def ask(question):
        shown: list[str] = []
        record = real.engine.ask(question, on_text=shown.append)
        return record, record.supports, shown

    tried = _first_cited(ask)
    record, _, shown = tried[-1]
    generator = real.engine.generators["openai"]
    assert record.status != "error", f"{record.error}\n{real.server.log_tail()}"
    assert (record.generator.name, record.generator.model) == ("openai", ALIAS)
    # llama-cpp-python refuses OpenAI's json_schema form and takes the schema as json_object
    assert generator.formats[:1] == ["json_object"]
    streamed = "".join(shown)
    assert streamed and "{" not in streamed and "chunk_ids" not in streamed
    assert record.answer_text.strip().startswith(streamed.strip()[:1])  # the model may lead with a space
    assert real.engine.records.get(record.answer_id).answer_text == record.answer_text

    sent = {c.chunk_id for c in record.chunks}
    assert all(set(s.chunk_ids) <= sent for s in record.supports)
    html = _render(record, tmp_path)
    assert html.count('<sup class="yz-cite') >= len(record.supports) >= 1
    titles = {c.chunk_id: c.title for c in record.chunks}
    for support in record.supports:
        assert all(titles[cid] in html for cid in support.chunk_ids)
    assert 'class="yz-card"' in html
    for earlier, _, _ in tried[:-1]:  # an answer without citations, or cut off, is still a record
        assert earlier.status in ("error", "unverifiable", "answered"), earlier.status
        assert earlier.chunks or earlier.status == "no_evidence"


def test_chunk_ids_not_sent_are_dropped_and_audited(real):
    """The schema lets the grammar emit only the ids sent; grounding drops any other id and audits it."""
    generator = real.engine.generator("openai")

    def answer(question):
        retriever = real.engine.retriever()
        evidence = retriever.retrieve(retriever.resolve(question, [])).evidence
        try:
            draft = generator.generate(question, evidence)
        except GenerationError as exc:  # cut off at max_tokens
            return evidence, (), str(exc)
        return evidence, {cid for s in draft.supports for cid in s.chunk_ids}, draft

    evidence, cited, draft = _first_cited(answer)[-1]
    sent = [rc.chunk_id for rc in evidence]
    assert cited <= set(sent)  # the grammar allows no other id

    def audited(g) -> set[str]:
        found = set()
        for entry in g.audit:
            found |= {cid for cid in cited if cid in json.dumps(entry.model_dump(), ensure_ascii=False)}
        return found

    g = grounding.ground(draft, sent)
    assert {cid for s in g.supports for cid in s.chunk_ids} == cited and not audited(g)
    # the same real reply grounded as if its ids had not been sent: each is dropped and audited
    others = [cid for cid in sent if cid not in cited]
    g = grounding.ground(draft, others)
    assert not {cid for s in g.supports for cid in s.chunk_ids} & cited
    assert audited(g) == cited


def test_llm_query_rewrite_is_the_retrieval_query(sample_engine, llama, monkeypatch):
    engine = open_engine(sample_engine, llama, monkeypatch, YINZHENG_LLM_QUERY_HELP="1")
    record = engine.ask(FOLLOW_UP, history=[EARLIER], save=False)
    rewrite = engine.generators["openai"].rewrite_query(FOLLOW_UP, [EARLIER])  # temperature 0: the same reply
    assert rewrite, "the model returned an empty query"
    assert record.retrieval_query == rewrite
    assert record.status != "error", record.error


def test_server_killed_mid_stream_keeps_question_and_evidence(gguf, sample_engine, monkeypatch):
    with LlamaServer(*gguf) as server:
        engine = open_engine(sample_engine, server, monkeypatch)
        shown: list[str] = []

        def kill_on_first_text(piece: str) -> None:
            shown.append(piece)
            server.kill()

        record = engine.ask(QUESTION, on_text=kill_on_first_text)
    assert shown, "nothing was streamed before the kill"
    assert record.status == "error" and "途中断开" in record.error, record.error
    assert record.query == QUESTION and len(record.chunks) >= 1
    stored = engine.records.get(record.answer_id)
    assert stored.status == "error" and len(stored.chunks) == len(record.chunks)
