"""Pure parsing of Gemini ``generateContent`` replies with Gemini's own
grounding (mode 2: Google Search / File Search) into ``Draft`` values, and the
helpers the other Gemini parsers share (block reasons, source chunks, the
missing-grounding audit). No network, no ``google.genai`` import: SDK objects
are read by attribute (dicts by key). Mode 1 (our chunks, structured output)
is ``gemini_structured``; Interactions annotations are ``gemini_interactions``.

Offsets
-------
``GroundingSupport.segment.start_index`` / ``end_index`` (google-genai
``types.Segment``: "measured in bytes") are **UTF-8 byte offsets** relative to
``Content.parts[segment.part_index].text``; they are passed through unchanged
as ``DraftSupport(unit="utf8", part_index=...)`` with ``part_index`` remapped
to ``Draft.parts`` (thought parts and non-text parts are dropped from the
answer). ``core.grounding.supports`` converts to code points and audits.

Nothing here validates offsets or chunk ids: a support that points at an
invalid chunk index keeps a placeholder id (``gemini:invalid-chunk-index:<i>``)
that was never sent, and a support that points at a dropped or missing part
keeps an out-of-range ``part_index`` (``len(parts) + original index``), so that
grounding drops and audits them instead of this module hiding them.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping, Sequence

from core.errors import GenerationError
from core.models import AuditEntry, Chunk, Draft, DraftSupport, GeneratorInfo, RetrievedChunk, Scalar

BLOCK_FINISH_REASONS = {
    "SAFETY": "Gemini stopped the answer for safety reasons",
    "RECITATION": "Gemini stopped the answer because it would recite a source verbatim",
    "BLOCKLIST": "Gemini stopped the answer because it contains a blocked term",
    "PROHIBITED_CONTENT": "Gemini stopped the answer because it may contain prohibited content",
    "SPII": "Gemini stopped the answer because it may contain sensitive personal information",
    "IMAGE_SAFETY": "Gemini stopped the answer for safety reasons",
    "IMAGE_PROHIBITED_CONTENT": "Gemini stopped the answer because it may contain prohibited content",
    "IMAGE_RECITATION": "Gemini stopped the answer because it would recite a source verbatim",
}


def enum_name(value: Any) -> str | None:
    """The name of an SDK enum value (or a plain string), upper case; None stays None."""
    if value is None:
        return None
    v = getattr(value, "value", value)
    return str(v).split(".")[-1].upper() or None


def _get(obj: Any, name: str) -> Any:
    """Attribute of an SDK object or key of a dict (snake_case name)."""
    if obj is None:
        return None
    if isinstance(obj, Mapping):
        return obj.get(name)
    return getattr(obj, name, None)


def short_hash(*values: object) -> str:
    joined = "\x1f".join("" if v is None else str(v) for v in values)
    return hashlib.sha256(joined.encode("utf-8", "surrogatepass")).hexdigest()[:16]  # a half emoji must not crash


def blocked_draft(info: GeneratorInfo, reason: str, detail: str | None = None) -> Draft:
    """A ``Draft(status="blocked")`` with no text and a message naming ``reason``."""
    base = BLOCK_FINISH_REASONS.get(reason, f"Gemini refused to answer ({reason})")
    msg = f"{base} (finish reason {reason})." if reason in BLOCK_FINISH_REASONS else f"{base}."
    if detail:
        msg += f" {detail}"
    msg += " Rephrase the question or use the extractive generator."
    return Draft(parts=(), generator=info, status="blocked", message=msg)


def _metadata_scalars(custom: Any) -> dict[str, Scalar]:
    """Flatten ``GroundingChunkCustomMetadata`` entries (key + string/numeric/string-list value)."""
    out: dict[str, Scalar] = {}
    for entry in custom or ():
        key = _get(entry, "key")
        if not key:
            continue
        if _get(entry, "string_value") is not None:
            out[f"meta.{key}"] = str(_get(entry, "string_value"))
        elif _get(entry, "numeric_value") is not None:
            out[f"meta.{key}"] = float(_get(entry, "numeric_value"))
        elif _get(entry, "string_list_value") is not None:
            vals = _get(_get(entry, "string_list_value"), "values") or []
            out[f"meta.{key}"] = ", ".join(str(v) for v in vals)
    return out


def make_retrieved(
    chunk_id: str,
    *,
    ordinal: int,
    title: str,
    text: str,
    uri: str | None,
    source: str,
    metadata: dict[str, Scalar],
) -> RetrievedChunk:
    version = short_hash(source, title, text)
    chunk = Chunk(
        chunk_id=chunk_id,
        document_id=f"{source}@{version}",
        source_id=source,
        version=version,
        ordinal=ordinal,
        title=title,
        heading_path=(title,),
        text=text,
        uri=uri,
        metadata=metadata,
    )
    # Gemini chose these sources itself; relevance 1.0 keeps them above the
    # display threshold (there is no retrieval score to compare).
    return RetrievedChunk(chunk=chunk, rank=ordinal + 1, relevance=1.0)


def web_source(ordinal: int, uri: str | None, title: str, metadata: dict[str, Scalar]) -> RetrievedChunk:
    """A web page Gemini grounded on (it carries no text): id ``gemini:web:<hash(uri, title)>``."""
    return make_retrieved(
        f"gemini:web:{short_hash(uri, title)}",
        ordinal=ordinal,
        title=title,
        text="",
        uri=uri,
        source=uri or title,
        metadata=metadata,
    )


def file_source_metadata(page: Any, document: Any, store: Any = None) -> dict[str, Scalar]:
    """Metadata of a File Search source: provider, and the store, page and document when known."""
    meta: dict[str, Scalar] = {"provider": "file_search"}
    if store:
        meta["file_search_store"] = str(store)
    if page is not None:
        meta["page"] = int(page)
    if document:
        meta["document_name"] = str(document)
    return meta


def retrieved_from_grounding_chunk(index: int, gc: Any) -> RetrievedChunk | None:
    """A ``RetrievedChunk`` from one google-genai ``types.GroundingChunk``.

    ``web`` (``GroundingChunkWeb``: uri, title, domain) → id
    ``gemini:web:<hash(uri, title)>``, text empty (web chunks carry none).
    ``retrieved_context`` (``GroundingChunkRetrievedContext``: title, text, uri,
    file_search_store, page_number, document_name, custom_metadata) → id
    ``gemini:file:<hash(store, document, title, page, text)>``.
    Other kinds (maps, image) → None.
    """
    web = _get(gc, "web")
    if web is not None:
        uri = _get(web, "uri")
        title = _get(web, "title") or _get(web, "domain") or uri or f"web source {index + 1}"
        meta: dict[str, Scalar] = {"provider": "google_search"}
        if _get(web, "domain"):
            meta["domain"] = str(_get(web, "domain"))
        return web_source(index, uri, title, meta)
    rc = _get(gc, "retrieved_context")
    if rc is not None:
        title = _get(rc, "title") or _get(rc, "document_name") or _get(rc, "uri") or f"document {index + 1}"
        text = _get(rc, "text") or ""
        store = _get(rc, "file_search_store")
        page = _get(rc, "page_number")
        doc = _get(rc, "document_name")
        meta = file_source_metadata(page, doc, store)
        meta.update(_metadata_scalars(_get(rc, "custom_metadata")))
        return make_retrieved(
            f"gemini:file:{short_hash(store, doc, title, page, text)}",
            ordinal=index,
            title=title,
            text=text,
            uri=_get(rc, "uri"),
            source=doc or (f"{store}/{title}" if store else title),
            metadata=meta,
        )
    return None


def draft_from_grounded_parts(
    parts: Sequence[tuple[str | None, bool]],
    metadata: Any,
    info: GeneratorInfo,
    *,
    finish_reason: Any = None,
    block_reason: Any = None,
) -> Draft:
    """Build a ``Draft`` from one candidate's parts and ``types.GroundingMetadata``.

    ``parts`` are ``(text, thought)`` per ``Content.parts`` entry (text None for
    non-text parts). Thought parts and non-text parts never enter the answer;
    ``Draft.parts`` are the remaining texts and each support's
    ``segment.part_index`` is remapped to them. Offsets stay **UTF-8 bytes**
    (``unit="utf8"``); an absent ``start_index``/``part_index`` means 0, an
    absent ``end_index`` stays None (grounding audits it). Every
    ``grounding_chunk_indices`` entry becomes the id of that grounding chunk
    (or ``gemini:invalid-chunk-index:<i>`` when out of range); ``score`` is
    the highest ``confidence_scores`` entry when the list lines up.
    ``search_entry_point`` is ignored (never a citation). A block
    (``prompt_feedback.block_reason`` or a safety/recitation finish reason)
    gives ``Draft(status="blocked")``.
    """
    if block_reason is not None and enum_name(block_reason) not in (None, "BLOCKED_REASON_UNSPECIFIED"):
        return blocked_draft(info, enum_name(block_reason) or "BLOCKED", "The question itself was blocked.")
    reason = enum_name(finish_reason)
    if reason in BLOCK_FINISH_REASONS:
        return blocked_draft(info, reason)

    kept: list[str] = []
    index_map: dict[int, int] = {}
    for i, (text, thought) in enumerate(parts):
        if text is None or thought:
            continue
        index_map[i] = len(kept)
        kept.append(text)

    extra: list[RetrievedChunk] = []
    ids_by_index: dict[int, str] = {}
    seen: set[str] = set()
    for i, gc in enumerate(_get(metadata, "grounding_chunks") or ()):
        rc = retrieved_from_grounding_chunk(i, gc)
        if rc is None:
            continue
        ids_by_index[i] = rc.chunk_id
        if rc.chunk_id not in seen:
            seen.add(rc.chunk_id)
            extra.append(rc)

    supports: list[DraftSupport] = []
    for gs in _get(metadata, "grounding_supports") or ():
        seg = _get(gs, "segment")
        if seg is None:
            continue
        orig_part = _get(seg, "part_index") or 0
        part = index_map.get(orig_part, len(kept) + orig_part)
        indices = list(_get(gs, "grounding_chunk_indices") or ())
        ids = tuple(dict.fromkeys(ids_by_index.get(ci, f"gemini:invalid-chunk-index:{ci}") for ci in indices))
        scores = _get(gs, "confidence_scores")
        score = max(scores) if scores and len(scores) == len(indices) else None
        supports.append(
            DraftSupport(
                start=_get(seg, "start_index") or 0,
                end=_get(seg, "end_index"),
                chunk_ids=ids,
                unit="utf8",
                part_index=part,
                quote=None,
                score=score,
            )
        )
    audit = grounding_notes(metadata, supports, "".join(kept))
    return Draft(parts=tuple(kept), supports=tuple(supports), generator=info, extra_chunks=tuple(extra), audit=audit)


GROUNDING_MISSING = "Gemini 没有返回任何 grounding 元数据：回答无法与来源核对（不同于“有元数据但没有出处”）。"
GROUNDING_NO_SUPPORTS = "Gemini 返回了 grounding 元数据，但其中没有任何出处（grounding_supports 为空）。"


def grounding_notes(metadata: Any, supports: Sequence[DraftSupport], text: str) -> tuple[AuditEntry, ...]:
    """One ``flagged`` audit entry when a non-empty answer has no supports:
    ``detail.kind`` is ``grounding_missing`` when the response carried no
    ``grounding_metadata`` at all, ``grounding_no_supports`` when it did but
    listed no supports. Empty tuple otherwise."""
    if supports or not text.strip():
        return ()
    if metadata is None:
        return (AuditEntry(action="flagged", reason=GROUNDING_MISSING, detail={"kind": "grounding_missing"}),)
    n_chunks = len(_get(metadata, "grounding_chunks") or ())
    return (
        AuditEntry(
            action="flagged",
            reason=GROUNDING_NO_SUPPORTS,
            detail={"kind": "grounding_no_supports", "grounding_chunks": n_chunks},
        ),
    )


def candidate_parts(candidate: Any) -> list[tuple[str | None, bool]]:
    """``(text, thought)`` for each part of ``types.Candidate.content.parts``."""
    content = _get(candidate, "content")
    out: list[tuple[str | None, bool]] = []
    for p in _get(content, "parts") or ():
        out.append((_get(p, "text"), bool(_get(p, "thought"))))
    return out


def response_text(resp: Any) -> tuple[str, Any, Any]:
    """Non-thought text of candidate 0 of a ``types.GenerateContentResponse``
    (or one stream chunk), its finish reason, and the prompt block reason."""
    block = _get(_get(resp, "prompt_feedback"), "block_reason")
    cands = _get(resp, "candidates") or []
    if not cands:
        return "", None, block
    parts = candidate_parts(cands[0])
    text = "".join(t for t, thought in parts if t and not thought)
    return text, _get(cands[0], "finish_reason"), block


def draft_from_response(resp: Any, info: GeneratorInfo) -> Draft:
    """A ``Draft`` from a ``types.GenerateContentResponse`` with grounding metadata
    (candidate 0; UTF-8 byte supports, see ``draft_from_grounded_parts``).
    Raises ``GenerationError`` when there is no candidate and no block reason."""
    block = _get(_get(resp, "prompt_feedback"), "block_reason")
    cands = _get(resp, "candidates") or []
    if not cands:
        if block is not None:
            return draft_from_grounded_parts([], None, info, block_reason=block)
        raise GenerationError("Gemini returned no answer candidates. Try again.")
    cand = cands[0]
    return draft_from_grounded_parts(
        candidate_parts(cand),
        _get(cand, "grounding_metadata"),
        info,
        finish_reason=_get(cand, "finish_reason"),
        block_reason=block,
    )


class GroundedStream:
    """Collects a streamed mode-2 reply (``generate_content_stream`` chunks).

    Stream chunks are put back into the parts a non-streamed ``Content.parts``
    would have, because ``segment.part_index`` and the byte offsets of the
    supports refer to those parts. Each chunk's ``candidates[0].content.parts``
    holds deltas, not the text so far, and a delta carries no part index
    (google-genai ``types.Part``; the REST stream sends one part per event while a
    part grows). So a part boundary shows in a stream only as

    * a change of kind: thought / answer text / non-text part, or
    * a second entry in one chunk's ``parts``: entries listed side by side are
      separate parts, as in a non-streamed ``Content``.

    The first entry of a chunk continues the last part so far when both are text
    of the same kind (``thought`` flag); any other entry starts a part. A
    ``thought_signature`` does not split: it comes on a part's last delta or on
    a final empty-text delta ("the signature may arrive in a final chunk with an
    empty text part", ai.google.dev/gemini-api/docs/thought-signatures), which
    continues its part. The last chunk that carries ``grounding_metadata`` with
    supports (or any, if none has supports) is used; chunks without metadata are
    fine.
    """

    def __init__(self) -> None:
        self._merged: list[list] = []  # [text, thought]
        self._metadata: Any = None
        self._finish: Any = None
        self._block: Any = None

    def feed(self, resp: Any) -> list[str]:
        """Take one stream chunk; return its visible (non-thought) text pieces in order."""
        self._block = _get(_get(resp, "prompt_feedback"), "block_reason") or self._block
        cands = _get(resp, "candidates") or []
        if not cands:
            return []
        cand = cands[0]
        self._finish = _get(cand, "finish_reason") or self._finish
        md = _get(cand, "grounding_metadata")
        if md is not None and (self._metadata is None or _get(md, "grounding_supports")):
            self._metadata = md
        visible: list[str] = []
        merged = self._merged
        for position, (text, thought) in enumerate(candidate_parts(cand)):
            if text is None:
                merged.append([None, False])
                continue
            if position == 0 and merged and merged[-1][0] is not None and merged[-1][1] == thought:
                merged[-1][0] += text
            else:
                merged.append([text, thought])
            if text and not thought:
                visible.append(text)
        return visible

    def draft(self, info: GeneratorInfo) -> Draft:
        """The final ``Draft`` of everything fed (see ``draft_from_grounded_parts``)."""
        return draft_from_grounded_parts(
            [(t, th) for t, th in self._merged],
            self._metadata,
            info,
            finish_reason=self._finish,
            block_reason=self._block,
        )
