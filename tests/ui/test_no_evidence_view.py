"""The answer view of a sufficiency decision: the no-evidence message naming a
missing term, the candidates collapsed under it (escaped, never cited), the
uncovered-part note, and 关键词检索 while vectors are incomplete."""

from __future__ import annotations

from components.answer_view import CANDIDATES_TITLE, KEYWORD_MODE_NOTE, render_answer
from core.models import Candidate, SufficiencyInfo, Support
from tests.ui.test_render import assert_safe, chunk, marker_chunk_ids, parse_html, record


def _info(**kw) -> SufficiencyInfo:
    base = dict(decision="no_evidence", score=0.12, threshold=0.4, mode="hybrid")
    return SufficiencyInfo(**{**base, **kw})


def test_no_evidence_names_the_missing_term_and_keeps_candidates_collapsed() -> None:
    look_alike = chunk("c1", "青鸟平台的值班轮换周期是七天。<script>alert(1)</script>", relevance=0.63)
    rec = record(
        "",
        status="no_evidence",
        sufficiency=_info(missing_terms=("赤狐",), message="知识库中没有关于「赤狐」的内容。"),
        candidates=(Candidate(chunk=look_alike, score=0.08),),
    )
    html = render_answer(rec)
    assert "知识库中没有关于「赤狐」的内容。" in html
    assert "在当前检索设置下" not in html  # the specific message replaces the generic one
    tree = parse_html(html)
    details = [
        attrs for tag, attrs in tree.elements if tag == "details" and "yz-candidates" in (attrs.get("class") or "")
    ]
    assert len(details) == 1 and "open" not in details[0]  # collapsed
    assert CANDIDATES_TITLE in html and "换个说法" in html
    assert "青鸟平台的值班轮换周期是七天" in html and "<script>" not in html and "&lt;script&gt;" in html
    assert "相关度 0.63" in html and "充分性 0.08" in html and "未引用" in html
    assert marker_chunk_ids(html) == []  # a candidate is never a citation
    assert_safe(html)


def test_generic_no_evidence_message_without_a_missing_term() -> None:
    rec = record("", status="no_evidence", sufficiency=_info(message="知识库中没有找到足以回答这个问题的内容。"))
    html = render_answer(rec)
    assert "在当前检索设置下，知识库中没有足够的证据" in html and CANDIDATES_TITLE not in html


def test_a_rules_reason_replaces_the_generic_message() -> None:
    """A value or a drawback no evidence states is said as such, not as 没有足够的证据."""
    for reason in (
        "知识库的相关内容没有给出这个问题所问的具体数值（默认值、阈值或范围）。",
        "知识库的相关内容没有谈到这个问题所问的缺点或限制。",
    ):
        html = render_answer(record("", status="no_evidence", sufficiency=_info(message=reason)))
        assert reason in html and "在当前检索设置下" not in html


def test_keyword_mode_and_uncovered_note_on_an_answer() -> None:
    text = "青鸟平台的值班轮换周期是七天。"
    rec = record(
        text,
        [Support(start=0, end=len(text), chunk_ids=("c1",))],
        [chunk("c1", text)],
        sufficiency=_info(
            decision="sufficient",
            score=0.9,
            mode="keyword",
            note="知识库中没有关于「赤狐」的内容，以下只回答问题的其余部分。",
        ),
    )
    html = render_answer(rec)
    assert KEYWORD_MODE_NOTE in html and "关键词检索" in html
    assert "以下只回答问题的其余部分" in html
    assert marker_chunk_ids(html) == ["c1"]
    assert_safe(html)
    hybrid = render_answer(
        record(
            text,
            [Support(start=0, end=len(text), chunk_ids=("c1",))],
            [chunk("c1", text)],
            sufficiency=_info(decision="sufficient", score=0.9),
        )
    )
    assert "关键词检索" not in hybrid


def test_candidates_show_markdown_as_readable_text_with_inline_code() -> None:
    """The tester's input: a candidate list item with inline code showed "- 稳定的…" and backticks."""
    text = "## 部署\n\n- 稳定的副本数由 `.spec.replicas` 决定\n- **滚动**更新 <b>x</b>"
    rec = record(
        "", status="no_evidence", sufficiency=_info(), candidates=(Candidate(chunk=chunk("c1", text), score=0.1),)
    )
    html = render_answer(rec)
    assert "<code>.spec.replicas</code>" in html
    assert "`" not in html and "- 稳定" not in html and "**" not in html and "##" not in html
    assert "稳定的副本数由 <code>.spec.replicas</code> 决定 滚动更新" in html
    assert "<b>" not in html and "&lt;b&gt;" in html  # untrusted chunk text stays escaped
    assert_safe(html)


def test_an_answer_with_no_text_says_so_and_shows_what_was_found() -> None:
    """An answer the generator could not extract a sentence for (empty text over real chunks)
    is not a bare 无法核实: it says nothing was taken from the chunks and lists them, uncited."""
    from core.records.presentation import EMPTY_ANSWER_MESSAGE, FOUND_TITLE, UNVERIFIABLE_MESSAGE

    found = chunk(
        "c1",
        "创建一个服务对象来暴露 Deployment：\n```shell\nkubectl expose deployment hello-world\n```",
        heading_path=("使用服务来访问集群中的应用", "创建服务"),
    )
    html = render_answer(record("", [], [found], status="unverifiable", generator="extractive"))
    assert EMPTY_ANSWER_MESSAGE in html and UNVERIFIABLE_MESSAGE not in html
    assert FOUND_TITLE in html and "使用服务来访问集群中的应用 › 创建服务" in html and "未引用" in html
    assert marker_chunk_ids(html) == []
    assert_safe(html)
    answered = render_answer(record("原文。", [Support(start=0, end=3, chunk_ids=("c1",))], [chunk("c1")]))
    assert FOUND_TITLE not in answered and EMPTY_ANSWER_MESSAGE not in answered


def test_keyword_mode_with_every_vector_says_the_embedder_is_uncalibrated_not_unbuilt() -> None:
    """Fresh-clone pass: with the hash embedder every answer said 向量索引尚未建完 while the sidebar
    said the index was ready (keyword mode there means no calibrated decision for that model)."""
    from components.answer_view import KEYWORD_UNCALIBRATED_NOTE

    text = "青鸟平台的值班轮换周期是七天。"

    def html(coverage: str) -> str:
        return render_answer(
            record(
                text,
                [Support(start=0, end=len(text), chunk_ids=("c1",))],
                [chunk("c1", text)],
                sufficiency=_info(decision="sufficient", score=0.9, mode="keyword"),
                retrieval={"dense_coverage": coverage},
            )
        )

    assert KEYWORD_UNCALIBRATED_NOTE in html("832/832") and "尚未建完" not in html("832/832")
    assert KEYWORD_MODE_NOTE in html("12/832") and KEYWORD_MODE_NOTE in html("0/832")
