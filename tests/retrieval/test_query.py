"""Query resolution (follow-ups), cross-script plans and the KB's own glossary (``core.retrieval.query``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.lexical import LexicalIndex, tokenize
from core.retrieval.query import (
    cjk_share,
    mine_glossary,
    plan_query,
    refers_back,
    resolve_query,
    salient_terms,
    topic_terms,
)
from core.retrieval.question import analyse


@pytest.fixture(scope="module")
def lexical(sample_engine):
    return sample_engine.index.lexical


def _with_filler(texts: list[str]) -> LexicalIndex:
    """``_lexical`` of ``texts`` and four filler chunks, so that a word of one text is rare in the base."""
    return _lexical([*texts, *(f"第 {i} 条：请遵守规定。" for i in range(4))])


def _lexical(texts: list[str]) -> LexicalIndex:
    """A BM25 index over ``texts``, chunk ids c0, c1, …"""
    return LexicalIndex([f"c{i}" for i in range(len(texts))], texts)


def test_a_follow_up_carries_the_subject_of_the_previous_question(lexical):
    history = ["CronJob 的 .spec.startingDeadlineSeconds 字段是干什么用的？"]
    r = resolve_query("那如果我压根不设置它呢？", history, lexical)
    assert r.rewritten and r.reason == "follow-up: refers back"
    assert r.carried == ("spec.startingDeadlineSeconds", "CronJob")
    assert r.text.endswith("那如果我压根不设置它呢？")
    # everyday words of the earlier turn (干什么, 用) are not carried
    assert not any(t in r.carried for t in ("干什么", "字段"))


def test_a_subject_survives_two_follow_ups(lexical):
    history = ["StatefulSet 的 podManagementPolicy 有哪些取值？", "它设成 Parallel 会怎样？"]
    r = resolve_query("那这个对滚动更新有影响吗？", history, lexical)
    assert {"podManagementPolicy", "StatefulSet", "Parallel"} <= set(r.carried)


def test_a_self_contained_question_is_not_rewritten(lexical):
    r = resolve_query("Ingress 的 pathType 有哪几种？", ["CronJob 的时间表语法是什么？"], lexical)
    assert not r.rewritten and r.text == "Ingress 的 pathType 有哪几种？" and r.carried == ()


def test_without_history_the_question_is_used_as_asked(lexical):
    assert resolve_query("  它默认是什么？ ", (), lexical).text == "它默认是什么？"


def test_resolution_does_not_mutate_its_input(lexical):
    history = ["CronJob 的 .spec.suspend 设为 true 会有什么效果？"]
    before = list(history)
    resolve_query("挂起期间错过的执行会补跑吗？", history, lexical)
    assert history == before


def test_a_topic_named_in_everyday_words_is_carried(lexical):
    """Found in use: "拓扑感知路由有哪些限制？" then "它有什么好处？" lost the topic (拓扑, 感知 and 路由 are each
    in 2–4% of the sample's chunks, none salient) and was answered from the DaemonSet page."""
    r = resolve_query("它有什么好处？", ["拓扑感知路由有哪些限制？"], lexical)
    assert r.rewritten and set(r.carried) == {"拓扑", "感知", "路由"}  # not 限制: a word of asking
    r2 = resolve_query("那它的缺点呢？", ["网络策略是什么？"], lexical)
    assert set(r2.carried) == {"网络", "策略"}
    # 不足之处 asks; it names nothing of its own (之处 is a rare term of the sample)
    r3 = resolve_query("有什么不足之处？", ["拓扑感知路由是什么？"], lexical)
    assert r3.reason == "follow-up: no salient term" and "拓扑" in r3.carried
    # a turn with salient terms carries those, as before
    assert resolve_query("它有什么缺点？", ["CronJob 是什么？"], lexical).carried == ("CronJob",)


def test_a_follow_up_about_such_a_topic_is_searched_there(sample_engine):
    record = sample_engine.ask("它有什么好处？", history=[("拓扑感知路由有哪些限制？", "")], save=False)
    assert record.retrieval_query is not None and "拓扑" in record.retrieval_query
    found = list(record.chunks) or [c.chunk for c in record.candidates]  # answered, or the closest chunks shown
    assert found and found[0].heading_path[0] == "拓扑感知路由"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("那如果这两个都没写呢？", True),
        ("它对滚动更新也起作用吗？", True),
        ("What does it default to?", True),
        ("Ingress 是什么？", False),
        ("How do I expose a Deployment?", False),
    ],
)
def test_refers_back(question, expected):
    assert refers_back(question) is expected


