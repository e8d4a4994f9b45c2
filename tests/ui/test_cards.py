"""Cards and the evidence list (issue 15): readable snippets without Markdown syntax, no title twice,
evidence grouped by document with one marker number per chunk, the snapshot panel with the
cited passage highlighted in rendered, escaped Markdown."""

from __future__ import annotations

import re

import pytest

from components.answer_view import render_answer
from components.snapshot_html import markdown_html
from core.models import AlignedQuote, Support
from core.records.presentation import cited_span, document_groups, snippet, snippet_parts
from tests.ui.test_render import assert_safe, chunk, parse_html, record

MD = "## ConfigMap\n\n- 使用 `kubectl create configmap` 创建。\n- 第二条 **重要**。\n\n```yaml\nkind: ConfigMap\n```\n"


def test_snippet_is_readable_text_with_code_marked() -> None:
    parts = snippet_parts(MD, skip_headings=("ConfigMap",))
    text = "".join(p for p, _ in parts)
    assert text == "使用 kubectl create configmap 创建。 第二条 重要。 kind: ConfigMap"
    assert [p for p, code in parts if code] == ["kubectl create configmap", "kind: ConfigMap"]
    for raw in ("`", "- ", "**", "##", "```"):
        assert raw not in text
    assert snippet(MD, 12) == "ConfigMap 使…"  # heading kept when not skipped; cut with … at 12 code points
    assert len(snippet("字" * 500)) == 160


def test_card_and_evidence_show_no_markdown_and_no_repeated_title() -> None:
    c = chunk("c1", MD, title="ConfigMap", heading_path=("ConfigMap",))
    html = render_answer(record("答案句子。", [Support(start=0, end=5, chunk_ids=("c1",))], [c]))
    assert_safe(html)
    card = html.split('class="yz-card"')[1].split("</sup>")[0]
    assert "yz-card-path" not in card  # path == title: shown once
    assert "<code>kubectl create configmap</code>" in card and "`" not in card and "- 使用" not in card
    evidence = html.split('class="yz-evidence"')[1]
    assert "ConfigMap / ConfigMap" not in evidence and "ConfigMap › ConfigMap" not in evidence
    assert "<code>kubectl create configmap</code>" in evidence


def test_evidence_is_grouped_by_document_with_one_number_per_chunk() -> None:
    a1 = chunk("a#1", "甲文一。", source_id="a.md", title="文档甲", heading_path=("文档甲", "一"))
    b1 = chunk("b#1", "乙文一。", source_id="b.md", title="文档乙", heading_path=("文档乙", "一"))
    a2 = chunk("a#2", "甲文二。", source_id="a.md", title="文档甲", heading_path=("文档甲", "二"))
    sups = [
        Support(start=0, end=3, chunk_ids=("a#1",)),
        Support(start=3, end=6, chunk_ids=("b#1",)),
        Support(start=6, end=9, chunk_ids=("a#2",)),
    ]
    rec = record("一句。二句。三句。", sups, [a1, b1, a2])
    assert document_groups(rec, ["a#1", "b#1", "a#2"]) == [["a#1", "a#2"], ["b#1"]]
    html = render_answer(rec)
    evidence = html.split('class="yz-evidence"')[1].split("</section>")[0]
    docs = re.findall(r'class="yz-evidence-title">([^<]+)<', evidence)
    assert docs == ["文档甲", "文档乙"]  # one entry per document, first marker order
    items = evidence.split('class="yz-evidence-item"')[1:]
    assert re.findall(r">\[(\d)\]</button>", items[0]) == ["1", "3"]  # its sections keep their own numbers
    assert re.findall(r">\[(\d)\]</button>", items[1]) == ["2"]
    assert "引用来源（2 篇文档）" in evidence
    # markers in the answer still number per chunk
    assert [t for t in re.findall(r'class="yz-cite-link"[^>]*>\[(\d)\]', html)] == ["1", "2", "3"]


def test_panel_renders_markdown_safely_and_highlights_the_aligned_quote() -> None:
    text = "# 标题\n\n- 第一项 `code` 内容。\n- 第二项：<script>alert(1)</script> [x](javascript:alert(1))\n"
    start = text.index("第一项")
    end = text.index("第二项") + 3
    out = markdown_html(text, (start, end), mark_id="m")
    assert "<script>" not in out and 'href="javascript' not in out and "&lt;script&gt;" in out
    assert "<li>" in out and "- 第一项" not in out  # Markdown rendered, not shown raw
    # one <mark> per text run of the passage (it spans two list items and inline code): tags stay whole
    assert re.findall(r"<mark[^>]*>(.*?)</mark>", out) == ["第一项 ", "code", " 内容。", "第二项"]
    assert out.count('id="m"') == 1 and '<mark class="yz-quote" id="m">第一项 </mark>' in out
    # a bad span: no highlight, text intact
    assert "<mark" not in markdown_html(text, (5, 999)) and "第二项" in markdown_html(text, (5, 999))


