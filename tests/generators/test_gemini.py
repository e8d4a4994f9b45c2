"""Gemini generators, offline: the real ``genai.Client`` against a stub HTTP
server on 127.0.0.1 (tests/gemini_server.py), golden fixtures from
``../shared/fixtures/gemini`` (beside the repository) with their ``.expect.json``
sidecars; the tests that read them skip when that folder is absent.

Tests that need ``core.grounding.supports`` skip while it does not exist.
"""

from __future__ import annotations

import json
import os
import socket
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from core.config import Settings
from core.errors import (
    AuthenticationError,
    ConfigError,
    GenerationError,
    GeneratorNetworkError,
    GeneratorTimeoutError,
    MissingKeyError,
    QuotaError,
)
from core.generators.evidence import build_evidence_prompt
from core.generators.gemini import (
    GeminiFileSearchGenerator,
    GeminiGenerator,
    GeminiSearchGenerator,
    default_retry_options,
    make_gemini_generator,
)
from core.generators.gemini_interactions import draft_from_interaction
from core.generators.gemini_parse import GroundedStream
from core.generators.structured import (
    StructuredStreamPreview,
    assemble_sentences,
    scan_sentence_texts,
)
from core.models import Chunk, Draft, GeneratorInfo, RetrievedChunk
from tests.conftest import shared_path, skip_without_shared
from tests.gemini_server import Reply, StubGemini

FIXTURES = shared_path("fixtures", "gemini")
GC_FIXTURES = [
    "a_search_zh_bytes",
    "c_search_unsupported_sentence",
    "f_search_multipart",
    "h_file_search_retrieved_context",
]
IA_FIXTURES = ["g_interactions_url_citation", "h2_interactions_file_citation"]
MODEL = "gemini-2.5-flash"
FAST_RETRY = default_retry_options(attempts=3, initial_delay=0.01, max_delay=0.02, jitter=0.0)
NO_RETRY = default_retry_options(attempts=1)
INFO = GeneratorInfo(name="gemini-search", model=MODEL)


def _streamed(g, *args) -> list:
    """What a stream showed, then the Draft: ``generate`` with ``on_text``."""
    shown: list = []
    draft = g.generate(*args, on_text=shown.append)
    return shown + [draft]


def load(name: str) -> tuple[dict, dict]:
    if FIXTURES is None:
        skip_without_shared("fixtures", "gemini")
    body = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    expect = json.loads((FIXTURES / f"{name}.expect.json").read_text(encoding="utf-8"))
    return body, expect


def grounding_module():
    return pytest.importorskip("core.grounding.supports", reason="core/grounding/supports.py not written yet")


def settings(**kw) -> Settings:
    return Settings(gemini_api_key="test-key", **kw)


def gen(name: str, stub: StubGemini, **kw):
    kw.setdefault("retry_options", NO_RETRY)
    kw.setdefault("timeout_s", 5)
    if name == "gemini-file-search":
        kw.setdefault("file_search_store", "fileSearchStores/refund-and-ops-docs-8f3k2j1q9x")
    return make_gemini_generator(name, settings(), base_url=stub.base_url, **kw)


def make_rc(doc: str, ordinal: int, text: str, heading: tuple[str, ...], rank: int = 1) -> RetrievedChunk:
    chunk = Chunk(
        chunk_id=f"{doc}@v1#{ordinal}",
        document_id=f"{doc}@v1",
        source_id=doc,
        version="v1",
        ordinal=ordinal,
        title=heading[0],
        heading_path=heading,
        text=text,
    )
    return RetrievedChunk(chunk=chunk, rank=rank, relevance=0.9, retrieved_at=datetime(2026, 1, 1, tzinfo=timezone.utc))


CHUNKS = [
    make_rc("docs/pods.md", 0, "Pod 是 Kubernetes 中最小的可部署计算单元。", ("Pod", "概述"), 1),
    make_rc("docs/pods.md", 1, "Pod 中的容器共享网络命名空间和存储卷。", ("Pod", "概述", "资源共享"), 2),
]
IDS = [c.chunk_id for c in CHUNKS]


def gc_body(text_json: str, finish: str = "STOP") -> dict:
    return {
        "candidates": [{"content": {"role": "model", "parts": [{"text": text_json}]}, "finishReason": finish}],
        "modelVersion": MODEL,
    }


STRUCTURED = {
    "answer": [
        {"text": "Pod 是 Kubernetes 中最小的可部署计算单元。", "chunk_ids": [IDS[0]]},
        {"text": "资料中没有提到 Pod 的默认配额。", "chunk_ids": []},
        {"text": "Containers in a Pod share the network namespace.", "chunk_ids": [IDS[1], "invented#9", IDS[1]]},
        {"text": "They also share volumes 😀.", "chunk_ids": [IDS[1]]},
        {"text": "  ", "chunk_ids": [IDS[0]]},
    ]
}
STRUCTURED_TEXT = (
    "Pod 是 Kubernetes 中最小的可部署计算单元。资料中没有提到 Pod 的默认配额。"
    "Containers in a Pod share the network namespace. They also share volumes 😀."
)