def test_salient_terms_keep_names_and_rare_domain_words(lexical):
    terms = salient_terms("gRPC 存活探针需要满足什么前提才能用？", lexical)
    assert terms[0] == "gRPC"
    assert "前提" not in terms and "满足" not in terms  # everyday words (jieba dictionary counts)


def test_an_english_question_over_the_chinese_sample_weights_the_dense_ranking(lexical):
    plan = plan_query("How do I expose a Deployment outside the cluster?", lexical)
    assert plan.cross_script and plan.dense_weight > plan.lexical_weight
    same = plan_query("怎样从集群外部访问 Deployment？", lexical)
    assert not same.cross_script and same.dense_weight == same.lexical_weight == 1.0


def test_cjk_share_counts_letters_only():
    assert cjk_share("Pod 是什么？") == pytest.approx(3 / 6)
    assert cjk_share("What is a Pod?") == 0.0 and cjk_share("123 ？") == 0.0


def test_the_glossary_is_mined_from_the_text_in_both_directions(lexical):
    g = mine_glossary(["一个 Pod 可以运行边车（sidecar）容器。", "端点的状况 Ready（就绪）为真。"])
    assert g["sidecar"] == ("边车",) and g["边车"] == ("sidecar",)
    assert g["ready"] == ("就绪",)
    plan = plan_query("What is a sidecar container used for?", lexical, g)
    assert plan.expansion == ("边车",) and "边车" in plan.lexical_text and plan.dense_text.startswith("What")


@pytest.mark.parametrize("question", ["赤狐平台的值班轮换周期是多久？", "Kafka 的分区怎么扩容？"])
def test_a_question_naming_what_the_knowledge_base_lacks_is_its_own_subject(lexical, question):
    """New-user pass: after an English question about Deployments, "赤狐平台的值班轮换周期是多久？"
    (no salient term the knowledge base knows) was searched as "Deployment 赤狐平台…" and its
    closest chunks were all Deployment pages. A name absent from the knowledge base is a new
    subject, not a follow-up."""
    r = resolve_query(question, ["How do I expose a Deployment outside the cluster?"], lexical)
    assert r.text == question and not r.carried


#: The one document of the clinic's one-document dev base (``own/clinic/single``), one text per
#: section as the chunker cuts it (heading path first): seven chunks.
INSURANCE = (
    "医保报销 在青禾社区卫生服务中心看门诊，可以使用医保卡或医保电子凭证结算。下面说明报销比例和需要注意的情况。",
    "医保报销 可以直接结算的人员 本市职工医保和城乡居民医保的参保人，在收费窗口或自助机刷卡即可即时结算，只需支付个人负担部分。"
    "外地医保的参保人，只有已经办理了异地就医备案的才能直接结算。",
    "医保报销 报销比例 职工医保：每个自然年的门诊起付线为 200 元，超过起付线的部分报销 90%；退休职工报销 95%。"
    "城乡居民医保：没有起付线，报销 60%，每人每年门诊报销的上限为 800 元。",
    "医保报销 不能报销的项目 健康体检、洗牙和牙齿美白等非治疗性口腔项目、自费疫苗、中药代煎的加工费，都不能用医保报销，需要全部自费。",
    "医保报销 没有备案的外地医保 没有办理异地就医备案的外地参保人，需要先全额自费，就诊后 6 个月内带上发票、费用明细清单和门诊病历，"
    "回参保地的医保经办机构申请报销。",
    "医保报销 慢性病长处方 已签约家庭医生、病情稳定的高血压、糖尿病患者，一次最多可以开 12 周的用量，药费按正常比例报销。",
    "医保报销 发票 电子发票可以在公众号“我的账单”里下载。需要纸质发票的，请在就诊后 90 天内到收费窗口补打，超过 90 天不再补打。",
)


def test_a_follow_up_on_a_one_document_base_carries_its_subject():
    """issue 26, clinic-single-004: on a base of seven chunks 1% of the chunks is less than one, so no
    term was salient and "那回去报销有没有时间限制？" was searched without 异地就医 / 备案 (refused). A term
    in one chunk that is not an everyday word is salient on any base; a turn's topic terms may be in
    two chunks."""
    lexical = _lexical(list(INSURANCE))
    assert "体检" in salient_terms("健康体检能用医保吗？", lexical)  # in one chunk of seven
    assert "医保" not in salient_terms("健康体检能用医保吗？", lexical)  # in every chunk
    resolved = resolve_query(
        "那回去报销有没有时间限制？", ["没办异地就医备案的外地医保，在这里看病怎么结算？"], lexical
    )
    assert resolved.carried and {"备案", "外地"} & set(resolved.carried), resolved
    assert resolved.text.endswith("那回去报销有没有时间限制？")


