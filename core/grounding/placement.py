"""Marker placement: where the marker of one span may go without changing the Markdown.

:func:`candidates` lists, best first, the places a marker for a span
``[s, e)`` may follow: at ``e`` (retreating over trailing whitespace and out of
line-leading Markdown syntax, never splitting a grapheme, a delimiter run or an
escape), the end of the line's text, then the end of its paragraph/heading; an
end inside a code block or table moves after the block. :func:`resolve` checks
the inline candidates of all requests together by rendering the answer with
placeholder characters (:mod:`core.markdown`) and comparing with the plain
rendering; a candidate that lands in inline code, a link, the middle of a
rendered grapheme cluster or changes the structure is replaced by the next one.
Block anchors (after a code block, table, paragraph or heading) are always safe.

Units: every position is a code-point index into the answer text; ``anchor``
values are token indices of :attr:`core.grounding.answer_doc.AnswerDoc.tokens`. Grapheme
clusters are Unicode UAX #29 extended clusters as implemented by ``regex``'s
``\\X``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import NamedTuple

import regex
from markdown_it.token import Token

from core.grounding.answer_doc import AnswerDoc, Region
from core.markdown import free_placeholder_chars, insert_at, parse_render, placeholder_codes

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


class Loc(NamedTuple):
    """A marker location: after ``text[:pos]`` (code points), inline or at a block anchor."""

    pos: int  # code points: the marker follows text[:pos]
    anchor: int | None  # token index for a block anchor; None = inline placeholder


def _retreat_ws(text: str, p: int, floor: int) -> int:
    while p > floor and text[p - 1].isspace():
        p -= 1
    return p


def _local_fix(text: str, p: int, region: Region) -> int:
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


def candidates(doc: AnswerDoc, s: int, e: int) -> list[Loc]:
    """Marker locations for a span ``[s, e)`` (code points), best first; [] when none fits."""
    text = doc.text
    blk = doc.block_at(e)
    if blk is not None:
        return [Loc(blk.end, blk.anchor)] if blk.end > s else []
    p = _retreat_ws(text, e, s)
    if p <= s:
        return []
    blk = doc.block_at(p)
    if blk is not None:
        return [Loc(blk.end, blk.anchor)]
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
                return [Loc(b.end, b.anchor)]
        region = doc.region_ending_at(p)
        if region is None:
            return []
    out: list[Loc] = []
    fixed = _local_fix(text, p, region)
    if region.start < fixed <= region.end and fixed > s:
        out.append(Loc(fixed, None))
    if region.end not in (loc.pos for loc in out):
        out.append(Loc(region.end, None))
    leaf = doc.leaves[region.leaf]
    out.append(Loc(leaf.end, leaf.anchor))
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


def _render_with(doc: AnswerDoc, inserts: Sequence[tuple[int, str]], strip: dict[int, None]):
    tokens, html = parse_render(insert_at(doc.text, inserts))
    return tokens, html.translate(strip) == doc.base_html


def _check_inline(doc: AnswerDoc, positions: Sequence[int]) -> dict[int, object]:
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


def _inline_loc(doc: AnswerDoc, q: int) -> Loc | None:
    """An inline marker location at ``q`` (moved to a grapheme boundary), if ``q`` is in text."""
    q = grapheme_boundary(doc.text, q)
    if doc.region_at(q) is not None and doc.block_at(q) is None:
        return Loc(q, None)
    return None


def _after_code_span(doc: AnswerDoc, p: int, run: int) -> Loc | None:
    """The position after the closing backtick run (length ``run``) of the code span
    containing p, moved past a combining mark or other cluster extender that follows it."""
    for m in re.finditer(r"`+", doc.text[p:]):
        if len(m.group()) == run:
            return _inline_loc(doc, p + m.end())
    return None


def resolve(doc: AnswerDoc, requests: Sequence[list[Loc]]) -> list[Loc | None]:
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
    out: list[Loc | None] = []
    for c in cands:
        anchors = [loc for loc in c if loc.anchor is not None]
        out.append(anchors[-1] if anchors else None)
    return out


__all__ = ["Loc", "candidates", "grapheme_boundary", "resolve"]
