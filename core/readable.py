"""What a user may read of the live index: current versions, document rows and counts, the
current chunk that stands where a snapshot stood, and the knowledge bases a selector offers.

Every function filters by ``Engine.may_read`` (``AccessConfig.askable`` under the engine's
``user`` and ``access``), the same function that limits retrieval (``Engine.searchable``),
so a page never shows live data of a knowledge base its user may not ask. Nothing is cached:
the pages call these on every run with the engine ``components.auth.scoped`` made for that
run (``access`` read from the secrets then), so removing a person from a knowledge base's
access list takes effect at their next rerun. A stored answer's snapshots belong to the
answer's owner and are shown from the record; only their *current* side goes through here.

Knowledge-base names never contain ``/`` (``core.models.KB_NAME_PATTERN``), so the name is
the part of a ``kb/source_id`` key (``core.models.source_key``) before the first ``/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from core.models import DEFAULT_KB, Chunk, ChunkSnapshot, KnowledgeBase
from core.records import replay

if TYPE_CHECKING:  # core.engine loads the models and the index
    from core.engine import Engine
    from core.store.catalog import DocumentRow


def _kb_of_key(key: str) -> str:
    return key.split("/", 1)[0]


def askable_bases(engine: Engine) -> dict[str, KnowledgeBase]:
    """The knowledge bases a question may select (the chat's 检索的知识库 options): not
    hidden and readable by the engine's user, by name, in catalog order."""
    kbs = {kb.name: kb for kb in engine.index.knowledge_bases.list(include_hidden=False)}
    return {name: kbs[name] for name in engine.may_read(kbs)}


def may_read_source(engine: Engine, snap: ChunkSnapshot) -> bool:
    """Whether the engine's user may read the live knowledge base of ``snap`` now (a snapshot
    stored before knowledge bases counts as :data:`~core.models.DEFAULT_KB`)."""
    return bool(engine.may_read([snap.knowledge_base or DEFAULT_KB]))


def current_versions(engine: Engine) -> dict[str, str | None]:
    """``KnowledgeIndex.current_versions`` (``kb/source_id`` → active version, None: not
    served) limited to the knowledge bases the user may read: another one's snapshot is
    ``unknown`` to ``core.records.replay.snapshot_state`` (no 来源已更新, no version shown)."""
    versions = engine.index.current_versions()
    allowed = set(engine.may_read(sorted({_kb_of_key(k) for k in versions})))
    return {k: v for k, v in versions.items() if _kb_of_key(k) in allowed}


def current_counterpart(engine: Engine, snap: ChunkSnapshot) -> Chunk | None:
    """``core.records.replay.current_counterpart`` of ``snap``, or None when the user may not read its
    knowledge base now (the snapshot page then shows no 当前 column). The served chunks are
    first brought up to the catalog (``KnowledgeIndex.refresh_if_changed``: another process may
    have ingested), so the 当前 text is the version :func:`current_versions` names."""
    if not may_read_source(engine, snap):
        return None
    engine.index.refresh_if_changed()
    return replay.current_counterpart(engine.index, snap)


def documents(engine: Engine, knowledge_bases: Iterable[str] | None = None) -> list[DocumentRow]:
    """Active documents (``KnowledgeIndex.documents``) of ``knowledge_bases`` (None: of every
    one), less those of a knowledge base the user may not read; order kept."""
    if knowledge_bases is None:
        rows = engine.index.documents()
    else:
        rows = [row for kb in dict.fromkeys(knowledge_bases) for row in engine.index.documents(kb)]
    allowed = set(engine.may_read(sorted({row.document.knowledge_base or DEFAULT_KB for row in rows})))
    return [row for row in rows if (row.document.knowledge_base or DEFAULT_KB) in allowed]