def test_a_name_every_chunk_shares_is_not_a_turns_topic():
    """tidb-031 (issue 26: "它 resolved to the product's name"): after "TiDB 的乐观事务模型是怎么工作的？" the
    follow-up "那它有哪些缺点？" carried only TiDB, which is in every chunk of TiDB's docs; it now carries the turn's
    topic terms (乐观, 模型) before it, and not 工作 (an everyday word rare in these docs)."""
    texts = [
        "TiDB 乐观事务模型 乐观事务原理：TiDB 的事务使用两阶段提交。",
        "TiDB 乐观事务模型 优缺点分析：两阶段提交使网络交互增多。",
        "TiDB 悲观事务模式：TiDB 支持悲观事务。",
        "TiDB 事务概览：TiDB 支持分布式事务。",
        "TiDB GC 机制：TiDB 定期清理旧版本。",
        "TiDB 锁视图：TiDB 提供锁等待信息。",
        "TiDB 读历史数据：TiDB 支持 Stale Read。",
        "TiDB 非事务 DML：TiDB 把语句拆成多个 batch。",
    ]
    lexical = _lexical(texts)
    assert salient_terms("TiDB 的乐观事务模型是怎么工作的？", lexical) == ["TiDB"]  # the name alone was carried
    r = resolve_query("那它有哪些缺点？", ["TiDB 的乐观事务模型是怎么工作的？"], lexical)
    assert "乐观" in r.carried and r.carried.index("乐观") < r.carried.index("TiDB"), r
    assert "工作" not in r.carried
    # a name that only some chunks share is still the turn's subject, carried alone
    assert resolve_query("那它有哪些缺点？", ["Stale Read 是什么？"], lexical).carried[0] in ("Stale", "Stale Read")


ORDERS = [
    "订单系统架构：订单系统使用 RabbitMQ 作为消息队列，订单写入 MySQL。",
    "RabbitMQ 的缺点：消息堆积时吞吐下降，集群扩容需要手工迁移队列。",
    "Kafka 的缺点：运维复杂，需要 ZooKeeper 或 KRaft。",
    "支付系统架构：支付系统使用 Kafka 传递支付事件。",
    "订单状态：订单有待支付、已支付、已取消三种状态。",
]


def test_a_follow_up_after_a_which_question_points_at_the_thing_the_answer_named():
    """A helper's report (session 11): "订单系统用的是什么消息队列？" was answered RabbitMQ, then "那它有哪些缺点？"
    carried 订单 from the question, so it asked about the order system. A turn that asks *which* thing passes
    the names its answer gives (in the knowledge base, not in the question) to the follow-up, first."""
    lexical = _lexical(ORDERS)
    turn = ("订单系统用的是什么消息队列？", "订单系统使用 RabbitMQ 作为消息队列，订单写入 MySQL。")
    r = resolve_query("那它有哪些缺点？", [turn], lexical)
    assert r.carried[0] == "RabbitMQ", r
    assert "Kafka" not in r.carried
    # a question only (no answer), or a turn that asked what something does, carries the question's subject
    assert "RabbitMQ" not in resolve_query("那它有哪些缺点？", [turn[0]], lexical).carried
    why = ("订单系统有什么作用？", "订单系统使用 RabbitMQ 作为消息队列，订单写入 MySQL。")
    assert "RabbitMQ" not in resolve_query("那它有哪些缺点？", [why], lexical).carried
    # a refusal that quotes a name the base lacks carries nothing from the answer
    refused = ("订单系统用的是什么缓存？", "知识库中没有关于「Redis」的内容。")
    assert "Redis" not in resolve_query("那它有哪些缺点？", [refused], lexical).carried
    # the not-stated line before the quoted sentences is skipped
    noted = ("订单系统用的是什么消息队列？", "检索到的内容没有直接说明所问的版本，以下是最接近的内容：\n\n" + turn[1])
    assert resolve_query("那它有哪些缺点？", [noted], lexical).carried[0] == "RabbitMQ"
    english = ("Which message queue does the order system use?", "订单系统使用 RabbitMQ 作为消息队列。")
    assert resolve_query("What are its drawbacks?", [english], lexical).carried[0] == "RabbitMQ"


STACK = [
    "订单系统使用 RabbitMQ 作为消息队列，订单库使用 MySQL 8.0，缓存使用 Redis。",
    "日志采集使用 Kafka 作为消息队列。",
    "RabbitMQ 的缺点：消息堆积时吞吐下降。",
    "Kafka 的缺点：运维复杂。",
    "Redis 的数据默认不持久化。",
    "MySQL 8.0 的缺点：大表变更慢。",
    "订单系统的日志保留 30 天。",
    "库存系统使用 PostgreSQL 14。",
]