def test_cited_span_prefers_the_aligned_quote_then_the_cited_sentence() -> None:
    c = chunk("c1", "前文。副本数默认是一。后文还有很多内容。")
    sp = Support(start=0, end=8, chunk_ids=("c1",))
    assert cited_span(record("副本数默认是一。", [sp], [c]), "c1") == (3, 11)
    aligned = sp.model_copy(
        update={"aligned_quote": AlignedQuote(chunk_id="c1", start=11, end=20), "verdict": "supported"}
    )
    assert cited_span(record("副本数默认是一。", [aligned], [c]), "c1") == (11, 20)
    assert cited_span(record("别的话。", [Support(start=0, end=4, chunk_ids=("c1",))], [c]), "c1") is None


def test_panel_of_every_card_is_in_the_page_and_safe() -> None:
    c = chunk("c1", "正文：副本数默认是一。", title='<img src=x onerror="x">')
    html = render_answer(record("副本数默认是一。", [Support(start=0, end=8, chunk_ids=("c1",))], [c]))
    assert_safe(html)
    tree = parse_html(html)
    ids = [d.get("id") for t, d in tree.elements if t == "div" and d.get("popover") is not None]
    targets = {d.get("popovertarget") for t, d in tree.elements if t == "button" and d.get("popovertarget")}
    assert ids == ["yz-snap-ans-1-1"] and targets == {"yz-snap-ans-1-1"}
    assert "<img" not in html


# A chunk whose inline code a quote or a context window can cut into (the new-user pass saw "` fields").
CODE_TEXT = (
    "每个对象都有 `metadata` 和 `spec` fields，控制器读取 `spec` 来决定期望状态。"
    + "前文很长。" * 120
    + "之后用 ``a`b`` 引用，`status` 由系统填写。\n\n```yaml\nkind: Pod\nspec: {}\n```\n末句。"
)


def _visible(html: str) -> str:
    """The text a person sees, without the parts inside <code>."""
    return re.sub(r"<[^>]+>", "", re.sub(r"<code>.*?</code>", "", html))


def _quote_at(needle: str, cut: int = 0) -> tuple[int, int]:
    start = CODE_TEXT.index(needle)
    return start, start + len(needle) - cut


@pytest.mark.parametrize(
    "span",
    [
        _quote_at("每个对象都有 `metadata` 和 `spec", 0),  # the quote ends inside `spec`: the rest begins "` fields"
        _quote_at("spec` fields，控制器"),  # starts inside a code span
        _quote_at("etadata` 和"),
        _quote_at("a`b`` 引用"),  # a double-backtick span holding a backtick
        _quote_at("之后用 ``a"),
        _quote_at("kind: Pod"),  # inside a fenced block
        (CODE_TEXT.index("前文很长") + 5 * 120 - 3, CODE_TEXT.index("之后用") + 6),  # long left context
    ],
)
def test_a_card_quote_never_shows_a_stray_backtick_or_half_a_code_span(span) -> None:
    from components.cards import quote_card_html
    from core.verification.verdicts import MarkerVerdict

    html = quote_card_html(CODE_TEXT, MarkerVerdict(position=0, chunk_id="c", kind="supported", quote=span))
    assert html is not None and "<mark>" in html
    assert "`" not in _visible(html).replace("a`b", ""), html  # the only backtick shown is inside code
    for code in re.findall(r"<code>(.*?)</code>", html):  # every code piece is a whole span of the chunk
        assert code in {"metadata", "spec", "a`b", "status", "kind: Pod spec: {}"}, (code, html)


def test_code_ranges_and_outside_code_follow_markdown() -> None:
    from core.records.presentation import code_ranges, outside_code

    text = "用 `a` 和 ``b`c`` 以及 \\`不是代码`。\n\n```\nx = 1\n```\n"
    ranges = code_ranges(text)
    assert [text[a:b] for a, b in ranges] == ["`a`", "``b`c``", "```\nx = 1\n```"]
    inside = text.index("b`c")
    assert outside_code(text, inside, inside + 2) == (text.index("``b"), text.index("以及") - 1)
    assert outside_code(text, 0, 2) == (0, 2)  # already outside: unchanged


