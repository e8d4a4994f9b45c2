"""core.cjk: the one "is this CJK" definition, and the modules that use it agree."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from core.cjk import is_cjk, is_cjk_punct
from core.cjk_emphasis import cjk_emphasis_plugin
from core.generators.structured import assemble_sentences
from core.ingest.chunking import parse_markdown


@pytest.mark.parametrize("ch", ["中", "㐀", "豈", "あ", "カ", "ㄅ", "한", "。", "，", "（", "Ａ", "𠀀"])
def test_cjk_characters(ch):
    assert is_cjk(ch)


@pytest.mark.parametrize("ch", ["a", "Z", "1", " ", ".", "é", "я", "🎉", "😀", "\u200d", "ꀀ"])
def test_not_cjk(ch):
    assert not is_cjk(ch)


@pytest.mark.parametrize(
    ("ch", "punct"),
    [("，", True), ("。", True), ("「", True), ("（", True), ("中", False), ("Ａ", False), ("１", False), (",", False)],
)
def test_cjk_punctuation(ch, punct):
    assert is_cjk_punct(ch) is punct


def test_sentences_after_an_emoji_keep_their_space():
    # an emoji is not CJK: two Latin-ish ends get a space; a CJK end gets none
    assert assemble_sentences(["Done 🎉", "Next."])[0] == "Done 🎉 Next."
    assert assemble_sentences(["完成。", "Next."])[0] == "完成。Next."


def test_emphasis_rule_uses_the_same_definition():
    md = MarkdownIt("commonmark").use(cjk_emphasis_plugin)
    assert "<strong>“重要”</strong>" in md.render("这是**“重要”**内容。")
    # half-width katakana (East Asian Width H) is CJK for the draft and for is_cjk
    assert "<strong>“ﾃｽﾄ”</strong>" in md.render("ｶ**“ﾃｽﾄ”**ｶ")
    # a Latin letter is not: CommonMark's own rule applies, the ** stay literal
    assert "<strong>" not in md.render("a**“重要”**b")


def test_chunk_soft_breaks_follow_the_same_definition():
    _doc, chunks = parse_markdown("# T\n\n中文\n한국어\nabc\n🎉\n中文", "a.md")
    assert chunks[0].text == "中文한국어 abc 🎉 中文"


def test_one_definition_in_the_code_base():
    """No module but core/cjk.py defines its own CJK test or CJK code-point ranges
    (the CMRC metric's U+4E00..U+9FA5 is the one documented exception)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    own_def = re.compile(r"def _?is_cjk|_CJK_RANGES|0x4E00|0x2E80|east_asian_width")
    offenders = []
    for folder in ("core", "components", "app_pages"):
        for p in (root / folder).rglob("*.py"):
            if p.relative_to(root).as_posix() == "core/cjk.py":
                continue
            if own_def.search(p.read_text(encoding="utf-8")):
                offenders.append(p.relative_to(root).as_posix())
    assert offenders == []
