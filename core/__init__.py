"""Yinzheng core: the product without a UI (never imports streamlit).

Public names are pinned by ``tests/test_architecture.py``.
"""

from core.config import load_settings
from core.errors import AppError
from core.models import (
    AnswerRecord,
    Chunk,
    ChunkSnapshot,
    Draft,
    DraftSupport,
    RetrievedChunk,
    Segment,
    SourceCard,
    SourceDocument,
    Support,
)


def __getattr__(name: str):  # Engine loads heavy modules; import it lazily
    if name == "Engine":
        from core.engine import Engine

        return Engine
    raise AttributeError(name)


__all__ = [
    "AnswerRecord",
    "Chunk",
    "ChunkSnapshot",
    "Draft",
    "DraftSupport",
    "Engine",
    "RetrievedChunk",
    "Segment",
    "SourceCard",
    "SourceDocument",
    "Support",
    "AppError",
    "load_settings",
]
