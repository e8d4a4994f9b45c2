"""Bodies an OpenAI-compatible server sends, for ``tests/gemini_server.StubGemini``
(which serves any scripted JSON / SSE): a chat.completion, its SSE chunks, and a
responder that answers by citing the first evidence block it was sent."""

from __future__ import annotations

import json
import re

from tests.gemini_server import Reply, Seen

MODEL = "qwen2.5:7b"


def completion(content: str, finish: str = "stop") -> dict:
    """A chat.completion body with ``content`` as the assistant message."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
    }


def chunks_sse(content: str, pieces: int = 5, finish: str = "stop") -> list:
    """``content`` cut into about ``pieces`` chat.completion.chunk events, then one with ``finish``."""
    step = max(1, len(content) // pieces)
    events = [
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": MODEL,
            "choices": [{"index": 0, "delta": {"content": content[i : i + step]}, "finish_reason": None}],
        }
        for i in range(0, len(content), step)
    ]
    events.append(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": MODEL,
            "choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
        }
    )
    return events


_BLOCK = re.compile(r"### chunk_id: (\S+)\nheading_path: [^\n]*\n\n([^\n]+)")


def first_block(seen: Seen) -> tuple[str, str]:
    """(chunk id, first sentence of its text) of the first evidence block in the last user message."""
    m = _BLOCK.search(seen.body["messages"][-1]["content"])
    assert m, "no evidence block was sent"
    sentence = re.match(r"[^。！？]*[。！？]?", m.group(2).strip()).group(0)
    return m.group(1), sentence


def citing_answer(seen: Seen) -> dict:
    """An answer citing the first sent block with its own first sentence, a sentence
    without a source, and one citing an invented id."""
    cid, sentence = first_block(seen)
    return {
        "answer": [
            {"text": sentence, "chunk_ids": [cid]},
            {"text": "资料中没有提到这个问题的其余部分。", "chunk_ids": []},
            {"text": "这一句引用了一个不存在的片段。", "chunk_ids": ["invented#1"]},
        ]
    }


def citing_responder(seen: Seen, pace: float = 0.0) -> Reply:
    """A ``StubGemini`` responder replying with ``citing_answer``, as SSE when the request
    streams (``pace`` seconds between events)."""
    content = json.dumps(citing_answer(seen), ensure_ascii=False)
    if seen.body.get("stream"):
        return Reply(sse=chunks_sse(content, pieces=8), pace=pace)
    return Reply(json=completion(content))
