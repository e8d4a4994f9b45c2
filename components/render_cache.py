"""Render each stored answer once: the HTML of a record, cached by its id and version state.

A stored record never changes (``core.records.store``: one row per ``answer_id``), so
its HTML (``components.answer_view.render_answer``: markdown-it, cards, nh3,
10–40 ms for a long answer) depends only on the record and on the version
state of the sources it cites: for each chunk snapshot, whether its source is
now ``unchanged`` / ``updated`` / ``deleted`` / ``unknown``
(``core.records.replay.snapshot_state``, which draws 来源已更新 / 来源已删除 on its
card). Keyed by ``(answer_id, status, version state, snapshot_base)``, a past
answer is rendered once per process and reused by every rerun of every
conversation view until a source it cites changes. Pure Python, no Streamlit.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping

from components.answer_view import render_answer
from core.public import AnswerRecord, snapshot_state

__all__ = ["RenderCache", "answer_html", "version_state"]

#: Rendered answers kept (least recently used dropped first); ~10–50 KB each.
MAX_ENTRIES = 512

Renderer = Callable[..., str]


def version_state(record: AnswerRecord, current_versions: Mapping[str, str | None] | None) -> tuple[str, ...]:
    """The state of every chunk snapshot of ``record`` (its evidence, then its
    no_evidence candidates) against ``current_versions`` (``kb/source_id`` → current
    version, None = deleted; None = not known), in record order."""
    snaps = [*record.chunks, *(c.chunk for c in record.candidates)]
    return tuple(snapshot_state(s, current_versions) for s in snaps)


class RenderCache:
    """A bounded, thread-safe LRU of answer HTML in front of ``render``
    (``render_answer``'s signature). ``renders`` counts calls of ``render``."""

    def __init__(self, render: Renderer = render_answer, max_entries: int = MAX_ENTRIES) -> None:
        if max_entries < 1:
            raise ValueError(f"max_entries must be >= 1, got {max_entries}")
        self._render = render
        self._max = max_entries
        self._items: OrderedDict[tuple, str] = OrderedDict()
        self._lock = threading.Lock()
        self.renders = 0

    def html(
        self,
        record: AnswerRecord,
        current_versions: Mapping[str, str | None] | None = None,
        snapshot_base: str = "./sources",
    ) -> str:
        """``render(record, current_versions=…, snapshot_base=…)``, from the cache when
        the same record was rendered with the same version state before."""
        key = (record.answer_id, record.status, version_state(record, current_versions), snapshot_base)
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        out = self._render(record, current_versions=current_versions, snapshot_base=snapshot_base)
        with self._lock:
            self.renders += 1
            self._items[key] = out
            self._items.move_to_end(key)
            while len(self._items) > self._max:
                self._items.popitem(last=False)
        return out


_ANSWERS = RenderCache()


def answer_html(
    record: AnswerRecord, current_versions: Mapping[str, str | None] | None = None, snapshot_base: str = "./sources"
) -> str:
    """The process's cached ``render_answer`` (see ``RenderCache.html``)."""
    return _ANSWERS.html(record, current_versions, snapshot_base)
