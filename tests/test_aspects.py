"""A question for drawbacks (``core.aspects``): found in use, "Deployment 和 StatefulSet 有什么区别？"
then "那它的缺点是什么？" was answered with a sentence on when to use a Deployment, and "CronJob 有什么
缺点？" with what a CronJob is. Such a question searches the words limits are stated with, is answered
from sentences that state one, and is refused when no evidence speaks of a drawback or limit."""

from __future__ import annotations

import pytest

from core import sufficiency as suf
from core.aspects import asks_drawback, drawback_expansion, drawback_missing
from core.generators.extractive import ExtractiveGenerator
from core.lexical import LexicalIndex
from core.query import plan_query
from core.retrieval import plan_config
from tests.test_sufficiency_terms import LENIENT


@pytest.mark.parametrize(
    "question",
    ["CronJob 有什么缺点？", "那它的缺点是什么？", "Deployment 和 StatefulSet 的优缺点", "这种做法有哪些不足？",
     "StatefulSet 有什么局限性？", "What are the drawbacks of CronJob?", "Any downsides to hostPath volumes?"],
)
def test_questions_for_drawbacks(question):
    assert asks_drawback(question)


@pytest.mark.parametrize(
    "question",
    ["节点资源不足时 Pod 会怎样？", "这个策略只局限于一个命名空间吗？", "CronJob 有什么限制？", "Deployment 和 StatefulSet 有什么区别？", "Deployment 的优点是什么？",
     "How do I set resource limits?", "What are the pros of consensus?"],
)
def test_other_questions(question):
    assert not asks_drawback(question)


def test_expansion_adds_the_words_of_limits_the_question_lacks():
    assert drawback_expansion("CronJob 有什么缺点？") == ("限制", "局限")
    assert drawback_expansion("StatefulSet 的局限和缺点") == ("限制",)
    assert drawback_expansion("CronJob 有什么限制？") == ()


def test_a_chinese_knowledge_base_is_searched_for_limits_too():
    kb = LexicalIndex(["a", "b"], ["CronJob 创建基于时隔重复调度的 Job。", "CronJob 有所限制，也比较特殊。"])
    plan = plan_query("CronJob 有什么缺点？", kb)
    assert plan.lexical_text == "CronJob 有什么缺点？ 限制 局限" and plan.dense_text == "CronJob 有什么缺点？"
    assert plan_config(plan) == {"lexical_expansion": "限制 局限"}  # on the record
    hits = [cid for cid, _ in kb.search(plan.lexical_text, 2)]
    assert hits[0] == "b"
    english = LexicalIndex(["a"], ["CronJob has some limitations."])
    assert plan_query("CronJob 有什么缺点？", english).expansion == ()  # not the Chinese words over English text
    assert plan_query("CronJob 有什么区别？", kb).lexical_text == "CronJob 有什么区别？"


def test_drawback_missing():
    definition = "CronJob 创建基于时隔重复调度的 Job。CronJob 用于执行排期操作。"
    limit = "删除或者扩缩 StatefulSet 并不会删除它关联的存储卷。这是 StatefulSet 的限制之一。"
    assert drawback_missing("CronJob 有什么缺点？", [definition])
    assert not drawback_missing("CronJob 有什么缺点？", [definition, limit])
    assert not drawback_missing("CronJob 是什么？", [definition])
    assert not drawback_missing("CronJob 有什么缺点？", [])


WHEN = "如果应用程序不需要任何稳定的标识符或有序的部署，则应该使用 Deployment 或者 ReplicaSet，对于需要本地状态的工作负载，请考虑使用 StatefulSet。"
LIMITS = "StatefulSet 的存储必须由 PersistentVolume 驱动。删除或者扩缩 StatefulSet 并不会删除它关联的存储卷，这是它的限制。"


def test_the_decision_refuses_drawbacks_no_evidence_speaks_of():
    """Even a model that accepts everything does not answer drawbacks from a chunk on when to use what."""
    q = "Deployment 和 StatefulSet 的缺点是什么？"
    kb = LexicalIndex(["when", "other"], [WHEN, "边车容器与主容器一起运行。"])
    cand = suf.Candidate("when", WHEN, 0.8, 0.9, 1, 1, 1)
    dec = suf.decide(q, [cand], kb, kb_text=WHEN.lower(), hybrid=True, model=LENIENT)
    assert not dec.sufficient and dec.evidence_ids == ()
    assert dec.message == "知识库的相关内容没有谈到这个问题所问的缺点或限制。"
    assert any("drawback" in r for r in dec.reasons)
    kb2 = LexicalIndex(["when", "limits"], [WHEN, LIMITS])
    given = [cand, suf.Candidate("limits", LIMITS, 0.8, 0.9, 2, 2, 2)]
    dec2 = suf.decide(q, given, kb2, kb_text=(WHEN + LIMITS).lower(), hybrid=True, model=LENIENT)
    assert dec2.sufficient and "limits" in dec2.evidence_ids
    plain = suf.decide("Deployment 和 StatefulSet 有什么区别？", [cand], kb, kb_text=WHEN.lower(), hybrid=True, model=LENIENT)
    assert plain.sufficient  # the rule reads only questions for drawbacks


def test_the_extractive_answer_leads_with_the_stated_limit(sample_engine):
    q = "CronJob 有什么缺点？"
    chunks = sample_engine.retriever(top_k=5).retrieve(q).chunks
    assert chunks[0].chunk.heading_path == ("CronJob",)  # the overview first: "CronJob 创建基于时隔重复调度的 Job。"
    assert any("CronJob 的限制" in rc.chunk.heading_path for rc in chunks)  # found through 限制
    lead = ExtractiveGenerator().generate(q, chunks).text.split("\n")[0]
    assert "限制" in lead, lead


def test_a_follow_up_for_drawbacks_is_not_answered_with_a_sentence_on_something_else(sample_engine):
    first = "Deployment 和 StatefulSet 有什么区别？"
    record = sample_engine.ask("那它的缺点是什么？", history=[(first, "")], save=False)
    assert record.retrieval.get("lexical_expansion") == "限制 局限"
    if record.status == "answered":  # either refused, or answered from what states a limit
        assert any(w in record.answer_text for w in ("限制", "不会", "不支持", "局限")), record.answer_text
    else:
        assert record.sufficiency is not None and record.sufficiency.message
