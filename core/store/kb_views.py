"""The served chunks seen through a knowledge-base selection: the lexical half of
the retrieval filter (the dense half is Chroma's ``where`` in ``core.store.vector_store``).

A question searches only the knowledge bases it selects. The filter is applied
before ranking: BM25 runs over an index built from the selected knowledge bases'
chunks only (``LexicalIndex.from_tokens`` over the terms already computed, so no
text is tokenized again), which also keeps IDF, coverage and the sufficiency
decision's knowledge-base text free of the other knowledge bases.
"""

from __future__ import annotations

import threading
from typing import Iterable

from core.lexical import LexicalIndex
from core.models import DEFAULT_KB, Chunk


def kb_of(chunk: Chunk) -> str:
    """The knowledge base of a served chunk (None, never stored by the catalog, counts as ``DEFAULT_KB``)."""
    return chunk.knowledge_base or DEFAULT_KB


class KbViews:
    """Views of one served state (``active`` chunks by id and the BM25 index over
    all of them), one per selection, built on first use and kept until the state
    is replaced (the owner makes a new ``KbViews`` on every reload). Thread-safe."""

    def __init__(self, active: dict[str, Chunk], lexical: LexicalIndex) -> None:
        self.active = active  # the owner's snapshot (never mutated), not a copy
        self.lexical = lexical
        self.present = frozenset(kb_of(c) for c in self.active.values())
        self._views: dict[frozenset[str], tuple[dict[str, Chunk], LexicalIndex]] = {}
        self._lock = threading.Lock()

    def view(self, knowledge_bases: Iterable[str] | None) -> tuple[dict[str, Chunk], LexicalIndex]:
        """``(chunks by id, BM25 index)`` of the selected knowledge bases (every one when
        ``knowledge_bases`` is None). A selection that covers every knowledge base
        with chunks gets the full index itself."""
        if knowledge_bases is None:
            return self.active, self.lexical
        wanted = frozenset(knowledge_bases)
        if wanted >= self.present:
            return self.active, self.lexical
        with self._lock:
            hit = self._views.get(wanted)
            if hit is None:
                sub = {cid: c for cid, c in self.active.items() if kb_of(c) in wanted}
                tokens = [self.lexical.tokens(cid) or [] for cid in sub]
                hit = self._views[wanted] = (sub, LexicalIndex.from_tokens(list(sub), tokens))
        return hit
