"""Interactions API output (a JSON dict, snake_case as on the wire, or the
SDK's ``Interaction`` object): text blocks with ``url_citation`` /
``file_citation`` annotations, parsed into a ``Draft`` (no network, no
``google.genai`` import).

Annotation ``start_index`` / ``end_index`` are **UTF-8 byte offsets** relative
to their text block; each block becomes one part and the offsets are passed
through as ``DraftSupport(unit="utf8", part_index=<block>)``;
``core.grounding.supports`` converts them to code points and audits them.
"""

from __future__ import annotations

from typing import Any, Mapping

from core.generators.gemini_parse import (
    blocked_draft,
    file_source_metadata,
    grounding_notes,
    make_retrieved,
    short_hash,
    web_source,
)
from core.models import Draft, DraftSupport, GeneratorInfo, RetrievedChunk


def _last_model_output(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    blocks: list[Mapping[str, Any]] = []
    for step in data.get("steps") or ():
        if step.get("type") == "model_output":
            texts = [c for c in step.get("content") or () if c.get("type") == "text"]
            if texts:
                blocks = texts
    if not blocks and data.get("outputs"):  # older shape: top-level outputs
        blocks = [c for c in data["outputs"] or () if c.get("type") == "text"]
    return blocks


def _annotation_chunk(a: Mapping[str, Any], ordinal: int) -> RetrievedChunk | None:
    kind = a.get("type")
    if kind == "url_citation":
        url, title = a.get("url"), a.get("title")
        title = title or url or f"web source {ordinal + 1}"
        return web_source(ordinal, url, title, {"provider": "google_search"})
    if kind == "file_citation":
        doc = a.get("document_uri") or a.get("source")
        name = a.get("file_name") or doc or f"document {ordinal + 1}"
        page = a.get("page_number")
        meta = file_source_metadata(page, doc)
        for k, v in (a.get("custom_metadata") or {}).items():
            if isinstance(v, (str, int, float, bool)):
                meta[f"meta.{k}"] = v
            elif isinstance(v, list):
                meta[f"meta.{k}"] = ", ".join(str(x) for x in v)
        return make_retrieved(
            f"gemini:file:{short_hash(doc, name, page)}",
            ordinal=ordinal,
            title=name,
            text="",
            uri=None,
            source=doc or name,
            metadata=meta,
        )
    return None


def draft_from_interaction(data: Any, info: GeneratorInfo) -> Draft:
    """Build a ``Draft`` from an Interactions API result: a JSON dict (snake_case,
    as on the wire) or the SDK's ``Interaction`` object (dumped to that dict).

    The text blocks of the last ``model_output`` step (what the SDK's
    ``output_text`` joins) become ``Draft.parts``, one per block; each
    ``url_citation`` / ``file_citation`` annotation's ``start_index`` /
    ``end_index`` (**UTF-8 bytes**, relative to its block) become
    ``DraftSupport(unit="utf8", part_index=<block>)``. Annotations with the
    identical span are merged into one support citing all their sources, in
    order. Other annotation types are ignored. A ``failed``/``blocked`` status
    without text gives ``Draft(status="blocked")``. A non-empty answer without
    supports gets a ``grounding_notes`` audit entry (no ``annotations`` at all:
    ``grounding_missing``; annotations but no citation: ``grounding_no_supports``).
    """
    if not isinstance(data, Mapping):
        data = data.model_dump(mode="json", exclude_none=True)
    blocks = _last_model_output(data)
    if not blocks and str(data.get("status", "")).lower() in {"failed", "blocked", "cancelled"}:
        return blocked_draft(info, str(data.get("status")).upper())
    parts = tuple(b.get("text") or "" for b in blocks)
    extra: list[RetrievedChunk] = []
    seen: set[str] = set()
    merged: dict[tuple[int, int | None, int | None], list[str]] = {}
    for bi, block in enumerate(blocks):
        for a in block.get("annotations") or ():
            rc = _annotation_chunk(a, len(extra))
            if rc is None:
                continue
            if rc.chunk_id not in seen:
                seen.add(rc.chunk_id)
                extra.append(rc)
            key = (bi, a.get("start_index") or 0, a.get("end_index"))
            ids = merged.setdefault(key, [])
            if rc.chunk_id not in ids:
                ids.append(rc.chunk_id)
    supports = tuple(
        DraftSupport(start=s, end=e, chunk_ids=tuple(ids), unit="utf8", part_index=bi)
        for (bi, s, e), ids in merged.items()
    )
    # no "annotations" key on any block = no grounding data at all (flagged apart from empty lists)
    annotated = {} if any("annotations" in b for b in blocks) else None
    audit = grounding_notes(annotated, supports, "".join(parts))
    return Draft(parts=parts, supports=supports, generator=info, extra_chunks=tuple(extra), audit=audit)