# --------------------------------------------------------------------------- fixtures, generateContent


def expected_parts(body: dict, expect: dict) -> list[tuple[int, str]]:
    """(wire part index, text) of the parts that belong to the answer (thought parts dropped)."""
    wire = body["candidates"][0]["content"]["parts"]
    return [(p["part_index"], p["text"]) for p in expect["parts"] if not wire[p["part_index"]].get("thought")]


def check_gc_draft(draft: Draft, body: dict, expect: dict) -> None:
    parts = expected_parts(body, expect)
    assert draft.status == "ok"
    assert list(draft.parts) == [t for _, t in parts]
    if "response_text" in expect:
        assert draft.text == expect["response_text"]
    remap = {wire: i for i, (wire, _) in enumerate(parts)}
    chunks = body["candidates"][0]["groundingMetadata"]["groundingChunks"]
    ids_by_index = [draft.extra_chunks[i].chunk_id for i in range(len(chunks))]
    assert len(set(ids_by_index)) == len(chunks)
    for src in expect["sources"]:
        rc = draft.extra_chunks[src["chunk_index"]]
        assert rc.chunk.title == src["title"]
        assert rc.chunk.heading_path == (src["title"],)
        if "uri" in src:
            assert rc.chunk.uri == src["uri"]
        if "text" in src:
            assert rc.chunk.text == src["text"]
        if "pageNumber" in src:
            assert rc.chunk.metadata["page"] == src["pageNumber"]
        assert rc.relevance == 1.0
    assert len(draft.supports) == len(expect["supports"])
    offsets = [0]
    for t in draft.parts:
        offsets.append(offsets[-1] + len(t))
    for sup, exp in zip(draft.supports, expect["supports"]):
        assert sup.unit == "utf8"
        assert sup.part_index == remap[exp["part_index"]]
        assert (sup.start, sup.end) == (exp["byte_start"], exp["byte_end"])
        part = draft.parts[sup.part_index]
        assert part.encode("utf-8")[sup.start : sup.end].decode("utf-8") == exp["decoded_text"]
        assert sup.chunk_ids == tuple(dict.fromkeys(ids_by_index[i] for i in exp["wire_chunk_indices"]))
        # byte offsets -> code points, part-relative -> joined: what grounding must produce
        cs = len(part.encode("utf-8")[: sup.start].decode("utf-8"))
        assert (cs, cs + len(exp["decoded_text"])) == (exp["char_start"], exp["char_end"])
    for s in expect["sentences"]:
        assert draft.text[s["joined_char_start"] : s["joined_char_end"]] == s["text"]
        assert offsets[remap[s["part_index"]]] + s["char_start"] == s["joined_char_start"]


def check_grounded(draft: Draft, body: dict, expect: dict) -> None:
    grounding = grounding_module()
    chunks = body["candidates"][0]["groundingMetadata"]["groundingChunks"]
    ids_by_index = [draft.extra_chunks[i].chunk_id for i in range(len(chunks))]
    g = grounding.ground(draft, [rc.chunk_id for rc in draft.extra_chunks])
    assert g.answer_text == draft.text
    got = {(s.start, s.end): set(s.chunk_ids) for s in g.supports}
    for s in expect["sentences"]:
        span = (s["joined_char_start"], s["joined_char_end"])
        if s["supported"]:
            assert got.get(span) == {ids_by_index[i] for i in s["chunk_indices"]}, s["id"]
        else:
            assert not any(a < span[1] and span[0] < b for a, b in got), s["id"]
    bad = {
        i for i, x in enumerate(expect["supports"]) if x["issues"] or x["invalid_chunk_indices"] or not x["valid_span"]
    }
    assert {a.support_index for a in g.audit} == bad  # exactly the supports the sidecar calls bad are audited


@pytest.mark.parametrize("name", GC_FIXTURES)
def test_fixture_generate_content(name):
    body, expect = load(name)
    kind = "gemini-file-search" if name.startswith("h_") else "gemini-search"
    with StubGemini([Reply(json=body)]) as stub:
        draft = gen(kind, stub).generate("退款政策是什么？", CHUNKS)
    req = stub.requests[0]
    assert req.method == "POST" and req.path == f"/v1/models/{MODEL}:generateContent"
    assert req.headers["x-goog-api-key"] == "test-key"
    assert req.body["contents"][-1] == {"role": "user", "parts": [{"text": "退款政策是什么？"}]}
    tools = req.body["tools"]
    if kind == "gemini-search":
        assert tools == [{"googleSearch": {}}]
    else:
        # google-genai 3.3.0 sends the inner field snake_case (proto JSON accepts both)
        (fs,) = [t["fileSearch"] for t in tools]
        names = fs.get("fileSearchStoreNames") or fs.get("file_search_store_names")
        assert names == ["fileSearchStores/refund-and-ops-docs-8f3k2j1q9x"]
    assert "responseSchema" not in req.body.get("generationConfig", {})
    # our chunks are not sent in mode 2
    assert IDS[0] not in json.dumps(req.body, ensure_ascii=False)
    check_gc_draft(draft, body, expect)
    assert all("google.com/search" not in (rc.chunk.uri or "") for rc in draft.extra_chunks)  # searchEntryPoint


