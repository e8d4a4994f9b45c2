"""What an LLM answering over *our* chunks is told (Gemini mode 1 and the
OpenAI-compatible generator): the evidence blocks headed by their chunk ids, and
the system instruction naming the only ids that may be cited. Plain strings, no SDK.
"""

from __future__ import annotations

from typing import Sequence

from core.models import RetrievedChunk


def build_evidence_prompt(question: str, chunks: Sequence[RetrievedChunk]) -> str:
    """The user message of mode 1: evidence blocks, then the question.

    Each block is ``### chunk_id: <id>`` / ``heading_path: A > B`` / text.
    """
    blocks = []
    for rc in chunks:
        c = rc.chunk
        path = " > ".join(c.heading_path) if c.heading_path else c.title
        blocks.append(f"### chunk_id: {c.chunk_id}\nheading_path: {path}\n\n{c.text.strip()}\n")
    evidence = "\n".join(blocks) if blocks else "(no evidence was found)\n"
    return f"Evidence blocks:\n\n{evidence}\nQuestion: {question}"


def evidence_system_instruction(chunk_ids: Sequence[str]) -> str:
    """System instruction of mode 1; names the only ids that may be cited."""
    allowed = ", ".join(chunk_ids) if chunk_ids else "(none)"
    return (
        "You answer questions about a knowledge base using ONLY the evidence blocks in the "
        "user's latest message. Each block starts with '### chunk_id: <id>' and its heading path.\n"
        "Reply in the language of the question (usually Chinese).\n"
        "Return JSON that matches the schema: 'answer' is the answer as a list of sentences in "
        "reading order; each item has 'text' (one sentence of the answer, no citation markers "
        "such as [1]) and 'chunk_ids' (the ids of the evidence blocks that support that sentence).\n"
        f"The only ids you may cite are: {allowed}. Never invent ids; never cite titles or URLs.\n"
        "If the evidence does not answer the question, or part of it, say so plainly in a "
        "sentence with an empty chunk_ids list (for example: 资料中没有提到……) instead of guessing. "
        "Do not add facts that are not in the evidence."
    )