def test_the_name_carried_from_an_answer_is_the_one_asked_for():
    """A helper's break-it report (session 12) on the rule above: the answer "订单系统使用 RabbitMQ 作为消息队列，订单库
    使用 MySQL 8.0，缓存使用 Redis。" carried 8.0 first (a version is no name to carry) and the cache question
    carried RabbitMQ; a question that names its own subject got RabbitMQ in front."""
    lexical = _lexical(STACK)
    queue = ("订单系统用的是什么消息队列？", STACK[0])
    r = resolve_query("那它有哪些缺点？", [queue], lexical)
    assert r.carried[0] == "RabbitMQ" and "8.0" not in r.carried and "Redis" not in r.carried, r
    cache = ("订单系统的缓存用的是什么？", STACK[0])
    assert resolve_query("它的数据保存多久？", [cache], lexical).carried[0] == "Redis"
    db = ("库存系统用的是什么数据库？", "订单库使用 MySQL 8.0，库存系统使用 PostgreSQL 14。")
    assert resolve_query("那它有哪些缺点？", [db], lexical).carried[0] == "PostgreSQL"
    # a question with no 它 and no salient word of its own carries the earlier subject, not the answer's name
    own = resolve_query("订单系统的日志保留多久？", [queue], lexical)
    assert "RabbitMQ" not in own.carried, own
    # 它们 after a question about two: both names
    both = ("订单系统和日志采集分别用的是什么消息队列？", "订单系统使用 RabbitMQ，日志采集使用 Kafka。")
    assert {"RabbitMQ", "Kafka"} <= set(resolve_query("它们各有什么缺点？", [both], lexical).carried)


PLATFORM = [
    "朱雀结算服务使用 TiDB 7.1 作为数据库。",
    "TiDB 的缺点是小规模集群成本偏高。",
    "MySQL 的缺点是在线 DDL 对大表仍有锁等待风险。",
    "MongoDB 的缺点是多文档事务开销大。",
    "玄武调度系统同时使用 MongoDB 和 Elasticsearch 存储任务。",
    "Elasticsearch 的缺点是内存占用高。",
    "玄武调度系统手册由调度组维护。",
]


def test_a_follow_up_that_names_its_own_thing_or_points_at_the_answer_carries_nothing_else():
    """A second break-it round (session 12): "那 MySQL 有什么缺点？" after another product got that product put in
    front (a leading 那 counted as pointing back); "那它有什么缺点？" after "朱雀结算服务用的是什么数据库？" searched
    "TiDB 朱雀 结算 …" and was refused; a lead sentence that names nothing hid the answer's names."""
    lexical = _lexical(PLATFORM)
    db = ("朱雀结算服务用的是什么数据库？", PLATFORM[0])
    assert resolve_query("那 MySQL 有什么缺点？", [db], lexical).carried == ()
    assert resolve_query("那 MySQL 有什么缺点？", ["MongoDB 有什么缺点？"], lexical).carried == ()
    assert resolve_query("那它有什么缺点？", [db], lexical).carried == ("TiDB",)
    store = ("玄武调度系统用的是什么存储？", PLATFORM[6] + "\n\n- " + PLATFORM[4])
    assert set(resolve_query("它们各有什么缺点？", [store], lexical).carried) == {"MongoDB", "Elasticsearch"}
    # a follow-up with a pronoun still points back even when it names something
    assert "TiDB" in resolve_query("它和 MySQL 比有什么缺点？", [db], lexical).carried


MEMLOCK = [
    "TiKV 在 v6.0.0 中引入了内存悲观锁功能。",
    "当内存悲观锁占用的内存达到 Region 或 TiKV 节点的阈值时，加悲观锁会回退为使用 pipelined 加锁流程。",
    "该功能默认开启。如要关闭，可修改 TiKV 配置。",
]


def test_a_follow_up_after_a_question_for_what_a_thing_is_carries_the_thing_not_the_answers_name():
    """tidb-027, asked as the chat asks it (with the earlier answer): "TiKV 的内存悲观锁功能是什么？" is no
    which-question, so "这个功能默认是开着的吗？…" searched "Region …" (the first name its answer gave) and was
    refused. A which-question still reads the answer ("订单系统的缓存用的是什么？" → Redis)."""
    lexical = _lexical(MEMLOCK)
    what = ("TiKV 的内存悲观锁功能是什么？", "\n\n- ".join(MEMLOCK))
    r = resolve_query("这个功能默认是开着的吗？想关掉要怎么做？", [what], lexical)
    assert "Region" not in r.carried and "TiKV" in r.carried, r
    stack = _lexical(STACK)
    cache = ("订单系统的缓存是哪个？", STACK[0])
    assert resolve_query("它的数据保存多久？", [cache], stack).carried[0] == "Redis"