@pytest.mark.parametrize("name", GC_FIXTURES)
def test_fixture_generate_content_grounded(name):
    body, expect = load(name)
    with StubGemini([Reply(json=body)]) as stub:
        draft = gen("gemini-search", stub).generate("q", [])
    check_grounded(draft, body, expect)


def sse_events(body: dict, pieces: int = 3) -> list[dict]:
    """Split a one-part non-thought response into ``pieces`` text events; the
    grounding metadata and finish reason come only in the last one."""
    cand = body["candidates"][0]
    text = "".join(p["text"] for p in cand["content"]["parts"] if not p.get("thought"))
    step = max(1, len(text) // pieces)
    cuts = [text[i : i + step] for i in range(0, len(text), step)]
    events = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": c}]}}], "modelVersion": MODEL} for c in cuts
    ]
    events.insert(1, {"usageMetadata": {"promptTokenCount": 3}, "modelVersion": MODEL})  # no candidates at all
    last = events[-1]["candidates"][0]
    last["finishReason"] = cand.get("finishReason", "STOP")
    last["groundingMetadata"] = cand["groundingMetadata"]
    return events


@pytest.mark.parametrize(
    "name", ["a_search_zh_bytes", "c_search_unsupported_sentence", "h_file_search_retrieved_context"]
)
def test_fixture_stream(name):
    body, expect = load(name)
    with StubGemini([Reply(sse=sse_events(body))]) as stub:
        out = _streamed(gen("gemini-search", stub), "q", [])
    assert stub.requests[0].path == f"/v1/models/{MODEL}:streamGenerateContent?alt=sse"
    draft = out[-1]
    assert isinstance(draft, Draft) and all(isinstance(p, str) for p in out[:-1])
    assert len(out) > 2
    assert "".join(out[:-1]) == draft.text
    check_gc_draft(draft, body, expect)


