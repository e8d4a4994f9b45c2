"""Which verification verdict each citation marker shows (shared by the answer view and the export).

Verdicts are stored per support (``Support.verdict``, ``verdict_reason``,
``aligned_quote``; schema version 2); markers are per (slot, chunk) as
``core.grounding.layout.layout`` places them. This module maps one onto the other so
the page and the exported Markdown say the same thing. No HTML here.

Kinds, worst first: ``contradicted`` (the aligned passage disagrees) >
``review`` (verdict ``unsupported`` or status ``needs_review``: shown as 待复核)
> ``supported`` > ``plain`` (not verified: records of schema version 1). A
marker that stands for several supports shows the worst of them, so a support
that is not ``supported`` is never shown as a plain citation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

from core.models import Frozen, Support

MarkerKind = Literal["plain", "supported", "review", "contradicted"]

REVIEW_LABEL = "待复核"
CONTRADICTED_LABEL = "⚠ 与来源矛盾"
SUPPORTED_LABEL = "来源支持此句"
QUOTE_LABEL = "来源原文"
DEFAULT_REASONS: dict[str, str] = {
    "unsupported": "来源中找不到支持这句话的内容。",
    "needs_review": "部分引用的片段不在本次检索结果中，出处需人工复核。",
    "contradicted": "这句话与来源的说法不一致。",
}

_RANK = {"plain": 0, "supported": 1, "review": 2, "contradicted": 3}


class MarkerVerdict(Frozen):
    """What one marker (chunk ``chunk_id`` at slot ``position``) shows.

    ``position``: code points into the answer text (the slot's position).
    ``support_index``: index into ``AnswerRecord.supports`` of the support the
    marker stands for (the worst one). ``quote``: ``(start, end)`` code points
    into that chunk's text, already checked against it (None = no highlight).
    ``reason``: Chinese, untrusted (escape before HTML/Markdown).
    """

    position: int
    chunk_id: str
    kind: MarkerKind
    reason: str | None = None
    score: float | None = None
    support_index: int | None = None
    quote: tuple[int, int] | None = None


def support_kind(sp: Support) -> MarkerKind:
    """The marker kind one support asks for (see the module docstring)."""
    if sp.verdict == "contradicted":
        return "contradicted"
    if sp.verdict == "unsupported" or sp.status == "needs_review":
        return "review"
    if sp.verdict == "supported":
        return "supported"
    return "plain"


def support_reason(sp: Support) -> str | None:
    """The reason shown for a non-plain support: its own, else a default in Chinese."""
    if sp.verdict_reason and sp.verdict_reason.strip():
        return sp.verdict_reason.strip()
    if sp.verdict == "contradicted":
        return DEFAULT_REASONS["contradicted"]
    if sp.verdict == "unsupported":
        return DEFAULT_REASONS["unsupported"]
    if sp.status == "needs_review":
        return DEFAULT_REASONS["needs_review"]
    return None


def quote_span(sp: Support, chunk_id: str, chunk_text: str) -> tuple[int, int] | None:
    """``sp.aligned_quote`` as ``(start, end)`` code points into ``chunk_text``, if it is usable.

    None when there is no quote, it belongs to another chunk, or its offsets are
    not ``0 <= start < end <= len(chunk_text)`` (a bad offset means no highlight,
    never an error).
    """
    q = sp.aligned_quote
    if q is None or q.chunk_id != chunk_id:
        return None
    if not (isinstance(q.start, int) and isinstance(q.end, int)):
        return None
    if not 0 <= q.start < q.end <= len(chunk_text):
        return None
    return (q.start, q.end)


def original_indices(original: Sequence[Support], kept: Sequence[Support]) -> list[int]:
    """For each support in ``kept`` (``core.grounding.supports.validate_supports`` output, same order,
    offsets unchanged), its index in ``original``."""
    out: list[int] = []
    i = 0
    for sp in kept:
        key = (sp.start, sp.end, sp.verdict, sp.aligned_quote, sp.verdict_reason, sp.quote)
        while i < len(original):
            o = original[i]
            i += 1
            if (o.start, o.end, o.verdict, o.aligned_quote, o.verdict_reason, o.quote) == key:
                out.append(i - 1)
                break
        else:
            out.append(-1)
    return out


def marker_verdicts(
    original: Sequence[Support],
    kept: Sequence[Support],
    slots: Iterable[tuple[int, Sequence[str]]],
    chunk_texts: Mapping[str, str],
) -> dict[tuple[int, str], MarkerVerdict]:
    """Verdict of every marker, keyed by ``(slot position, chunk_id)``.

    ``original``: the record's supports; ``kept``: the usable ones
    (``validate_supports``); ``slots``: ``(position, chunk_ids)`` of each marker
    slot (code points into the answer); ``chunk_texts``: chunk id -> snapshot text.
    A support belongs to the slot citing one of its chunks that lies nearest to
    its end (and after its start): markers sit at the end of their span, moved
    over whitespace or past a block. Markers no support reaches are ``plain``.
    """
    slot_list = [(p, tuple(ids)) for p, ids in slots]
    best: dict[tuple[int, str], MarkerVerdict] = {}
    for sp, idx in zip(kept, original_indices(original, kept)):
        kind = support_kind(sp)
        for cid in sp.chunk_ids:
            cands = [p for p, ids in slot_list if cid in ids and p > sp.start]
            if not cands:
                continue
            pos = min(cands, key=lambda p: (abs(p - sp.end), p))
            text = chunk_texts.get(cid)
            mv = MarkerVerdict(
                position=pos,
                chunk_id=cid,
                kind=kind,
                reason=support_reason(sp) if kind in ("review", "contradicted") else None,
                score=sp.verification_score,
                support_index=idx if idx >= 0 else None,
                quote=quote_span(sp, cid, text) if text is not None else None,
            )
            old = best.get((pos, cid))
            if (
                old is None
                or _RANK[mv.kind] > _RANK[old.kind]
                or (_RANK[mv.kind] == _RANK[old.kind] and old.quote is None and mv.quote is not None)
            ):
                best[(pos, cid)] = mv
    return best


def snapshot_quote(
    supports: Sequence[Support], chunk_id: str, chunk_text: str, support_index: object = None
) -> tuple[int, Support] | None:
    """The support whose aligned quote the snapshot page highlights in chunk ``chunk_id``.

    ``support_index`` comes from the URL (``&support=i``; any value, untrusted):
    when it names a support with a usable quote in this chunk, that one;
    otherwise the first support with a usable quote in this chunk; otherwise
    None. Returns ``(index into supports, support)``; use :func:`quote_span`
    for the offsets (code points into ``chunk_text``).
    """
    try:
        wanted = int(str(support_index)) if support_index not in (None, "") else None
    except ValueError:
        wanted = None
    if wanted is not None and 0 <= wanted < len(supports):
        if quote_span(supports[wanted], chunk_id, chunk_text) is not None:
            return wanted, supports[wanted]
    for i, sp in enumerate(supports):
        if quote_span(sp, chunk_id, chunk_text) is not None:
            return i, sp
    return None
