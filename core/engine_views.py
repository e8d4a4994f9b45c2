"""What the UI reads and writes through the engine: the one facade of ``components/`` and ``app_pages/``.

``EngineViews`` is a base of ``core.engine.Engine``: every method reads or writes the engine's
stores (``self.index``: the knowledge-base index; ``self.records``: the answer store, already
scoped to the engine's user by :meth:`for_user`) so no page or component reaches into them
(``tests/test_architecture.py`` forbids ``engine.index`` and ``engine.records`` outside
``core/``). Errors are the stores' own: ``RecordError`` from the answer store, ``IndexError_``
from the catalog or vector store, ``IngestError`` from an ingest.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from core.ingest.library import ingest_folder, ingest_uploads
from core.ingest.run import IngestReport, ingest
from core.models import AnswerRecord, Feedback
from core.records.store import Conversation, RecordList
from core.retrieval.hybrid import current_mode
from core.retrieval.sufficiency_model import load_model as load_sufficiency_model
from core.store.catalog import DocumentRow
from core.store.knowledge_bases import KnowledgeBaseStore
from core.store.store_lock import StoreOwner

if TYPE_CHECKING:  # the engine imports this module
    from core.config import Settings
    from core.records.access import AccessConfig, User
    from core.records.store import RecordStore
    from core.store.index import KnowledgeIndex


@dataclasses.dataclass(frozen=True)
class SecondVectors:
    """The second embedder's state for displays: its model ``name``, whether every active chunk has
    its vector (``complete``), and (done, total) active chunks."""

    name: str
    complete: bool
    done: int
    total: int


class EngineViews:
    """The facade methods (a base of ``Engine``; see the module doc)."""

    settings: Settings
    index: KnowledgeIndex
    records: RecordStore

    # ---------------------------------------------------------- who asks

    def for_user(self, user: User | None, access: AccessConfig | None) -> Any:
        """This engine as ``user`` under ``access``: answers filtered and stamped by the user's
        opaque id, retrieval limited to the knowledge bases the user may ask, redaction by the
        policies of the bases a question searches. The index and the models are shared."""
        return dataclasses.replace(
            self, records=self.records.for_user(user.user_id if user else None), user=user, access=access
        )

    # ---------------------------------------------------------- answers and conversations

    def answers(self, **filters: Any) -> RecordList:
        """The stored answers this engine's user sees, newest first (``RecordStore.list``:
        ``conversation_id``, ``text``, ``status``, ``since``, ``limit``)."""
        return self.records.list(**filters)

    def answer(self, answer_id: str) -> AnswerRecord | None:
        """One stored answer by id, or None (not stored, or another user's)."""
        return self.records.get(answer_id)

    def save_answer(self, record: AnswerRecord) -> None:
        """Store ``record`` as this user's (idempotent for the same ``answer_id``)."""
        self.records.save(record)

    def set_feedback(self, answer_id: str, feedback: Feedback | None) -> AnswerRecord:
        """Store 👍/👎 and a comment on one of this user's answers; returns the updated record."""
        return self.records.set_feedback(answer_id, feedback)

    def conversations(self, **filters: Any) -> list[Conversation]:
        """This user's conversations, newest first (``text``, ``include_hidden``, ``limit``)."""
        return self.records.conversations(**filters)

    def conversation(self, conversation_id: str) -> Conversation | None:
        """One of this user's conversations, or None."""
        return self.records.conversation(conversation_id)

    def rename_conversation(self, conversation_id: str, title: str | None) -> None:
        """Give one of this user's conversations a title (None: back to its first question)."""
        self.records.rename_conversation(conversation_id, title)

    def hide_conversation(self, conversation_id: str, *, hidden: bool = True) -> None:
        """Hide (or show again) one of this user's conversations; nothing is deleted."""
        self.records.hide_conversation(conversation_id, hidden=hidden)

    # ---------------------------------------------------------- knowledge bases and documents

    @property
    def knowledge_base_store(self) -> KnowledgeBaseStore:
        """The store of knowledge bases (names, titles, hidden, settings) the index serves."""
        return self.index.knowledge_bases

    def has_chunks(self) -> bool:
        """Whether any knowledge base serves a chunk (False before the first ingest)."""
        return bool(self.index.active_chunks())

    def documents(self, knowledge_base: str) -> list[DocumentRow]:
        """The served documents of ``knowledge_base`` with their chunk and vector counts."""
        return self.index.documents(knowledge_base)

    def hidden_documents(self, knowledge_base: str) -> list[DocumentRow]:
        """The hidden documents of ``knowledge_base`` (their latest versions)."""
        return self.index.hidden_documents(knowledge_base)

    def hide_document(self, source_id: str, knowledge_base: str) -> bool:
        """Stop serving a document (its versions and old answers stay); False if it was not served."""
        return self.index.hide(source_id, knowledge_base)

    def unhide_document(self, source_id: str, knowledge_base: str) -> bool:
        """Serve a hidden document's latest version again; False if it was not hidden."""
        return self.index.unhide(source_id, knowledge_base)

    def refresh(self) -> bool:
        """Reload the served chunks when another process changed the catalog; whether it did."""
        return self.index.refresh_if_changed()

    def ingest_uploads(self, files: Sequence[tuple[str, bytes]], **options: Any) -> IngestReport:
        """Ingest uploaded ``(file name, bytes)`` pairs (``core.ingest.library.ingest_uploads``;
        kept under ``<data_dir>/uploads``; ``knowledge_base``, ``progress``)."""
        return ingest_uploads(self.index, files, self.settings.data_dir / "uploads", **options)

    def ingest_folder(self, folder: Path, **options: Any) -> IngestReport:
        """Ingest a folder on the server (``core.ingest.library.ingest_folder``; its corpus profile's
        base URL unless ``base_url`` is given; ``knowledge_base``, ``progress``)."""
        options.setdefault("base_url", self.settings.base_url_for(folder))
        return ingest_folder(self.index, folder, **options)

    def ingest_corpus(self, **options: Any) -> IngestReport:
        """The first start's ingest of ``YINZHENG_CORPUS`` into ``default`` without embedding (the
        background worker embeds; ``progress``)."""
        settings = self.settings
        return ingest(self.index, [settings.corpus_dir], base_url=settings.corpus_base_url, embed=False, **options)

    # ---------------------------------------------------------- vectors and retrieval state

    def vector_coverage(self) -> tuple[int, int]:
        """(active chunks with a primary vector, active chunks) over every knowledge base."""
        return self.index.dense_coverage()

    def second_vectors(self) -> SecondVectors | None:
        """The second embedder's state, or None without one (``YINZHENG_SECOND_EMBEDDING``)."""
        second = self.index.second
        if second is None:
            return None
        active = self.index.active_chunks()
        done, total = self.index.second_coverage() or (0, len(active))
        return SecondVectors(second.name, second.complete(active), done, total)

    def store_owner(self) -> StoreOwner | None:
        """The other process that owns the embedded vector store, or None (this one, or a server)."""
        return self.index.store_owner()

    def retrieval_mode(self, model: Any = None) -> str:
        """The sufficiency mode a question uses now (``keyword`` / ``hybrid`` / ``hybrid2``)."""
        return current_mode(self.index, model)

    def calibrated_thresholds(self) -> dict[str, float]:
        """mode -> the shipped sufficiency fit's evidence threshold (probability 0..1): ``keyword``,
        ``hybrid`` and, when the fit has one, ``hybrid2`` (``core/retrieval/sufficiency.json``);
        the sidebar shows them and starts a person's own threshold at the current mode's."""
        model = load_sufficiency_model()
        modes = {"keyword": model.keyword, "hybrid": model.hybrid, "hybrid2": model.hybrid2}
        return {mode: m.threshold for mode, m in modes.items() if m is not None}