def test_stream_thought_parts_do_not_enter_answer():
    """Stream chunks merge into parts like a non-streamed Content: [thought, answer];
    partIndex counts the thought part, and the thought never reaches the answer."""
    body, expect = load("f_search_multipart")
    parts = body["candidates"][0]["content"]["parts"]
    events = [
        {"candidates": [{"content": {"role": "model", "parts": [parts[0]]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": parts[1]["text"] + parts[2]["text"]}]}}]},
        {
            "candidates": [
                {
                    "content": {"role": "model", "parts": []},
                    "finishReason": "STOP",
                    "groundingMetadata": {
                        "groundingChunks": body["candidates"][0]["groundingMetadata"]["groundingChunks"],
                        "groundingSupports": [
                            {
                                "segment": {"partIndex": 1, "startIndex": 65, "endIndex": 115},
                                "groundingChunkIndices": [1],
                            }
                        ],
                    },
                }
            ]
        },
    ]
    with StubGemini([Reply(sse=events)]) as stub:
        out = _streamed(gen("gemini-search", stub), "q", [])
    draft = out[-1]
    assert draft.text == expect["response_text"]
    assert "Planning" not in "".join(out[:-1])
    (sup,) = draft.supports
    assert (
        draft.parts[sup.part_index].encode()[sup.start : sup.end].decode()
        == "Refunds are issued to the original payment method."
    )


def stream_by_part(body: dict, size: int = 7) -> list[dict]:
    """The recorded response as Gemini streams it (``streamGenerateContent?alt=sse``).

    Each wire part arrives as text deltas of ``size`` code points, one delta per
    event, thought parts with ``thought: true`` on every delta; a part's
    ``thoughtSignature`` comes on a final empty-text delta ("the signature may
    arrive in a final chunk with an empty text part", ai.google.dev thought
    signatures). Deltas carry no part index, so where two parts of the same kind
    meet, the last delta of one and the first of the next share one event as two
    entries of its ``parts``. Grounding metadata and the finish reason come on the
    last event; one event carries only usage metadata."""
    cand = body["candidates"][0]
    events: list[list[dict]] = []
    prev: dict | None = None
    for part in cand["content"]["parts"]:
        text = part["text"]
        kind = {"thought": True} if part.get("thought") else {}
        deltas = [dict(text=text[i : i + size], **kind) for i in range(0, len(text), size)]
        if part.get("thoughtSignature"):
            deltas.append(dict(text="", thoughtSignature=part["thoughtSignature"], **kind))
        same_kind = prev is not None and bool(prev.get("thought")) == bool(part.get("thought"))
        if same_kind:
            events[-1].append(deltas.pop(0))
        events.extend([d] for d in deltas)
        prev = part
    out = [
        {"candidates": [{"content": {"role": "model", "parts": ps}, "index": 0}], "modelVersion": MODEL}
        for ps in events
    ]
    out.insert(1, {"usageMetadata": {"promptTokenCount": 3}, "modelVersion": MODEL})
    last = out[-1]["candidates"][0]
    last["finishReason"] = cand.get("finishReason", "STOP")
    last["groundingMetadata"] = cand["groundingMetadata"]
    return out


@pytest.mark.parametrize("name", GC_FIXTURES)
def test_fixture_streamed_by_part_keeps_the_parts_offsets_refer_to(name):
    """Streamed parts keep their offsets: the stream gives the same parts, supports
    and grounded spans as the non-streamed call (f_search_multipart: partIndex 1 and 2)."""
    body, expect = load(name)
    events = stream_by_part(body)
    assert len(events) > len(body["candidates"][0]["content"]["parts"]) + 2
    with StubGemini([Reply(sse=events)]) as stub:
        out = _streamed(gen("gemini-search", stub), "q", [])
    draft = out[-1]
    assert "".join(out[:-1]) == draft.text
    check_gc_draft(draft, body, expect)
    check_grounded(draft, body, expect)
    with StubGemini([Reply(json=body)]) as stub:
        plain = gen("gemini-search", stub).generate("q", [])
    assert (draft.parts, draft.supports) == (plain.parts, plain.supports)


def test_stream_deltas_of_one_part_merge_and_entries_of_one_chunk_do_not():
    """Consecutive same-kind deltas across events are one part; entries listed
    side by side in one event are separate parts; a kind change starts a part."""
    stream = GroundedStream()
    for parts in (
        [{"text": "想", "thought": True}],
        [{"text": "法", "thought": True}, {"text": "甲"}],
        [{"text": "乙"}, {"text": "丙"}],
        [{"text": "", "thoughtSignature": "c2ln"}],
    ):
        stream.feed({"candidates": [{"content": {"parts": parts}}]})
    assert stream.draft(INFO).parts == ("甲乙", "丙")


# --------------------------------------------------------------------------- fixtures, Interactions


@pytest.mark.parametrize("name", IA_FIXTURES)
def test_fixture_interactions(name):
    body, expect = load(name)
    before = json.dumps(body, sort_keys=True)
    draft = draft_from_interaction(body, INFO)
    assert json.dumps(body, sort_keys=True) == before  # input not mutated
    assert draft.text == expect["output_text"]
    by_url = {rc.chunk.uri: rc.chunk_id for rc in draft.extra_chunks}
    by_name = {rc.chunk.title: rc.chunk_id for rc in draft.extra_chunks}
    spans: dict[tuple[int, int, int], tuple[str, ...]] = {
        (s.part_index, s.start, s.end): s.chunk_ids for s in draft.supports
    }
    assert all(s.unit == "utf8" for s in draft.supports)
    for a in expect["annotations"]:
        block = a.get("block_index", 0)
        key = (block, a["byte_start"], a["byte_end"])
        assert key in spans
        assert draft.parts[block].encode()[a["byte_start"] : a["byte_end"]].decode() == a["text"]
        cid = by_url[a["url"]] if "url" in a else by_name[a["file_name"]]
        assert cid in spans[key]
    if name.startswith("g_"):
        # two annotations with the identical span → one support, both sources, in order
        assert spans[(1, 41, 75)] == (
            by_url["https://help.example.cn/cross-border"],
            by_url["https://shop.example.com/help/refund-policy"],
        )
    else:
        rc = next(rc for rc in draft.extra_chunks if rc.chunk.title == "退款政策.pdf")
        assert rc.chunk.metadata["page"] == 4 and rc.chunk.metadata["meta.department"] == "customer-service"


@pytest.mark.parametrize("name", IA_FIXTURES)
def test_interactions_through_real_client(name):
    from google import genai
    from google.genai import types

    body, expect = load(name)
    with StubGemini([Reply(json=body)]) as stub:
        client = genai.Client(api_key="test-key", http_options=types.HttpOptions(base_url=stub.base_url))
        interaction = client.interactions.create(model="gemini-3-flash-preview", input="q")
    assert (stub.requests[0].method, stub.requests[0].path) == ("POST", "/v1/interactions")
    assert stub.requests[0].headers["x-goog-api-key"] == "test-key"
    assert interaction.output_text == expect["output_text"]
    via_sdk, via_dict = draft_from_interaction(interaction, INFO), draft_from_interaction(body, INFO)
    assert (via_sdk.parts, via_sdk.supports) == (via_dict.parts, via_dict.supports)
    assert [rc.chunk for rc in via_sdk.extra_chunks] == [rc.chunk for rc in via_dict.extra_chunks]


def test_only_gemini_module_imports_google_genai():
    root = Path(__file__).resolve().parents[2] / "core"
    importers = {
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if "google.genai" in p.read_text(encoding="utf-8").replace("from google import genai", "google.genai")
        and (
            "import google.genai" in p.read_text(encoding="utf-8")
            or "from google.genai" in p.read_text(encoding="utf-8")
            or "from google import genai" in p.read_text(encoding="utf-8")
        )
    }
    assert importers == {"generators/gemini.py"}


@pytest.mark.parametrize("name", IA_FIXTURES)
def test_fixture_interactions_grounded(name):
    grounding = grounding_module()
    body, expect = load(name)
    draft = draft_from_interaction(body, INFO)
    g = grounding.ground(draft, [rc.chunk_id for rc in draft.extra_chunks])
    assert g.answer_text == expect["output_text"]
    by_url = {rc.chunk.uri: rc.chunk_id for rc in draft.extra_chunks}
    by_name = {rc.chunk.title: rc.chunk_id for rc in draft.extra_chunks}
    got: dict[tuple[int, int], set[str]] = {}
    for s in g.supports:
        got.setdefault((s.start, s.end), set()).update(s.chunk_ids)
    for a in expect["annotations"]:
        span = (a.get("output_text_char_start", a["char_start"]), a.get("output_text_char_end", a["char_end"]))
        assert g.answer_text[span[0] : span[1]] == a["text"]
        assert (by_url[a["url"]] if "url" in a else by_name[a["file_name"]]) in got[span]
    assert list(g.audit) == []


# --------------------------------------------------------------------------- malformed grounding metadata


def grounded_body(parts, supports, chunks=None, finish="STOP") -> dict:
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": parts},
                "finishReason": finish,
                "groundingMetadata": {"groundingChunks": chunks, "groundingSupports": supports},
            }
        ]
    }


WEB = [{"web": {"uri": "https://a.example/x", "title": "a.example"}}]


def test_null_lists_and_missing_metadata():
    with StubGemini(
        [
            Reply(json=grounded_body([{"text": "没有来源。"}], None, None)),
            Reply(json={"candidates": [{"content": {"parts": [{"text": "无元数据。"}]}, "finishReason": "STOP"}]}),
        ]
    ) as stub:
        g = gen("gemini-search", stub)
        d1 = g.generate("q", [])
        d2 = g.generate("q", [])
    assert (d1.text, d1.supports, d1.extra_chunks, d1.status) == ("没有来源。", (), (), "ok")
    assert (d2.text, d2.supports, d2.status) == ("无元数据。", (), "ok")


def test_out_of_range_chunk_index_and_thought_part_are_left_for_audit():
    text = "甲乙丙。丁戊。"
    body = grounded_body(
        [{"text": "thinking", "thought": True}, {"text": text}],
        [
            {"segment": {"partIndex": 1, "endIndex": 12}, "groundingChunkIndices": [0, 7]},
            {"segment": {"partIndex": 1, "startIndex": 12, "endIndex": 21}, "groundingChunkIndices": [5]},
            {"segment": {"startIndex": 0, "endIndex": 8}, "groundingChunkIndices": [0]},  # points at the thought
            {"segment": {"partIndex": 1, "startIndex": 1, "endIndex": 12}, "groundingChunkIndices": [0]},  # mid-char
        ],
        WEB,
    )
    with StubGemini([Reply(json=body)]) as stub:
        draft = gen("gemini-search", stub).generate("q", [])
    web_id = draft.extra_chunks[0].chunk_id
    s0, s1, s2, s3 = draft.supports
    assert draft.parts == (text,)
    assert s0.chunk_ids == (web_id, "gemini:invalid-chunk-index:7") and s0.part_index == 0
    assert s1.chunk_ids == ("gemini:invalid-chunk-index:5",)
    assert s2.part_index >= len(draft.parts)  # thought part: never silently re-pointed at answer text
    assert (s3.start, s3.end) == (1, 12)
    grounding = grounding_module()
    g = grounding.ground(draft, [web_id])
    assert [(s.start, s.end, s.chunk_ids) for s in g.supports] == [(0, 4, (web_id,))]
    # by hand: 0 cites index 7 beside the web chunk (repaired); 1 cites only index 5 (nothing left: dropped);
    # 2 points at the thought part; 3 starts at byte 1, inside 甲 (3 bytes)
    assert [(a.support_index, a.action, a.detail["problem"]) for a in g.audit] == [
        (0, "repaired", "not_sent"),
        (1, "repaired", "not_sent"),
        (1, "dropped", "no_valid_chunk_id"),
        (2, "dropped", "part_out_of_range"),
        (3, "dropped", "inside_character"),
    ]


# --------------------------------------------------------------------------- blocked


@pytest.mark.parametrize("reason", ["SAFETY", "RECITATION"])
@pytest.mark.parametrize("name", ["gemini", "gemini-search"])
def test_block_finish_without_content_is_blocked(name, reason):
    body = {"candidates": [{"finishReason": reason, "index": 0}]}
    with StubGemini([Reply(json=body)]) as stub:
        draft = gen(name, stub).generate("q", CHUNKS)
    assert draft.status == "blocked" and draft.text == "" and reason in draft.message


def test_prompt_blocked_and_stream_safety():
    with StubGemini([Reply(json={"promptFeedback": {"blockReason": "SAFETY"}})]) as stub:
        draft = gen("gemini", stub).generate("q", CHUNKS)
    assert draft.status == "blocked" and "question" in draft.message
    events = [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": '{"answer": [{"te'}]}}]},
        {"candidates": [{"finishReason": "SAFETY"}]},
    ]
    with StubGemini([Reply(sse=events)]) as stub:
        out = _streamed(gen("gemini", stub), "q", CHUNKS)
    assert out[-1].status == "blocked"


# --------------------------------------------------------------------------- mode 1 (our chunks)


def test_mode1_request_and_draft():
    history = [("什么是 Pod？", "Pod 是最小的部署单元。")]
    with StubGemini([Reply(json=gc_body(json.dumps(STRUCTURED, ensure_ascii=False)))]) as stub:
        draft = gen("gemini", stub).generate("Pod 里的容器共享什么？", CHUNKS, history)
    req = stub.requests[0]
    assert req.path == f"/v1/models/{MODEL}:generateContent"
    assert req.headers["x-goog-api-key"] == "test-key"
    contents = req.body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[0]["parts"][0]["text"] == "什么是 Pod？"
    assert contents[1]["parts"][0]["text"] == "Pod 是最小的部署单元。"
    prompt = contents[2]["parts"][0]["text"]
    assert prompt == build_evidence_prompt("Pod 里的容器共享什么？", CHUNKS)
    for rc in CHUNKS:
        assert f"### chunk_id: {rc.chunk_id}\nheading_path: {' > '.join(rc.chunk.heading_path)}" in prompt
        assert rc.chunk.text in prompt
    assert prompt.endswith("Question: Pod 里的容器共享什么？")
    system = req.body["systemInstruction"]["parts"][0]["text"]
    assert all(i in system for i in IDS) and "资料中没有提到" in system
    cfg = req.body["generationConfig"]
    assert cfg["responseMimeType"] == "application/json"
    schema = cfg["responseSchema"]
    item = schema["properties"]["answer"]["items"]
    assert set(item["properties"]) == {"text", "chunk_ids"} and set(item["required"]) == {"text", "chunk_ids"}
    assert item["properties"]["chunk_ids"]["type"] == "ARRAY"
    assert "tools" not in req.body

    assert draft.status == "ok" and draft.parts == (STRUCTURED_TEXT,)
    assert [(draft.text[s.start : s.end], s.chunk_ids, s.unit, s.part_index) for s in draft.supports] == [
        ("Pod 是 Kubernetes 中最小的可部署计算单元。", (IDS[0],), "codepoint", 0),
        ("Containers in a Pod share the network namespace.", (IDS[1], "invented#9"), "codepoint", 0),
        ("They also share volumes 😀.", (IDS[1],), "codepoint", 0),
    ]


def test_mode1_grounding_drops_unsent_id():
    grounding = grounding_module()
    with StubGemini([Reply(json=gc_body(json.dumps(STRUCTURED, ensure_ascii=False)))]) as stub:
        draft = gen("gemini", stub).generate("q", CHUNKS)
    g = grounding.ground(draft, IDS)
    assert g.answer_text == STRUCTURED_TEXT
    # the unsent id is dropped from the third sentence, which stays cited by IDS[1] but needs review
    assert [(g.answer_text[s.start : s.end], s.chunk_ids, s.status) for s in g.supports] == [
        ("Pod 是 Kubernetes 中最小的可部署计算单元。", (IDS[0],), "verified"),
        ("Containers in a Pod share the network namespace.", (IDS[1],), "needs_review"),
        ("They also share volumes 😀.", (IDS[1],), "verified"),
    ]
    assert any("invented#9" in json.dumps(a.model_dump(), ensure_ascii=False) for a in g.audit)
    unsupported = "资料中没有提到 Pod 的默认配额。"
    u0 = STRUCTURED_TEXT.index(unsupported)
    assert not any(s.start < u0 + len(unsupported) and u0 < s.end for s in g.supports)


def split_sse_json(text: str, size: int) -> list[dict]:
    return [
        {"candidates": [{"content": {"role": "model", "parts": [{"text": text[i : i + size]}]}}]}
        for i in range(0, len(text), size)
    ] + [{"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}]}]


@pytest.mark.parametrize("ascii_json", [False, True])
def test_mode1_stream(ascii_json):
    raw = json.dumps(STRUCTURED, ensure_ascii=ascii_json)  # ascii: \uXXXX escapes get cut in half
    with StubGemini([Reply(sse=split_sse_json(raw, 7))]) as stub:
        out = _streamed(gen("gemini", stub), "q", CHUNKS)
    assert stub.requests[0].path == f"/v1/models/{MODEL}:streamGenerateContent?alt=sse"
    assert stub.requests[0].body["generationConfig"]["responseMimeType"] == "application/json"
    draft = out[-1]
    pieces = out[:-1]
    assert isinstance(draft, Draft) and draft.text == STRUCTURED_TEXT
    assert len(pieces) > 5 and "".join(pieces) == draft.text
    assert not any("{" in p or "chunk_ids" in p for p in pieces)
    assert len(draft.supports) == 3


def test_mode1_malformed_json_and_cut_off():
    with StubGemini([Reply(json=gc_body('{"answer": [{"text": "半句'))]) as stub:
        with pytest.raises(GenerationError, match="JSON"):
            gen("gemini", stub).generate("q", CHUNKS)
    with StubGemini([Reply(json=gc_body('{"answer": [{"text": "半句', finish="MAX_TOKENS"))]) as stub:
        with pytest.raises(GenerationError, match="MAX_TOKENS"):
            gen("gemini", stub).generate("q", CHUNKS)


def test_scanner_and_assembly():
    buf = '{"answer": [{"text": "say \\"text\\": \\"x\\"", "chunk_ids": ["text"]}, {"text": "第二\\u53e5'
    complete, partial = scan_sentence_texts(buf)
    assert complete == ['say "text": "x"'] and partial == "第二句"
    assert scan_sentence_texts('{"text": "ab\\u53')[1] == "ab"
    assert scan_sentence_texts('{"text": "ab\\')[1] == "ab"
    assert scan_sentence_texts('{"text": "\\ud83d')[1] == ""
    text, spans = assemble_sentences(["第一句。", "Two.", " Three. ", "四。"])
    assert text == "第一句。Two. Three. 四。"
    assert [text[a:b] for a, b in spans] == ["第一句。", "Two.", "Three.", "四。"]
    p = StructuredStreamPreview()
    assert "".join(p.feed(c) for c in '{"answer":[{"text":"A.","chunk_ids":[]},{"text":"B."') == "A. B."


# --------------------------------------------------------------------------- errors


def err(code: int, status: str, message: str) -> dict:
    return {"error": {"code": code, "message": message, "status": status}}


def test_missing_key_and_config():
    with pytest.raises(MissingKeyError, match="GEMINI_API_KEY"):
        make_gemini_generator("gemini", Settings())
    with pytest.raises(ConfigError, match="YINZHENG_GEMINI_FILE_SEARCH_STORE"):
        make_gemini_generator("gemini-file-search", settings())
    with pytest.raises(GenerationError, match="unknown"):
        make_gemini_generator("gemini-nope", settings())
    assert isinstance(make_gemini_generator("gemini", settings()), GeminiGenerator)
    assert isinstance(make_gemini_generator("gemini-search", settings()), GeminiSearchGenerator)
    fs = make_gemini_generator("gemini-file-search", settings(), file_search_store="fileSearchStores/x")
    assert isinstance(fs, GeminiFileSearchGenerator) and fs.info.name == "gemini-file-search"
    assert make_gemini_generator("gemini", settings(gemini_model="gemini-2.5-pro")).model == "gemini-2.5-pro"


@pytest.mark.parametrize(
    "code,status,message,exc",
    [
        (401, "UNAUTHENTICATED", "Request had invalid authentication credentials.", AuthenticationError),
        (403, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.", AuthenticationError),
        (400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", AuthenticationError),
        (404, "NOT_FOUND", "models/x is not found", GenerationError),
    ],
)
def test_client_errors(code, status, message, exc):
    with StubGemini([Reply(status=code, json=err(code, status, message))]) as stub:
        with pytest.raises(exc) as info:
            gen("gemini", stub, retry_options=FAST_RETRY).generate("q", CHUNKS)
    assert len(stub.requests) == 1  # not retried
    from google.genai import errors as genai_errors

    assert isinstance(info.value.__cause__, genai_errors.ClientError) and info.value.__cause__.code == code
    if exc is AuthenticationError:
        assert "GEMINI_API_KEY" in str(info.value)


@pytest.mark.parametrize("stream", [False, True])
def test_quota_is_retried_then_quota_error(stream):
    with StubGemini([Reply(status=429, json=err(429, "RESOURCE_EXHAUSTED", "Quota exceeded"))]) as stub:
        g = gen("gemini", stub, retry_options=FAST_RETRY)
        with pytest.raises(QuotaError, match="429"):
            _streamed(g, "q", CHUNKS) if stream else g.generate("q", CHUNKS)
    assert len(stub.requests) == 3


def test_quota_then_success():
    ok = gc_body(json.dumps(STRUCTURED, ensure_ascii=False))
    with StubGemini(
        [
            Reply(status=429, json=err(429, "RESOURCE_EXHAUSTED", "slow down")),
            Reply(status=503, json=err(503, "UNAVAILABLE", "overloaded")),
            Reply(json=ok),
        ]
    ) as stub:
        draft = gen("gemini", stub, retry_options=FAST_RETRY).generate("q", CHUNKS)
    assert draft.text == STRUCTURED_TEXT and len(stub.requests) == 3


def test_server_error_after_retries():
    with StubGemini([Reply(status=500, json=err(500, "INTERNAL", "boom"))]) as stub:
        with pytest.raises(GenerationError, match="500"):
            gen("gemini-search", stub, retry_options=FAST_RETRY).generate("q", [])
    assert len(stub.requests) == 3


def test_timeout():
    with StubGemini([Reply(delay=1.5, json=gc_body("{}"))]) as stub:
        t0 = time.monotonic()
        with pytest.raises(GeneratorTimeoutError, match="time"):
            gen("gemini", stub, timeout_s=0.3).generate("q", CHUNKS)
    assert time.monotonic() - t0 < 1.4


def test_connection_closed():
    with StubGemini([Reply(close=True)]) as stub:
        with pytest.raises(GeneratorNetworkError, match="network"):
            gen("gemini", stub).generate("q", CHUNKS)


def test_connection_refused():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    g = make_gemini_generator("gemini", settings(), base_url=f"http://127.0.0.1:{port}", retry_options=NO_RETRY)
    with pytest.raises(GeneratorNetworkError):
        g.generate("q", CHUNKS)


# --------------------------------------------------------------------------- live


@pytest.mark.live
@pytest.mark.skipif(
    not (os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")), reason="no GEMINI_API_KEY"
)
def test_live_mode1():
    key = os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
    g = make_gemini_generator("gemini", Settings(gemini_api_key=key))
    out = _streamed(g, "Pod 是什么？", CHUNKS)
    draft = out[-1]
    assert isinstance(draft, Draft) and draft.status in ("ok", "blocked")
    if draft.status == "ok":
        assert draft.text and "".join(out[:-1]) in draft.text


# --------------------------------------------------------------------------- settings, not the environment


def test_file_search_store_comes_from_settings_not_the_environment(monkeypatch):
    monkeypatch.setenv("YINZHENG_GEMINI_FILE_SEARCH_STORE", "fileSearchStores/from-env")
    with pytest.raises(ConfigError, match="YINZHENG_GEMINI_FILE_SEARCH_STORE"):
        make_gemini_generator("gemini-file-search", settings())
    fs = make_gemini_generator("gemini-file-search", settings(gemini_file_search_store="fileSearchStores/kb-1"))
    assert fs.file_search_store == "fileSearchStores/kb-1"


def test_malformed_store_name_is_a_config_error_naming_the_variable():
    with pytest.raises(ConfigError) as info:
        make_gemini_generator("gemini-file-search", settings(), file_search_store="kb-1")
    assert "YINZHENG_GEMINI_FILE_SEARCH_STORE" in str(info.value) and "'kb-1'" in str(info.value)


class _RaisingModels:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def generate_content(self, **kw):
        raise self.exc

    generate_content_stream = generate_content


class _RaisingClient:
    def __init__(self, exc: BaseException) -> None:
        self.models = _RaisingModels(exc)


@pytest.mark.parametrize("stream", [False, True])
def test_foreign_exceptions_pass_unchanged(stream):
    """Only what the SDK / HTTP stack raises is mapped: a programming error stays itself."""
    g = GeminiGenerator(client=_RaisingClient(KeyError("bug")))
    with pytest.raises(KeyError, match="bug"):
        _streamed(g, "q", CHUNKS) if stream else g.generate("q", CHUNKS)


def test_mapped_error_is_logged_with_its_traceback(caplog):
    with StubGemini([Reply(close=True)]) as stub:
        with caplog.at_level("WARNING", logger="core.generators.gemini"):
            with pytest.raises(GeneratorNetworkError):
                gen("gemini", stub).generate("q", CHUNKS)
    (rec,) = [r for r in caplog.records if r.name == "core.generators.gemini"]
    assert rec.levelname == "WARNING" and rec.exc_info is not None
    assert MODEL in rec.getMessage()
