"""Property tests over random text and random supports (hypothesis).

Text mixes CJK, emoji (ZWJ sequences, flags, skin tones), combining marks,
right-to-left scripts, lone surrogates and Markdown syntax; supports come in
every unit, valid and invalid.
"""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from components.answer_view import _PLAIN, _sanitize, render_answer
from core.errors import OffsetError
from core.grounding.layout import layout, marker_numbers
from core.grounding.offsets import UNITS, from_codepoint, text_length, to_codepoint
from core.grounding.supports import ground, validate_supports
from core.models import Draft, DraftSupport, GeneratorInfo, Support
from tests.ui.test_render import assert_safe, chunk, marker_chunk_ids, parse_html, record

FRAGMENTS = [
    "地球", "月球绕地球转", "价格", "。", "！", "？", "，", "：", "🌍", "👨‍👩‍👧", "🇨🇳", "🇯🇵", "👍🏽",
    "e\u0301", "a\u0308\u0323", "שלום", "مرحبا", "\u200f", "**", "*", "_", "__", "`", "``", "```\n",
    "```python\n", "~~", "~", "$", "$5", ":smile:", "[1]: ", "[x](http://a.b)", "[y](javascript:z)",
    "<http://x.y>", "<script>", "<img src=x onerror=alert(1)>", "\\", "&amp;", "&#36;", "\n", "\n\n",
    "  ", "    ", "# ", "## ", "- ", "1. ", "3) ", "> ", "| a | b |\n|---|---|\n", "| 1 | 2 |\n",
    "---", "\n===", "\t", "\r\n", "\r", "Done. ", "!", "?", "[", "]", "(", ")", '"', "'", "\ud800",
    "\U0001F000", "\x00",
]  # fmt: skip

texts = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=3)), max_size=24).map("".join)
units = st.sampled_from(UNITS)
SENT = ["c1", "c2", "c3"]
chunk_ids = st.lists(st.sampled_from([*SENT, "ghost", "", "c1"]), max_size=4)
FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOW = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- offsets ------------------------------------------------------------------------------------


@FAST
@given(texts, units)
def test_conversions_round_trip_on_every_boundary(text: str, unit: str) -> None:
    for i in range(len(text) + 1):
        off = from_codepoint(text, i, unit)  # type: ignore[arg-type]
        assert to_codepoint(text, off, unit) == i  # type: ignore[arg-type]
    assert from_codepoint(text, len(text), unit) == text_length(text, unit)  # type: ignore[arg-type]
    # bytes <-> utf16 through code points
    for i in range(len(text) + 1):
        b = from_codepoint(text, i, "utf8")
        u = from_codepoint(text, i, "utf16")
        assert from_codepoint(text, to_codepoint(text, b, "utf8"), "utf16") == u
        assert from_codepoint(text, to_codepoint(text, u, "utf16"), "utf8") == b
    if "\ud800" not in text:
        assert text_length(text, "utf8") == len(text.encode("utf-8"))
        assert text_length(text, "utf16") == len(text.encode("utf-16-le")) // 2


@FAST
@given(texts, units, st.integers(-3, 120))
def test_any_offset_converts_exactly_or_raises(text: str, unit: str, offset: int) -> None:
    try:
        cp = to_codepoint(text, offset, unit)  # type: ignore[arg-type]
    except OffsetError as exc:
        assert str(offset) in str(exc) and unit in str(exc)
        return
    assert 0 <= cp <= len(text)
    assert from_codepoint(text, cp, unit) == offset  # type: ignore[arg-type]
    if unit == "utf8" and "\ud800" not in text:
        assert len(text[:cp].encode("utf-8")) == offset


# -- drafts with random supports ----------------------------------------------------------------------


@st.composite
def drafts(draw: st.DrawFn) -> Draft:
    text = draw(texts)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=2)))
    bounds = [0, *cuts, len(text)]
    parts = tuple(text[a:b] for a, b in zip(bounds, bounds[1:]))
    sups = []
    for _ in range(draw(st.integers(0, 6))):
        unit = draw(units)
        part_index = draw(st.integers(-1, len(parts)))
        part = parts[part_index] if 0 <= part_index < len(parts) else ""
        n = text_length(part, unit)
        if draw(st.booleans()) and len(part) > 0:  # a valid span on code-point boundaries
            a = draw(st.integers(0, len(part) - 1))
            b = draw(st.integers(a + 1, len(part)))
            start: int | None = from_codepoint(part, a, unit)
            end: int | None = from_codepoint(part, b, unit)
            if start == 0 and draw(st.booleans()):
                start = None
        else:
            start = draw(st.none() | st.integers(-2, n + 2))
            end = draw(st.none() | st.integers(-2, n + 2))
        sups.append(
            DraftSupport(
                start=start,
                end=end,
                unit=unit,
                part_index=part_index,
                chunk_ids=tuple(draw(chunk_ids)),
            )
        )
    return Draft(parts=parts, supports=tuple(sups), generator=GeneratorInfo(name="gemini"))


