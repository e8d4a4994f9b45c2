"""Grounding: offset units, support normalization and audit, segments, marker slots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.errors import GroundingError, OffsetError
from core.grounding.layout import layout, marker_numbers, segments, sentence_spans
from core.grounding.offsets import OffsetBoundsError, from_codepoint, rebase, text_length, to_codepoint
from core.grounding.supports import Grounded, answer_status, ground, validate_supports
from core.markdown import markdown_parser
from core.models import Chunk, Draft, DraftSupport, GeneratorInfo, RetrievedChunk, Segment, Support
from tests.conftest import shared_path

FIXTURES = shared_path("fixtures", "gemini")
SIDECARS = sorted(FIXTURES.glob("*.expect.json")) if FIXTURES else []
needs_fixtures = pytest.mark.skipif(not SIDECARS, reason="../shared/fixtures/gemini not found beside the repository")


def draft(parts, *supports: DraftSupport, extra=()) -> Draft:  # noqa: ANN001
    return Draft(
        parts=tuple(parts),
        supports=tuple(supports),
        generator=GeneratorInfo(name="gemini"),
        extra_chunks=tuple(extra),
    )


def ds(start, end, ids=("c1",), unit="codepoint", part=0, **kw) -> DraftSupport:  # noqa: ANN001
    return DraftSupport(start=start, end=end, chunk_ids=tuple(ids), unit=unit, part_index=part, **kw)


def tiles(text: str, segs) -> bool:  # noqa: ANN001
    pos = 0
    for s in segs:
        if s.start != pos or s.end <= s.start or s.text != text[s.start : s.end]:
            return False
        pos = s.end
    return pos == len(text)


# -- offsets ---------------------------------------------------------------------------------


def test_units_on_mixed_text() -> None:
    text = "a地🌍é"  # 1 + 3 + 4 + 2 bytes; 1 + 1 + 2 + 1 utf16 units
    assert text_length(text, "utf8") == 10
    assert text_length(text, "utf16") == 5
    assert text_length(text, "codepoint") == 4
    assert [to_codepoint(text, b, "utf8") for b in (0, 1, 4, 8, 10)] == [0, 1, 2, 3, 4]
    assert [to_codepoint(text, u, "utf16") for u in (0, 1, 2, 4, 5)] == [0, 1, 2, 3, 4]
    assert [from_codepoint(text, i, "utf8") for i in range(5)] == [0, 1, 4, 8, 10]
    assert [from_codepoint(text, i, "utf16") for i in range(5)] == [0, 1, 2, 4, 5]
    assert [from_codepoint(text, i, "codepoint") for i in range(5)] == [0, 1, 2, 3, 4]


@pytest.mark.parametrize(
    "offset, unit, reason, words",
    [
        (-1, "utf8", "negative", ["utf8 offset -1", "negative"]),
        (11, "utf8", "past_end", ["utf8 offset 11", "past the end", "10 utf8"]),
        (2, "utf8", "inside_character", ["utf8 offset 2", "inside", "地", "U+5730", "1..4"]),
        (6, "utf8", "inside_character", ["utf8 offset 6", "🌍"]),
        (3, "utf16", "inside_character", ["utf16 offset 3", "🌍", "2..4"]),
        (6, "utf16", "past_end", ["utf16 offset 6"]),
        (5, "codepoint", "past_end", ["codepoint offset 5"]),
        (-2, "codepoint", "negative", ["codepoint offset -2"]),
    ],
)
def test_bad_offsets_raise_with_offset_unit_and_reason(offset, unit, reason, words) -> None:  # noqa: ANN001
    with pytest.raises(OffsetError) as info:
        to_codepoint("a地🌍é", offset, unit)
    err = info.value
    assert isinstance(err, OffsetBoundsError) and isinstance(err, GroundingError)
    assert (err.offset, err.unit, err.reason) == (offset, unit, reason)
    for w in words:
        assert w in str(err), (w, str(err))


def test_from_codepoint_rejects_out_of_range_and_bad_input() -> None:
    for bad in (-1, 5):
        with pytest.raises(OffsetError):
            from_codepoint("a地🌍é", bad, "utf8")
    with pytest.raises(OffsetError, match="not an integer"):
        to_codepoint("abc", True, "utf8")  # type: ignore[arg-type]
    with pytest.raises(OffsetError, match="not an integer"):
        to_codepoint("abc", 1.0, "utf8")  # type: ignore[arg-type]
    with pytest.raises(OffsetError, match="unknown offset unit"):
        to_codepoint("abc", 1, "bytes")  # type: ignore[arg-type]


def test_python_slicing_would_hide_the_error_but_we_do_not() -> None:
    text = "地球"
    assert text[0:99] == text  # what naive code does
    with pytest.raises(OffsetError):
        to_codepoint(text, 99, "codepoint")


def test_lone_surrogate_counts_like_surrogatepass() -> None:
    text = "a\ud800b"
    assert text_length(text, "utf8") == len(text.encode("utf-8", "surrogatepass")) == 5
    assert text_length(text, "utf16") == 3
    assert to_codepoint(text, 4, "utf8") == 2


def test_rebase_onto_joined_parts() -> None:
    parts = ("第一部分内容。", "第二部分。")
    assert rebase(parts, 1, 0) == 7 and rebase(parts, 1, 5) == 12
    with pytest.raises(OffsetError):
        rebase(parts, 2, 0)
    with pytest.raises(OffsetError):
        rebase(parts, 1, 6)


@needs_fixtures
@pytest.mark.parametrize("path", SIDECARS, ids=[p.name.split(".")[0] for p in SIDECARS])
def test_fixture_sidecar_spans_convert_in_every_unit(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    checked = 0
    parts = {p["part_index"]: p["text"] for p in data.get("parts", [])}
    for p in data.get("parts", []):
        assert text_length(p["text"], "codepoint") == p["char_len"]
        assert text_length(p["text"], "utf8") == p["utf8_len"]
        assert text_length(p["text"], "utf16") == p["utf16_len"]
    for s in data.get("sentences", []):
        if "byte_start" not in s:
            continue
        text = parts[s["part_index"]]
        for a, b in (("byte_start", "char_start"), ("byte_end", "char_end")):
            assert to_codepoint(text, s[a], "utf8") == s[b]
            assert from_codepoint(text, s[b], "utf8") == s[a]
        for a, b in (("utf16_start", "char_start"), ("utf16_end", "char_end")):
            assert to_codepoint(text, s[a], "utf16") == s[b]
            assert from_codepoint(text, s[b], "utf16") == s[a]
        assert text[s["char_start"] : s["char_end"]] == s["text"]
        checked += 1
    for a in data.get("annotations", []):
        # offsets are relative to the text block that carries the annotation
        if "output_text_char_start" in a:
            block_start = a["output_text_char_start"] - a["char_start"]
            block = data["output_text"][block_start:]
        else:
            block = data["output_text"]
        assert to_codepoint(block, a["byte_start"], "utf8") == a["char_start"]
        assert to_codepoint(block, a["byte_end"], "utf8") == a["char_end"]
        assert block[a["char_start"] : a["char_end"]] == a["text"]
        checked += 1
    assert checked


@needs_fixtures
@pytest.mark.parametrize(
    "name", [p.name.split(".")[0] for p in SIDECARS if "sentences" in json.loads(p.read_text())
             and "parts" in json.loads(p.read_text())]
)  # fmt: skip
def test_fixture_supports_ground_onto_the_joined_answer(name: str) -> None:
    data = json.loads((FIXTURES / f"{name}.expect.json").read_text(encoding="utf-8"))
    used = sorted({s["part_index"] for s in data["sentences"]})
    # answer parts: the parts that sentences live in (a thought part is not answer text)
    first = used[0]
    answer_parts = [p["text"] for p in data["parts"] if p["part_index"] >= first]
    sups = [
        ds(s["byte_start"] or None, s["byte_end"], [f"k{i}" for i in s["chunk_indices"]], "utf8",
           s["part_index"] - first)
        for s in data["sentences"]
        if s["supported"]
    ]  # fmt: skip
    g = ground(draft(answer_parts, *sups), [f"k{i}" for i in range(len(data["sources"]))])
    assert g.audit == ()
    want = [(s["joined_char_start"], s["joined_char_end"]) for s in data["sentences"] if s["supported"]]
    assert [(s.start, s.end) for s in g.supports] == want
    for s in data["sentences"]:
        if s["supported"]:
            assert g.answer_text[s["joined_char_start"] : s["joined_char_end"]] == s["text"]
    # unsupported sentences get a 本段无出处 slot at their end
    lay = layout(g.answer_text, g.supports)
    unsupported_ends = {sl.position for sl in lay.slots if sl.unsupported}
    for s in data["sentences"]:
        if not s["supported"]:
            assert s["joined_char_end"] in unsupported_ends
        else:
            assert s["joined_char_end"] not in unsupported_ends


# -- ground -------------------------------------------------------------------------------------


def test_ground_converts_bytes_and_rebases_parts() -> None:
    g = ground(draft(["第一部分内容。", "第二部分。"], ds(0, 15, unit="utf8", part=1)), ["c1"])
    assert isinstance(g, Grounded)
    assert g.answer_text == "第一部分内容。第二部分。"
    (s,) = g.supports
    assert (s.start, s.end) == (7, 12)
    assert g.answer_text[s.start : s.end] == "第二部分。"
    assert g.status == "answered"


def test_missing_start_means_zero_missing_end_is_an_error() -> None:
    g = ground(draft(["地球是圆的。"], ds(None, 18, unit="utf8"), ds(0, None, unit="utf8")), ["c1"])
    assert [(s.start, s.end) for s in g.supports] == [(0, 6)]
    (entry,) = g.audit
    assert (entry.support_index, entry.action, entry.detail["problem"]) == (1, "dropped", "missing_end")


@pytest.mark.parametrize(
    "support, problem",
    [
        (ds(-1, 3, unit="utf8"), "negative"),
        (ds(0, 99, unit="utf8"), "past_end"),
        (ds(1, 6, unit="utf8"), "inside_character"),
        (ds(0, 5, unit="utf8"), "inside_character"),
        (ds(3, 0, unit="utf8"), "reversed"),
        (ds(3, 3, unit="utf8"), "empty"),
        (ds(0, 3, unit="utf8", part=1), "part_out_of_range"),
        (ds(0, 1, unit="utf16", part=-1), "part_out_of_range"),
        (ds(6, 7, unit="codepoint"), "no_visible_text"),
        (ds(0, 3, ids=(), unit="utf8"), "no_valid_chunk_id"),
        (ds(0, 3, ids=("", " "), unit="utf8"), "no_valid_chunk_id"),
        (ds(0, 3, ids=("ghost",), unit="utf8"), "no_valid_chunk_id"),
    ],
)
def test_bad_support_is_dropped_and_audited(support: DraftSupport, problem: str) -> None:
    g = ground(draft(["地球是圆的。 "], support), ["c1"])
    assert g.supports == ()
    assert g.status == "unverifiable"
    dropped = [a for a in g.audit if a.action == "dropped"]
    assert len(dropped) == 1
    assert dropped[0].support_index == 0
    assert dropped[0].detail["problem"] == problem
    assert dropped[0].reason


def test_offset_error_detail_names_field_and_unit() -> None:
    g = ground(draft(["地球"], ds(0, 4, unit="utf8")), ["c1"])
    (a,) = g.audit
    assert a.detail["field"] == "end" and a.detail["unit"] == "utf8"
    assert "utf8 offset 4" in a.reason and "inside" in a.reason


def test_chunk_ids_normalized_unknown_ids_audited_needs_review() -> None:
    g = ground(
        draft(["甲。乙。"], ds(0, 2, ids=("c1", "c1", "ghost", "c2", "")), ds(2, 4, ids=("c2",))),
        ["c1", "c2"],
    )
    first, second = g.supports
    assert first.chunk_ids == ("c1", "c2") and first.status == "needs_review"
    assert second.chunk_ids == ("c2",) and second.status == "verified"
    problems = [(a.support_index, a.action, a.detail["problem"]) for a in g.audit]
    assert problems == [(0, "repaired", "duplicate"), (0, "repaired", "not_sent"), (0, "repaired", "empty_id")]
    assert "ghost" in g.audit[1].reason


def test_extra_chunks_may_be_cited() -> None:
    c = Chunk(chunk_id="web#0", document_id="web@1", source_id="web", version="1", ordinal=0,
              title="t", heading_path=("t",), text="x")  # fmt: skip
    d = draft(["甲。"], ds(0, 2, ids=("web#0",)), extra=[RetrievedChunk(chunk=c, rank=1)])
    assert ground(d, []).supports[0].chunk_ids == ("web#0",)


def test_quotes_and_scores_are_kept() -> None:
    g = ground(draft(["甲。"], ds(0, 2, quote="原文", score=0.7)), ["c1"])
    assert g.supports[0].quote == "原文" and g.supports[0].score == 0.7


def test_supports_sorted_by_position() -> None:
    g = ground(draft(["甲。乙。丙。"], ds(4, 6), ds(0, 2), ds(2, 4)), ["c1"])
    assert [(s.start, s.end) for s in g.supports] == [(0, 2), (2, 4), (4, 6)]


def test_ground_does_not_mutate_its_input() -> None:
    d = draft(["地球是圆的。🌍月球绕地球转。"], ds(22, 43, ids=["c1", "c1", "x"], unit="utf8"), ds(1, 2, unit="utf8"))
    sent = ["c1"]
    before = (d.model_dump(), list(sent))
    ground(d, sent)
    assert (d.model_dump(), sent) == before


# -- layout and segments --------------------------------------------------------------------


def test_segments_tile_and_carry_markers() -> None:
    text = "地球是圆的。🌍月球绕地球转。"
    segs = segments(text, [Support(start=7, end=14, chunk_ids=("c1",))])
    assert tiles(text, segs)
    assert [(s.text, s.chunk_ids) for s in segs] == [
        ("地球是圆的。", ()),
        ("🌍", ()),
        ("月球绕地球转。", ("c1",)),
    ]
    lay = layout(text, [Support(start=7, end=14, chunk_ids=("c1",))])
    assert [(s.position, s.chunk_ids, s.unsupported) for s in lay.slots] == [(6, (), True), (14, ("c1",), False)]


def test_segments_do_not_mutate_input() -> None:
    sups = [Support(start=0, end=2, chunk_ids=("a", "a")), Support(start=0, end=99, chunk_ids=("b",))]
    copy = [s.model_copy() for s in sups]
    segments("甲。乙。", sups)
    assert sups == copy


def test_marker_retreats_over_trailing_whitespace() -> None:
    text = "第一行。\n\n第二行。"
    lay = layout(text, [Support(start=0, end=6, chunk_ids=("c1",))])
    (slot,) = [s for s in lay.slots if s.chunk_ids]
    assert slot.position == 4 and slot.anchor_token is None
    assert tiles(text, lay.segments)


def test_marker_inside_code_block_and_table_moves_after_block() -> None:
    text = "说明：\n\n```\nx = 1\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n结束。"
    fence_mid = text.index("y = 2")
    table_mid = text.index("| 1 |") + 2
    lay = layout(
        text,
        [
            Support(start=0, end=fence_mid, chunk_ids=("c1",)),
            Support(start=fence_mid, end=table_mid, chunk_ids=("c2",)),
        ],
    )
    tokens = markdown_parser().parse(text)
    slots = {s.chunk_ids: s for s in lay.slots if s.chunk_ids}
    fence = slots[("c1",)]
    assert tokens[fence.anchor_token].type == "fence"
    assert fence.position == text.index("```\n\n|") + 3
    table = slots[("c2",)]
    assert tokens[table.anchor_token].type == "table_close"
    assert table.position == text.index("| 1 | 2 |") + len("| 1 | 2 |")
    assert tiles(text, lay.segments)


def test_marker_moves_after_inline_code_span() -> None:
    text = "调用 ``a ` b`` 即可。"
    lay = layout(text, [Support(start=0, end=text.index("` b"), chunk_ids=("c1",))])
    (slot,) = [s for s in lay.slots if s.chunk_ids]
    assert slot.position == text.index("`` 即") + 2


def test_marker_never_splits_a_delimiter_run_or_escape() -> None:
    text = "**粗体句子**后文。"
    lay = layout(text, [Support(start=0, end=text.index("**后") + 1, chunk_ids=("c1",))])
    (slot,) = [s for s in lay.slots if s.chunk_ids]
    assert slot.position == text.index("后")
    # CommonMark alone: after 。 the closing ** is not right-flanking (not bold); with the
    # CJK-friendly rule (core.cjk_emphasis) it is bold, so the marker follows the closing **
    odd = "**粗体句子。**后文。"
    lay = layout(odd, [Support(start=0, end=odd.index("**后") + 1, chunk_ids=("c1",))])
    (slot,) = [s for s in lay.slots if s.chunk_ids]
    assert slot.position == odd.index("后")
    # Latin text keeps CommonMark: a"b."**c is not bold, a placeholder after ** would
    # make it bold -> the marker goes to the line end
    latin = 'Say **"bold."**then stop.'
    lay = layout(latin, [Support(start=0, end=latin.index("**then") + 1, chunk_ids=("c1",))])
    (slot,) = [s for s in lay.slots if s.chunk_ids]
    assert slot.position == len(latin)
    text2 = "价格 \\*不是强调\\* 结束。"
    lay2 = layout(text2, [Support(start=0, end=text2.index("*不是"), chunk_ids=("c1",))])
    (slot2,) = [s for s in lay2.slots if s.chunk_ids]
    # the span ends between \\ and the * it escapes: the marker steps back before the backslash (3)
    assert slot2.position == text2.index("\\*不是") == 3


def test_marker_never_splits_flag_or_combining_mark() -> None:
    text = "国旗🇨🇳很好。e\u0301结束。"
    lay = layout(text, [Support(start=0, end=3, chunk_ids=("c1",)), Support(start=7, end=8, chunk_ids=("c2",))])
    pos = {s.chunk_ids: s.position for s in lay.slots if s.chunk_ids}
    assert pos[("c1",)] == 4  # after both regional indicators
    assert pos[("c2",)] == 9  # after the combining accent


def test_support_spanning_two_sentences_one_marker_no_unsupported_mark() -> None:
    text = "甲句。乙句。丙句。"
    lay = layout(text, [Support(start=0, end=6, chunk_ids=("c1",))])
    assert [(s.text, s.chunk_ids) for s in lay.segments] == [("甲句。乙句。", ("c1",)), ("丙句。", ())]
    assert [(s.position, s.unsupported) for s in lay.slots] == [(6, False), (9, True)]


def test_overlapping_and_nested_supports_give_each_chunk_once_per_sentence() -> None:
    text = "甲乙丙丁戊。己。"
    sups = [
        Support(start=0, end=6, chunk_ids=("b", "a")),
        Support(start=0, end=2, chunk_ids=("a",)),
        Support(start=1, end=6, chunk_ids=("a", "c")),
        Support(start=0, end=6, chunk_ids=("c",)),
    ]
    segs = segments(text, sups)
    assert tiles(text, segs)
    assert [(s.text, s.chunk_ids) for s in segs] == [("甲乙丙丁戊。", ("b", "a", "c")), ("己。", ())]
    # the span decides, not the list order: the same supports listed (1,6) (0,2) (0,6)b,a (0,6)c
    # still give b, a, c (in list order it would be a, c, b); ties on one span keep their given order
    assert segments(text, [sups[2], sups[1], sups[0], sups[3]]) == segs
    assert segments(text, list(reversed(sups)))[0].chunk_ids == ("c", "b", "a")


def test_invalid_supports_are_ignored_by_layout() -> None:
    text = "甲。"
    bad = [
        Support(start=-1, end=1, chunk_ids=("a",)),
        Support(start=1, end=1, chunk_ids=("a",)),
        Support(start=2, end=1, chunk_ids=("a",)),
        Support(start=0, end=9, chunk_ids=("a",)),
        Support(start=0, end=2, chunk_ids=()),
    ]
    segs = segments(text, bad)
    assert segs == (Segment(start=0, end=2, text="甲。", chunk_ids=()),)
    assert segments("", bad) == ()


def test_marker_numbers_first_appearance() -> None:
    segs = [
        Segment(start=0, end=1, text="a", chunk_ids=("z", "y")),
        Segment(start=1, end=2, text="b"),
        Segment(start=2, end=3, text="c", chunk_ids=("y", "x", "z")),
    ]
    assert marker_numbers(segs) == {"z": 1, "y": 2, "x": 3}


def test_answer_status() -> None:
    assert answer_status([]) == "unverifiable"
    assert answer_status([Support(start=0, end=0, chunk_ids=("a",))]) == "unverifiable"
    assert answer_status([Support(start=0, end=2, chunk_ids=())]) == "unverifiable"
    assert answer_status([Support(start=0, end=2, chunk_ids=("a",))]) == "answered"


def test_validate_supports_audits_each_problem() -> None:
    sups = [
        Support(start=0, end=2, chunk_ids=("a", "a", "zz")),
        Support(start=3, end=1, chunk_ids=("a",)),
        Support(start=0, end=50, chunk_ids=("a",)),
        Support(start=-2, end=1, chunk_ids=("a",)),
    ]
    kept, audit = validate_supports("甲。乙。", sups, ["a"])
    assert kept == (Support(start=0, end=2, chunk_ids=("a",), status="needs_review"),)
    assert [(a.support_index, a.detail["problem"]) for a in audit] == [
        (0, "duplicate"), (0, "not_sent"), (1, "reversed"), (2, "past_end"), (3, "negative"),
    ]  # fmt: skip
    assert all(a.detail["stage"] == "render" for a in audit)


def test_sentence_spans() -> None:
    text = "甲。乙！Done. 丙\n\n```\na。b\n```\n丁?"
    spans = sentence_spans(text)
    assert [text[a:b] for a, b in spans] == ["甲。", "乙！", "Done.", " 丙", "\n\n", "```\na。b\n```", "\n", "丁?"]
