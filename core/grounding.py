"""Grounding: support normalization and audit, segments, marker placement.

Offsets are **0-based, end-exclusive code points** into the answer text;
provider units are converted by :mod:`core.offsets`.

Pipeline
--------
``ground(draft, sent_chunk_ids)`` turns a generator's :class:`Draft` (offsets
relative to one part, any unit) into code-point :class:`Support` values on the
joined answer plus an audit. ``layout(answer_text, supports)`` decides where each
marker goes (``MarkerSlot``) and tiles the answer into :class:`Segment` values;
``segments()`` is its segment half. Marker placement never changes the Markdown:
every inline position is checked by rendering the answer with placeholder
characters and comparing with the plain rendering (see :func:`layout`).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from itertools import accumulate
from typing import Literal, NamedTuple

import regex
from markdown_it.token import Token

from core.markdown import free_placeholder_chars, insert_at, parse_render, placeholder_codes
from core.models import AuditEntry, Draft, Frozen, Segment, Support
from core.offsets import OffsetBoundsError, to_codepoint


# ---------------------------------------------------------------------------
# Grounding a draft
# ---------------------------------------------------------------------------


class Grounded(Frozen):
    """The result of :func:`ground`.

    ``answer_text`` is ``"".join(draft.parts)``; ``supports`` carry code-point
    offsets into it (sorted by start, end; draft order for ties); ``audit``
    lists every support that was dropped or repaired (``support_index`` = index
    in ``draft.supports``).
    """

    answer_text: str
    supports: tuple[Support, ...] = ()
    audit: tuple[AuditEntry, ...] = ()

    @property
    def status(self) -> Literal["answered", "unverifiable"]:
        return answer_status(self.supports)


def has_visible_text(text: str) -> bool:
    """True when ``text`` holds a letter, digit, or a currency/other symbol (emoji).

    Whitespace, punctuation and Markdown syntax alone are not visible text.
    """
    for ch in text:
        cat = unicodedata.category(ch)
        if cat[0] in "LN" or cat in ("So", "Sc"):
            return True
    return False


def _drop(index: int, reason: str, **detail: object) -> AuditEntry:
    return AuditEntry(support_index=index, action="dropped", reason=reason, detail=detail)  # type: ignore[arg-type]


def _normalize_ids(
    index: int, chunk_ids: Sequence[object], allowed: set[str] | None
) -> tuple[list[str], list[AuditEntry], bool]:
    """Dedupe and check chunk ids. Returns (kept ids, audit entries, needs_review)."""
    kept: list[str] = []
    audit: list[AuditEntry] = []
    seen: set[str] = set()
    needs_review = False
    for cid in chunk_ids:
        if not isinstance(cid, str) or not cid.strip():
            audit.append(
                AuditEntry(
                    support_index=index,
                    action="repaired",
                    reason=f"empty or invalid chunk id {cid!r} removed",
                    detail={"problem": "empty_id", "chunk_id": None if cid is None else str(cid)},
                )
            )
            continue
        if cid in seen:
            audit.append(
                AuditEntry(
                    support_index=index,
                    action="repaired",
                    reason=f"duplicate chunk id {cid!r} removed",
                    detail={"problem": "duplicate", "chunk_id": cid},
                )
            )
            continue
        seen.add(cid)
        if allowed is not None and cid not in allowed:
            needs_review = True
            audit.append(
                AuditEntry(
                    support_index=index,
                    action="repaired",
                    reason=f"chunk id {cid!r} was not among the chunks sent to the generator; "
                    "it was removed and the support needs review",
                    detail={"problem": "not_sent", "chunk_id": cid},
                )
            )
            continue
        kept.append(cid)
    return kept, audit, needs_review


def ground(draft: Draft, sent_chunk_ids: Sequence[str]) -> Grounded:
    """Convert a draft's supports into code-point supports on the joined answer, with an audit.

    Each ``DraftSupport`` has ``start``/``end`` in its ``unit`` (UTF-8 bytes,
    UTF-16 units or code points) relative to ``draft.parts[part_index]``. A
    missing ``start`` means 0 (providers omit zero values); a missing ``end`` is
    an error. Offsets are converted with :func:`to_codepoint` and rebased onto
    ``draft.text`` (code points).

    A support is **dropped** (audit action ``dropped``) when its part index is out
    of range, an offset is missing, negative, past the end of its part or inside
    a character, the span is reversed or empty, the span has no visible text, or
    no valid chunk id remains. Chunk ids are normalized (audit action
    ``repaired``): empty and duplicate ids are removed; an id not among
    ``sent_chunk_ids`` (nor among ``draft.extra_chunks``) is removed and the
    support's status becomes ``needs_review``. Quotes and scores are kept as
    given (informational). Never raises for bad supports; never mutates input.
    """
    text = draft.text
    allowed = set(sent_chunk_ids) | {rc.chunk_id for rc in draft.extra_chunks}
    part_starts = [0, *accumulate(len(p) for p in draft.parts)]
    out: list[tuple[int, int, Support]] = []
    audit: list[AuditEntry] = []
    for i, ds in enumerate(draft.supports):
        base = {"unit": ds.unit, "part_index": ds.part_index, "start": ds.start, "end": ds.end}
        if not 0 <= ds.part_index < len(draft.parts):
            audit.append(
                _drop(
                    i,
                    f"part_index {ds.part_index} is out of range (the draft has "
                    f"{len(draft.parts)} parts)",
                    problem="part_out_of_range",
                    **base,
                )
            )
            continue
        part = draft.parts[ds.part_index]
        if ds.end is None:
            audit.append(_drop(i, "the support has no end offset", problem="missing_end", **base))
            continue
        raw_start = 0 if ds.start is None else ds.start
        if raw_start > ds.end:
            audit.append(
                _drop(
                    i,
                    f"reversed span: start {raw_start} > end {ds.end} ({ds.unit})",
                    problem="reversed",
                    **base,
                )
            )
            continue
        try:
            start_cp = to_codepoint(part, raw_start, ds.unit)
        except OffsetBoundsError as exc:
            audit.append(_drop(i, f"start: {exc}", problem=exc.reason, field="start", **base))
            continue
        try:
            end_cp = to_codepoint(part, ds.end, ds.unit)
        except OffsetBoundsError as exc:
            audit.append(_drop(i, f"end: {exc}", problem=exc.reason, field="end", **base))
            continue
        if start_cp == end_cp:
            audit.append(_drop(i, "empty span (start == end)", problem="empty", **base))
            continue
        start = part_starts[ds.part_index] + start_cp
        end = part_starts[ds.part_index] + end_cp
        if not has_visible_text(text[start:end]):
            audit.append(
                _drop(
                    i,
                    f"span {start}..{end} (code points) has no visible text",
                    problem="no_visible_text",
                    **base,
                )
            )
            continue
        kept, id_audit, needs_review = _normalize_ids(i, ds.chunk_ids, allowed)
        audit.extend(id_audit)
        if not kept:
            audit.append(
                _drop(i, "no valid chunk id remains", problem="no_valid_chunk_id", **base)
            )
            continue
        out.append(
            (
                start,
                end,
                Support(
                    start=start,
                    end=end,
                    chunk_ids=tuple(kept),
                    quote=ds.quote,
                    score=ds.score,
                    status="needs_review" if needs_review else "verified",
                ),
            )
        )
    out.sort(key=lambda t: (t[0], t[1]))
    return Grounded(answer_text=text, supports=tuple(s for _, _, s in out), audit=tuple(audit))


def validate_supports(
    answer_text: str,
    supports: Sequence[Support],
    known_chunk_ids: Sequence[str] | None = None,
) -> tuple[tuple[Support, ...], tuple[AuditEntry, ...]]:
    """Check stored supports (code points on ``answer_text``) before rendering.

    Returns the usable supports (same order; chunk ids deduplicated, ids not in
    ``known_chunk_ids`` removed and the support marked ``needs_review``) and an
    audit entry for each problem (``support_index`` = index in ``supports``,
    ``detail["stage"] == "render"``). A support whose offsets are negative,
    reversed, empty, past ``len(answer_text)`` or that has no known chunk id is
    dropped. Never raises for bad supports.
    """
    allowed = None if known_chunk_ids is None else set(known_chunk_ids)
    n = len(answer_text)
    kept_supports: list[Support] = []
    audit: list[AuditEntry] = []
    for i, sp in enumerate(supports):
        base = {"stage": "render", "start": sp.start, "end": sp.end}
        problem = None
        if sp.start < 0 or sp.end < 0:
            problem = ("negative", f"negative offset in span {sp.start}..{sp.end} (code points)")
        elif sp.start > sp.end:
            problem = ("reversed", f"reversed span: start {sp.start} > end {sp.end}")
        elif sp.start == sp.end:
            problem = ("empty", "empty span (start == end)")
        elif sp.end > n:
            problem = (
                "past_end",
                f"span {sp.start}..{sp.end} runs past the end of the answer ({n} code points)",
            )
        if problem is not None:
            audit.append(_drop(i, problem[1], problem=problem[0], **base))
            continue
        ids, id_audit, needs_review = _normalize_ids(i, sp.chunk_ids, allowed)
        audit.extend(
            e.model_copy(update={"detail": {**e.detail, "stage": "render"}}) for e in id_audit
        )
        if not ids:
            audit.append(_drop(i, "no valid chunk id remains", problem="no_valid_chunk_id", **base))
            continue
        if tuple(ids) != sp.chunk_ids or needs_review:
            sp = sp.model_copy(
                update={
                    "chunk_ids": tuple(ids),
                    "status": "needs_review" if needs_review else sp.status,
                }
            )
        kept_supports.append(sp)
    return tuple(kept_supports), tuple(audit)


def answer_status(supports: Sequence[Support]) -> Literal["answered", "unverifiable"]:
    """``"answered"`` when at least one support has a non-empty span and a chunk id.

    Otherwise ``"unverifiable"``: nothing in the answer can be checked against
    the sources. Offsets are code points; validity against a text is not
    checked here (use :func:`validate_supports` first).
    """
    for sp in supports:
        if sp.end > sp.start >= 0 and any(isinstance(c, str) and c for c in sp.chunk_ids):
            return "answered"
    return "unverifiable"


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_GRAPHEME = regex.compile(r"\X")  # extended grapheme clusters (Unicode UAX #29, the `regex` package)


def grapheme_boundary(text: str, p: int) -> int:
    """The smallest extended-grapheme-cluster boundary ``>= p`` in ``text``
    (code points; UAX #29 as implemented by ``regex``'s ``\\X``)."""
    if p <= 0 or p >= len(text):
        return max(0, min(p, len(text)))
    for m in _GRAPHEME.finditer(text):
        if m.end() >= p:
            return m.start() if m.start() == p else m.end()
    return len(text)


class _Block(NamedTuple):
    start: int  # code points: start of the block's first line
    end: int  # code points: end of its last non-blank content
    anchor: int  # token index after which a marker is rendered


class _Region(NamedTuple):
    start: int  # code points: first char of a line's inline content
    end: int  # code points: after its last non-whitespace char
    leaf: int  # index into _Doc.leaves


class _Doc:
    """The Markdown structure of one answer text, in code points."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[Token]
        self.base_html: str
        self.tokens, self.base_html = parse_render(text)
        breaks = list(_LINE_BREAK.finditer(text))
        self.line_starts = [0, *(m.end() for m in breaks)]
        self.line_ends = [*(m.start() for m in breaks), len(text)]
        self.blocks: list[_Block] = []
        self.leaves: list[_Block] = []
        self.regions: list[_Region] = []
        self._scan()
        self.regions.sort()
        self.region_starts = [r.start for r in self.regions]
        stops = {r.end for r in self.regions} | {b.end for b in self.blocks}
        self.stops = sorted(stops)

    def _line_span(self, l0: int, l1: int) -> tuple[int, int]:
        last = len(self.line_starts) - 1
        l0 = min(l0, last)
        l1 = max(l0, min(l1 - 1, last))
        start = self.line_starts[l0]
        end = self.line_ends[l1]
        while end > start and self.text[end - 1].isspace():
            end -= 1
        return start, end

    def _scan(self) -> None:
        toks = self.tokens
        stack: list[int] = []
        table_depth = 0
        for i, t in enumerate(toks):
            if t.type == "table_open":
                table_depth += 1
                stack.append(i)
            elif t.type == "table_close":
                table_depth -= 1
                o = stack.pop()
                if toks[o].map:
                    s, e = self._line_span(*toks[o].map)
                    self.blocks.append(_Block(s, e, i))
            elif t.type in ("fence", "code_block", "html_block") and t.map:
                s, e = self._line_span(*t.map)
                self.blocks.append(_Block(s, e, i))
            elif t.nesting == 1:
                stack.append(i)
            elif t.nesting == -1:
                o = stack.pop() if stack else i
                if t.type in ("paragraph_close", "heading_close") and not table_depth:
                    self._leaf(o, i)

    def _leaf(self, open_idx: int, close_idx: int) -> None:
        inline = self.tokens[open_idx + 1] if open_idx + 1 < close_idx else None
        if inline is None or inline.type != "inline" or not inline.map:
            return
        leaf_index = len(self.leaves)
        regions: list[_Region] = []
        l0 = inline.map[0]
        for k, cl in enumerate(inline.content.split("\n")):
            line = l0 + k
            if line >= len(self.line_starts):
                break
            want = cl.strip()
            if not want:
                continue
            ls, le = self.line_starts[line], self.line_ends[line]
            src = self.text[ls:le]
            idx = src.rfind(want)
            if idx < 0:
                lead = len(src) - len(src.lstrip())
                a, b = ls + lead, ls + len(src.rstrip())
            else:
                a, b = ls + idx, ls + idx + len(want)
            if b > a:
                regions.append(_Region(a, b, leaf_index))
        if not regions:
            return
        self.leaves.append(_Block(regions[0].start, regions[-1].end, close_idx))
        self.regions.extend(regions)

    def block_at(self, p: int) -> _Block | None:
        for b in self.blocks:
            if b.start < p <= b.end:
                return b
        return None

    def region_at(self, p: int) -> _Region | None:
        i = bisect.bisect_left(self.region_starts, p) - 1
        while i >= 0:
            r = self.regions[i]
            if r.start < p <= r.end:
                return r
            if r.end < p:
                break
            i -= 1
        return None

    def region_ending_at(self, p: int) -> _Region | None:
        for r in self.regions:
            if r.end == p:
                return r
        return None


@functools.lru_cache(maxsize=64)
def _doc(text: str) -> _Doc:
    return _Doc(text)


class _Loc(NamedTuple):
    pos: int  # code points: the marker follows text[:pos]
    anchor: int | None  # token index for a block anchor; None = inline placeholder


def _retreat_ws(text: str, p: int, floor: int) -> int:
    while p > floor and text[p - 1].isspace():
        p -= 1
    return p


def _local_fix(text: str, p: int, region: _Region) -> int:
    n = len(text)
    # never split a grapheme: combining marks, ZWJ sequences, variation selectors, flags
    p = grapheme_boundary(text, p)
    # never split a delimiter run (** __ ~~ ``)
    while 0 < p < n and p < region.end and text[p] == text[p - 1] and text[p] in "*_~`":
        p += 1
    # never separate a backslash from the character it escapes
    k = p
    while k > region.start and text[k - 1] == "\\":
        k -= 1
    if (p - k) % 2 == 1:
        p -= 1
    return p


def _candidates(doc: _Doc, s: int, e: int) -> list[_Loc]:
    """Marker locations for a span ``[s, e)`` (code points), best first; [] when none fits."""
    text = doc.text
    blk = doc.block_at(e)
    if blk is not None:
        return [_Loc(blk.end, blk.anchor)] if blk.end > s else []
    p = _retreat_ws(text, e, s)
    if p <= s:
        return []
    blk = doc.block_at(p)
    if blk is not None:
        return [_Loc(blk.end, blk.anchor)]
    region = doc.region_at(p)
    if region is None:
        # p sits in Markdown syntax (list marker, heading #, setext underline, hr):
        # go back to the last place text or a block ended.
        i = bisect.bisect_right(doc.stops, p) - 1
        if i < 0 or doc.stops[i] <= s:
            return []
        p = doc.stops[i]
        for b in doc.blocks:
            if b.end == p:
                return [_Loc(b.end, b.anchor)]
        region = doc.region_ending_at(p)
        if region is None:
            return []
    out: list[_Loc] = []
    fixed = _local_fix(text, p, region)
    if region.start < fixed <= region.end and fixed > s:
        out.append(_Loc(fixed, None))
    if region.end not in (loc.pos for loc in out):
        out.append(_Loc(region.end, None))
    leaf = doc.leaves[region.leaf]
    out.append(_Loc(leaf.end, leaf.anchor))
    return out


def _locate_codes(tokens: Sequence[Token], codes: Sequence[str]) -> dict[str, object]:
    """Where each placeholder code ended up: "text", ("code", n), "link", "block" or "missing"."""
    found: dict[str, list[object]] = {c: [] for c in codes}

    def scan(content: str, where: object) -> None:
        for c in codes:
            if c in content:
                found[c].extend([where] * content.count(c))

    for t in tokens:
        if t.type == "inline" and t.children:
            depth = 0
            for ch in t.children:
                if ch.type == "link_open":
                    depth += 1
                elif ch.type == "link_close":
                    depth -= 1
                elif ch.type == "text":
                    scan(ch.content, "link" if depth else "text")
                elif ch.type == "code_inline":
                    scan(ch.content, ("code", len(ch.markup)))
                elif ch.content:
                    scan(ch.content, "other")
        elif t.content and t.type != "inline":
            scan(t.content, "block")
    out: dict[str, object] = {}
    for c, places in found.items():
        out[c] = places[0] if len(places) == 1 else "missing"
    return out


def _split_graphemes(tokens: Sequence[Token], codes: Sequence[str]) -> set[str]:
    """Placeholder codes that sit inside a grapheme cluster of the *rendered* text.

    Per inline token, the visible text of its children (text and inline code,
    markup dropped, placeholders removed) is joined; a code whose place in that
    text is not a cluster boundary (UAX #29) would carry a combining mark, ZWJ,
    variation selector or half a flag on the marker - e.g. after ``</code>``
    before U+0301.
    """
    code_set = set(codes)
    bad: set[str] = set()
    for t in tokens:
        if t.type != "inline" or not t.children:
            continue
        stream = "".join(ch.content for ch in t.children if ch.type in ("text", "code_inline"))
        clean: list[str] = []
        at: list[tuple[str, int]] = []
        for ch in stream:
            if ch in code_set:
                at.append((ch, len(clean)))
            else:
                clean.append(ch)
        if not at:
            continue
        text = "".join(clean)
        bounds = {0, len(text), *(m.end() for m in _GRAPHEME.finditer(text))}
        bad.update(c for c, i in at if i not in bounds)
    return bad


def _render_with(doc: _Doc, inserts: Sequence[tuple[int, str]], strip: dict[int, None]):
    tokens, html = parse_render(insert_at(doc.text, inserts))
    return tokens, html.translate(strip) == doc.base_html


def _check_inline(doc: _Doc, positions: Sequence[int]) -> dict[int, object]:
    """Problems of inline placeholder positions: {position: problem}; {} when all are safe."""
    if not positions:
        return {}
    try:
        codes = placeholder_codes(doc.text, len(positions))
    except ValueError:
        return {p: "no_placeholder" for p in positions}
    strip = {ord(c): None for c in free_placeholder_chars(doc.text)}
    inserts = list(zip(positions, codes))
    tokens, same = _render_with(doc, inserts, strip)
    where = _locate_codes(tokens, codes)
    split = _split_graphemes(tokens, codes)
    bad: dict[int, object] = {}
    for p, c in inserts:
        if where[c] != "text":
            bad[p] = where[c]
        elif c in split:
            bad[p] = "grapheme"
    if not same:
        for p, c in inserts:
            if p in bad:
                continue
            _, ok = _render_with(doc, [(p, c)], strip)
            if not ok:
                bad[p] = "structure"
        if not bad:
            bad = {p: "structure" for p in positions}
    return bad


def _inline_loc(doc: _Doc, q: int) -> _Loc | None:
    """An inline marker location at ``q`` (moved to a grapheme boundary), if ``q`` is in text."""
    q = grapheme_boundary(doc.text, q)
    if doc.region_at(q) is not None and doc.block_at(q) is None:
        return _Loc(q, None)
    return None


def _after_code_span(doc: _Doc, p: int, run: int) -> _Loc | None:
    """The position after the closing backtick run (length ``run``) of the code span
    containing p, moved past a combining mark or other cluster extender that follows it."""
    for m in re.finditer(r"`+", doc.text[p:]):
        if len(m.group()) == run:
            return _inline_loc(doc, p + m.end())
    return None


def _resolve(doc: _Doc, requests: Sequence[list[_Loc]]) -> list[_Loc | None]:
    """Pick for each request the first candidate location that passes the render check."""
    cands = [list(c) for c in requests]
    idx = [0] * len(cands)
    for _ in range(12):
        current = [c[i] if i < len(c) else None for c, i in zip(cands, idx)]
        positions = sorted({loc.pos for loc in current if loc is not None and loc.anchor is None})
        bad = _check_inline(doc, positions)
        if not bad:
            return current
        for k, loc in enumerate(current):
            if loc is None or loc.anchor is not None or loc.pos not in bad:
                continue
            problem = bad[loc.pos]
            nxt = None
            if isinstance(problem, tuple) and problem[0] == "code":
                nxt = _after_code_span(doc, loc.pos, problem[1])  # type: ignore[arg-type]
            elif problem == "grapheme":
                nxt = _inline_loc(doc, grapheme_boundary(doc.text, loc.pos + 1))
            if nxt is not None and nxt not in cands[k]:
                cands[k].insert(idx[k] + 1, nxt)
            idx[k] += 1
    # give up on inline positions: keep block anchors only (always safe)
    out: list[_Loc | None] = []
    for c in cands:
        anchors = [loc for loc in c if loc.anchor is not None]
        out.append(anchors[-1] if anchors else None)
    return out


# ---------------------------------------------------------------------------
# Sentences, segments, layout
# ---------------------------------------------------------------------------

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
    doc = _doc(answer_text)
    return _units(doc)


def _units(doc: _Doc) -> tuple[tuple[int, int], ...]:
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
    doc = _doc(answer_text)
    n = len(answer_text)
    valid: list[tuple[int, int, int, tuple[str, ...]]] = []
    for i, sp in enumerate(supports):
        ids = _usable(sp, n)
        if ids is not None:
            valid.append((sp.start, sp.end, i, ids))
    valid.sort()
    support_reqs = [_candidates(doc, s, e) for s, e, _, _ in valid]

    # phase 1: support markers alone decide what is covered
    first = _resolve(doc, support_reqs)
    coverage = [(s, loc.pos) for (s, _, _, _), loc in zip(valid, first) if loc is not None]
    comps = _components(coverage)
    units = _units(doc)

    def covered(a: int, b: int) -> bool:
        for ca, cb in comps:
            if max(a, ca) < min(b, cb):
                return True
        return False

    unsupported_units = [
        (a, b) for a, b in units if has_visible_text(answer_text[a:b]) and not covered(a, b)
    ]
    unsup_reqs = [_candidates(doc, a, b) for a, b in unsupported_units]

    # phase 2: every placeholder together
    locs = _resolve(doc, [*support_reqs, *unsup_reqs])
    s_locs, u_locs = locs[: len(valid)], locs[len(valid) :]

    slot_ids: dict[int, list[str]] = {}
    slot_anchor: dict[int, int | None] = {}
    coverage = []

    def note(loc: _Loc) -> None:
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
    for (a, _), loc in zip(unsupported_units, u_locs):
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
    "Grounded",
    "Layout",
    "MarkerSlot",
    "answer_status",
    "ground",
    "has_visible_text",
    "layout",
    "marker_numbers",
    "segments",
    "sentence_spans",
    "validate_supports",
]
