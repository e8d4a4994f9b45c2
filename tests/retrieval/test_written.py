"""The knowledge base's own writing in a conversation (core.retrieval.written): names jieba cuts into pieces
(婴儿服 → 婴儿 / 服, 除螨 → 除 / 螨) are carried whole, and a turn naming another row of a table replaces the
earlier one (a helper's round, session 22: "那除螨程序呢？" after questions about 婴儿服 was answered with the 婴儿服 row,
and "这个程序最多能放几公斤衣服？" with its 4 kg instead of 除螨's 5 kg)."""

from __future__ import annotations

from core.lexical import LexicalIndex
from core.retrieval.query import resolve_query
from core.retrieval.written import Written, table_rows, written_for

PROGRAMS_1 = (
    "程序 | 默认温度 | 默认时长 | 最大洗涤量\n"
    "--- | --- | --- | ---\n"
    "标准洗 | 40 ℃ | 1 小时 50 分 | 9 kg\n"
    "羊毛 | 冷水 | 55 分 | 2 kg"
)
PROGRAMS_2 = (
    "程序 | 默认温度 | 默认时长 | 最大洗涤量\n"
    "--- | --- | --- | ---\n"
    "婴儿服 | 60 ℃ | 2 小时 10 分 | 4 kg\n"
    "除螨 | 60 ℃ | 2 小时 | 5 kg\n"
    "`快洗` | 冷水 | 15 分 | 2 kg"
)
OTHER = [
    "洗衣机首次使用前须拆除背部的 4 颗运输螺栓。",
    "童锁：同时按住温度键和转速键 3 秒开启或解除。",
    "排水泵过滤器每月清洗一次，清洗前先排空余水。",
    "机器运行时不要打开机门，门锁指示灯熄灭后再开门。",
]
CHUNKS = [("programs.md", PROGRAMS_1), ("programs.md", PROGRAMS_2), *(("care.md", t) for t in OTHER)]


def _base() -> tuple[LexicalIndex, Written]:
    lexical = LexicalIndex([f"c{i}" for i in range(len(CHUNKS))], [t for _, t in CHUNKS])
    return lexical, written_for(lexical, CHUNKS)


def test_a_tables_rows_are_named_by_their_first_cells_across_the_chunks_of_one_document():
    rows = table_rows(CHUNKS)
    assert rows == (frozenset({"标准洗", "羊毛", "婴儿服", "除螨", "快洗"}),)  # the header's 程序 aside, backticks off
    assert table_rows([("a.md", "项目 | 价格\n--- | ---\n补胎 | 25 元")]) == ()  # one row names no kind
    # the same header in another document is another table
    two = table_rows([("a.md", PROGRAMS_1), ("b.md", PROGRAMS_2)])
    assert len(two) == 2


def test_a_term_grows_to_the_name_the_base_writes_and_no_further():
    _, written = _base()
    assert written.grown("婴儿", "婴儿服程序默认是多少度？") == "婴儿服"
    assert written.grown("排水", "排水泵过滤器多久洗一次？") == "排水"  # 排水泵 is written, but is no row nor word
    assert written.grown("排水", "排水泵过滤器多久洗一次？", is_word=lambda s: s == "排水泵") == "排水泵"
    assert written.grown("排水", "排水泵过滤器多久洗一次？", is_word=lambda s: s == "排水泵过滤器") == "排水"  # too far
    assert written.grown("门锁", "门锁什么时候开？") == "门锁"


def test_rows_named_finds_a_row_jieba_cuts_into_pieces_and_english_names_as_words():
    _, written = _base()
    assert written.rows_named("那除螨程序呢？") == ["除螨"]
    assert written.rows_named("这个程序最多能放几公斤衣服？") == []
    assert written.row_siblings("婴儿服", "除螨") and not written.row_siblings("婴儿服", "婴儿服")
    ascii_rows = Written("", (frozenset({"type", "prefix"}),))
    assert ascii_rows.rows_named("pathType 是什么？") == []
    assert ascii_rows.rows_named("Prefix 类型怎么匹配？") == ["Prefix"]


def test_a_conversation_over_a_table_follows_the_row_each_turn_names():
    lexical, written = _base()
    history: list[tuple[str, str]] = [("婴儿服程序默认是多少度？", "婴儿服 | 60 ℃ | 2 小时 10 分 | 4 kg")]
    second = resolve_query("它要洗多长时间？", history, lexical, written)
    assert second.text.startswith("婴儿服 ")
    history.append(("它要洗多长时间？", "婴儿服 | 60 ℃ | 2 小时 10 分 | 4 kg"))
    third = resolve_query("那除螨程序呢？", history, lexical, written)
    assert "除螨" in third.text and "多长时间" in third.text and "婴儿" not in third.text
    history.append(("那除螨程序呢？", "除螨 | 60 ℃ | 2 小时 | 5 kg"))
    fourth = resolve_query("这个程序最多能放几公斤衣服？", history, lexical, written)
    assert fourth.text.startswith("除螨") and "婴儿" not in fourth.text
    # without the base's writing the pieces jieba cut are carried, and the earlier row stays (what happened before)
    assert "婴儿" in resolve_query("这个程序最多能放几公斤衣服？", history, lexical).text