def test_a_pronoun_finds_the_subject_of_a_small_base_where_it_is_in_many_chunks():
    """A helper's round over a five-page library handbook: "少儿证最多能借几本书？" then "那用它借的书逾期了要交逾期费吗？"
    was searched alone (少儿 is in 4 of 25 chunks, too common to be the turn's topic) and answered with the e-book
    rule ("…不产生逾期费"), not "少儿证借阅的图书逾期不收取逾期费". 它 points at something: the earlier question's
    topic is read with a looser share then."""
    texts = [f"普通证第 {i} 条规则：按时归还图书。" for i in range(4)] + [
        "普通证每次最多借 10 册。",
        "电子书每次最多借 5 本。",
        "少儿证：免押金，只能借阅少儿图书和绘本，最多可同时借阅 5 册。",
        "少儿证借阅的图书逾期不收取逾期费，但会暂停借书。",
        "少儿阅览室位于二楼。",
        "未满 14 周岁的少年儿童办理少儿证。",
    ]
    lexical = _lexical(texts)
    assert (
        topic_terms("少儿证最多能借几本书？", lexical) == []
    )  # 少儿 is in 4 of 10 chunks: no topic by the usual share
    r = resolve_query("那用它借的书逾期了要交逾期费吗？", ["少儿证最多能借几本书？"], lexical)
    assert r.carried == ("少儿",), r
    # without a pronoun, a question with words of its own stands alone as before
    assert resolve_query("逾期费怎么交？", ["少儿证最多能借几本书？"], lexical).carried == ()


def test_a_follow_up_carries_no_verb_and_no_question_word():
    """A second helper's round: "装修垃圾放在哪里？" then "那它什么时候清运？" was searched as "放在 那它…" (a verb), and
    "固件升级要多长时间？" carried 多长时间 (jieba's dictionary counts it 3 times, so it looked rare)."""
    texts = [f"装修垃圾第 {i} 条：按规定处理。" for i in range(3)] + [
        "装修垃圾请装袋后放在地下一层的指定堆放点。",
        "物业每周二、周五统一清运。",
        "固件升级大约需要 5 分钟，期间请不要断电。",
        "升级完成后设备自动重启。",
        "滤网每 6 个月更换一次。",
    ]
    lexical = _lexical(texts)
    r = resolve_query("那它什么时候清运？", ["装修垃圾放在哪里？"], lexical)
    assert "放在" not in r.carried, r
    r = resolve_query("那这期间要注意什么？", ["固件升级要多长时间？"], lexical)
    assert "固件" in r.carried and not any("时间" in t for t in r.carried), r


#: A small transit-card base (a fresh-clone helper's round, session 18): on ten chunks 学生 and 地铁 are salient in none.
TRANSIT = [f"地铁第 {i} 条：学生卡和普通卡都可以刷卡进站。" for i in range(4)] + [
    "纪念卡：限量发售，售价 50 元，不可退卡。",
    "| 卡种 | 地铁折扣 | 公交折扣 | 备注 |\n| 学生卡 | 5 折 | 5 折 | 寒暑假期间正常使用 |",
    "公交车上投币或刷卡，学生卡按 5 折扣费。",
    "学生卡只能在星城通官方营业厅办理，办理后 7 个工作日可领取。",
    "挂失后 24 小时生效。",
    "补卡收取工本费 15 元。",
]


def test_a_follow_up_that_asks_the_earlier_question_of_something_else_carries_its_words():
    """A fresh-clone helper's round (session 18): over a five-page transit-card handbook, "学生卡坐地铁打几折？" then
    "那公交呢？" was searched as it stands (学生 and 地铁 are in a third of the chunks: no subject) and refused."""
    lexical = _lexical(TRANSIT)
    r = resolve_query("那公交呢？", ["学生卡坐地铁打几折？"], lexical)
    assert "学生" in r.carried and r.text.endswith("那公交呢？"), r
    assert resolve_query("What about the bus?", ["学生卡坐地铁打几折？"], lexical).carried == r.carried
    # a case of its own (如果/要是) or a pronoun is read as before, not as the earlier question asked again
    assert resolve_query("那如果不刷卡呢？", ["学生卡坐地铁打几折？"], lexical).reason != (
        "follow-up: asks the earlier question of something else"
    )


