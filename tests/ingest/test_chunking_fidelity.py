"""Issue 24 (nothing changes the facts): what Markdown becomes at ingest keeps the
document's words and numbers. Each fault is tested through ``parse_markdown`` and
through the real ingest entry point (``core.ingest.run.ingest`` into a ``KnowledgeIndex``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from components.snapshot_html import markdown_html
from core.ingest.chunking import parse_markdown
from core.ingest.run import ingest
from core.models import Chunk, ChunkSnapshot, RetrievedChunk
from core.records.presentation import snippet
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex
from core.verification.support import verify
from tests.conftest import make_settings

REF_DOC = "当前稳定版本是 2.3[1]，发布于 2024 年。\n\n[1]: https://example.com/rel\n"
BOLD_DOC = "这是**“重要”**内容。详见**《用户手册》**第3页。\n"


def _texts(md: str) -> list[str]:
    return [c.text for c in parse_markdown(md, "a.md")[1]]


def _ingested(tmp_path: Path, name: str, md: str) -> list[Chunk]:
    folder = tmp_path / "docs"
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(md, encoding="utf-8")
    index = KnowledgeIndex(make_settings(tmp_path / "data"), HashingEmbedder())
    report = ingest(index, [folder / name], embed=False)
    assert not report.failures, report.failures
    return sorted(index.active_chunks().values(), key=lambda c: c.ordinal)


def _snapshot(chunk: Chunk) -> ChunkSnapshot:
    return ChunkSnapshot.from_retrieved(RetrievedChunk(chunk=chunk, rank=1, relevance=0.9))


# ---------------------------------------------------------------- reference links and footnotes


def test_numeric_reference_link_stays_a_marker_next_to_the_number():
    assert _texts(REF_DOC) == ["当前稳定版本是 2.3[[1]](https://example.com/rel)，发布于 2024 年。"]


def test_numeric_reference_after_a_dollar_amount():
    assert _texts("价格是 $10[2]。\n\n[2]: https://example.com/p\n") == ["价格是 $10[[2]](https://example.com/p)。"]
    # without a definition the brackets are plain text and stay
    assert _texts("价格是 $10[2]。\n") == ["价格是 $10[2]。"]


def test_reference_link_forms_keep_their_target():
    md = (
        "见[文档][d]、[文档2][]、[手册]和[内联](https://example.com/i)。\n\n"
        "[d]: https://example.com/d\n[文档2]: https://example.com/2\n[手册]: https://example.com/m\n"
    )
    assert _texts(md) == [
        "见[文档](https://example.com/d)、[文档2](https://example.com/2)、"
        "[手册](https://example.com/m)和[内联](https://example.com/i)。"
    ]


def test_link_without_a_web_target_keeps_its_text_only():
    assert _texts("见[概念](/docs/concepts/)第 3[4](/x) 节。") == ["见概念第 3[4] 节。"]


def test_footnote_is_a_marker_and_a_note():
    assert _texts("版本 1.8[^1] 已发布，另见[^1]。\n\n[^1]: 见发行说明。\n") == [
        "版本 1.8[1] 已发布，另见[1]。\n\n[1] 见发行说明。"
    ]


def test_inline_footnote_and_a_note_that_starts_with_code():
    assert _texts("正文 1.8^[行内注释。] 结束。\n") == ["正文 1.8[1] 结束。\n\n[1] 行内注释。"]
    assert _texts("正文[^a]。\n\n[^a]:\n    ```\n    code\n    ```\n") == ["正文[1]。\n\n[1]\n\n```\ncode\n```"]


def test_reference_link_through_ingest_card_snapshot_and_verification(tmp_path):
    (chunk,) = _ingested(tmp_path, "rel.md", REF_DOC)
    assert "2.31" not in chunk.text
    snap = _snapshot(chunk)
    assert snippet(snap.text) == "当前稳定版本是 2.3[1]，发布于 2024 年。"
    assert '2.3<a href="https://example.com/rel">[1]</a>' in markdown_html(snap.text)
    v = verify("当前稳定版本是 2.3，发布于 2024 年。", [snap])
    assert v.verdict != "contradicted", v


def test_footnote_and_dollar_reference_through_ingest(tmp_path):
    md = "价格是 $10[2]，版本 1.8[^1]。\n\n[2]: https://example.com/p\n[^1]: 见发行说明。\n"
    (chunk,) = _ingested(tmp_path, "fn.md", md)
    assert chunk.text == "价格是 $10[[2]](https://example.com/p)，版本 1.8[1]。\n\n[1] 见发行说明。"
    v = verify("价格是 $10。", [_snapshot(chunk)])
    assert v.verdict != "contradicted", v


# ---------------------------------------------------------------- CJK emphasis


def test_cjk_bold_next_to_quotes_and_book_title_marks():
    assert _texts(BOLD_DOC) == ["这是“重要”内容。详见《用户手册》第3页。"]


def test_cjk_bold_through_ingest_card_and_snapshot(tmp_path):
    (chunk,) = _ingested(tmp_path, "bold.md", BOLD_DOC)
    assert "**" not in chunk.text
    assert "**" not in snippet(chunk.text)
    assert "<strong>" not in markdown_html(chunk.text)


# ---------------------------------------------------------------- front matter on chunks

FM_DOC = "---\ntitle: 网络\ntags: [网络, 服务]\npages: [3, 4]\nsection: 概念\npage: 7\n---\n正文。\n\n## 二\n\n更多。\n"


def test_front_matter_metadata_reaches_every_chunk():
    doc, chunks = parse_markdown(FM_DOC, "a.md")
    assert len(chunks) == 2
    for c in chunks:
        assert c.metadata == {"tags": '["网络", "服务"]', "pages": "[3, 4]", "section": "概念", "page": 7}
    assert doc.metadata["tags"] == '["网络", "服务"]'


def test_front_matter_metadata_reaches_the_snapshot_and_the_card(tmp_path):
    from core.records.presentation import card_facts, page_number

    chunks = _ingested(tmp_path, "fm.md", FM_DOC)
    snap = _snapshot(chunks[0])
    assert snap.metadata["tags"] == '["网络", "服务"]' and snap.metadata["section"] == "概念"
    assert page_number(snap) == 7
    assert card_facts(snap) == ("概念", "标签：网络、服务")


# ---------------------------------------------------------------- indented prose


@pytest.mark.parametrize(
    "md, expected",
    [
        (
            "正文。\n\n    这是一段缩进的中文说明文字，不是代码。它有两句话。\n",
            ["正文。\n\n这是一段缩进的中文说明文字，不是代码。它有两句话。"],
        ),
        (
            "1. 第一步。\n\n        这一步之后，控制器会重新调度 3 个 Pod。\n",
            ["1. 第一步。\n\n   这一步之后，控制器会重新调度 3 个 Pod。"],
        ),
        ("正文。\n\n    第一行说明，\n    第二行接着说完。\n", ["正文。\n\n第一行说明，第二行接着说完。"]),
    ],
)
def test_indented_prose_is_prose(md, expected):
    assert _texts(md) == expected


@pytest.mark.parametrize(
    "code",
    [
        "    kubectl get pods -n 默认空间\n",
        "    # 创建命名空间\n    kubectl create namespace demo\n",
        "    错误：找不到资源\n",  # output, no sentence end
        '    {"名称": "值"}。\n',
        "    This is an English note.\n",  # English: left as written (code)
    ],
)
def test_indented_code_stays_code(code):
    (text,) = _texts("正文。\n\n" + code)
    assert text.startswith("正文。\n\n```\n") and text.endswith("\n```")


def test_indented_prose_through_ingest(tmp_path):
    chunks = _ingested(tmp_path, "ind.md", "# T\n\n    这是一段缩进的中文说明文字，不是代码。\n")
    assert [c.text for c in chunks] == ["这是一段缩进的中文说明文字，不是代码。"]


def test_card_meta_line_shows_the_front_matter_facts_escaped():
    from components.cards import _meta_line
    from core.models import SourceCard

    card = SourceCard(
        number=1,
        chunk_id="c",
        title="t",
        heading_path=("t",),
        snippet="s",
        snapshot_url="./sources",
        facts=("概念", "标签：<b>网络</b>、服务"),
    )
    assert _meta_line(card) == "概念 · 标签：&lt;b&gt;网络&lt;/b&gt;、服务"


def test_a_pages_list_is_shown_when_there_is_no_single_page(tmp_path):
    from core.records.presentation import card_facts

    (chunk,) = _ingested(tmp_path, "p.md", "---\npages: [3, 4]\n---\n正文。\n")
    assert card_facts(_snapshot(chunk)) == ("第 3、4 页",)


def test_html_links_and_bold_through_ingest(tmp_path):
    html = (
        '<html><body><p>当前稳定版本是 2.3<a href="https://example.com/rel">1</a>，价格 $10<sup>'
        '<a href="#fn2">2</a></sup>。</p><p>这是<strong>“重要”</strong>内容。详见<b>《用户手册》</b>第3页。</p>'
        "</body></html>"
    )
    (chunk,) = _ingested(tmp_path, "a.html", html)
    assert chunk.text == (
        "当前稳定版本是 2.3[[1]](https://example.com/rel)，价格 $10[2]。\n\n这是“重要”内容。详见《用户手册》第3页。"
    )


def test_a_pipe_inside_an_html_table_cell_stays_in_its_cell(tmp_path):
    """A helper's round (session 15): <td>联票 | 含索道</td> became two cells, so "联票淡季多少钱？" was answered
    with the peak price. The pipe is escaped; the row keeps three cells, and its quote is the cell as written."""
    from core.generators.sentences import table_rows

    html = (
        "<html><body><table><tr><th>票种</th><th>旺季</th><th>淡季</th></tr>"
        "<tr><td>联票 | 含索道</td><td>200 元</td><td>150 元</td></tr></table></body></html>"
    )
    (chunk,) = _ingested(tmp_path, "t.html", html)
    (row,) = table_rows(chunk.text)
    assert [c for _, c in row.cells] == ["联票 \\| 含索道", "200 元", "150 元"]


def test_a_raw_html_table_in_markdown_becomes_a_table_with_its_header():
    """A second helper's round (session 15): a <table> inside a .md file became pipe lines without a delimiter row
    (no table for the reader or the answer) and "3 号线 | 快线" split its cell, so "3 号线末班车几点？" quoted the
    1 号线 row. Now: header, delimiter, rows, the cell's pipe escaped, and the text after the table no row."""
    from core.generators.sentences import table_rows

    md = (
        "# 班车\n\n<table><tr><th>线路</th><th>末班车</th></tr><tr><td>1 号线</td><td>22:30</td></tr>"
        "<tr><td>3 号线 | 快线</td><td>23:00</td></tr></table><p>节假日另行通知。</p>\n"
    )
    (chunk,) = parse_markdown(md, "bus.md")[1]
    rows = table_rows(chunk.text)
    assert [r.text for r in rows] == ["1 号线 | 22:30", "3 号线 \\| 快线 | 23:00"]
    assert rows[0].header_row is not None and rows[0].header_row[1] == "线路 | 末班车"
    assert "节假日另行通知。" in chunk.text and not any("节假日" in r.text for r in rows)


