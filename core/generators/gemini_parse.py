"""Pure parsing of Gemini output into ``Draft`` values (no network, no
``google.genai`` import: SDK objects are read by attribute, Interactions
results as plain JSON dicts).

Offsets
-------
* Mode 1 (structured answer over our chunks): supports are built by us, in
  **code points** of the assembled answer text (``unit="codepoint"``, part 0).
* Mode 2 (Gemini's own grounding): ``GroundingSupport.segment.start_index`` /
  ``end_index`` (google-genai ``types.Segment``: "measured in bytes") are
  **UTF-8 byte offsets** relative to ``Content.parts[segment.part_index].text``;
  they are passed through unchanged as ``DraftSupport(unit="utf8",
  part_index=...)`` with ``part_index`` remapped to ``Draft.parts`` (thought
  parts and non-text parts are dropped from the answer). Interactions
  annotations (``url_citation`` / ``file_citation``, ``start_index`` /
  ``end_index``) are UTF-8 byte offsets relative to their text block; each
  block becomes one part. ``core.grounding`` converts to code points and audits.

Nothing here validates offsets or chunk ids: a support that points at an
invalid chunk index keeps a placeholder id (``gemini:invalid-chunk-index:<i>``)
that was never sent, and a support that points at a dropped or missing part
keeps an out-of-range ``part_index`` (``len(parts) + original index``), so that
grounding drops and audits them instead of this module hiding them.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from core.cjk import is_cjk
from core.errors import GenerationError
from core.models import AuditEntry, Chunk, Draft, DraftSupport, GeneratorInfo, RetrievedChunk, Scalar

# --------------------------------------------------------------------------
# Mode 1: the structured answer schema (sent as ``response_schema``)


class AnswerSentence(BaseModel):
    """One sentence of the answer and the ids of the evidence blocks behind it."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(description="One sentence of the answer, without citation markers.")
    chunk_ids: list[str] = Field(
        description="Ids of the evidence blocks that support this sentence; empty if none does.",
    )


class StructuredAnswer(BaseModel):
    """The JSON object Gemini must return in mode 1."""

    model_config = ConfigDict(extra="ignore")

    answer: list[AnswerSentence] = Field(description="The answer as a list of sentences in reading order.")


def _separator(prev: str, nxt: str) -> str:
    """The text put between two sentences: a space between two non-CJK ends."""
    if not prev or not nxt or prev[-1].isspace() or nxt[0].isspace():
        return ""
    if is_cjk(prev[-1]) or is_cjk(nxt[0]):
        return ""
    return " "


def assemble_sentences(texts: Iterable[str]) -> tuple[str, list[tuple[int, int]]]:
    """Join sentence texts into the answer text.

    Whitespace-only sentences are skipped; a space goes between two sentences
    whose touching characters are both non-CJK. Returns the text and, per
    kept sentence, its ``(start, end)`` span in **code points**, trimmed of
    the sentence's own leading/trailing whitespace.
    """
    out = ""
    spans: list[tuple[int, int]] = []
    for t in texts:
        if not t or not t.strip():
            continue
        out += _separator(out, t)
        lead = len(t) - len(t.lstrip())
        start = len(out) + lead
        out += t
        spans.append((start, start + len(t.strip())))
    return out, spans


def _strip_fence(raw: str) -> str:
    s = raw.strip()
    m = re.match(r"^```(?:json)?\s*\n(.*)\n```$", s, re.S)
    return m.group(1) if m else s


def parse_structured_answer(raw: str) -> StructuredAnswer:
    """Parse the JSON text of a mode-1 answer; ``GenerationError`` if it is not one."""
    try:
        data = json.loads(_strip_fence(raw))
        if isinstance(data, list):  # tolerate a bare list of sentences
            data = {"answer": data}
        if isinstance(data, dict) and isinstance(data.get("answer"), list):
            data = dict(data)  # tolerate a sentence without chunk_ids (schema requires it)
            data["answer"] = [
                {**item, "chunk_ids": item.get("chunk_ids") or []} if isinstance(item, dict) else item
                for item in data["answer"]
            ]
        return StructuredAnswer.model_validate(data)
    except (ValueError, ValidationError) as exc:
        raise GenerationError(
            "Gemini did not return an answer in the expected JSON format "
            f"(first characters: {raw[:80]!r}); try again or use the extractive generator."
        ) from exc


def draft_from_structured(answer: StructuredAnswer, info: GeneratorInfo) -> Draft:
    """Build a one-part ``Draft`` from a structured answer.

    Each sentence with ``chunk_ids`` gets one ``DraftSupport`` with
    ``unit="codepoint"``, ``part_index=0`` covering the sentence in the
    assembled text. Ids are passed through as given (de-duplicated, order
    kept); grounding drops ids that were not sent and audits them.
    """
    kept = [s for s in answer.answer if s.text and s.text.strip()]
    text, spans = assemble_sentences(s.text for s in kept)
    supports: list[DraftSupport] = []
    for sent, (start, end) in zip(kept, spans):
        ids = tuple(dict.fromkeys(c.strip() for c in sent.chunk_ids if c and c.strip()))
        if ids:
            supports.append(DraftSupport(start=start, end=end, chunk_ids=ids, unit="codepoint", part_index=0))
    return Draft(parts=(text,) if text else (), supports=tuple(supports), generator=info)


_PARTIAL_ESCAPE = re.compile(r"(?:\\u[0-9a-fA-F]{0,3}|\\)$")