def test_a_card_quote_keeps_the_spaces_of_its_text_and_adds_none() -> None:
    """Chinese runs straight into and out of its quote; English keeps its word spaces."""
    from components.cards import quote_card_html
    from core.verification.verdicts import MarkerVerdict

    def card(text: str, quote: str) -> str:
        at = text.index(quote)
        html = quote_card_html(
            text, MarkerVerdict(position=0, chunk_id="c", kind="supported", quote=(at, at + len(quote)))
        )
        assert html is not None
        return _visible(html)

    assert (
        card("创建一个服务对象来暴露 Deployment，然后检查服务。", "来暴露 Deployment")
        == "创建一个服务对象来暴露 Deployment，然后检查服务。"
    )
    assert card("Create a Service to expose the Deployment, then check it.", "expose the") == (
        "Create a Service to expose the Deployment, then check it."
    )


def test_a_card_quote_of_a_table_row_shows_no_pipe_of_its_own_row() -> None:
    """A quoted table row (the extractive answer quotes rows since session 15) is marked whole; its row's
    opening and closing pipes are not shown around the mark, and the rows around it read as it does: cells
    between " | ", one row from the next by " / " (a second helper's round: "代码 含义 处理方法" beside
    "<mark>F0 | 滤网或盖板未装好</mark>")."""
    from components.cards import quote_card_html
    from core.verification.verdicts import MarkerVerdict

    text = "| 会员类型 | 价格 |\n| --- | --- |\n| 月卡 | 每月 299 元 |\n| 季卡 | 每季 799 元 |\n"
    row = "季卡 | 每季 799 元"
    at = text.index(row)
    html = quote_card_html(text, MarkerVerdict(position=0, chunk_id="c", kind="supported", quote=(at, at + len(row))))
    assert html is not None and f"<mark>{row}</mark>" in html
    assert _visible(html) == "会员类型 | 价格 / 月卡 | 每月 299 元 / 季卡 | 每季 799 元", html
    # the verifier's aligned span holds the row's outer pipes; rows after it read as text too (a helper's
    # round: "<mark>| 年卡 | … |</mark> | 企业卡 | | …")
    text += "| 企业卡 |  |\n| 次卡 | 每次 50\\|60 元 |\n"
    at = text.index("| 季卡")
    html = quote_card_html(
        text, MarkerVerdict(position=0, chunk_id="c", kind="supported", quote=(at, text.index("元 |\n| 企业") + 3))
    )
    assert html is not None and f"<mark>{row}</mark>" in html
    assert (
        _visible(html) == "会员类型 | 价格 / 月卡 | 每月 299 元 / 季卡 | 每季 799 元 / 企业卡 / 次卡 | 每次 50|60 元"
    ), html
    # a table after prose: the prose before and after reads as before
    text = "故障代码如下：\n\n| 代码 | 含义 |\n| --- | --- |\n| F0 | 滤网或盖板未装好 |\n\n装好后重启。"
    at = text.index("F0 |")
    html = quote_card_html(text, MarkerVerdict(position=0, chunk_id="c", kind="supported", quote=(at, at + 13)))
    assert _visible(html) == "故障代码如下： 代码 | 含义 / F0 | 滤网或盖板未装好 装好后重启。", html


def _panel_marks(html: str) -> dict[str, list[str]]:
    """Popover id -> the highlighted text runs of that snapshot panel."""
    out = {}
    for m in re.finditer(r'<div class="yz-snap-pop" id="([^"]+)"(.*?)</div></div>', html, re.S):
        out[m.group(1)] = re.findall(r'<mark class="yz-quote"[^>]*>(.*?)</mark>', m.group(2))
    return out


