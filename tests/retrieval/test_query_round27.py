"""Follow-ups over two small bases of session 27's helpers (``benchmarks/eval-sets/helpers/h41b``, a bookkeeping app's
help centre, and ``h41c``, a one-page fire-drill notice), chunked by the app's own chunker: a turn's topic on a small
base, and the floor a turn names."""

from __future__ import annotations

from pathlib import Path

from core.ingest.corpus import parse_file
from core.lexical import LexicalIndex
from core.retrieval.query import resolve_query

_HELPERS = Path(__file__).resolve().parents[2] / "benchmarks" / "eval-sets" / "helpers"


def _base(name: str) -> tuple[LexicalIndex, dict[str, str]]:
    texts: dict[str, str] = {}
    for path in sorted((_HELPERS / name / "docs").glob("*.md")):
        _, chunks, _ = parse_file(path, path.name)
        texts.update({c.chunk_id: c.text for c in chunks})
    return LexicalIndex(list(texts), list(texts.values())), texts


def test_a_turn_with_one_rare_word_carries_its_other_topic_words():
    """ "它最多能设几个？" after "怎么设置每日记账提醒？" (h41b b15) had been searched as "每日 它最多能设几个？" and refused: on
    a base of 24 chunks only 每日 was rare enough to be the topic, while 提醒 and 记账 are each in 7."""
    lexical, texts = _base("h41b")
    resolved = resolve_query("它最多能设几个？", [("怎么设置每日记账提醒？", "")], lexical)
    assert "每日" in resolved.carried and len(resolved.carried) >= 2, resolved
    best = lexical.search(resolved.text, 1)[0][0]
    assert "最多可设置 3 个每日提醒时间" in texts[best], texts[best]


def test_the_floor_a_turn_names_follows_its_topic():
    """ "那我们走哪个楼梯下去？" after "3楼的集合点在哪里？" (h41c c16): 3楼 (the table's 3F) is a value of the subject, no
    topic; carried alone it had searched "3楼 那我们走…" and been refused."""
    lexical, texts = _base("h41c")
    resolved = resolve_query("那我们走哪个楼梯下去？", [("3楼的集合点在哪里？", "")], lexical)
    assert "集合点" in resolved.carried and resolved.carried[-1] == "3楼", resolved
    best = lexical.search(resolved.text, 1)[0][0]
    assert "3F | 客服中心、前台 | 14:00 | 东侧楼梯" in texts[best]
