"""Gemini mode 1 (our chunks): the whole reply into a ``Draft``, with Gemini's
block and finish reasons. The provider-neutral JSON contract, its parsing and
the stream preview are ``core.generators.structured``.
"""

from __future__ import annotations

from typing import Any

from core.errors import GenerationError
from core.generators.gemini_parse import BLOCK_FINISH_REASONS, blocked_draft, enum_name
from core.generators.structured import draft_from_structured, parse_structured_answer
from core.models import Draft, GeneratorInfo


def draft_from_structured_text(
    raw: str, info: GeneratorInfo, *, finish_reason: Any = None, block_reason: Any = None
) -> Draft:
    """The ``Draft`` of a whole mode-1 reply: ``raw`` is the joined non-thought
    text of candidate 0 (JSON), ``finish_reason`` / ``block_reason`` the SDK
    enums (or names). A blocked prompt or a safety/recitation finish gives
    ``Draft(status="blocked")``. Raises ``GenerationError`` for an empty reply
    or one that is not the expected JSON (naming ``MAX_TOKENS`` when the reply
    was cut off at the output token limit)."""
    if block_reason is not None and enum_name(block_reason) not in (None, "BLOCKED_REASON_UNSPECIFIED"):
        return blocked_draft(info, enum_name(block_reason) or "BLOCKED", "The question itself was blocked.")
    reason = enum_name(finish_reason)
    if reason in BLOCK_FINISH_REASONS:
        return blocked_draft(info, reason)
    if not raw.strip():
        raise GenerationError(f"Gemini returned an empty answer (finish reason {reason or 'unknown'}). Try again.")
    try:
        answer = parse_structured_answer(raw, "Gemini")
    except GenerationError:
        if reason == "MAX_TOKENS":
            raise GenerationError(
                "Gemini's answer was cut off at the output token limit (MAX_TOKENS). Ask a narrower question."
            ) from None
        raise
    return draft_from_structured(answer, info)
