"""Redaction before storage (issue 16 part B): golden inputs per rule (look-alikes kept),
the stored record holds no raw value, the prompt an LLM receives holds none either, and
citation markers sit on the sentences they cite in the stored (redacted) snapshot text."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from core.errors import ConfigError
from core.generators.openai_chat import OpenAIChatGenerator
from core.records.access import KbPolicy
from core.records.redaction import Redactor, extra_rules, redact
from tests.fakes import build_engine
from tests.gemini_server import StubGemini
from tests.openai_stub import citing_responder

CASES = (
    Path(__file__).resolve().parents[1] / "golden" / "redaction" / "cases.json"
)  # not in golden/*.json: those are render cases
GOLDEN = json.loads(CASES.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", GOLDEN, ids=[c["name"] for c in GOLDEN])
def test_golden_redaction(case):
    result = redact(case["text"])
    expected = case["stored"] if case["stored"] is not None else case["text"]
    assert result.text == expected
    assert list(result.rules) == case["rules"]
    for span in result.spans:  # offsets are code points into the stored text, on the placeholder
        assert result.text[span.start : span.end] == f"[{span.rule}]"


def test_configured_patterns_get_their_own_placeholder_and_bad_ones_are_refused():
    out = redact("工号 EMP-004711 与 EMP-12 不同", {"工号": r"EMP-\d{6}"})
    assert out.text == "工号 [工号] 与 EMP-12 不同" and out.rules == ("工号",)
    with pytest.raises(ConfigError, match="工号"):
        extra_rules({"工号": "EMP-("})
    with pytest.raises(ConfigError, match="empty"):
        extra_rules({"任意": r"\d*"})
    with pytest.raises(ConfigError, match="redaction must be true or false"):
        KbPolicy.from_settings("kb", {"redaction": "yes"})


def test_redact_does_not_mutate_and_is_idempotent():
    text = "电话 13812345678"
    once = redact(text)
    assert text == "电话 13812345678" and redact(once.text).text == once.text


RAW = ("13812345678", "13912345678", "oncall@example.com", "6222020200112233446", "11010519491231002X")
DOC = """---
title: 值班手册
permissions: hr-only-group
owner_id: "owner-4711"
---

## 值班电话

生产集群出现故障时，请拨打值班电话 13812345678 联系运维负责人。值班邮箱是 oncall@example.com，工单另行通知。

## 报销

报销款项打入银行卡 6222020200112233446。持卡人身份证号 11010519491231002X 需要登记。
"""
QUESTION = "我的手机号是 13912345678，生产集群出现故障时应该拨打哪个值班电话？"


@pytest.fixture()
def pii_engine(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "oncall.md").write_text(DOC, encoding="utf-8")
    engine = build_engine(tmp_path / "data", [tmp_path / "docs"])
    redactor = KbPolicy.from_settings("default", {"redaction": True}).redactor()
    return dataclasses.replace(engine, redactor=redactor, records=engine.records.for_user("u" * 32))


def _assert_no_raw(text: str) -> None:
    for raw in RAW:
        assert raw not in text


def test_stored_record_holds_no_raw_value_and_markers_sit_on_their_sentences(pii_engine):
    record = pii_engine.ask(QUESTION)
    assert record.status == "answered", record.error
    stored = pii_engine.records.get(record.answer_id)
    _assert_no_raw(stored.model_dump_json())
    with pii_engine.records._database.read() as db:  # the raw row, columns included
        _assert_no_raw(" ".join(map(str, db.execute(sa.text("SELECT * FROM answers")).fetchone())))
    assert stored.query == "我的手机号是 [手机号]，生产集群出现故障时应该拨打哪个值班电话？"
    (note,) = [a for a in stored.audit if a.detail.get("kind") == "redaction"]
    assert note.detail["rules"] == "身份证号,银行卡号,手机号,邮箱" and "手机号" in note.detail["applied"]
    assert any("[手机号]" in c.text for c in stored.chunks)
    chunks = {c.chunk_id: c.text for c in stored.chunks}
    assert stored.supports
    for sup in stored.supports:  # the cited sentence is in the stored text of the chunk it cites
        sentence = stored.answer_text[sup.start : sup.end].strip()
        assert sentence and any(sentence in chunks[c] for c in sup.chunk_ids), sentence
    assert any("[手机号]" in stored.answer_text[s.start : s.end] for s in stored.supports)


def test_prompt_sent_to_a_hosted_llm_holds_no_raw_value_user_id_or_permission(pii_engine):
    with StubGemini([], responder=citing_responder) as stub:
        g = OpenAIChatGenerator(model="m", base_url=f"{stub.base_url}/v1", max_retries=0, timeout_s=5)
        record = pii_engine.ask(QUESTION, generator=g)
    assert record.status == "answered"
    prompt = json.dumps([r.body for r in stub.requests], ensure_ascii=False)
    assert "[手机号]" in prompt  # the redacted evidence and question did go out
    _assert_no_raw(prompt)
    for internal in ("u" * 32, "hr-only-group", "owner-4711", "user_id", "permissions"):
        assert internal not in prompt
    assert pii_engine.records.get(record.answer_id) is not None


def test_without_redaction_the_text_is_stored_as_is(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "oncall.md").write_text(DOC, encoding="utf-8")
    engine = build_engine(tmp_path / "data", [tmp_path / "docs"])
    record = engine.ask(QUESTION)
    assert "13912345678" in record.query and not any(a.detail.get("kind") == "redaction" for a in record.audit)


def test_redactor_needs_rules():
    with pytest.raises(ValueError):
        Redactor(())


def test_check_mode_stores_the_text_redacted_with_spans_on_it(pii_engine):
    from core.check import check_text

    text = "值班电话是 13812345678。报销款项打入银行卡 6222020200112233446。"
    record = check_text(pii_engine, text)
    stored = pii_engine.records.get(record.answer_id)
    _assert_no_raw(stored.model_dump_json())
    assert stored.answer_text == "值班电话是 [手机号]。报销款项打入银行卡 [银行卡号]。" == stored.query
    assert stored.supports and all(stored.answer_text[s.start : s.end].strip() for s in stored.supports)
    for sup in stored.supports:  # aligned quotes are code points into the stored snapshot text
        chunk = stored.chunk(sup.chunk_ids[0])
        assert chunk.text[sup.aligned_quote.start : sup.aligned_quote.end] == sup.quote
    (note,) = [a for a in stored.audit if a.detail.get("kind") == "redaction"]
    assert note.detail["applied"].split(",")[:2] == ["手机号", "银行卡号"]


def test_the_command_line_reads_redaction_from_the_secrets_file(tmp_path):
    from core.config import secrets_section
    from core.models import DEFAULT_KB
    from core.records.access import AccessConfig

    path = tmp_path / "secrets.toml"
    path.write_text(
        "[yinzheng.knowledge_bases.default]\nredaction = true\n" r"""redaction_patterns = { "工号" = 'EMP-\d{6}' }""",
        encoding="utf-8",
    )
    redactor = AccessConfig.from_mapping(secrets_section("yinzheng", path)).policy(DEFAULT_KB).redactor()
    assert redactor.redact("EMP-004711 与 13812345678").text == "[工号] 与 [手机号]"
    assert secrets_section("yinzheng", tmp_path / "missing.toml") == {}