@FAST
@given(drafts())
def test_ground_never_raises_and_accounts_for_every_support(draft: Draft) -> None:
    before = draft.model_dump()
    g = ground(draft, SENT)
    assert draft.model_dump() == before
    assert g == ground(draft, SENT)
    text = draft.text
    assert g.answer_text == text
    for s in g.supports:
        assert 0 <= s.start < s.end <= len(text)
        assert s.chunk_ids and len(set(s.chunk_ids)) == len(s.chunk_ids)
        assert set(s.chunk_ids) <= set(SENT)
    dropped = {a.support_index for a in g.audit if a.action == "dropped"}
    assert all(a.support_index is not None and 0 <= a.support_index < len(draft.supports) for a in g.audit)
    assert len(g.supports) + len(dropped) == len(draft.supports)
    not_sent = {a.support_index for a in g.audit if a.detail.get("problem") == "not_sent"} - dropped
    assert sum(s.status == "needs_review" for s in g.supports) == len(not_sent)
    assert g.status == ("answered" if g.supports else "unverifiable")


# -- segments ---------------------------------------------------------------------------------------------


@st.composite
def texts_with_supports(draw: st.DrawFn) -> tuple[str, list[Support]]:
    text = draw(texts)
    n = len(text)
    sups = []
    for _ in range(draw(st.integers(0, 6))):
        if n and draw(st.booleans()):
            a = draw(st.integers(0, n - 1))
            b = draw(st.integers(a + 1, n))
        else:
            a = draw(st.integers(-2, n + 2))
            b = draw(st.integers(-2, n + 2))
        sups.append(Support(start=a, end=b, chunk_ids=tuple(draw(chunk_ids))))
    return text, sups


@FAST
@given(texts_with_supports())
def test_segments_tile_the_text_and_markers_are_consistent(case: tuple[str, list[Support]]) -> None:
    text, sups = case
    copy = list(sups)
    lay = layout(text, sups)
    assert sups == copy
    pos = 0
    for seg in lay.segments:
        assert seg.start == pos and seg.end > seg.start
        assert seg.text == text[seg.start : seg.end]
        pos = seg.end
    assert pos == len(text)
    assert "".join(s.text for s in lay.segments) == text
    cited = {c for s in sups for c in s.chunk_ids if c}
    slot_at = {s.position: s for s in lay.slots}
    assert sorted(slot_at) == [s.position for s in lay.slots]
    for seg in lay.segments:
        assert set(seg.chunk_ids) <= cited
        assert len(set(seg.chunk_ids)) == len(seg.chunk_ids)
        if seg.chunk_ids:
            assert slot_at[seg.end].chunk_ids == seg.chunk_ids
    for slot in lay.slots:
        assert 0 < slot.position <= len(text)
        assert slot.chunk_ids or slot.unsupported
        assert not (slot.chunk_ids and slot.unsupported)
    numbers = marker_numbers(lay.segments)
    assert sorted(numbers.values()) == list(range(1, len(numbers) + 1))
    assert layout(text, sups) == lay


# -- rendering ------------------------------------------------------------------------------------------------

_MARKERS = {"yz-cite", "yz-unsupported", "yz-review", "yz-contradicted", "yz-after-block", "yz-orphans"}


class _Events(HTMLParser):
    """The answer body's element/text events, with our marker subtrees left out."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple] = []
        self.stack: list[tuple[bool, bool]] = []
        self.depth = 0  # inside the body
        self.skip = 0

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        classes = set((dict(attrs).get("class") or "").split())
        void = tag in ("br", "hr")
        body = "yz-answer-body" in classes
        if body:
            self.depth += 1
        skip = bool(classes & _MARKERS)
        if not void:
            self.stack.append((skip, body))
        if skip:
            self.skip += 1
            if void:
                self.skip -= 1
            return
        if self.depth and not self.skip and "yz-answer-body" not in classes:
            self.events.append(("start", tag, tuple(sorted(attrs))))

    def handle_endtag(self, tag):  # noqa: ANN001
        skip, body = self.stack.pop() if self.stack else (False, False)
        if skip:
            self.skip -= 1
            return
        if body:
            self.depth -= 1
            return
        if self.depth and not self.skip:
            self.events.append(("end", tag))

    def handle_data(self, data):  # noqa: ANN001
        if self.depth and not self.skip:
            if self.events and self.events[-1][0] == "text":
                self.events[-1] = ("text", self.events[-1][1] + data)
            else:
                self.events.append(("text", data))


def _events(html: str) -> list[tuple]:
    p = _Events()
    p.feed(html)
    p.close()
    return p.events


@SLOW
@given(texts_with_supports(), st.booleans())
def test_render_is_safe_deterministic_and_keeps_the_markdown(case: tuple[str, list[Support]], extractive: bool) -> None:
    text, sups = case
    chunks = [chunk("c1", "<script>alert(1)</script>"), chunk("c2", title=""), chunk("c3", uri="https://x.y/")]
    rec = record(text, sups, chunks, generator="extractive" if extractive else "gemini")
    html = render_answer(rec)
    assert render_answer(rec) == html
    assert_safe(html)
    # every rendered marker resolves to a chunk that was sent
    assert set(marker_chunk_ids(html)) <= set(SENT)
    assert "<script" not in html
    # markers and marks change nothing else: same elements, attributes and text as the
    # plain rendering of the same Markdown
    plain = _sanitize(f'<div class="yz-answer-body">{_PLAIN.render(text)}</div>')
    assert _events(html) == _events(plain)
    # one marker per chunk per slot, numbered by first appearance
    usable, _ = validate_supports(text, sups, SENT)
    lay = layout(text, usable)
    tree = parse_html(html)
    n_markers = sum(len([c for c in s.chunk_ids if c in SENT]) for s in lay.slots)
    assert len(tree.markers) == n_markers
