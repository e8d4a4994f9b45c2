"""The names the UI may import from ``core``: one table, the contract of ``app_pages/`` and ``components/``.

Pages and components import from ``core`` through this module only (``tests/test_architecture.py``
fails on any other ``core`` import in them) and do the rest through the engine's public methods
(``core/engine_views.py``). A name that stays here keeps the UI working whatever moves inside a stage;
a name the UI needs that is not here is added here, in its group.

Every name is imported on first use (module ``__getattr__``, PEP 562), from the module that owns it,
and is that module's own object, never a copy: ``from core.public import AnswerRecord`` loads
``core.models`` only, so the chat page draws its input before the engine's heavy modules (jieba,
chromadb, SQLAlchemy) load (``tests/ingest/test_start_fast.py``). Importing an unknown name raises
``ImportError`` (``AttributeError`` on attribute access), as for any module.
"""

from __future__ import annotations

import importlib
from typing import Any

#: public name -> where it lives: ``"module"`` (the same name there), ``"module:attribute"`` (another
#: name there) or ``"module:"`` (the module itself).
NAMES: dict[str, str] = {
    # the turn
    "Engine": "core.engine",
    "EmbeddingWorker": "core.store.embedding_worker",
    "BackgroundJob": "core.ingest.progress",
    "check_text": "core.check",
    "check_against": "core.check",
    "readable": "core.readable:",
    "RetrievalOptions": "core.retrieval.hybrid",
    "offered_generators": "core.generators.registry:offered",
    "generator_label": "core.generators.registry:label",
    "generator_hints": "core.generators.registry:hints",
    "generator_entry": "core.generators.registry:entry",
    # values and errors
    "AnswerRecord": "core.models",
    "AuditEntry": "core.models",
    "Chunk": "core.models",
    "ChunkSnapshot": "core.models",
    "Feedback": "core.models",
    "KnowledgeBase": "core.models",
    "SourceCard": "core.models",
    "DEFAULT_KB": "core.models",
    "Conversation": "core.records.store",
    "DocumentRow": "core.store.catalog",
    "IngestReport": "core.ingest.run",
    "Layout": "core.grounding.layout",
    "MarkerSlot": "core.grounding.layout",
    "AppError": "core.errors",
    "ConfigError": "core.errors",
    "EmbeddingError": "core.errors",
    "GenerationError": "core.errors",
    "IndexError_": "core.errors",
    "IngestError": "core.errors",
    "RecordError": "core.errors",
    "RetrievalError": "core.errors",
    "UnsavedRecordError": "core.errors",
    "KnowledgeBaseError": "core.store.knowledge_bases",
    "PageUnavailable": "core.ingest.pdf_pages",
    # what page and export show
    "BLOCKED_MESSAGE": "core.records.presentation",
    "CANDIDATES_TITLE": "core.records.presentation",
    "CHECK_NOTE": "core.records.presentation",
    "CHECK_PASTED_NOTE": "core.records.presentation",
    "EMPTY_ANSWER_MESSAGE": "core.records.presentation",
    "EXTRACTIVE_NOTE": "core.records.presentation",
    "FOUND_TITLE": "core.records.presentation",
    "INTERRUPTED_MESSAGE": "core.records.presentation",
    "KEYWORD_MODE_NOTE": "core.records.presentation",
    "KEYWORD_UNCALIBRATED_NOTE": "core.records.presentation",
    "PATH_SEPARATOR": "core.records.presentation",
    "REPHRASE_HINT": "core.records.presentation",
    "UNSUPPORTED_LABEL": "core.records.presentation",
    "UNVERIFIABLE_MESSAGE": "core.records.presentation",
    "card_facts": "core.records.presentation",
    "cited_span": "core.records.presentation",
    "display_title": "core.records.presentation",
    "document_groups": "core.records.presentation",
    "error_message": "core.records.presentation",
    "heading_path": "core.records.presentation",
    "link_domain": "core.records.presentation",
    "mark_answer": "core.records.presentation",
    "no_evidence_message": "core.records.presentation",
    "outside_code": "core.records.presentation",
    "page_number": "core.records.presentation",
    "shown_path": "core.records.presentation",
    "snippet": "core.records.presentation",
    "snippet_parts": "core.records.presentation",
    "answer_status": "core.grounding.supports",
    "CONTRADICTED_LABEL": "core.verification.verdicts",
    "QUOTE_LABEL": "core.verification.verdicts",
    "REVIEW_LABEL": "core.verification.verdicts",
    "SUPPORTED_LABEL": "core.verification.verdicts",
    "MarkerVerdict": "core.verification.verdicts",
    "snapshot_quote": "core.verification.verdicts",
    "support_kind": "core.verification.verdicts",
    "support_reason": "core.verification.verdicts",
    "char_diff": "core.records.replay",
    "snapshot_state": "core.records.replay",
    "conversation_history": "core.records.store",
    "conversation_turns": "core.records.store",
    "version_label": "core.records.store",
    # rendering helpers
    "insert_at": "core.markdown",
    "markdown_parser": "core.markdown",
    "placeholder_codes": "core.markdown",
    "safe_link": "core.markdown",
    "web_link_spans": "core.markdown",
    "clean_controls": "core.controls",
    "page_size": "core.ingest.pdf_pages",
    "render_page": "core.ingest.pdf_pages",
    "pages_of": "core.ingest.pdf_positions",
    "quote_boxes": "core.ingest.pdf_positions",
    # knowledge bases and files
    "FORMATS": "core.ingest.converters",
    "upload_types": "core.ingest.converters",
    "KnowledgeBaseStore": "core.store.knowledge_bases",
    "name_from_title": "core.store.knowledge_bases",
    # sign-in
    "AccessConfig": "core.records.access",
    "User": "core.records.access",
    "SessionLedger": "core.records.sessions",
    "session_over": "core.records.sessions",
    "load_settings": "core.config",
    # exports
    "answer_markdown": "core.records.export",
    "conversation_to_json": "core.records.export",
    "conversation_to_markdown": "core.records.export",
    "record_json": "core.records.export",
    "to_markdown": "core.records.export",
}


def __getattr__(name: str) -> Any:
    """The object :data:`NAMES` maps ``name`` to, imported now; ``AttributeError`` for any other name."""
    if name not in NAMES:
        raise AttributeError(f"module 'core.public' has no attribute {name!r}")
    module, _, attribute = NAMES[name].partition(":")
    owner = importlib.import_module(module)
    if ":" in NAMES[name] and not attribute:
        return owner
    return getattr(owner, attribute or name)


def __dir__() -> list[str]:
    return sorted(NAMES)


__all__ = list(NAMES)
