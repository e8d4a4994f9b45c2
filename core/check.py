"""核查 (check) mode: verify any text against the knowledge base.

``check_text(engine, text)`` splits the text into sentences
(``core.grounding.layout.sentence_spans``), retrieves each sentence against the
knowledge base (the engine's hybrid retriever, top-k chunks regardless of the
evidence threshold), verifies it (``core.verification.support.verify``) and returns an
ordinary ``AnswerRecord`` (generator ``check``) stored like any answer:

* ``answer_text`` is the input, unchanged; ``query`` too.
* a ``supported`` or ``contradicted`` sentence gets one support over its span
  (code points into ``answer_text``, trailing whitespace excluded) citing the
  aligned chunk, with ``verdict``, ``verification_score``, ``aligned_quote`` and
  ``quote`` (the aligned passage); a contradicted one has
  ``status == "needs_review"`` and the reason;
* an ``unsupported`` sentence gets no support (it renders as 本段无出处).

``check_against(engine, text, sources)`` does the same against pasted sources instead of the
knowledge base (another system's answer checked against the documents it was given):
``sources`` is one text split into passages (``[1] … [2] …`` markers, else blank lines; see
``split_sources``) or a list of passages. Each passage becomes a snapshot ``pasted-N`` (knowledge
base ``pasted``, title 粘贴的来源 N) stored in the record, so aligned quotes are code points
into it; every sentence is verified against all passages together.

``chunks`` holds the snapshots of the cited chunks only. Status: ``answered``
when a support exists, else ``unverifiable``; an empty or too long text gives a
record with status ``error`` and a Chinese message (nothing raised).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Sequence

from core.errors import AppError
from core.grounding import supports as grounding
from core.grounding.layout import sentence_spans
from core.models import AnswerRecord, ChunkSnapshot, GeneratorInfo, Support, sha256_hex
from core.records.redaction import redaction_audit
from core.retrieval.hybrid import HybridRetriever
from core.textsafe import repair_audit, scrub
from core.verification.support import split_marked, verify

MAX_CHECK_CHARS = 20_000  # code points
MAX_SOURCE_CHARS = 200_000  # code points of pasted sources, all passages together
MAX_SOURCES = 200  # passages
PASTED_KB = "pasted"
GENERATOR = GeneratorInfo(name="check", model="verifier")


def sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of ``text`` holding visible text, trailing whitespace excluded (code points)."""
    out = []
    for a, b in sentence_spans(text):
        while b > a and text[b - 1].isspace():
            b -= 1
        if b > a and grounding.has_visible_text(text[a:b]):
            out.append((a, b))
    return out