def test_on_a_small_base_a_question_of_its_own_words_is_no_follow_up():
    """A fresh-clone helper's round (session 18), in the chat: after "纪念卡多少钱？能退吗？", "学生卡坐地铁打几折？" was
    searched as "纪念 纪念卡 学生卡坐地铁打几折？" (on 23 chunks neither 学生 nor 地铁 is salient, so it looked like a
    follow-up), and "那公交呢？" then carried 纪念卡 too. Two words of its own the base has make a question of its own,
    and the next follow-up carries them."""
    lexical = _lexical(TRANSIT)
    first = "纪念卡多少钱？能退吗？"
    assert not resolve_query("学生卡坐地铁打几折？", [first], lexical).rewritten
    r = resolve_query("那公交呢？", [first, "学生卡坐地铁打几折？"], lexical)
    assert "学生" in r.carried and not any("纪念" in t for t in r.carried), r
    # a question with at most one word of its own still carries the subject ("多少钱？", "有什么不足之处？")
    assert "纪念卡" in resolve_query("多少钱？", [first], lexical).carried


def test_a_question_with_also_keeps_the_earlier_subject():
    """A fresh-clone helper's round (session 18): "寒暑假也能用吗？" (also in the holidays?) became the subject, so
    "它在哪里办理？" was searched for 寒暑假 and answered with the discount table; 它 is the 学生卡 asked about."""
    lexical = _lexical(TRANSIT)
    history = ["学生卡在地铁打几折？", "寒暑假也能用吗？"]
    assert "学生" in resolve_query(history[1], history[:1], lexical).carried  # the 也 question asks of 学生卡 too
    r = resolve_query("它在哪里办理？", history, lexical)
    assert "学生" in r.carried and not any("暑假" in t for t in r.carried), r
    # 也许 (maybe) is no 也
    assert resolve_query("营业厅也许周日关门？", history[:1], lexical).reason == "standalone"


def test_a_then_glued_to_the_next_word_is_left_out_of_the_search():
    """A second helper's round (session 18): "那年卡呢？" after "游泳馆的月卡多少钱？" was searched as "游泳 游泳馆
    那年卡呢？", which jieba cuts 那年 (that year) / 卡: no 年卡, and the 月卡 row was given again."""
    texts = [f"游泳馆第 {i} 条：请遵守规定。" for i in range(3)] + [
        "| 卡种 | 价格 |\n| 月卡 | 480元 |\n| 年卡 | 3800元 |",
        "深水合格证需现场考核。",
        "挂失后 24 小时生效。",
    ]
    lexical = _lexical(texts)
    r = resolve_query("那年卡呢？", ["游泳馆的月卡多少钱？"], lexical)
    assert r.text.endswith(" 年卡呢？") and "年卡" in tokenize(r.text), r
    # a 那 jieba does not glue to the next word stays: the dense rankings read the question whole
    assert resolve_query("那如果不带泳帽呢？", ["游泳馆的月卡多少钱？"], lexical).text.endswith("那如果不带泳帽呢？")


def test_an_elliptical_follow_up_naming_a_known_thing_asks_the_earlier_question_of_it():
    """A helper's round (session 19): "那 C1 呢？" after "普通班 C2 学费多少？" was searched as it stands (C1 is a thing
    the base has, so it looked like a new subject) and led with the 周末班 C1 row. It asks the earlier question of
    C1: the earlier words are carried, C2 (the thing it replaces) is not. A question of its own that names a known
    thing is still standalone."""
    texts = [
        "| 班型 | 驾照类型 | 学费（元） |\n| --- | --- | --- |\n| 普通班 | C1 手动挡 | 4800 |\n| 普通班 | C2 自动挡 | 5200 |",
        "| 周末班 | C1 手动挡 | 5600 |",
        "补考费按车管所标准另行收取。",
        "报名年龄为 18 至 70 周岁。",
    ]
    lexical = _lexical(texts)
    r = resolve_query("那 C1 呢？", ["普通班 C2 学费多少？"], lexical)
    assert "普通班" in r.carried and "学费" in r.carried and "C2" not in r.carried, r
    assert r.text.endswith("那 C1 呢？"), r
    assert resolve_query("那 C1 有什么要求？", ["普通班 C2 学费多少？"], lexical).reason == "standalone"


def test_an_elliptical_follow_up_asks_what_the_earlier_question_asked():
    """A helper's round (session 19): "那周日呢？" after "游泳馆周六几点开门？" carried 周六 (the day it replaces) and
    not what was asked (几点开门); "那釉下彩绘呢？" after "手捏体验课多少钱？" lost 多少钱, so the answer did not look for a
    price."""
    texts = [
        "| 日期 | 开放时间 |\n| 周六 | 08:00–22:00 |\n| 周日 | 08:00–20:00 |",
        "游泳馆入场须知。",
        "年卡 3800 元。",
    ]
    lexical = _with_filler(texts)
    r = resolve_query("那周日呢？", ["游泳馆周六几点开门？"], lexical)
    assert "几点开门" in r.text and "周六" not in r.text and r.text.endswith("那周日呢？"), r