def test_link_targets_are_kept_for_the_reader_but_not_searched_or_embedded():
    from core.store.catalog import embedding_text, lexical_text

    (c,) = parse_markdown("见[说明](https://example.com/ingress-default) 2.3[1]。\n\n[1]: https://e.com/1\n", "a.md")[1]
    assert "https://example.com/ingress-default" in c.text
    for text in (lexical_text(c), embedding_text(c)):
        assert "ingress" not in text and "e.com" not in text and "见说明 2.3[1]。" in text


def test_a_long_sentence_is_never_cut_inside_a_link():
    md = "甲" * 340 + "见[说明](https://example.com/a:b/c)" + "，乙" * 100 + "。\n"
    texts = _texts(md)
    assert len(texts) == 2 and any("[说明](https://example.com/a:b/c)" in t for t in texts), texts
    assert "".join(texts) == md.strip()


def test_a_card_quote_that_ends_inside_a_link_shows_no_markdown():
    from components.cards import quote_card_html
    from core.verification.verdicts import MarkerVerdict

    text = "当前稳定版本是 2.3[[1]](https://example.com/rel)，发布于 2024 年。"
    end = text.index("example")
    html = quote_card_html(text, MarkerVerdict(position=0, chunk_id="c", kind="supported", quote=(0, end)))
    assert "](" not in html and "https" not in html
    assert "<mark>当前稳定版本是 2.3[1]</mark>" in html
