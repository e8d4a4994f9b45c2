"""Value models: ChunkSnapshot is composed from the chunk's fields, so a new chunk
field reaches stored records without a second edit, and the stored JSON form is unchanged."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from core.models import (
    CHUNK_ONLY_FIELDS,
    SNAPSHOT_CHUNK_FIELDS,
    AnswerRecord,
    Chunk,
    ChunkSnapshot,
    RetrievedChunk,
    sha256_hex,
)

GOLDEN = Path(__file__).parent / "golden" / "records"

#: The JSON key order of a stored snapshot (records written before issue 11 have it).
SNAPSHOT_KEYS = [
    "chunk_id",
    "document_id",
    "source_id",
    "version",
    "title",
    "heading_path",
    "text",
    "source_anchor",
    "uri",
    "updated_at",
    "content_sha256",
    "knowledge_base",
    "positions",
    "rank",
    "dense_score",
    "lexical_score",
    "fused_score",
    "relevance",
    "retrieved_at",
    "metadata",
]


def test_every_chunk_field_but_its_place_in_the_document_is_a_snapshot_field():
    # a field added to Chunk (via ChunkContent/ChunkMetadata) is in the snapshot; one added to Chunk
    # alone fails here unless it is named in CHUNK_ONLY_FIELDS
    assert set(Chunk.model_fields) - set(ChunkSnapshot.model_fields) == CHUNK_ONLY_FIELDS
    assert CHUNK_ONLY_FIELDS == {"ordinal", "char_start", "char_end"}
    assert SNAPSHOT_CHUNK_FIELDS == set(Chunk.model_fields) - CHUNK_ONLY_FIELDS
    assert set(RetrievedChunk.model_fields) - {"chunk"} <= set(ChunkSnapshot.model_fields)
    assert list(ChunkSnapshot.model_fields) == SNAPSHOT_KEYS


def test_from_retrieved_copies_every_shared_value():
    at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
    c = Chunk(
        chunk_id="d@1#3",
        document_id="d@1",
        source_id="d.md",
        version="1",
        ordinal=3,
        title="标题",
        heading_path=("标题", "小节"),
        text="正文 😀",
        source_anchor="sec",
        uri="https://x.example/d",
        updated_at=at,
        char_start=5,
        char_end=9,
        metadata={"lang": "zh", "weight": 2},
    )
    rc = RetrievedChunk(
        chunk=c, rank=2, dense_score=0.5, lexical_score=3.25, fused_score=0.03, relevance=0.7, retrieved_at=at
    )
    snap = ChunkSnapshot.from_retrieved(rc)
    for name in SNAPSHOT_CHUNK_FIELDS - {"content_sha256"}:
        assert getattr(snap, name) == getattr(c, name), name
    for name in ("rank", "dense_score", "lexical_score", "fused_score", "relevance", "retrieved_at"):
        assert getattr(snap, name) == getattr(rc, name), name
    assert c.content_sha256 == "" and snap.content_sha256 == sha256_hex("正文 😀")
    hashed = c.model_copy(update={"content_sha256": sha256_hex(c.text)})
    assert ChunkSnapshot.from_retrieved(rc.model_copy(update={"chunk": hashed})).content_sha256 == hashed.content_sha256


def test_golden_record_snapshots_re_dump_byte_identically():
    raw = json.loads((GOLDEN / "v1_extractive_answer.json").read_text(encoding="utf-8"))
    assert raw["chunks"], "the golden record has snapshots"
    for stored in raw["chunks"]:
        # stored before knowledge bases: knowledge_base is left out of the JSON form while None
        assert list(stored) == [k for k in SNAPSHOT_KEYS if k not in ("knowledge_base", "positions")]
        compact = json.dumps(stored, ensure_ascii=False, separators=(",", ":"))
        assert ChunkSnapshot.model_validate_json(compact).model_dump_json() == compact
    rec = AnswerRecord.model_validate(raw)
    again = AnswerRecord.model_validate_json(rec.model_dump_json())
    assert again.model_dump_json() == rec.model_dump_json()
    assert [json.loads(c.model_dump_json()) for c in again.chunks] == raw["chunks"]
