"""Grounding: a generator's draft becomes code-point supports on the answer, with an audit.

``ground(draft, sent_chunk_ids)`` turns a generator's :class:`Draft` (offsets
relative to one part, in any unit of :mod:`core.grounding.offsets`) into
:class:`Support` values whose ``start``/``end`` are **code points** on the
joined answer text, plus an audit entry for every support it drops or repairs.
``validate_supports`` checks stored supports (code points) again before
rendering; ``answer_status`` says whether anything in an answer can be checked
against the sources. Chunk ids are normalised the same way in both (empty and
duplicate ids removed; ids that were not sent removed and the support marked
``needs_review``).

Where markers go is not decided here: see :mod:`core.grounding.layout`.
Never raises for bad supports; offset errors come from :mod:`core.grounding.offsets`.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from itertools import accumulate
from typing import Literal

from core.grounding.offsets import OffsetBoundsError, to_codepoint
from core.models import AuditEntry, Draft, Frozen, Support


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
                    f"part_index {ds.part_index} is out of range (the draft has {len(draft.parts)} parts)",
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
            audit.append(_drop(i, "no valid chunk id remains", problem="no_valid_chunk_id", **base))
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
        audit.extend(e.model_copy(update={"detail": {**e.detail, "stage": "render"}}) for e in id_audit)
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


__all__ = [
    "Grounded",
    "answer_status",
    "ground",
    "has_visible_text",
    "validate_supports",
]
