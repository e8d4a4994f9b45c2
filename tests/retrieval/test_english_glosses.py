"""An English question searched in a Chinese knowledge base's words (core.retrieval.english_glosses; a helper's round,
session 22: "Can I smoke on the balcony?" over house rules that say "不允许在室内吸烟（阳台也不行）" was refused, and 3 of 5
English questions over each of two new bases missed the asked value)."""

from __future__ import annotations

from core.lexical import LexicalIndex
from core.retrieval.english_glosses import LIMIT, chinese_glosses
from core.retrieval.query import plan_query

RULES = [
    "不允许在室内吸烟（阳台也不行），违者罚款 200 元。",
    "押金为一个月房租，退租时全额退还。",
    "晚上 22:00 以后不能使用洗衣机。",
    "垃圾请分类投放到楼下的垃圾桶。",
]


def _df(words: dict[str, int]):
    return lambda w: words.get(w, 0)


def test_an_english_words_glosses_are_the_ones_the_base_has():
    base = _df({"吸烟": 1, "阳台": 1, "押金": 3, "抽烟": 0})
    assert chinese_glosses("Can I smoke on the balcony?", base) == ["吸烟", "阳台"]  # 抽烟 is not in the base
    assert chinese_glosses("Is there a deposit?", base) == ["押金"]
    assert chinese_glosses("Can I do it?", base) == []  # words that ask or point are not glossed


def test_a_phrase_is_glossed_whole_and_a_word_the_base_has_is_left_as_it_is():
    base = _df({"会议室": 2, "会议": 5, "房间": 4, "支付": 3})
    assert chinese_glosses("How much is the meeting room?", base) == ["会议室"]  # not 会议 and 房间 besides
    assert chinese_glosses("Can I pay with Visa?", _df({"支付": 3, "pay": 1})) == []  # an English page says pay
    many = " ".join(f"w{i}" for i in range(30))
    assert len(chinese_glosses("smoke balcony deposit " + many, base)) <= LIMIT


def test_an_english_question_over_a_chinese_base_is_searched_with_the_glosses():
    lexical = LexicalIndex([f"c{i}" for i in range(len(RULES))], RULES)
    plan = plan_query("Can I smoke on the balcony?", lexical)
    assert plan.cross_script
    assert {"吸烟", "阳台"} <= set(plan.expansion) and "吸烟" in plan.lexical_text
    assert plan.own_text == "Can I smoke on the balcony?"  # what the decision's evidence width reads
    assert lexical.search(plan.lexical_text, 1)[0][0] == "c0"
    assert lexical.search("Can I smoke on the balcony?", 1) == []  # without the glosses BM25 finds nothing
    chinese = plan_query("阳台可以吸烟吗？", lexical)
    assert not chinese.cross_script and chinese.own_text is None
