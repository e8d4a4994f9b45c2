"""Markdown export with footnote citations, on hand-made records."""

from datetime import datetime, timezone

from core.export import UNSUPPORTED_MARK, to_markdown
from core.models import AnswerRecord, ChunkSnapshot, GeneratorInfo, RecommendedLink, Support

T = datetime(2026, 1, 1, tzinfo=timezone.utc)


def snap(cid: str, path: tuple[str, ...], uri: str | None = None) -> ChunkSnapshot:
    return ChunkSnapshot(
        chunk_id=cid, document_id=cid.split("#")[0], source_id="a.md", version="v1", title=path[0],
        heading_path=path, text="原文。", uri=uri, content_sha256="0" * 64, rank=1, retrieved_at=T,
    )


def record(text: str, supports, chunks, **kw) -> AnswerRecord:
    return AnswerRecord(
        query="问题？", answer_text=text, status=kw.pop("status", "answered"), generator=GeneratorInfo(name="t"),
        chunks=tuple(chunks), supports=tuple(supports), **kw,
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
    assert "[^2]: 甲 › 一 — https://example.org/a（片段 a#0，版本 v1）" in md


def test_no_evidence_and_links():
    r = record("", [], [], status="no_evidence",
               recommended_links=(RecommendedLink(label="首页", url="https://example.org/"),))
    md = to_markdown(r)
    assert "没有足够的证据" in md and "- [首页](https://example.org/)" in md
    assert "[^" not in md


def test_javascript_uri_is_not_exported_as_a_link():
    r = record("一句话。", [Support(start=0, end=4, chunk_ids=("a#0",))], [snap("a#0", ("甲",), "javascript:alert(1)")])
    assert "javascript:" not in to_markdown(r)
