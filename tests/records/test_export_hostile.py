"""Exports are as safe as the page (issue 24, item 2): hostile text in every field of every record, every
status, as a model answer, as 核查 text and as quoted documents. The Markdown export is rendered with
markdown-it-py (CommonMark with raw HTML on, with and without the footnote plugin, and the product dialect);
the HTML may hold no tag from the input and no href/src but http(s) (or a footnote's ``#fn`` anchor). The JSON
export keeps every value exactly, as valid JSON that encodes to UTF-8."""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.footnote import footnote_plugin

from core.markdown import markdown_parser, safe_link
from core.models import (
    AlignedQuote,
    AnswerRecord,
    AuditEntry,
    ChunkSnapshot,
    Feedback,
    GeneratorInfo,
    RecommendedLink,
    Support,
)
from core.records.export import (
    UNSUPPORTED_MARK,
    answer_markdown,
    conversation_to_json,
    conversation_to_markdown,
    record_json,
    to_markdown,
)

T = datetime(2026, 1, 1, tzinfo=timezone.utc)

HOSTILE = (
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "[这里](javascript:alert(1))",
    "[d](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<iframe src=https://evil.example></iframe>",
    "[x][1]\n\n[1]: javascript:alert(2)",
    "<javascript:alert(3)>",
    "![](http://127.0.0.1:8701/p)",
    "[![](javascript:alert(4))](http://ok.example/)",
    "`a` <b onmouseover=alert(5)>`c`",
    "```\n<script>alert(6)</script>\n```",
    "````\n```\n<script>alert(7)</script>\n````",
    "NUL\x00BEL\x07ESC\x1b[31m DEL\x7f C1\x85",
    "lone \ud800 surrogate \udfff",
    "RTL \u202eevil\u202c",
)
ONE_LINE = " ".join(h.replace("\n", " ") for h in HOSTILE)
BLOCK = "\n\n".join(HOSTILE)
BAD_CHARS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
STATUSES = ("answered", "no_evidence", "unverifiable", "blocked", "error", "interrupted")


def _snap(cid: str, text: str) -> ChunkSnapshot:
    return ChunkSnapshot(
        chunk_id=cid,
        document_id=cid.split("#")[0],
        source_id=f"{ONE_LINE}.md",
        version=ONE_LINE,
        title=ONE_LINE,
        heading_path=(ONE_LINE, BLOCK),
        text=text,
        uri="javascript:alert(9)",
        content_sha256="0" * 64,
        rank=1,
        retrieved_at=T,
    )


