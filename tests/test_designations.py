"""Floors and buildings however they are written (``core.designations``), from two helpers' rounds of session 27: a
fire-drill notice's table by floor (3F, 4F, 5F, 7F) and a bulky-waste notice's table by building (1-6号楼, 7-12号楼,
13-18号楼), asked "5楼几点开始演练？", "我住15号楼…", "…on the 7th floor?" and "…for building 3?"."""

from __future__ import annotations

import pytest

from core.designations import MAX_RANGE, is_designation, terms
from core.lexical import LexicalIndex, is_value_term, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5楼几点开始演练？", ["5楼"]),
        ("| 5F | 研发一部、测试部 | 14:20 |", ["5楼"]),
        ("我家住六楼没电梯", ["6楼"]),
        ("二十三楼", ["23楼"]),
        ("第3层", ["3楼"]),
        ("楼层安全员（3F-4F）：刘敏", ["3楼", "4楼"]),
        ("7-12号楼哪天清运？", ["7号楼", "8号楼", "9号楼", "10号楼", "11号楼", "12号楼"]),
        ("4—6 栋", ["4号楼", "5号楼", "6号楼"]),
        ("我住 4 栋，18 号白天家里有水吗？", ["4号楼"]),
        ("What time does the drill start on the 7th floor?", ["7楼"]),
        ("When is the bulky waste collection for building 3?", ["3号楼"]),
    ],
)
def test_each_way_of_writing_a_floor_or_building_gives_its_term(text, expected):
    assert terms(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "七层负载均衡",  # a network layer, not a floor
        "走楼梯，不要乘坐电梯",
        "楼道内不得堆放杂物",
        "2.5楼",
        "0x1F",
        f"1-{MAX_RANGE + 5}号楼",  # no list of buildings
        "10月18日",
    ],
)
def test_no_floor_or_building_where_none_is_named(text):
    assert terms(text) == []


def test_the_terms_join_the_words_bm25_and_coverage_read():
    rows = {
        "3f": "3F | 客服中心、前台 | 14:00 | 东侧楼梯",
        "4f": "4F | 财务部、人力资源部 | 14:00 | 西侧楼梯",
        "5f": "5F | 研发一部、测试部 | 14:20 | 东侧楼梯",
    }
    assert "5楼" in tokenize(rows["5f"])
    index = LexicalIndex(list(rows), list(rows.values()))
    assert index.search("5楼几点开始演练？", 3)[0][0] == "5f"
    # a floor the documents do not name weighs nothing, like a number the person states
    assert is_designation("8楼") and is_value_term("8楼") and is_value_term("65") and not is_value_term("楼梯")
    assert index.coverage("8楼几点开始演练？", [0]) == index.coverage("几点开始演练？", [0])


def test_a_building_inside_a_range_finds_the_range_row():
    rows = {
        "a": "10月12日（星期六） | 1-6号楼 | 8:00-11:30",
        "b": "10月19日（星期六） | 13-18号楼 | 8:00-11:30",
        "c": "10月20日（星期日） | 19-22号楼及沿街商铺 | 8:00-11:30",
    }
    index = LexicalIndex(list(rows), list(rows.values()))
    assert index.search("我住15号楼，旧沙发哪天可以扔？", 3)[0][0] == "b"
    assert index.search("When is the bulky waste collection for building 3?", 3)[0][0] == "a"
