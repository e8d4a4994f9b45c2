"""Verification verdicts in the record, on the page and in the export (issue 13, part 2).

Schema 2 (verdict, score, aligned quote, reason per support) with the read-side
migration of version 1; the rendering of supported / contradicted / unsupported
/ needs_review supports; the highlighted quote; the record store skipping rows
it cannot read.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from pydantic import ValidationError

from components.answer_view import render_answer
from components.cards import quote_card_html
from components.verdict_view import highlight_html
from core.errors import RecordError
from core.models import SCHEMA_VERSION, AlignedQuote, AnswerRecord, Support, migrate_record_data
from core.records.export import to_markdown
from core.records.store import RecordStore
from core.verification.verdicts import MarkerVerdict, marker_verdicts, snapshot_quote
from tests.checked import INVENTED, UNSUPPORTED, checked_record
from tests.ui.test_render import assert_safe, chunk, parse_html, record, visible

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "records"

A = chunk("a#0", "前言。副本数默认为 1，可以随时调整。其余内容。", title="扩缩")
B = chunk("b#0", "CronJob 说明。每个 CronJob 最多保留 3 个成功的 Job 记录。结尾。", title="CronJob")
C = chunk("c#0", "Pod 是最小的部署单元。", title="Pod")


def _sup_classes(html: str) -> list[str]:
    return re.findall(r'<sup class="([^"]+)"', html)


# -- schema version 2 and the migration of version 1 -------------------------------------------


def test_v1_golden_record_reads_and_renders_unchanged() -> None:
    raw = (GOLDEN / "v1_extractive_answer.json").read_text(encoding="utf-8")
    assert json.loads(raw)["schema_version"] == 1
    rec = AnswerRecord.model_validate_json(raw)
    assert rec.schema_version == SCHEMA_VERSION  # read through every migration step
    assert rec.knowledge_bases == () and all(c.knowledge_base is None for c in rec.chunks)
    assert all(s.verdict is None and s.aligned_quote is None for s in rec.supports)
    # the HTML was written by the code before the schema change (since issue 18 the outer div also names
    # the record: the only difference), rewritten in session 22 when the 引用来源 list began to show each section's
    # cited passage in <mark> (its snippets the only change); the Markdown by the export after issue 10 wrapped URLs
    # in <…> (the only difference from the pre-schema-2 output)
    html = render_answer(rec)
    named = f'<div class="yz-answer" data-answer="{rec.answer_id}">'
    assert html.startswith(named)
    assert '<div class="yz-answer">' + html[len(named) :] + "\n" == (GOLDEN / "v1_extractive_answer.html").read_text(
        encoding="utf-8"
    )
    assert to_markdown(rec) == (GOLDEN / "v1_extractive_answer.md").read_text(encoding="utf-8")
    assert "待复核" not in render_answer(rec)


def test_migration_does_not_mutate_and_rejects_newer_versions() -> None:
    data = json.loads((GOLDEN / "v1_extractive_answer.json").read_text(encoding="utf-8"))
    before = json.dumps(data, sort_keys=True)
    assert migrate_record_data(data)["schema_version"] == SCHEMA_VERSION
    assert json.dumps(data, sort_keys=True) == before
    with pytest.raises(ValidationError, match="newer than this program"):
        AnswerRecord.model_validate({**data, "schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(ValidationError, match="positive integer"):
        AnswerRecord.model_validate({**data, "schema_version": "1"})


def test_v2_fields_round_trip() -> None:
    rec = checked_record(A, B, C)
    again = AnswerRecord.model_validate_json(rec.model_dump_json())
    assert again == rec
    sp = again.supports[1]
    assert sp.verdict == "contradicted" and sp.aligned_quote == rec.supports[1].aligned_quote
    assert sp.verdict_reason == "来源写的是 3，句子写的是 10"


# the columns every store version has (a store may also have user_id, issue 16)
ROW = "INSERT INTO answers (answer_id, created_at, status, conversation_id, query, record_json) VALUES (?,?,?,?,?,?)"


def test_record_store_skips_and_reports_unreadable_rows(tmp_path: Path) -> None:
    store = RecordStore(tmp_path / "r.sqlite3")
    good = checked_record(A, B, C, answer_id="good")
    store.save(good)
    v1 = json.loads((GOLDEN / "v1_extractive_answer.json").read_text(encoding="utf-8"))
    with sqlite3.connect(store.path) as db:
        db.execute(ROW, ("broken", "2030-01-01", "answered", None, "q", "{not json"))
        db.execute(
            ROW,
            (
                "future",
                "2030-01-02",
                "answered",
                None,
                "q",
                json.dumps({**v1, "answer_id": "future", "schema_version": 9}),
            ),
        )
        db.execute(
            ROW,
            (v1["answer_id"], v1["created_at"], v1["status"], None, v1["query"], json.dumps(v1, ensure_ascii=False)),
        )
    listed = store.list()
    assert [r.answer_id for r in listed] == ["good", v1["answer_id"]]  # newest first
    assert sorted(s.answer_id for s in listed.skipped) == ["broken", "future"]
    assert any("newer" in s.reason for s in listed.skipped)
    assert store.get(v1["answer_id"]).schema_version == SCHEMA_VERSION  # type: ignore[union-attr]
    with pytest.raises(RecordError):
        store.get("broken")


# -- rendering ---------------------------------------------------------------------------------


def test_all_three_verdicts_on_the_page() -> None:
    rec = checked_record(A, B, C)
    html = render_answer(rec)
    assert_safe(html)
    assert _sup_classes(html) == ["yz-cite", "yz-cite yz-cite-contradicted", "yz-cite yz-cite-review"]
    assert visible(html) == (
        rec.answer_text[: rec.supports[1].start] + "[1]"
        + rec.answer_text[rec.supports[1].start : rec.supports[2].start] + "[2]⚠ 与来源矛盾"
        + UNSUPPORTED + "[3]待复核" + INVENTED + "{本段无出处}"
    )  # fmt: skip
    cards = re.findall(r'<span class="yz-card" role="tooltip">(.*?)</span></sup>', html)
    assert len(cards) == 3
    supported, contradicted, review = cards
    # the supported card shows its quote highlighted, a plain link otherwise
    assert "来源支持此句（核对得分 0.97）" in supported
    assert "<mark>副本数默认为 1，可以随时调整。</mark>" in supported
    # the contradicted card names the conflict and shows the conflicting passage
    assert "⚠ 与来源矛盾：来源写的是 3，句子写的是 10" in contradicted
    assert "来源原文：" in contradicted and "<mark>每个 CronJob 最多保留 3 个成功的 Job 记录。</mark>" in contradicted
    # 待复核 with its reason; no quote -> the plain snippet
    assert "待复核：来源没有提到默认启用" in review and "<mark>" not in review
    assert 'class="yz-card-snippet">Pod 是最小的部署单元。' in review
    # links to the snapshot carry the support whose quote the page highlights
    hrefs = parse_html(html).markers
    assert hrefs[0].endswith("&support=0") and hrefs[1].endswith("&support=1") and "support=" not in hrefs[2]
    assert 'aria-label="来源 2：CronJob（与来源矛盾）"' in html


def test_needs_review_without_a_verdict_is_never_a_plain_citation() -> None:
    rec = record("副本数默认为 1。", [Support(start=0, end=9, chunk_ids=("a#0",), status="needs_review")], [A])
    html = render_answer(rec)
    assert _sup_classes(html) == ["yz-cite yz-cite-review"]
    assert visible(html) == "副本数默认为 1。[1]待复核"
    assert "待复核：部分引用的片段不在本次检索结果中" in html


def test_reason_and_quote_are_escaped() -> None:
    evil = chunk("e#0", "前文<img src=x onerror=alert(1)>。<script>alert(2)</script>结尾。")
    q = evil.text.index("<script>")
    sp = Support(
        start=0,
        end=4,
        chunk_ids=("e#0",),
        verdict="contradicted",
        verdict_reason='<b onclick="x">理由</b>',
        aligned_quote=AlignedQuote(chunk_id="e#0", start=q, end=q + 25),
    )
    html = render_answer(record("一句话。", [sp], [evil]))
    assert_safe(html)
    assert "<script" not in html and "<b " not in html and "<img" not in html
    assert "&lt;b onclick=" in html and "<mark>&lt;script&gt;alert(2)&lt;/script&gt;</mark>" in html


@pytest.mark.parametrize(
    "quote",
    [
        AlignedQuote(chunk_id="a#0", start=5, end=999),  # past the end of the chunk
        AlignedQuote(chunk_id="a#0", start=-2, end=3),
        AlignedQuote(chunk_id="a#0", start=6, end=6),
        AlignedQuote(chunk_id="other#9", start=0, end=3),  # another chunk's offsets
    ],
)
def test_bad_quote_offsets_fall_back_to_the_plain_snippet(quote: AlignedQuote) -> None:
    sp = Support(start=0, end=9, chunk_ids=("a#0",), verdict="supported", aligned_quote=quote)
    html = render_answer(record("副本数默认为 1。", [sp], [A]))
    assert "<mark>" not in html and "support=" not in html
    assert 'class="yz-card-snippet">前言。副本数默认为 1' in html
    assert _sup_classes(html) == ["yz-cite"]


def test_the_worst_verdict_of_a_marker_wins() -> None:
    text = "副本数默认为 1，可以随时调整。"
    sups = [
        Support(start=0, end=8, chunk_ids=("a#0",), verdict="supported"),
        Support(start=0, end=len(text), chunk_ids=("a#0",), verdict="contradicted", verdict_reason="数字不一致"),
    ]
    html = render_answer(record(text, sups, [A]))
    assert _sup_classes(html) == ["yz-cite yz-cite-contradicted"]
    assert visible(html).endswith("[1]⚠ 与来源矛盾")


def test_marker_verdicts_map_supports_past_dropped_ones() -> None:
    # answer "第一句。第二句。": slots after each sentence (code points 4 and 8)
    original = [
        Support(start=0, end=99, chunk_ids=("a#0",), verdict="supported"),  # dropped: past the end
        Support(
            start=0,
            end=4,
            chunk_ids=("a#0",),
            verdict="supported",
            aligned_quote=AlignedQuote(chunk_id="a#0", start=3, end=9),
        ),
        Support(start=4, end=8, chunk_ids=("b#0",), verdict="unsupported"),
    ]
    kept = original[1:]
    v = marker_verdicts(original, kept, [(4, ("a#0",)), (8, ("b#0",))], {"a#0": A.text, "b#0": B.text})
    assert v[(4, "a#0")].support_index == 1 and v[(4, "a#0")].quote == (3, 9)
    assert v[(8, "b#0")].kind == "review" and v[(8, "b#0")].reason == "来源中找不到支持这句话的内容。"


def test_export_says_the_verdicts_in_words() -> None:
    md = to_markdown(checked_record(A, B, C))
    assert (
        "[^2]〔⚠ 与来源矛盾：来源写的是 3，句子写的是 10；来源原文：“每个 CronJob 最多保留 3 个成功的 Job 记录。”〕"
        in md
    )
    assert "[^3]〔待复核：来源没有提到默认启用〕" in md
    assert INVENTED + "〔本段无出处〕" in md
    # the supported sentence is a plain footnote
    assert "调整。[^1]" in md


def test_export_escapes_markdown_in_reasons() -> None:
    sp = Support(
        start=0, end=4, chunk_ids=("a#0",), verdict="unsupported", verdict_reason="见 [链接](javascript:x) *强调*"
    )
    md = to_markdown(record("一句话。", [sp], [A]))
    assert r"〔待复核：见 \[链接\](javascript:x) \*强调\*〕" in md


# -- the highlighted quote -----------------------------------------------------------------------


def test_quote_offsets_are_code_points() -> None:
    text = "前面😀有表情，🇨🇳旗帜后是引文。后文"
    start = text.index("引文")
    assert highlight_html(text, (start, start + 2)) == (
        '<div class="yz-quote-text">前面😀有表情，🇨🇳旗帜后是<mark id="yz-quote">引文</mark>。后文</div>'
    )
    card = quote_card_html(
        text, MarkerVerdict(position=0, chunk_id="c", kind="supported", quote=(start, start + 2)), context=3
    )
    assert card == '<span class="yz-card-snippet yz-card-quote">…帜后是<mark>引文</mark>。后文</span>'


@pytest.mark.parametrize("span", [None, (3, 2), (0, 0), (-1, 2), (0, 99), ("0", "2")])
def test_bad_spans_give_no_highlight_and_never_raise(span) -> None:  # noqa: ANN001
    assert highlight_html("a<b>c", span) == '<div class="yz-quote-text">a&lt;b&gt;c</div>'
    bad = MarkerVerdict.model_construct(position=0, chunk_id="c", kind="supported", quote=span)
    assert quote_card_html("a<b>c", bad) is None


def test_snapshot_quote_follows_the_url_then_the_first_usable_quote() -> None:
    rec = checked_record(A, B, C)
    assert snapshot_quote(rec.supports, "b#0", B.text, "1")[0] == 1  # type: ignore[index]
    assert snapshot_quote(rec.supports, "b#0", B.text, "0")[0] == 1  # type: ignore[index]  # support 0 is in a#0
    assert snapshot_quote(rec.supports, "a#0", A.text, "x<script>")[0] == 0  # type: ignore[index]
    assert snapshot_quote(rec.supports, "c#0", C.text, None) is None


def test_gemini_answer_with_an_unsupported_cited_sentence_shows_review() -> None:
    """The shape the pipeline stores for a Gemini answer whose cited chunk does not
    support one sentence (verdict set, status needs_review): 待复核 on that sentence only."""
    src = chunk("g#0", "备份任务每天凌晨两点运行，结果保存在对象存储中，保留 30 天。", title="备份")
    text = "备份任务每天凌晨两点运行。备份会保留 90 天 😀。"
    cut = text.index("备份会")
    sups = [
        Support(
            start=0,
            end=cut,
            chunk_ids=("g#0",),
            verdict="supported",
            verification_score=0.9,
            aligned_quote=AlignedQuote(chunk_id="g#0", start=0, end=12),
        ),
        Support(
            start=cut,
            end=len(text),
            chunk_ids=("g#0",),
            status="needs_review",
            verdict="contradicted",
            verification_score=0.1,
            verdict_reason="来源写的是 30 天，句子写的是 90 天",
            aligned_quote=AlignedQuote(chunk_id="g#0", start=24, end=32),
        ),
    ]
    html = render_answer(record(text, sups, [src], generator="gemini"))
    assert visible(html) == "备份任务每天凌晨两点运行。[1]备份会保留 90 天 😀。[1]⚠ 与来源矛盾"
    assert _sup_classes(html) == ["yz-cite", "yz-cite yz-cite-contradicted"]
    assert "<mark>保留 30 天。</mark>" in html and "来源写的是 30 天，句子写的是 90 天" in html
