"""Marker layout: sentences, marker slots, segments and marker numbers of an answer.

Serves rendering (:mod:`components.answer_view`) and export
(:mod:`core.records.export`), not grounding. ``layout(answer_text, supports)`` decides
where each group of markers goes (:class:`MarkerSlot`, placed by
:mod:`core.grounding.placement`) and tiles the answer into :class:`Segment` values;
``segments()`` is its segment half; ``sentence_spans`` gives the sentence-like
units that decide 本段无出处 and the once-per-sentence rule; ``marker_numbers``
numbers cited chunks by first appearance. Marker placement never changes the
Markdown (see :func:`layout`).

Units: every offset and position is a 0-based, end-exclusive **code-point**
index into the answer text (Python ``str`` indices), as in stored supports.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence

from core.grounding.answer_doc import AnswerDoc, answer_doc
from core.grounding.placement import Loc, candidates, resolve
from core.grounding.supports import has_visible_text
from core.models import Frozen, Segment, Support

_SENTENCE_END = re.compile(
    r"[。！？]+[”’」』）)】》\"']*"
    r"|[.!?]+[”’」』）)】》\"']*(?=\s|$)"
)
_NEWLINE_WS = re.compile(r"[^\S\r\n]*(?:\r\n|\r|\n)\s*")


def sentence_spans(answer_text: str) -> tuple[tuple[int, int], ...]:
    """Split the answer into sentence-like units, as ``(start, end)`` code points.

    Cuts after 。！？ (and ASCII ``. ! ?`` followed by whitespace), including
    closing quotes/brackets; whitespace runs holding a line break are units of
    their own; a fenced/indented code block or a table is one unit. The units
    tile the text.
    """
    doc = answer_doc(answer_text)
    return _units(doc)


def _units(doc: AnswerDoc) -> tuple[tuple[int, int], ...]:
    text = doc.text
    n = len(text)
    cuts = {0, n}
    for m in _SENTENCE_END.finditer(text):
        cuts.add(m.end())
    for m in _NEWLINE_WS.finditer(text):
        cuts.add(m.start())
        cuts.add(m.end())
    for b in doc.blocks:
        cuts = {c for c in cuts if not b.start < c < b.end}
        cuts.add(b.start)
        cuts.add(b.end)
    ordered = sorted(cuts)
    return tuple((a, b) for a, b in zip(ordered, ordered[1:]) if b > a)


class MarkerSlot(Frozen):
    """Where one group of markers is rendered.

    ``position`` (code points): the markers follow ``answer_text[:position]``.
    ``anchor_token``: None for an inline marker (a placeholder goes into the
    Markdown source at ``position``); otherwise the index, in
    ``markdown_parser().parse(answer_text)``, of the block token (fence,
    code_block, table_close, paragraph_close, heading_close) after/at whose
    closing the markers are rendered. ``chunk_ids``: the cited chunks, in
    order, each once. ``unsupported``: the slot carries the 本段无出处 mark.
    """

    position: int
    anchor_token: int | None = None
    chunk_ids: tuple[str, ...] = ()
    unsupported: bool = False


class Layout(Frozen):
    """Segments tiling ``answer_text`` and the marker slots, in text order."""

    answer_text: str
    segments: tuple[Segment, ...]
    slots: tuple[MarkerSlot, ...]


def _usable(sp: Support, n: int) -> tuple[str, ...] | None:
    if not (0 <= sp.start < sp.end <= n):
        return None
    ids = tuple(dict.fromkeys(c for c in sp.chunk_ids if isinstance(c, str) and c))
    return ids or None


def _components(intervals: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            if b > merged[-1][1]:
                merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


def _find(spans: Sequence[tuple[int, int]], p: int) -> int | None:
    """Index of the span (a, b) with a <= p < b."""
    i = bisect.bisect_right([a for a, _ in spans], p) - 1
    if i >= 0 and spans[i][0] <= p < spans[i][1]:
        return i
    return None


def layout(answer_text: str, supports: Sequence[Support]) -> Layout:
    """Place markers and tile ``answer_text`` into segments.

    ``supports`` carry code-point offsets into ``answer_text``. Supports that
    are out of range, empty, reversed or have no chunk id are ignored (audit
    them with :func:`validate_supports`).

    Placement of a support ``[start, end)``: the marker goes at ``end``,
    retreating over trailing whitespace (a marker never starts a line) and out
    of line-leading Markdown syntax; an end inside a fenced/indented code block
    or a table moves the marker after the block; a marker never splits a
    grapheme, a delimiter run or an escape, and never sits inside inline code
    (it moves after the code span) or a link. Each inline position is checked
    by rendering the Markdown with placeholder characters: if the rendering
    (placeholders removed) differs from the plain one, the marker falls back to
    the end of the line's text, then to the end of its paragraph/heading.

    Normalization: supports ending at the same place share one slot (chunk ids
    in support order, each once); within one sentence and one run of
    overlapping supports, a chunk is shown once, at its last marker.

    Segments tile the text exactly (no gap, no overlap); a segment's
    ``chunk_ids`` are those of the slot at its end. Sentences that no support
    touches and that hold visible text get a slot with ``unsupported=True``
    (本段无出处).
    """
    doc = answer_doc(answer_text)
    n = len(answer_text)
    valid: list[tuple[int, int, int, tuple[str, ...]]] = []
    for i, sp in enumerate(supports):
        ids = _usable(sp, n)
        if ids is not None:
            valid.append((sp.start, sp.end, i, ids))
    valid.sort()
    support_reqs = [candidates(doc, s, e) for s, e, _, _ in valid]

    # phase 1: support markers alone decide what is covered
    first = resolve(doc, support_reqs)
    coverage = [(s, loc.pos) for (s, _, _, _), loc in zip(valid, first) if loc is not None]
    comps = _components(coverage)
    units = _units(doc)

    def covered(a: int, b: int) -> bool:
        for ca, cb in comps:
            if max(a, ca) < min(b, cb):
                return True
        return False

    unsupported_units = [(a, b) for a, b in units if has_visible_text(answer_text[a:b]) and not covered(a, b)]
    unsup_reqs = [candidates(doc, a, b) for a, b in unsupported_units]

    # phase 2: every placeholder together
    locs = resolve(doc, [*support_reqs, *unsup_reqs])
    s_locs, u_locs = locs[: len(valid)], locs[len(valid) :]

    slot_ids: dict[int, list[str]] = {}
    slot_anchor: dict[int, int | None] = {}
    coverage = []

    def note(loc: Loc) -> None:
        if loc.pos not in slot_anchor or loc.anchor is None:
            slot_anchor[loc.pos] = loc.anchor

    for (s, _, _, ids), loc in zip(valid, s_locs):
        if loc is None or loc.pos <= s:
            continue
        coverage.append((s, loc.pos))
        note(loc)
        bucket = slot_ids.setdefault(loc.pos, [])
        bucket.extend(c for c in ids if c not in bucket)
    comps = _components(coverage)

    # a chunk once per sentence within one run of overlapping supports: keep its last marker
    seen: dict[tuple[int | None, int | None], set[str]] = {}
    for pos in sorted(slot_ids, reverse=True):
        key = (_find(units, pos - 1), _find(comps, pos - 1))
        done = seen.setdefault(key, set())
        slot_ids[pos] = [c for c in slot_ids[pos] if c not in done]
        done.update(slot_ids[pos])
    for pos in [p for p, ids in slot_ids.items() if not ids]:
        del slot_ids[pos]

    unsup_pos: set[int] = set()
    for _unit, loc in zip(unsupported_units, u_locs):
        if loc is None or loc.pos in slot_ids:
            continue
        note(loc)
        unsup_pos.add(loc.pos)

    bounds = {0, n, *slot_ids, *unsup_pos}
    for a, b in comps:
        bounds.update((a, b))
    for a, b in units:
        for c in (a, b):
            if not any(ca < c < cb for ca, cb in comps):
                bounds.add(c)
    ordered = sorted(bounds)
    segs = tuple(
        Segment(start=a, end=b, text=answer_text[a:b], chunk_ids=tuple(slot_ids.get(b, ())))
        for a, b in zip(ordered, ordered[1:])
        if b > a
    )
    slots = tuple(
        MarkerSlot(
            position=pos,
            anchor_token=slot_anchor[pos],
            chunk_ids=tuple(slot_ids.get(pos, ())),
            unsupported=pos in unsup_pos,
        )
        for pos in sorted({*slot_ids, *unsup_pos})
    )
    return Layout(answer_text=answer_text, segments=segs, slots=slots)


def segments(answer_text: str, supports: Sequence[Support]) -> tuple[Segment, ...]:
    """Tile ``answer_text`` into segments (code points), each with the chunk ids of its markers.

    The segments cover ``answer_text`` exactly, in order, with no gap and no
    overlap (``"".join(s.text for s in segs) == answer_text``). A segment's
    ``chunk_ids`` are the chunks whose markers follow it; see :func:`layout`
    for where markers go. Invalid supports are ignored. Does not mutate input.
    """
    return layout(answer_text, supports).segments


def marker_numbers(segs: Sequence[Segment]) -> dict[str, int]:
    """Chunk id -> marker number (1-based), numbered by first appearance in ``segs`` order."""
    numbers: dict[str, int] = {}
    for seg in segs:
        for cid in seg.chunk_ids:
            if cid not in numbers:
                numbers[cid] = len(numbers) + 1
    return numbers


__all__ = [
    "Layout",
    "MarkerSlot",
    "layout",
    "marker_numbers",
    "segments",
    "sentence_spans",
]
