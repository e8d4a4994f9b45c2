"""What the documents do not state (``core.generators.question_types.unstated``): a detail asked for that the answer's
sentences do not give."""

from __future__ import annotations

from core.generators.question_types import unstated


def test_a_number_of_another_thing_does_not_state_how_many_are_asked():
    """The manual of a helper's router (session 23): "路由器最多能同时连多少台设备？" (h28b-19; no device limit is
    given) had been answered with "最多可与 3 台同型号路由器组成一个 Mesh 网络", which reads as three devices;
    "托班每个班配几个老师？" (h24a-17) with the number of children per class. A number beside the counted thing's head
    (书 of 纸质书 in "10 册图书", 师 of 老师 in "2 名教师") states it."""
    assert unstated(
        "路由器最多能同时连多少台设备？", ["本机支持 Mesh 组网，最多可与 3 台同型号路由器组成一个 Mesh 网络。"]
    )
    assert unstated("托班每个班配几个老师？", ["每班幼儿人数：托班不超过 20 人，小班不超过 25 人。"])
    assert unstated("普通证最多能同时借几本纸质书？", ["普通证最多可同时借阅 10 册图书，借期 30 天。"]) is None
    assert unstated("托班每个班配几个老师？", ["托班每班配备 2 名教师和 1 名保育员。"]) is None


def test_a_discount_question_is_answered_by_a_share_of_the_price():
    """A helper's round (session 23): "学生票打几折？" led with the rule for who may buy student tickets over "学生票按全价票
    的 75% 计价，仅限二等座。": a question for a discount asks a price, and a share of the full price states one; no sum
    of money is needed."""
    from core.generators.question_types import has_wanted
    from core.retrieval.question import analyse

    assert "money" in analyse("学生票打几折？").wants
    assert has_wanted("学生票按全价票的 75% 计价，仅限二等座。", frozenset({"money"}))
    assert unstated("学生票打几折？", ["学生票按全价票的 75% 计价，仅限二等座。"]) is None
    assert unstated("学生票多少钱？", ["学生票按全价票的 75% 计价，仅限二等座。"]) == "money"  # a sum is asked


def test_a_rule_for_another_case_than_the_persons_does_not_state_it():
    """An eval set's A31 (a library handbook): "一年内第 3 次逾期会暂停借阅多少天？" was answered with the rule for the fifth
    time ("累计逾期 5 次及以上的，…暂停借阅 30 天"), read as if it were the person's. A number the question states with a
    unit outside every range the sentences state in that unit is another case: not stated. Inside one (工作满 12 年 in
    已满 10 年不满 20 年), or with no range in that unit, it is not."""
    from core.generators.quantities import outside_stated_ranges

    fifth = "一年内累计逾期 5 次及以上的，从第 5 次逾期的图书归还之日起，暂停借阅 30 天。"
    assert outside_stated_ranges("一年内第 3 次逾期会暂停借阅多少天？", [fifth])
    assert unstated("一年内第 3 次逾期会暂停借阅多少天？", [fifth]) == "number"
    assert unstated("一年内第 6 次逾期会暂停借阅多少天？", [fifth]) is None
    assert not outside_stated_ranges("工作满 12 年有几天年假？", ["已满 10 年不满 20 年的，年休假 10 天。"])
    assert not outside_stated_ranges("逾期 3 天要罚多少钱？", ["逾期每册每天 0.1 元。"])