def hostile_record(status: str, answer: str = BLOCK) -> AnswerRecord:
    """Every text field hostile; supports of each verdict over the hostile answer."""
    chunk_text = f"前言。{BLOCK}结尾。"
    a, b = _snap("a#0", chunk_text), _snap(f"{ONE_LINE}#1", chunk_text)
    n = len(answer)
    q = AlignedQuote(chunk_id=a.chunk_id, start=3, end=3 + len(BLOCK))
    supports = (
        Support(start=0, end=n // 3, chunk_ids=(a.chunk_id,), quote=BLOCK, verdict="supported", aligned_quote=q),
        Support(
            start=n // 3,
            end=2 * n // 3,
            chunk_ids=(b.chunk_id,),
            quote=BLOCK,
            status="needs_review",
            verdict="contradicted",
            aligned_quote=AlignedQuote(chunk_id=b.chunk_id, start=3, end=3 + len(BLOCK)),
            verdict_reason=BLOCK,
        ),
        Support(
            start=2 * n // 3,
            end=n,
            chunk_ids=(a.chunk_id, b.chunk_id),
            status="needs_review",
            verdict="unsupported",
            verdict_reason=ONE_LINE,
        ),
    )
    return AnswerRecord(
        answer_id=f"id-{status}",
        query=BLOCK,
        answer_text=answer if status != "no_evidence" else "",
        status=status,
        generator=GeneratorInfo(name="model", model=ONE_LINE),
        chunks=(a, b),
        supports=supports if status in ("answered", "unverifiable", "interrupted") else (),
        recommended_links=(
            RecommendedLink(label=BLOCK, url="https://example.org/ok"),
            RecommendedLink(label=ONE_LINE, url="javascript:alert(10)"),
            RecommendedLink(label="数据", url="data:text/html;base64,PHNjcmlwdD4="),
            RecommendedLink(label="图", url="http://127.0.0.1:8701/p <img src=x onerror=alert(11)>"),
        ),
        audit=(AuditEntry(action="dropped", reason=BLOCK, detail={"why": ONE_LINE}),),
        error=BLOCK if status == "error" else None,
        regenerated_from=ONE_LINE,
        feedback=Feedback(rating="down", comment=ONE_LINE[:400], given_at=T),
    )


ALLOWED_TAGS = {
    "p", "a", "em", "strong", "code", "pre", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote",
    "hr", "br", "table", "thead", "tbody", "tr", "th", "td", "sup", "section",
}  # fmt: skip


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        self.tags.append((tag, dict(attrs)))

    handle_startendtag = handle_starttag


def _any_scheme(md: MarkdownIt) -> MarkdownIt:
    md.validateLink = lambda url: True  # markdown-it refuses javascript: links; other renderers do not
    return md


RENDERERS = {
    "commonmark": _any_scheme(MarkdownIt("commonmark")),  # raw HTML on, images, references, autolinks
    "commonmark+footnote+gfm": _any_scheme(
        MarkdownIt("commonmark").use(footnote_plugin).enable(["table", "strikethrough"])
    ),
    "markdown-it default": MarkdownIt("commonmark").use(footnote_plugin),
    "product": markdown_parser(),
}


def assert_inert(md: str) -> None:
    """``md`` (an export) renders, in each renderer, to no tag from the input and no non-http(s) link."""
    assert not BAD_CHARS.search(md), [hex(ord(c)) for c in BAD_CHARS.findall(md)]
    md.encode("utf-8")  # no lone surrogate
    for name, renderer in RENDERERS.items():
        html = renderer.render(md)
        parser = _Tags()
        parser.feed(html)
        for tag, attrs in parser.tags:
            assert tag in ALLOWED_TAGS, (name, tag, attrs)
            assert "src" not in attrs and not any(k.startswith("on") for k in attrs), (name, tag, attrs)
            href = attrs.get("href")
            if href is not None:
                assert href.startswith("#fn") or safe_link(href), (name, href)
        for raw in ("<img", "<script", "<iframe", "<b ", "javascript:alert(1)</a>"):
            assert raw not in html, (name, raw)


@pytest.mark.parametrize("status", STATUSES)
def test_every_field_of_a_hostile_record_exports_inert_markdown(status):
    record = hostile_record(status)
    for md in (
        to_markdown(record),
        conversation_to_markdown([record, record]),
        answer_markdown(record, footnotes=True),
        answer_markdown(record, footnotes=False),
    ):
        assert_inert(md)


def test_the_hostile_answer_is_shown_as_the_page_shows_it():
    md = to_markdown(hostile_record("answered")).split("## 回答\n")[1]  # the answer, not the (escaped) question
    html = RENDERERS["commonmark+footnote+gfm"].render(md)
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "<img" not in html  # the text, literally
    assert "[这里](javascript:alert(1))" in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert '<a href="http://ok.example/">' in html  # an http(s) link stays a link
    assert html.count('class="footnote-item"') == 2  # the footnotes survive


def test_a_harmless_answer_is_exported_as_written():
    text = "- 对于 **有状态** 的工作负载，用 `StatefulSet`。\n- 见 [文档](https://example.org/a_b)。\n"
    r = hostile_record("answered", text).model_copy(update={"supports": ()})
    assert answer_markdown(r, footnotes=False) == text
    assert to_markdown(r).split("## 回答\n\n")[1].replace(UNSUPPORTED_MARK, "").startswith(text)


def test_a_marker_cannot_become_a_link_with_the_text_after_it():
    text = "甲。(javascript:alert(1)) 乙。[1]\n\n[1]: javascript:alert(2)\n"
    b = text.index("乙")
    snap = _snap("a#0", "甲。").model_copy(update={"title": "甲", "heading_path": ("甲",), "version": "v1"})
    r = AnswerRecord(
        query="问",
        answer_text=text,
        status="answered",
        generator=GeneratorInfo(name="t"),
        chunks=(snap,),
        supports=(Support(start=0, end=2, chunk_ids=("a#0",)), Support(start=b, end=b + 2, chunk_ids=("a#0",))),
    )
    md = to_markdown(r)
    assert "[^1]\\(javascript" in md and "[^1]\\[1]" in md
    assert_inert(md)


def test_json_export_keeps_every_value_as_valid_utf8_json():
    records = [hostile_record(s) for s in STATUSES]
    for out, expected in [
        (record_json(records[0]), records[0].model_dump(mode="json")),
        (conversation_to_json(records), None),
    ]:
        out.encode("utf-8")  # a lone surrogate is written as its \\u escape
        assert not BAD_CHARS.search(out) and "\u2028" not in out
        data = json.loads(out)
        if expected is not None:
            assert data == expected  # exact values, stable field names
            assert AnswerRecord.model_validate(data) == records[0]
    turns = json.loads(conversation_to_json(records))
    assert [v for t in turns for v in t["versions"]] == [r.model_dump(mode="json") for r in records]


# -- through the real pipeline: 核查 text and an extractive answer quoting a hostile document -------------

DOC = (
    "# 备份 <img src=x onerror=alert(1)>\n\n## 计划 [这里](javascript:alert(1))\n\n"
    "备份任务每天凌晨两点运行，结果保存在对象存储中，保留 30 天，详见[这里](javascript:alert(1))、"
    "[d](data:text/html;base64,PHNjcmlwdD4=)和 <javascript:alert(3)> ![](http://127.0.0.1:8701/p)。\n\n"
    "[x][1] 备份保留 30 天。\n\n[1]: javascript:alert(2)\n"
)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    from core.config import Settings
    from core.engine import Engine
    from core.ingest.run import ingest
    from core.store.embeddings import HashingEmbedder

    corpus = tmp_path_factory.mktemp("hostile-corpus")
    (corpus / "backup.md").write_text(DOC, encoding="utf-8")
    settings = Settings(data_dir=tmp_path_factory.mktemp("hostile-data"), corpus_dir=corpus, embedding="hash")
    eng = Engine.open(settings, HashingEmbedder())
    assert not ingest(eng.index, [corpus], embed=True, base_url=None).failures
    return eng


def test_checked_hostile_text_exports_inert(engine):
    from core.check import check_text

    text = "备份任务每天凌晨两点运行 <img src=x onerror=alert(1)>，结果保存在对象存储中。\n\n" + BLOCK.replace(
        HOSTILE[-2], ""
    )  # a lone surrogate fails retrieval itself (an error record): kept out here
    record = check_text(engine, text, save=False)
    assert record.generator.name == "check" and "<img src=x onerror=alert(1)>" in record.answer_text
    assert_inert(to_markdown(record))
    json.loads(record_json(record))


def test_extractive_answer_quoting_a_hostile_document_exports_inert(engine):
    record = engine.ask("备份保留多少天？", generator="extractive", save=False)
    assert record.status == "answered" and record.supports, record.status
    assert "[这里](javascript:alert(1))" in record.answer_text and "[x][1]" in record.answer_text, record.answer_text
    assert_inert(to_markdown(record))
