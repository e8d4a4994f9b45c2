"""Replay support: how a stored chunk snapshot relates to the current index.

A snapshot is ``unchanged`` when its document version is still the active
one, ``updated`` when the source has a newer active version, ``deleted`` when
the source is no longer served (hidden or removed).
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Literal, Mapping

from core.models import Chunk, ChunkSnapshot

if TYPE_CHECKING:  # the renderer imports this module; keep it free of the index's dependencies
    from core.store.index import KnowledgeIndex

SnapshotState = Literal["unchanged", "updated", "deleted", "unknown"]


def snapshot_state(snap: ChunkSnapshot, current_versions: Mapping[str, str | None] | None) -> SnapshotState:
    """``current_versions`` maps ``kb/source_id`` (``snap.source_key``; a snapshot stored
    before knowledge bases counts as ``default``) to the active version.
    ``unknown`` when ``current_versions`` is None or does not know the source
    (e.g. a record replayed against another data folder); ``deleted`` when the
    source is known but not served; else ``unchanged`` / ``updated``."""
    if current_versions is None or snap.source_key not in current_versions:
        return "unknown"
    current = current_versions[snap.source_key]
    if current is None:
        return "deleted"
    return "unchanged" if current == snap.version else "updated"


def current_counterpart(index: "KnowledgeIndex", snap: ChunkSnapshot) -> Chunk | None:
    """The active chunk that now stands where ``snap`` stood: same source of the same
    knowledge base, same heading path if one exists (the most similar text among
    those), else the most similar text in the source. None when the source is not served."""
    candidates = [c for c in index.active_chunks().values() if c.source_key == snap.source_key]
    if not candidates:
        return None
    same_path = [c for c in candidates if c.heading_path == snap.heading_path]
    pool = same_path or candidates
    return max(pool, key=lambda c: (difflib.SequenceMatcher(None, snap.text, c.text).ratio(), -c.ordinal))


def char_diff(old: str, new: str) -> list[tuple[Literal["equal", "delete", "insert"], str]]:
    """Character-level differences (``difflib.SequenceMatcher``), as runs of
    ``("equal" | "delete" | "insert", text)`` that rebuild ``old`` (equal+delete)
    and ``new`` (equal+insert)."""
    out: list[tuple[Literal["equal", "delete", "insert"], str]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("equal", old[i1:i2]))
        else:
            if i2 > i1:
                out.append(("delete", old[i1:i2]))
            if j2 > j1:
                out.append(("insert", new[j1:j2]))
    return out
