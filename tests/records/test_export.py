"""Markdown export with footnote citations, on hand-made records."""

from datetime import datetime, timezone

from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin

from core.models import AnswerRecord, ChunkSnapshot, GeneratorInfo, RecommendedLink, Support
from core.records.export import UNSUPPORTED_MARK, conversation_to_markdown, to_markdown

T = datetime(2026, 1, 1, tzinfo=timezone.utc)


def snap(cid: str, path: tuple[str, ...], uri: str | None = None) -> ChunkSnapshot:
    return ChunkSnapshot(
        chunk_id=cid,
        document_id=cid.split("#")[0],
        source_id="a.md",
        version="v1",
        title=path[0],
        heading_path=path,
        text="原文。",
        uri=uri,
        content_sha256="0" * 64,
        rank=1,
        retrieved_at=T,
    )


def record(text: str, supports, chunks, **kw) -> AnswerRecord:
    return AnswerRecord(
        query="问题？",
        answer_text=text,
        status=kw.pop("status", "answered"),
        generator=GeneratorInfo(name="t"),
        chunks=tuple(chunks),
        supports=tuple(supports),
        **kw,
    )


def test_footnotes_follow_supported_sentences_and_number_by_first_appearance():
    text = "地球是圆的。🌍月球绕地球转。太阳很大。"
    # code points: 地球是圆的。=0..6, 🌍=6, 月球绕地球转。=7..14, 太阳很大。=14..19
    r = record(
        text,
        [Support(start=7, end=14, chunk_ids=("b#0",)), Support(start=14, end=19, chunk_ids=("a#0", "b#0"))],
        [snap("a#0", ("甲", "一"), "https://example.org/a"), snap("b#0", ("乙",))],
    )
    md = to_markdown(r)
    body = md.split("## 回答\n")[1].strip()
    # the first sentence ends at 。; the emoji belongs to the unsupported gap before 月
    assert body.startswith(f"地球是圆的。{UNSUPPORTED_MARK}🌍月球绕地球转。[^1]太阳很大。[^2][^1]\n")
    assert "[^1]: 乙（片段 b#0，版本 v1）" in md
    assert "[^2]: 甲 › 一 — <https://example.org/a>（片段 a#0，版本 v1）" in md


def test_no_evidence_and_links():
    r = record(
        "", [], [], status="no_evidence", recommended_links=(RecommendedLink(label="首页", url="https://example.org/"),)
    )
    md = to_markdown(r)
    assert "没有足够的证据" in md and "- [首页](<https://example.org/>)" in md
    assert "[^" not in md


def test_javascript_uri_is_not_exported_as_a_link():
    r = record("一句话。", [Support(start=0, end=4, chunk_ids=("a#0",))], [snap("a#0", ("甲",), "javascript:alert(1)")])
    assert "javascript:" not in to_markdown(r)


def _html(md: str) -> str:
    return MarkdownIt("commonmark").use(footnote_plugin).render(md)


def test_conversation_export_prefixes_only_its_own_footnote_labels():
    q = "正则 [^0-9] 和 [^a] 是什么意思？"
    text = "它匹配非数字 [^0-9]。"
    r = record(text, [Support(start=0, end=len(text), chunk_ids=("a#0",))], [snap("a#0", ("甲",))]).model_copy(
        update={"query": q}
    )
    md = conversation_to_markdown([r, r])
    assert "[^1-0-9]" not in md and "[^2-0-9]" not in md
    assert "它匹配非数字 [^0-9]。[^1-1]" in md and "它匹配非数字 [^0-9]。[^2-1]" in md
    assert "[^1-1]: 甲" in md and "[^2-1]: 甲" in md
    assert "正则 \\[^0-9\\] 和 \\[^a\\] 是什么意思？" in md  # the question is text, not Markdown
    html = _html(md)
    assert "正则 [^0-9] 和 [^a] 是什么意思？" in html


HOSTILE = "<img src=x onerror=alert(1)>[l](javascript:alert(1)) *强调* `码` # 标题\n- 列表"


def test_titles_heading_paths_and_labels_are_escaped_text():
    r = record(
        "一句话。",
        [Support(start=0, end=4, chunk_ids=("a#0",))],
        [snap("a#0", (HOSTILE, "节 [x](https://evil.example)"), "https://example.org/a b<c>")],
        recommended_links=(
            RecommendedLink(label="[坏](javascript:alert(1))", url="https://example.org/"),
            RecommendedLink(label="脚本", url="javascript:alert(1)"),
        ),
    ).model_copy(update={"query": HOSTILE})
    md = to_markdown(r)
    html = _html(md)
    assert "<img" not in html and "<em>" not in html and "<code>" not in html and "<h1>" not in html
    assert 'href="javascript' not in html and "javascript:alert(1)</a>" not in html
    assert 'href="https://evil.example"' not in html
    # shown as the literal text, on one footnote line
    assert "&lt;img src=x onerror=alert(1)&gt;[l](javascript:alert(1)) *强调* `码` # 标题 - 列表" in html
    assert 'href="https://example.org/a%20b%3Cc%3E"' in html
    assert "[坏](javascript:alert(1))" in html and "脚本" not in md


def test_interrupted_answer_is_exported_with_a_note():
    from core.records.export import INTERRUPTED_NOTE

    r = record("只说了一半", [], [], status="interrupted")
    md = to_markdown(r)
    assert INTERRUPTED_NOTE in md and md.index(INTERRUPTED_NOTE) < md.index("只说了一半")


def test_conversation_export_groups_regenerated_versions_into_their_turn():
    """The tester's input: a regenerated answer was exported as a turn of its own."""
    import json

    from core.records.export import conversation_to_json

    s = [Support(start=0, end=6, chunk_ids=("a#0",))]
    first = record("第一版回答。", s, [snap("a#0", ("甲",))]).model_copy(update={"answer_id": "r1", "query": "问甲？"})
    again = record("第二版回答。", s, [snap("a#0", ("甲",))]).model_copy(
        update={"answer_id": "r2", "query": "问甲？", "regenerated_from": "r1"}
    )
    later = record("乙的回答。", [Support(start=0, end=5, chunk_ids=("a#0",))], [snap("a#0", ("甲",))]).model_copy(
        update={"answer_id": "r3", "query": "问乙？"}
    )
    md = conversation_to_markdown([first, again, later])
    assert [line for line in md.splitlines() if line.startswith("# ")] == ["# 第 1 轮", "# 第 2 轮"]
    assert md.count("问甲？") == 1  # the question once per turn
    assert "## 第 1/2 版\n" in md and "## 第 2/2 版（重新生成）\n" in md
    assert md.index("第一版回答") < md.index("第 2/2 版") < md.index("第二版回答") < md.index("# 第 2 轮")
    assert "第一版回答。[^1.1-1]" in md and "第二版回答。[^1.2-1]" in md and "乙的回答。[^2-1]" in md
    html = _html(md)
    assert html.count('class="footnote-item"') == 3  # every label unique, every footnote resolved
    turns = json.loads(conversation_to_json([first, again, later]))
    assert [(t["turn"], [v["answer_id"] for v in t["versions"]]) for t in turns] == [(1, ["r1", "r2"]), (2, ["r3"])]
    assert AnswerRecord.model_validate(turns[0]["versions"][1]) == again  # each version is the full record