def check_text(
    engine: Any, text: str, *, save: bool = True, dense: bool = False, knowledge_bases: Sequence[str] | None = None
) -> AnswerRecord:
    """Check ``text`` sentence by sentence; returns (and by default stores) the record.

    ``engine``: a ``core.engine.Engine`` (its index and record store are used).
    ``dense``: also rank by the embedder (one query embedding per sentence);
    off by default — BM25 candidates suit the lexical verifier as well and
    cost no model call (see docs/measurements.md, 核查 figures).
    ``knowledge_bases``: the ones searched (None or empty: ``default``; the record names
    them); ``KnowledgeBaseError`` for an unknown or hidden one.

    Retrieval searches ``Engine.searchable``: the selection that the engine's user may ask;
    with a redactor for those knowledge bases (``Engine.redactor_for``) the text and the
    chunk snapshots are redacted first, so spans and aligned quotes are code points into
    the text as stored (``core.records.redaction``).
    """
    text, bad = scrub(text)  # a lone surrogate (undecodable input) becomes U+FFFD, in place: offsets hold
    repaired = (repair_audit("answer_text", bad),) if bad else ()
    kbs = engine.searchable(knowledge_bases)
    redactor, applied = engine.redactor_for(kbs), []
    if redactor is not None:
        redacted = redactor.redact(text)
        text, applied = redacted.text, list(redacted.rules)
    base: dict[str, Any] = dict(query=text, answer_text=text, generator=GENERATOR, knowledge_bases=kbs)
    if not text.strip():
        return _finish(engine, save, AnswerRecord(status="error", error="没有可核对的文字。", **base))
    if len(text) > MAX_CHECK_CHARS:
        error = f"文字太长（{len(text)} 个字符）：请分段核查，每段不超过 {MAX_CHECK_CHARS} 个字符。"
        return _finish(engine, save, AnswerRecord(status="error", error=error, **base))
    retriever = HybridRetriever(engine.index, top_k=engine.settings.top_k, use_dense=dense, knowledge_bases=kbs)
    supports: list[Support] = []
    cited: dict[str, ChunkSnapshot] = {}
    config: dict[str, Any] = {}
    try:
        for a, b in sentences(text):
            sentence = text[a:b]
            result = retriever.retrieve(sentence)
            config = result.config
            snapshots = [ChunkSnapshot.from_retrieved(rc) for rc in result.chunks]
            if redactor is not None:
                hidden = [redactor.redact(s.text) for s in snapshots]
                applied.extend(r for h in hidden for r in h.rules)
                snapshots = [s.model_copy(update={"text": h.text}) for s, h in zip(snapshots, hidden)]
            _add_support(supports, cited, a, b, sentence, snapshots, joint=False)  # alternatives
    except AppError as exc:
        return _finish(engine, save, AnswerRecord(status="error", error=str(exc), **base))
    record = AnswerRecord(
        status="answered" if supports else "unverifiable",
        chunks=tuple(cited.values()),
        supports=tuple(supports),
        retrieval=dict(config, retrieval="per sentence (check)"),
        audit=repaired + ((redaction_audit(redactor, applied),) if redactor is not None else ()),
        **base,
    )
    return _finish(engine, save, record)


def _add_support(
    supports: list[Support],
    cited: dict[str, ChunkSnapshot],
    a: int,
    b: int,
    sentence: str,
    snapshots: Sequence[ChunkSnapshot],
    *,
    joint: bool,
) -> None:
    """Verify ``sentence`` (``text[a:b]``) against ``snapshots``; a supported or contradicted one
    appends its support to ``supports`` and its chunk to ``cited``. ``joint``: see
    ``core.verification.support.assess`` (False for retrieved candidates, True for pasted sources)."""
    v = verify(sentence, snapshots, joint=joint)
    if v.verdict == "unsupported" or v.chunk_id is None or v.aligned_quote is None:
        return
    chunk = next(s for s in snapshots if s.chunk_id == v.chunk_id)
    cited.setdefault(chunk.chunk_id, chunk)
    supports.append(
        Support(
            start=a,
            end=b,
            chunk_ids=(chunk.chunk_id,),
            quote=chunk.text[v.aligned_quote.start : v.aligned_quote.end],
            score=v.score,
            status="verified" if v.verdict == "supported" else "needs_review",
            verdict=v.verdict,
            verification_score=v.score,
            aligned_quote=v.aligned_quote,
            verdict_reason=v.reason,
        )
    )


_BLANK_LINES = re.compile(r"\n\s*\n")


def split_sources(sources: str | Sequence[str]) -> list[str]:
    """Passages of pasted sources: a list is taken as given (blank items dropped); one text is cut
    at ``[1] … [2] …`` markers when it starts with one, else at blank lines."""
    if not isinstance(sources, str):
        return [p for p in sources if p.strip()]
    marked = split_marked(sources)
    if len(marked) > 1 or sources.lstrip().startswith("["):
        return marked
    return [p.strip() for p in _BLANK_LINES.split(sources) if p.strip()]