def test_an_elliptical_follow_up_that_names_a_fee_asks_the_fee_not_the_earlier_question():
    """A second helper's round (session 19): "学费呢？" after "那 B 班什么时候上课？" carried 什么时候上课 and led with the
    age sentence; it asks the fee of the same class. "那周六呢？" after "家庭套房平日多少钱？" carried 平日 (the days it
    replaces)."""
    texts = [
        "少儿英语：适合 6 至 12 岁的孩子，分为 A 班和 B 班。",
        "少儿英语 B 班：每周日上午 10:00–11:30",
        "| 课程 | 学费（元/期） |\n| --- | --- |\n| 少儿英语 B 班 | 4200 |",
        "| 房型 | 平日价格（元/晚） | 周五、周六价格（元/晚） |\n| 家庭套房 | 780 | 980 |",
    ]
    lexical = _with_filler(texts)
    r = resolve_query("学费呢？", ["少儿英语适合多大的孩子？", "那 B 班什么时候上课？"], lexical)
    assert "什么时候" not in r.text and r.text.endswith("学费呢？"), r
    assert analyse(r.text).wants >= {"money"}
    r = resolve_query("那周六呢？", ["家庭套房平日多少钱？"], lexical)
    assert "平日" not in r.text and "多少钱" in r.text, r


def test_a_second_elliptical_follow_up_asks_what_was_asked_and_drops_the_thing_it_replaces():
    """A helper's round (session 20): "大间呢？" after "狗狗标准间一晚多少钱？" and "那周末呢？" led with the 大间's size: the
    question before it asks nothing of its own (那周末呢), so 多少钱 was lost, and 标准间 (the thing 大间 replaces, of
    another length) was carried with 标准, the piece jieba's search mode cuts from it."""
    texts = [
        "| 房型 | 平日（元/晚） | 周末及法定节假日（元/晚） |\n| --- | --- | --- |\n| 狗狗标准间 | 88 | 108 |\n"
        "| 狗狗大间 | 128 | 158 |",
        "狗狗标准间：2 平方米，适合体重 10 公斤以下的小型犬。",
        "狗狗大间：4 平方米，适合 10–25 公斤的中型犬。",
    ]
    lexical = _with_filler(texts)
    r = resolve_query("大间呢？", ["狗狗标准间一晚多少钱？", "那周末呢？"], lexical)
    assert "多少钱" in r.text and "标准" not in r.text and r.text.endswith("大间呢？"), r
    r = resolve_query("那周末呢？", ["狗狗标准间一晚多少钱？"], lexical)
    assert "标准间" in r.text and "多少钱" in r.text, r  # nothing replaced: the room is carried


def test_a_chinese_follow_up_to_an_english_question_carries_its_english_topic():
    """A helper's round (session 23), over an English backup tool's pages: "它默认保留几个每周快照？" after "What does burrow
    prune do?" was searched as it stands and refused (the Chinese topic reader finds no Chinese term in an English
    turn). 它 points at the earlier question's words the base has, rarest first."""
    from core.retrieval.query import english_topic

    pages = [
        "`burrow prune` deletes snapshots that the `keep_*` options no longer keep.",
        "| `keep_weekly` | `4` | weekly snapshots kept by `burrow prune` |",
        "burrow runs on Linux, macOS 12 or later and Windows 10 or later.",
        "Install burrow from the releases page.",
    ]
    lexical = LexicalIndex([str(i) for i in range(len(pages))], pages)
    assert english_topic("What does burrow prune do?", lexical) == ["prune", "burrow"]
    resolved = resolve_query("它默认保留几个每周快照？", ["What does burrow prune do?"], lexical)
    assert resolved.carried == ("prune", "burrow") and resolved.text.endswith("它默认保留几个每周快照？")


CARD = [
    "星途信用卡年费：普卡免年费，金卡 300 元，白金卡 880 元。",
    "信用卡挂失：拨打客服热线 400-820-6688，挂失即时生效。",
    "信用卡取现：境内 ATM 取现手续费 1%，最低 10 元。",
    "信用卡积分：每消费 20 元积 1 分，积分有效期 3 年。",
    "信用卡账单分期：3 期手续费 0.75%，24 期 0.6%。",
    "如何注销信用卡？还清全部欠款后，致电客服热线申请销户。销户申请提交后有 45 天的冷静期，冷静期内可以致电撤销。",
    "溢缴款：销户后卡内的溢缴款会退回您指定的本行借记卡。",
]


