"""The answer a person looks for first (a fresh-clone helper's round, session 22, over a washing machine's manual and a
kindergarten's handbook the helper wrote): a phone number for a question about a phone, and the sentence about the
thing asked how to operate, not another that happens to use the question's verb."""

from __future__ import annotations

from core.generators.extractive import ExtractiveGenerator
from core.generators.question_types import says_phone_number
from tests.generators.test_extractive import rc

ERRORS = "请先按下表自行处理；处理后仍不能恢复的，请联系售后服务。"
SERVICE = (
    "- 全国服务热线：400-820-6688（8:00–20:00，节假日不休）\n"
    "- 微信公众号可在线预约上门。\n"
    "- 上门服务在城市地区 48 小时内响应，偏远地区 72 小时内。"
)
CONTROLS = (
    "- 预约：按“预约”键设定 1–24 小时后完成洗涤。\n"
    "- 童锁：同时按住“温度”和“转速”键 3 秒开启或解除。\n"
    "- 中途添衣：运行中按“启动/暂停”键，待门锁指示灯熄灭后可打开机门。"
)
LEAVE = (
    "孩子在园期间出现发热等不适，保健医生会先将孩子带到隔离观察室，并立即通知家长。\n\n"
    "幼儿因事或因病不能来园，请家长在当天早上 8:00 前通过小程序提交请假，或打电话给班主任。"
)


def test_a_phone_number_answers_a_question_for_the_phone():
    """ "售后服务电话是多少？" had been led by "…请联系售后服务。" (its words 售后 服务), with the hotline's number second:
    a sentence that gives a phone number has what 电话 asks for."""
    chunks = [rc("m.md#7", ("故障代码",), ERRORS, 1), rc("m.md#9", ("保养与保修", "售后服务"), SERVICE, 2)]
    draft = ExtractiveGenerator().generate("售后服务电话是多少？", chunks)
    assert draft.text.startswith("全国服务热线：400-820-6688"), draft.text
    assert says_phone_number("值班电话 027-8765 4000") and says_phone_number("拨打 +86-10-6588-3000")
    assert not says_phone_number("自 2023-07-01 起") and not says_phone_number("固定工位 1,880 元/月")


def test_a_how_to_question_is_led_by_the_sentence_about_its_thing_not_by_another_with_its_verb():
    """ "怎么打开童锁？" had been led by "中途添衣：…可打开机门。" (it has 打开; the manual says 童锁…开启): the how-to rule
    does not put a sentence with the question's verb first when it lacks the question's most specific word (童锁)
    that the lead names. A lead that only shares an everyday word (孩子) still gives way to the sentence that says
    the action (请假)."""
    draft = ExtractiveGenerator().generate("怎么打开童锁？", [rc("m.md#4", ("使用", "功能按键"), CONTROLS, 1)])
    assert draft.text.startswith("童锁：同时按住"), draft.text
    draft = ExtractiveGenerator().generate("孩子生病了怎么请假？", [rc("k.md#3", ("请假",), LEAVE, 1)])
    assert draft.text.startswith("幼儿因事或因病不能来园"), draft.text
