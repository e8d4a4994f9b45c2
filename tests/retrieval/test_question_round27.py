"""Question analysis from session 27's helpers' rounds: a unit of measure is no name, a colour is a kind of answer."""

from __future__ import annotations

from core.lexical import LexicalIndex
from core.retrieval.question import analyse, named_terms
from core.retrieval.sufficiency_terms import absent_share


def test_a_unit_of_measure_is_no_name():
    """ "How much is electricity per kWh?" (h40a a11) had been refused as 「kWh」 absent over "电费 | 0.68元/度"."""
    assert named_terms("How much is electricity per kWh?") == []
    assert named_terms("内存要 16 GB 吗？") == []
    assert named_terms("ICMP 怎么放行？") == ["ICMP"]  # an acronym is still one
    assert named_terms("How do I configure IngressClass?") == ["IngressClass"]


def test_the_word_for_a_colour_is_no_absent_topic():
    """ "疏散引导员戴什么颜色的袖标？" (h41c c18): 颜色 names the kind of answer (黄色), as 电话 names a phone number."""
    q = analyse("疏散引导员戴什么颜色的袖标？")
    assert "color" in q.wants and q.kind_words == ("颜色",)
    pages = ["各部门疏散引导员佩戴黄色袖标，负责引导本部门人员并最后撤离。", "演练当天 13:50 会通过广播提前预告。"]
    lexical = LexicalIndex(["a", "b"], pages)
    assert absent_share("疏散引导员戴什么颜色的袖标？", lexical) == 0.0