def test_a_follow_up_carries_the_answers_words_when_the_answer_says_none_of_its_questions():
    """A helper's round (session 24, a credit card's terms): "想把信用卡销掉，要怎么办？" is answered "…申请销户。销户申请提交后
    有 45 天的冷静期…", which does not say 信用卡 (nor 销掉); "那提交以后还能反悔吗？" had been searched as "信用 信用卡 那提交
    以后…" and refused. The answer's own topic words are carried first. When the answer says the carried subject, it
    stays the subject."""
    lexical = _lexical(CARD)
    turn = ("想把信用卡销掉，要怎么办？", "还清全部欠款后，致电客服热线申请销户。销户申请提交后有 45 天的冷静期。")
    r = resolve_query("那提交以后还能反悔吗？", [turn], lexical)
    assert r.carried and r.carried[0] in turn[1] and r.carried[0] not in turn[0], r
    said = ("金卡的年费是多少？", "星途信用卡年费：金卡 300 元。")
    assert (
        resolve_query("那它可以免吗？", [said], lexical).carried[:1]
        == resolve_query("那它可以免吗？", [said[0]], lexical).carried[:1]
    )


# a one-page notice a helper wrote (session 25), one chunk per section as the chunker cuts it (heading path first)
_NOTICE_TEXT = (Path(__file__).resolve().parents[1] / "data" / "water-outage-notice.md").read_text(encoding="utf-8")
_TITLE, *_SECTIONS = _NOTICE_TEXT.split("\n## ")
NOTICE = [_TITLE, *(_TITLE.splitlines()[0].lstrip("# ") + " " + s for s in _SECTIONS)]


def test_an_answer_that_says_a_word_of_its_question_keeps_the_questions_subject():
    """A helper's round (session 25, a one-page water-outage notice): "物业服务中心的电话是多少？" is answered
    "物业服务中心：0755-…" and the company's name under it; the subject carried from the question is 电话 (物业服务中心 is
    in every chunk), which the answer does not write, and the answer's rare words (the company's name: 深圳, 安居) had
    been carried into "它在哪里办公？" first. The answer writes 物业服务中心, a word of its question: it is about it."""
    lexical = _lexical(NOTICE)
    turn = (
        "物业服务中心的电话是多少？",
        "物业服务中心：0755-2678 4410（8:00–20:00）\n\n- 深圳市安居物业服务有限公司锦绣花园物业服务中心",
    )
    r = resolve_query("它在哪里办公？", [turn], lexical)
    assert r.carried and all(t in turn[0] for t in r.carried), r  # nothing of the answer's alone (温馨 提示, 深圳)


RACE = [
    "赛事日流程：7:45 迷你跑（5 公里）起跑；8:00 半程起跑。",
    "常见问题：孩子能一起跑吗？半程不允许，迷你跑允许 8 岁以上儿童在家长陪同下参加，但需单独报名。",
    "存包：5:30 存包区开始接受存包，6:45 存包截止。",
    "班型：VIP 班晚上可以练车，晚班（仅 VIP 班）18:30–21:00；普通班只在白天。",
]


def test_a_demonstrative_before_a_thing_the_answer_named_asks_about_that_thing():
    """A helper's round (session 25, a half-marathon notice): "那这个迷你跑几点开始？" after "我儿子今年10岁，能跟我一起跑吗？"
    (answered "…迷你跑允许 8 岁以上儿童在家长陪同下参加…") had been searched with 儿童 家长 陪同 carried and answered with
    the same sentence: 这个 points at 迷你跑, which the question names. A demonstrative before the earlier question's
    own subject still carries it (这个班 after "VIP 班…")."""
    lexical = _with_filler(RACE)
    turn = ("我儿子今年10岁，能跟我一起跑吗？", "半程不允许，迷你跑允许 8 岁以上儿童在家长陪同下参加，但需单独报名。")
    r = resolve_query("那这个迷你跑几点开始？", [turn], lexical)
    assert not r.rewritten and r.text == "那这个迷你跑几点开始？", r
    vip = ("VIP 班晚上几点能练车？", "晚班（仅 VIP 班）18:30–21:00")
    assert "vip" in [t.lower() for t in resolve_query("这个班一共多少钱？", [vip], lexical).carried]
    # a kind the answer's table heads (套餐) is the thing asked about before, not a new one (h37b b16)
    plans = _with_filler(["套餐 | 空间 | 单文件上限\n标准会员 | 200 GB | 20 GB", "高级会员 | 2 TB | 50 GB"])
    member = ("标准会员多少钱一个月？", "套餐 | 空间 | 单文件上限\n标准会员 | 200 GB | 20 GB")
    assert resolve_query("那这个套餐单个文件最大能传多大？", [member], plans).rewritten
