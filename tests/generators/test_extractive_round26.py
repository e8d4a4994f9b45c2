"""The line a person looks for first (fresh-clone helpers' rounds, session 26, over a primary school's winter-holiday
notice, a static site generator's docs, a gas-safety notice and a music school's fees the helpers wrote): a numbered
list of labelled topics is no sequence of steps, a question for a default is led by the line that says the default, a
sentence of four characters states its fact, and a count of lessons is not the thing priced."""

from __future__ import annotations

from core.generators.extractive import ExtractiveGenerator
from tests.generators.test_extractive import rc

NOTICE = "晨光路小学 2025 年寒假致家长的一封信"
SAFETY = (
    "1. 交通安全：12 周岁以下儿童不得骑自行车上路，乘车系好安全带。\n"
    "2. 防溺水、防冰面：不到河边、池塘玩耍，不在未开放的冰面上滑冰。\n"
    "3. 烟花爆竹：必须在家长陪同下燃放，不购买“三无”产品。\n"
    "4. 防诈骗：不要用家长手机在游戏、直播中充值或扫陌生二维码。\n"
    "5. 健康：冬季流感高发，如出现发热，请及时就医并告知班主任。"
)
SIGNUP = (
    "1. 注册：在小程序首页点“注册”，填写手机号。\n2. 绑卡：在“我的”中绑定会员卡。\n3. 领券：注册后新人券包自动发放。"
)
SERVER = (
    "启动本地预览服务器，默认地址为 `http://localhost:1414/`，修改文件后浏览器会自动刷新。\n\n常用参数：\n\n"
    "- `-D` / `--buildDrafts`：同时显示草稿\n- `-p` / `--port`：指定端口"
)
PORT_IN_USE = "说明已经有一个 papyr server 在运行，或者端口被别的程序占用。用 `papyr server -p 1515` 换一个端口即可。"


def test_the_item_a_labelled_list_gives_the_topic_asked_answers_alone():
    """ "烟花爆竹怎么放" (h39c c04) had been answered with the whole numbered safety list, 交通安全 first: a question
    for how (怎么) brought every step of the list its lead item is in, but these items are topics, each labelled."""
    draft = ExtractiveGenerator().generate("烟花爆竹怎么放", [rc("n.md#3", (NOTICE, "三、安全提醒"), SAFETY, 1)])
    assert draft.text == "烟花爆竹：必须在家长陪同下燃放，不购买“三无”产品。"


def test_numbered_steps_still_come_whole():
    """Steps that are labelled too, asked as a process, still come in the document's order (the rule of session 19)."""
    draft = ExtractiveGenerator().generate("会员怎么办理？", [rc("m.md#1", ("会员", "如何成为会员"), SIGNUP, 1)])
    assert draft.text.split("\n\n")[0].startswith("注册：在小程序首页点“注册”"), draft.text
    assert "绑卡" in draft.text and "领券" in draft.text, draft.text


def test_a_label_that_names_the_sections_topic_singles_out_no_item():
    """ "博物馆的语音导览怎么用？" (h30b b-16) keeps both ways under "## 语音导览": 导览 in "导览机租用：" is the section's topic."""
    guide = (
        "1. 免费：扫描展品旁的二维码，在手机上收听讲解（请自带耳机）。\n"
        "2. 导览机租用：一层服务台租用，每台 20 元，需押身份证或 200 元押金，支持中文、英语、日语三种语言。"
    )
    draft = ExtractiveGenerator().generate(
        "博物馆的语音导览怎么用？", [rc("tours.md#3", ("讲解与导览", "语音导览"), guide, 1)]
    )
    assert "扫描展品旁的二维码" in draft.text and "导览机租用" in draft.text, draft.text


def test_a_question_for_a_default_is_led_by_the_line_that_says_the_default():
    """ "papyr server 默认端口是多少" (h39b b01) had been led by the troubleshooting line's "papyr server -p 1515" (its
    words papyr, server, 端口 and a number) over "…默认地址为 `http://localhost:1414/`"."""
    chunks = [
        rc("faq.md#4", ("常见问题 Troubleshooting", "Error: port 1414 already in use"), PORT_IN_USE, 1),
        rc("commands.md#2", ("命令参考", "papyr server"), SERVER, 2),
    ]
    first = ExtractiveGenerator().generate("papyr server 默认端口是多少", chunks).text.split("\n\n")[0]
    assert first.startswith("启动本地预览服务器，默认地址为 `http://localhost:1414/`"), first


GAS = "翠湖花园 2024 年度入户燃气安全检查通知"
PARTS = (
    "检查免费。若发现安全隐患需要更换配件，住户可自行选择是否由燃气公司现场更换，收费如下：\n\n"
    "| 配件 | 价格（含安装） |\n| --- | --- |\n| 不锈钢波纹管（1.5 米以内） | 68 元 |\n| 燃气表前球阀 | 45 元 |\n\n"
    "以上价格为统一定价，现场可用微信或支付宝付款，并开具收据。\n\n"
    "对于拒绝检查或连续两次预约未能入户的住户，燃气公司将依据相关规定采取限制供气措施。"
)


def test_a_short_sentence_that_states_the_fact_answers():
    """ "检查要收费吗？" (h38c) had been answered "…没有直接说明所问的金额或费用…" and led by the 限制供气 line: "检查免费。",
    five characters with its full stop, was under the shortest sentence the answer quotes."""
    draft = ExtractiveGenerator().generate("检查要收费吗？", [rc("g.md#4", (GAS, "更换配件收费标准"), PARTS, 1)])
    assert draft.text.split("\n\n")[0] == "检查免费。", draft.text
    assert "没有直接说明" not in draft.text


SCHOOL = "悦音琴行音乐学校"
FEES = (
    "| 课程 | 形式 | 每节时长 | 单节价格 | 20 节课包 |\n| --- | --- | --- | --- | --- |\n"
    "| 启蒙钢琴 | 一对二 | 40 分钟 | 150 元 | 2800 元 |\n| 成人钢琴 | 一对三小班 | 60 分钟 | 160 元 | 3000 元 |\n\n"
    "20 节课包的有效期为 8 个月，自第一节课开始计算。"
)
ADULTS = (
    "成人钢琴课面向零基础或多年没有弹琴的成年人，可选一对一或一对三小班。小班课安排在工作日晚上 19:30—20:30 和周六下午，"
    "适合上班族。"
)


def test_a_count_of_lessons_is_not_the_thing_whose_price_is_asked():
    """ "成人钢琴小班什么时间上课？一节多少钱？" (h38a a17) had its answer, which quotes the row "成人钢琴 | 一对三小班 | 60 分钟
    | 160 元", prefixed with "…没有直接说明所问的金额或费用": 一节 (one lesson) had been taken for the thing priced, and only
    "…自第一节课开始计算" says it."""
    chunks = [
        rc("fees.md#1", ("2024 年秋季学期收费标准", "课时费一览"), FEES, 1),
        rc("courses.md#3", (SCHOOL + "课程介绍", "钢琴课程", "成人钢琴"), ADULTS, 2),
    ]
    draft = ExtractiveGenerator().generate("成人钢琴小班什么时间上课？一节多少钱？", chunks)
    assert "没有直接说明" not in draft.text, draft.text
    assert "160 元" in draft.text and "19:30—20:30" in draft.text, draft.text