def _decode_partial(raw: str) -> str | None:
    """Decode the body of an unterminated JSON string (drop a cut-off escape)."""
    # remove an incomplete escape at the very end (odd number of backslashes)
    m = _PARTIAL_ESCAPE.search(raw)
    if m:
        backslashes = len(raw[: m.start() + 1]) - len(raw[: m.start() + 1].rstrip("\\"))
        if backslashes % 2 == 1:
            raw = raw[: m.start()]
    try:
        s = json.loads('"' + raw + '"')
    except ValueError:
        return None
    if s and 0xD800 <= ord(s[-1]) <= 0xDBFF:  # half a surrogate pair
        s = s[:-1]
    return s


def scan_sentence_texts(buf: str) -> tuple[list[str], str | None]:
    """Values of ``"text"`` keys in a (possibly incomplete) JSON text.

    Returns the complete string values in order and the decoded prefix of an
    unterminated ``"text"`` value at the end of ``buf`` (or None). A real
    string scanner, so quotes and the word ``text`` inside values never match.
    """
    complete: list[str] = []
    i, n = 0, len(buf)
    prev_string: str | None = None  # last complete string not used as a value
    key: str | None = None
    after_colon = False
    while i < n:
        c = buf[i]
        if c == '"':
            j, esc = i + 1, False
            while j < n:
                ch = buf[j]
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == '"':
                    break
                j += 1
            if j >= n:  # unterminated string
                if after_colon and key == "text":
                    return complete, _decode_partial(buf[i + 1 :])
                return complete, None
            try:
                s = json.loads(buf[i : j + 1])
            except ValueError:
                s = ""
            if after_colon:
                if key == "text":
                    complete.append(s)
                after_colon, key, prev_string = False, None, None
            else:
                prev_string = s
            i = j + 1
            continue
        if c == ":":
            key, after_colon, prev_string = prev_string, True, None
        elif not c.isspace():
            after_colon, prev_string = False, None
        i += 1
    return complete, None


class StructuredStreamPreview:
    """Turns growing mode-1 JSON text into increments of the visible answer.

    ``feed(piece)`` returns the new visible text (possibly ""): the sentence
    texts parsed so far (including the growing last one), joined exactly as
    ``assemble_sentences`` joins them, so the increments add up to a prefix of
    the final ``Draft.text``. If the final parse disagrees with the preview,
    later increments stop (the Draft is authoritative).
    """

    def __init__(self) -> None:
        self.raw = ""
        self.emitted = ""
        self._broken = False

    def feed(self, piece: str) -> str:
        self.raw += piece
        if self._broken:
            return ""
        complete, partial = scan_sentence_texts(self.raw)
        visible, _ = assemble_sentences(complete + ([partial] if partial else []))
        if not visible.startswith(self.emitted):
            self._broken = True
            return ""
        delta = visible[len(self.emitted) :]
        self.emitted = visible
        return delta


# --------------------------------------------------------------------------
# Mode 2: Gemini's own grounding (generateContent groundingMetadata)

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


def _short_hash(*values: object) -> str:
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


def _make_retrieved(
    chunk_id: str,
    *,
    ordinal: int,
    title: str,
    text: str,
    uri: str | None,
    source: str,
    metadata: dict[str, Scalar],
) -> RetrievedChunk:
    version = _short_hash(source, title, text)
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
        return _make_retrieved(
            f"gemini:web:{_short_hash(uri, title)}",
            ordinal=index,
            title=title,
            text="",
            uri=uri,
            source=uri or title,
            metadata=meta,
        )
    rc = _get(gc, "retrieved_context")
    if rc is not None:
        title = _get(rc, "title") or _get(rc, "document_name") or _get(rc, "uri") or f"document {index + 1}"
        text = _get(rc, "text") or ""
        store = _get(rc, "file_search_store")
        page = _get(rc, "page_number")
        doc = _get(rc, "document_name")
        meta = {"provider": "file_search"}
        if store:
            meta["file_search_store"] = str(store)
        if page is not None:
            meta["page"] = int(page)
        if doc:
            meta["document_name"] = str(doc)
        meta.update(_metadata_scalars(_get(rc, "custom_metadata")))
        return _make_retrieved(
            f"gemini:file:{_short_hash(store, doc, title, page, text)}",
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
        ids = tuple(
            dict.fromkeys(ids_by_index.get(ci, f"gemini:invalid-chunk-index:{ci}") for ci in indices)
        )
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
            action="flagged", reason=GROUNDING_NO_SUPPORTS,
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


# --------------------------------------------------------------------------
# Interactions API (JSON dict, snake_case): annotations on text blocks


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
        return _make_retrieved(
            f"gemini:web:{_short_hash(url, title)}",
            ordinal=ordinal,
            title=title,
            text="",
            uri=url,
            source=url or title,
            metadata={"provider": "google_search"},
        )
    if kind == "file_citation":
        doc = a.get("document_uri") or a.get("source")
        name = a.get("file_name") or doc or f"document {ordinal + 1}"
        page = a.get("page_number")
        meta: dict[str, Scalar] = {"provider": "file_search"}
        if page is not None:
            meta["page"] = int(page)
        if doc:
            meta["document_name"] = str(doc)
        for k, v in (a.get("custom_metadata") or {}).items():
            if isinstance(v, (str, int, float, bool)):
                meta[f"meta.{k}"] = v
            elif isinstance(v, list):
                meta[f"meta.{k}"] = ", ".join(str(x) for x in v)
        return _make_retrieved(
            f"gemini:file:{_short_hash(doc, name, page)}",
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
