"""What an LLM answering over *our* chunks is told (Gemini mode 1 and the
OpenAI-compatible generator): the evidence blocks headed by their chunk ids, and
the system instruction naming the only ids that may be cited; also the request
that rewrites a follow-up or foreign-language question into a search query.
Plain strings, no SDK.
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


QUERY_REWRITE_INSTRUCTION = (
    "You turn the user's latest question into one self-contained search query for a knowledge "
    "base written in Chinese. Resolve words that refer to earlier turns (它, 这个, it, this) into "
    "what they refer to; translate the question into Chinese if it is in another language; keep "
    "names, identifiers and field names exactly as written. Reply with "
    "the query only, on one line, without quotes or explanations."
)


def history_messages(history: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """Earlier (question, answer) turns as chat messages (``user`` / ``assistant`` role and
    content dicts, clean text); a turn without an answer gives only its question."""
    out = []
    for turn in history:
        out.append({"role": "user", "content": turn[0]})
        if turn[1]:
            out.append({"role": "assistant", "content": turn[1]})
    return out


def query_rewrite_messages(question: str, history: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """Chat messages (role/content dicts) asking for the search query of ``question``:
    the instruction, the earlier turns as clean text, then the question."""
    return [
        {"role": "system", "content": QUERY_REWRITE_INSTRUCTION},
        *history_messages(history),
        {"role": "user", "content": f"Latest question: {question}"},
    ]


def first_query_line(text: str | None) -> str | None:
    """The first non-empty line of a model's query-rewrite reply, quotes stripped; None when empty."""
    lines = [ln.strip().strip('"“”「」') for ln in (text or "").strip().splitlines() if ln.strip()]
    lines = [ln for ln in lines if ln]
    return lines[0] if lines else None