def pasted_snapshots(passages: Sequence[str]) -> list[ChunkSnapshot]:
    """One snapshot per passage: ``chunk_id`` ``pasted-N`` (1-based), knowledge base ``pasted``."""
    now = datetime.now(timezone.utc)
    return [
        ChunkSnapshot(
            chunk_id=f"pasted-{i}",
            document_id=f"pasted-{i}",
            source_id=f"pasted-{i}",
            version="1",
            title=f"粘贴的来源 {i}",
            heading_path=(f"粘贴的来源 {i}",),
            text=p,
            content_sha256=sha256_hex(p),
            knowledge_base=PASTED_KB,
            rank=i,
            relevance=1.0,
            retrieved_at=now,
        )
        for i, p in enumerate(passages, start=1)
    ]


def check_against(engine: Any, text: str, sources: str | Sequence[str], *, save: bool = True) -> AnswerRecord:
    """Check ``text`` sentence by sentence against pasted ``sources`` (not the knowledge base).

    Returns (and by default stores in ``engine.records``) an ``AnswerRecord`` like
    :func:`check_text`'s, with ``retrieval = {"retrieval": "pasted sources", "passages": n}``.
    An empty text, no source text, or more than ``MAX_CHECK_CHARS`` / ``MAX_SOURCE_CHARS`` /
    ``MAX_SOURCES`` gives a record with status ``error`` and a Chinese message (nothing raised).
    """
    text, bad = scrub(text)
    sources, bad_sources = (
        scrub(sources)
        if isinstance(sources, str)
        else (tuple(scrub(s)[0] for s in sources), sum(scrub(s)[1] for s in sources))
    )
    repaired = tuple(repair_audit(f, n) for f, n in (("answer_text", bad), ("sources", bad_sources)) if n)
    base: dict[str, Any] = dict(query=text, answer_text=text, generator=GENERATOR, audit=repaired)
    passages = split_sources(sources)
    error = None
    if not text.strip():
        error = "没有可核对的文字。"
    elif len(text) > MAX_CHECK_CHARS:
        error = f"文字太长（{len(text)} 个字符）：请分段核查，每段不超过 {MAX_CHECK_CHARS} 个字符。"
    elif not passages:
        error = "没有粘贴来源文字：请粘贴要对照的原文，或改为在知识库中检索。"
    elif sum(len(p) for p in passages) > MAX_SOURCE_CHARS or len(passages) > MAX_SOURCES:
        error = f"来源太长：最多 {MAX_SOURCES} 段、共 {MAX_SOURCE_CHARS} 个字符。"
    if error is not None:
        return _finish(engine, save, AnswerRecord(status="error", error=error, **base))
    snapshots = pasted_snapshots(passages)
    supports: list[Support] = []
    cited: dict[str, ChunkSnapshot] = {}
    for a, b in sentences(text):
        _add_support(supports, cited, a, b, text[a:b], snapshots, joint=True)  # cited together
    record = AnswerRecord(
        status="answered" if supports else "unverifiable",
        chunks=tuple(cited.values()),
        supports=tuple(supports),
        retrieval={"retrieval": "pasted sources", "passages": len(passages)},
        **base,
    )
    return _finish(engine, save, record)


def _finish(engine: Any, save: bool, record: AnswerRecord) -> AnswerRecord:
    if save:
        engine.records.save(record)
    return record


def format_text(record: AnswerRecord) -> str:
    """A plain-text report of a check record: each sentence with its verdict, score, chunk and reason."""
    lines = [f"[{record.status}] {record.answer_id}"]
    covered = {(s.start, s.end): s for s in record.supports}
    for a, b in sentences(record.answer_text):
        s = covered.get((a, b))
        mark = "本段无出处" if s is None else f"{s.verdict} {s.verification_score} → {', '.join(s.chunk_ids)}"
        reason = f"（{s.verdict_reason}）" if s is not None and s.verdict_reason else ""
        lines.append(f"  {record.answer_text[a:b]}\n    {mark}{reason}")
    if record.error:
        lines.append(f"  {record.error}")
    return "\n".join(lines)
