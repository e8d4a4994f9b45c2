"""Assembly: one Markdown text → its ``SourceDocument`` and ``Chunk`` list.

:func:`parse_markdown` is the entry point of the package. It sanitizes the
text (:mod:`~core.ingest.chunking.normalize`), swaps Hugo shortcodes for placeholders
(:mod:`~core.ingest.chunking.hugo`), parses with markdown-it and reads the front
matter (:mod:`~core.ingest.chunking.frontmatter`), picks the title, walks the tokens
into sections (:mod:`~core.ingest.chunking.markdown`), sizes them into chunk texts
(:mod:`~core.ingest.chunking.splitting`) and numbers the chunks.

Normalized document text
------------------------
The *normalized document text* of a document is ``"\\n\\n".join(chunk.text for
chunk in chunks)`` (see :func:`normalized_text`). ``Chunk.char_start`` /
``char_end`` are 0-based, end-exclusive **code-point** offsets of each chunk's
text in it. ``SourceDocument.version`` is the first 16 hex digits of the SHA-256
of a canonical JSON serialization of the title and, in order, every chunk's
heading path, anchor and text (see :func:`document_version`); chunk ids are
``source@version#ordinal``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from core.errors import IngestError
from core.ingest.chunking.frontmatter import as_datetime, load_yaml, scalar_metadata
from core.ingest.chunking.hugo import ADMONITION_LABELS, HEADING_ID, HugoContext, extract_shortcodes
from core.ingest.chunking.inline import render_inline
from core.ingest.chunking.markdown import Walker, markdown_parser
from core.ingest.chunking.normalize import SC_OPEN, sanitize
from core.ingest.chunking.splitting import MAX_CHUNK_CHARS, MIN_MAX_CHARS, section_texts
from core.models import Chunk, SourceDocument, make_chunk_id, sha256_hex

_LABELS = frozenset(ADMONITION_LABELS.values())

#: Separator between chunk texts in the normalized document text.
NORMALIZED_JOINER = "\n\n"


def normalized_text(chunks: Sequence[Chunk]) -> str:
    """The normalized document text: chunk texts joined with ``"\\n\\n"``.

    ``Chunk.char_start``/``char_end`` are code-point offsets into this string.
    """
    return NORMALIZED_JOINER.join(c.text for c in chunks)


def document_version(title: str, parts: Sequence[tuple[Sequence[str], str | None, str]]) -> str:
    """First 16 hex digits of SHA-256 over ``title`` and the ordered
    ``(heading_path, source_anchor, text)`` of every chunk (canonical JSON)."""
    payload = json.dumps(
        [title, [[list(p), a, t] for p, a, t in parts]],
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return sha256_hex(payload)[:16]


def _fallback_title(source_id: str) -> str:
    p = PurePosixPath(source_id.replace("\\", "/"))
    stem = p.stem
    if stem in ("_index", "index") and p.parent.name:
        return p.parent.name
    return stem or source_id


def parse_markdown(
    text: str,
    source_id: str,
    *,
    glossary: Mapping[str, str] | None = None,
    uri: str | None = None,
    updated_at: datetime | None = None,
    max_chars: int = MAX_CHUNK_CHARS,
) -> tuple[SourceDocument, list[Chunk]]:
    """Parse one Markdown text into its document and chunks.

    Args:
        text: the Markdown source (``str``; a leading BOM is ignored).
        source_id: stable id of the source (POSIX path relative to the corpus root).
        glossary: ``term_id → title`` for ``{{< glossary_tooltip >}}`` without
            ``text=`` (falls back to the term id). Not mutated.
        uri: public URL of the document; a chunk's ``uri`` is this plus
            ``#source_anchor`` when the chunk has an anchor.
        updated_at: stored on the document and every chunk. When ``None``, the
            front matter ``lastmod`` or ``date`` is used if present (timezone-aware,
            naive values are taken as UTC), else ``None``.
        max_chars: upper bound on ``len(chunk.text)`` in Unicode **code points**
            (default :data:`MAX_CHUNK_CHARS` = 500). The default embedder
            multilingual-e5-small reads at most 512 tokens (XLM-R SentencePiece);
            each token covers >= 1 character, so <= 510 code points can never
            exceed 512 tokens including ``<s>``/``</s>``; 500 also leaves room for
            the ``"passage: "`` prefix. Sections are split at paragraph, list
            item, table row, code line, then sentence (``。！？；`` and newlines),
            then clause boundaries; small consecutive blocks of one section are
            merged up to :data:`SOFT_TARGET_CHARS`; sections are never merged.

    Returns:
        ``(document, chunks)``: chunks in document order with ``ordinal`` 0..n-1,
        ``chunk_id = make_chunk_id(document.document_id, ordinal)``,
        ``heading_path = (title, H2, H3, …)`` (title = front matter ``title``,
        else the first H1, else the file stem), ``source_anchor`` = the ``{#id}``
        of the nearest enclosing heading that has one, ``char_start``/``char_end``
        as code-point offsets into :func:`normalized_text`, ``metadata`` = the
        front matter as scalars (``scalar_metadata``: lists as JSON text) without
        ``title`` (the document's ``metadata`` also holds ``title`` and, for
        invalid YAML, ``front_matter_error``). A document with no
        body text (e.g. front matter only) has zero chunks.

    Raises:
        IngestError: (message names ``source_id``) for input that cannot be
            processed: non-``str`` text, unpaired surrogates, empty source_id.
        ValueError: ``max_chars`` below :data:`MIN_MAX_CHARS`.

    Deterministic; never mutates its arguments.
    """
    if not isinstance(max_chars, int) or max_chars < MIN_MAX_CHARS:
        raise ValueError(f"max_chars must be an int >= {MIN_MAX_CHARS}, got {max_chars!r}")
    if not isinstance(source_id, str) or not source_id:
        raise IngestError(f"source_id must be a non-empty string, got {source_id!r}")
    if not isinstance(text, str):
        raise IngestError(f"{source_id}: expected Markdown text (str), got {type(text).__name__}")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise IngestError(f"{source_id}: text holds an unpaired surrogate at code point {exc.start}") from exc
    try:
        return _parse(text, source_id, dict(glossary or {}), uri, updated_at, max_chars)
    except IngestError:
        raise
    except RecursionError as exc:
        raise IngestError(f"{source_id}: Markdown nested too deeply to parse") from exc
    except Exception as exc:  # noqa: BLE001 - map any parser failure
        raise IngestError(f"{source_id}: could not parse Markdown: {type(exc).__name__}: {exc}") from exc


def _parse(
    text: str,
    source_id: str,
    glossary: dict[str, str],
    uri: str | None,
    updated_at: datetime | None,
    max_chars: int,
) -> tuple[SourceDocument, list[Chunk]]:
    src, shortcodes = extract_shortcodes(sanitize(text))
    env: dict[str, Any] = {}  # reference and footnote definitions, for the indented-prose re-parse
    tokens = markdown_parser().parse(src, env)

    fm: dict[str, Any] = {}
    fm_error: str | None = None
    if tokens and tokens[0].type == "front_matter":
        fm, fm_error = load_yaml(tokens[0].content)
        tokens = tokens[1:]

    # Title: front matter → first H1 → file stem.
    title = ""
    raw_title = fm.get("title")
    if raw_title is not None and not isinstance(raw_title, dict | list):
        title = HugoContext(shortcodes, glossary).finish(str(raw_title), single_line=True)
        title = title.replace(SC_OPEN, "")
    if not title:
        for k, tok in enumerate(tokens):
            if tok.type == "heading_open" and tok.tag == "h1":
                probe = HugoContext(shortcodes, glossary)
                h = probe.finish(render_inline(tokens[k + 1].children, probe, markdown=False), single_line=True)
                h = HEADING_ID.sub("", h).replace("`", "").strip()
                if h:
                    title = h
                    break
    if not title:
        title = _fallback_title(source_id)

    ctx = HugoContext(shortcodes, glossary)
    sections = Walker(tokens, ctx, title, env).run()

    parts: list[tuple[tuple[str, ...], str | None, str]] = []
    for sec in sections:
        for t in section_texts(sec.blocks, max_chars, labels=_LABELS):
            parts.append((sec.path, sec.anchor, t))

    version = document_version(title, parts)
    if updated_at is None:
        updated_at = as_datetime(fm.get("lastmod")) or as_datetime(fm.get("date"))
    metadata = {
        k: (HugoContext(shortcodes, glossary).finish(v, single_line=True) if isinstance(v, str) else v)
        for k, v in scalar_metadata(fm).items()
    }
    # Every chunk carries the front matter (tags, section, page …) so its snapshot, and the
    # card built from it, can show them; the title is a field of its own.
    chunk_metadata = {k: v for k, v in metadata.items() if k != "title"}
    if fm_error:
        metadata["front_matter_error"] = fm_error
    doc = SourceDocument(
        source_id=source_id,
        version=version,
        title=title,
        uri=uri,
        updated_at=updated_at,
        metadata=metadata,
    )
    chunks: list[Chunk] = []
    pos = 0
    for ordinal, (path, anchor, t) in enumerate(parts):
        if ordinal:
            pos += len(NORMALIZED_JOINER)
        chunks.append(
            Chunk(
                chunk_id=make_chunk_id(doc.document_id, ordinal),
                document_id=doc.document_id,
                source_id=source_id,
                version=version,
                ordinal=ordinal,
                title=title,
                heading_path=path,
                text=t,
                source_anchor=anchor,
                uri=(f"{uri}#{anchor}" if uri and anchor else uri),
                updated_at=updated_at,
                char_start=pos,
                char_end=pos + len(t),
                content_sha256=sha256_hex(t),
                metadata=chunk_metadata,
            )
        )
        pos += len(t)
    return doc, chunks
