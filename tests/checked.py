"""A checked text with every verdict, built from chunk snapshots (for render, AppTest and browser tests).

``checked_record(a, b, c)`` writes four sentences:
1. a sentence of chunk ``a`` quoted verbatim -> ``supported``, aligned quote = its place in ``a``;
2. a sentence of chunk ``b`` with its first number changed -> ``contradicted``, the aligned
   quote is the original sentence in ``b``, the reason names both numbers;
3. a sentence cited to chunk ``c`` that ``c`` does not say -> ``unsupported`` (待复核);
4. an invented sentence with no support -> 本段无出处.
Offsets: code points (answer text for supports, chunk text for aligned quotes).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from core.models import AlignedQuote, AnswerRecord, Chunk, ChunkSnapshot, GeneratorInfo, RetrievedChunk, Support

_SENTENCE = re.compile(r"[^。！？\n]{8,}?[。！？]")
INVENTED = "Kubernetes 由火星开源基金会于 2031 年发布。"
UNSUPPORTED = "这个功能在所有版本中都默认启用，无需任何配置。"


def first_sentence(text: str, *, with_digit: bool = False) -> tuple[int, int]:
    """``(start, end)`` code points of the first sentence of ``text`` (with a digit if asked)."""
    for m in _SENTENCE.finditer(text):
        s = m.group()
        if "`" in s or "[" in s or "*" in s:
            continue
        if with_digit and not re.search(r"\d", s):
            continue
        lead = len(s) - len(s.lstrip())
        return m.start() + lead, m.end()
    raise ValueError("no suitable sentence in chunk text")


def checked_record(
    a: ChunkSnapshot, b: ChunkSnapshot, c: ChunkSnapshot, *, answer_id: str = "checked-1", **extra: object
) -> AnswerRecord:
    sa, ea = first_sentence(a.text)
    sb, eb = first_sentence(b.text, with_digit=True)
    s1 = a.text[sa:ea]
    original = b.text[sb:eb]
    m = re.search(r"\d+", original)
    assert m is not None
    changed_number = str(int(m.group()) + 7)
    s2 = original[: m.start()] + changed_number + original[m.end() :]
    text = f"{s1}{s2}{UNSUPPORTED}{INVENTED}"
    p1 = 0
    p2 = p1 + len(s1)
    p3 = p2 + len(s2)
    p4 = p3 + len(UNSUPPORTED)
    supports = (
        Support(
            start=p1,
            end=p2,
            chunk_ids=(a.chunk_id,),
            score=0.9,
            verdict="supported",
            verification_score=0.97,
            aligned_quote=AlignedQuote(chunk_id=a.chunk_id, start=sa, end=ea),
        ),
        Support(
            start=p2,
            end=p3,
            chunk_ids=(b.chunk_id,),
            score=0.8,
            verdict="contradicted",
            verification_score=0.12,
            aligned_quote=AlignedQuote(chunk_id=b.chunk_id, start=sb, end=eb),
            verdict_reason=f"来源写的是 {m.group()}，句子写的是 {changed_number}",
        ),
        Support(
            start=p3,
            end=p4,
            chunk_ids=(c.chunk_id,),
            score=0.5,
            verdict="unsupported",
            verification_score=0.2,
            verdict_reason="来源没有提到默认启用",
        ),
    )
    fields: dict = dict(
        answer_id=answer_id,
        query=text,
        answer_text=text,
        status="answered",
        generator=GeneratorInfo(name="check"),
        chunks=(a, b, c),
        supports=supports,
    )
    fields.update(extra)
    return AnswerRecord(**fields)


CRON = "concepts/workloads/controllers/cron-jobs.md"


def sample_checked_record(
    chunks: Mapping[str, Chunk], *, answer_id: str = "checked-sample", **extra: object
) -> AnswerRecord:
    """:func:`checked_record` over three CronJob chunks of the bundled sample (``index.active_chunks()``)."""

    def snap(holding: str, rank: int) -> ChunkSnapshot:
        # by what the chunk says, not its ordinal: a change in chunking moves ordinals
        ch = next(
            c for c in sorted(chunks.values(), key=lambda c: c.ordinal) if c.source_id == CRON and holding in c.text
        )
        return ChunkSnapshot.from_retrieved(RetrievedChunk(chunk=ch, rank=rank, relevance=0.8 - rank / 10))

    return checked_record(
        snap("CronJob 创建基于时隔重复调度的 Job。", 1),
        snap("默认设置分别为 3 和 1。", 2),
        snap("以这种方式指定时区是未正式支持的", 3),
        answer_id=answer_id,
        **extra,
    )