def test_each_marker_opens_the_snapshot_of_its_own_aligned_quote() -> None:
    """Issue 29: two sentences citing one chunk; the in-place snapshot of each marker highlights
    that sentence's aligned quote (it highlighted the first sentence's quote for both)."""
    text = "测试手机每次最多借用七天。逾期未还会暂停借用资格一个月。其他说明。"
    c = chunk("c1", text)
    q1 = (0, text.index("。") + 1)
    q2 = (q1[1], text.index("月。") + 2)
    answer = "测试手机最多借七天。逾期会暂停借用一个月。"
    cut = answer.index("。") + 1
    sups = [
        Support(
            start=0,
            end=cut,
            chunk_ids=("c1",),
            verdict="supported",
            verification_score=0.9,
            aligned_quote=AlignedQuote(chunk_id="c1", start=q1[0], end=q1[1]),
        ),
        Support(
            start=cut,
            end=len(answer),
            chunk_ids=("c1",),
            verdict="supported",
            verification_score=0.9,
            aligned_quote=AlignedQuote(chunk_id="c1", start=q2[0], end=q2[1]),
        ),
    ]
    html = render_answer(record(answer, sups, [c]))
    assert_safe(html)
    panels = _panel_marks(html)
    sups_html = re.findall(r'<sup class="[^"]*">(.*?)</sup>', html, re.S)
    assert len(sups_html) == 2
    opened = [re.search(r'class="yz-card-open" popovertarget="([^"]+)"', s).group(1) for s in sups_html]
    assert "".join(panels[opened[0]]) == text[q1[0] : q1[1]]
    assert "".join(panels[opened[1]]) == text[q2[0] : q2[1]]
    # every button targets a panel that exists; the evidence list's [1] opens one of them
    targets = set(re.findall(r'popovertarget="([^"]+)"', html))
    assert targets <= set(panels)


def test_markdown_and_html_sources_open_as_the_rendered_section(tmp_path) -> None:
    """Issue 29: the snapshot of a Markdown or HTML source is the rendered section (its heading,
    list, table, code) with the quote highlighted, not raw text."""
    from core.ingest.corpus import load_sources
    from core.models import ChunkSnapshot, RetrievedChunk

    (tmp_path / "page.html").write_text(
        "<html><head><title>服务说明</title></head><body><h2>价格</h2><p>基础版免费。</p><ul><li>专业版每月 99 元。</li>"
        "<li>企业版面议。</li></ul><table><tr><th>版本</th><th>价格</th></tr><tr><td>基础</td><td>0</td></tr></table>"
        "<pre><code>pip install x</code></pre></body></html>",
        encoding="utf-8",
    )
    (tmp_path / "notes.md").write_text(
        "# 笔记\n\n## 安装\n\n1. 下载\n2. 运行 `setup`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```bash\nmake\n```\n",
        encoding="utf-8",
    )
    parsed, failures = load_sources([tmp_path], base_url=None)
    assert not failures
    for p, quote, heading in ((parsed[1], "专业版每月 99 元。", "价格"), (parsed[0], "运行 `setup`", "安装")):
        c = p.chunks[0]
        snap = ChunkSnapshot.from_retrieved(RetrievedChunk(chunk=c, rank=1))
        start = c.text.index(quote)
        sup = Support(
            start=0,
            end=4,
            chunk_ids=(c.chunk_id,),
            verdict="supported",
            verification_score=0.9,
            aligned_quote=AlignedQuote(chunk_id=c.chunk_id, start=start, end=start + len(quote)),
        )
        html = render_answer(record("一句话。", [sup], [snap]))
        panel = html.split('class="yz-snap-pop"')[1]
        assert f'<h3 class="yz-snap-heading">{heading}</h3>' in panel
        assert "<li>" in panel and "<table>" in panel and "<pre><code" in panel
        assert "| --- |" not in panel and "```" not in panel and "- 专业版" not in panel
        marked = "".join(re.findall(r'<mark class="yz-quote"[^>]*>(.*?)</mark>', panel))
        assert re.sub(r"<[^>]+>", "", marked).replace("`", "") == quote.replace("`", "")
        assert 'class="yz-quote" id="' in panel  # the first run carries the id the panel scrolls to


def test_a_plain_snippet_of_a_table_reads_its_rows_as_the_answer_quotes_them() -> None:
    """A second round's screenshot: the sources list showed "方案 价格 主机数 日志数据保留 成员数 免费版 0 元 …", the
    cells of a price table run together; the answer above quotes "企业版 | 联系销售 | 不限 | 30 天起". A snippet reads a
    table's cells between " | " and its rows apart by " / " (no outer pipe, no delimiter row)."""
    text = "## 方案与价格\n\n| 方案 | 价格 |\n| --- | --- |\n| 免费版 | `0` 元 |\n| 团队版 | 45 元 |\n\n团队版按年付费可享受八五折。"
    assert snippet(text, 300) == "方案与价格 方案 | 价格 / 免费版 | 0 元 / 团队版 | 45 元 团队版按年付费可享受八五折。"
    assert ("0", True) in snippet_parts(text, 300)  # code in a cell is still code
    assert snippet("第一段。\n\n第二段。") == "第一段。 第二段。"  # prose as before
