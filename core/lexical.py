"""Lexical retrieval: BM25 (``bm25s``) over Chinese word segmentation (jieba's
words, cut by ``core.segmentation``).

Tokenization: search-engine mode (``core.segmentation.search_words``, jieba's
``lcut_for_search``: long words plus their sub-words), lowercased, with whitespace, punctuation and a short list of
Chinese/English function words removed. Mixed text keeps ASCII terms
(``StatefulSet`` → ``statefulset``).

Besides the BM25 ranking, ``coverage`` gives a query-term coverage in 0..1:
the IDF-weighted share of the query's terms that occur in a chunk. Terms that
occur nowhere in the corpus count with the highest IDF, so a question about a
topic the corpus never mentions gets a low coverage everywhere.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import re
import unicodedata
from collections import Counter
from typing import Collection, Sequence

import bm25s
import numpy as np

from core import designations, segmentation

logging.getLogger("bm25s").setLevel(logging.WARNING)

STOPWORDS = frozenset(
    """的 了 是 在 和 与 及 或 有 也 都 就 而 被 把 对 从 这 那 一个 一种 什么 怎么 怎样 如何 哪些 哪个
    为什么 吗 呢 吧 啊 请 我 你 我们 你们 它 他 她 其 之 以 于 为 中 上 下 可以 能 会 要 该 应该
    时 个 些 等 又 还 但 如果 那么 区别 有何 是否 多少 几 用 使用 进行 通过
    a an the is are was were be to of in on for and or what how why which does do can with""".split()
)


def _is_term(tok: str) -> bool:
    tok = tok.strip()
    if not tok:
        return False
    return any(unicodedata.category(ch)[0] in "LN" for ch in tok)


# jieba word -> normalized term (or None when dropped). The vocabulary of a corpus is
# small compared with its token count, so this saves the per-token checks; bounded.
_TERM_CACHE: dict[str, str | None] = {}
_TERM_CACHE_MAX = 500_000

#: Identifies the tokenization (stored next to cached terms; change it when ``tokenize`` changes).
TOKENIZER_ID = "jieba-search/%s/%s/designations-1/glue-1" % (
    segmentation.SEGMENTER_ID,
    hashlib.sha256(" ".join(sorted(STOPWORDS)).encode()).hexdigest()[:12],
)


def _term(word: str) -> str | None:
    try:
        return _TERM_CACHE[word]
    except KeyError:
        pass
    w = word.strip()
    term = w.lower() if _is_term(w) and w.lower() not in STOPWORDS and not _glued_function_words(w) else None
    if len(_TERM_CACHE) < _TERM_CACHE_MAX:
        _TERM_CACHE[word] = term
    return term


#: The one-character stop words (上, 用, 在, 的 …).
_ONE_CHAR_STOPWORDS = frozenset(w for w in STOPWORDS if len(w) == 1 and not w.isascii())


def _glued_function_words(word: str) -> bool:
    """Whether ``word`` is two one-character stop words that jieba's HMM joined though its dictionary has no such word:
    上用 of "这个软件能在 Linux 上用吗？" (a helper's round, session 27: a word no document has, it had weighed as much
    as Linux in the question's "absent" share, and the question was refused over "…也不支持 Linux")."""
    return (
        len(word) == 2
        and word[0] in _ONE_CHAR_STOPWORDS
        and word[1] in _ONE_CHAR_STOPWORDS
        and not segmentation.general_frequency(word)
    )


def tokenize(text: str) -> list[str]:
    """Terms of ``text`` for BM25: jieba search-mode words, lowercased, no stop words (nor two glued together:
    ``_glued_function_words``); then one term per floor or
    building it names (``core.designations.terms``: ``5F`` and ``五楼`` → ``5楼``, ``13-18号楼`` → ``13号楼`` … ``18号楼``)."""
    words = segmentation.search_words(text)
    return [t for t in map(_term, words) if t is not None] + designations.terms(text)


def general_frequency(word: str) -> int:
    """How often ``word`` occurs in general Chinese: its count in jieba's bundled
    dictionary (``dict.txt``, about 60 million words in total); 0 when absent
    (``core.segmentation.general_frequency``)."""
    return segmentation.general_frequency(word)


#: A term that is a number (65, 2.5): a value, which the question and the documents write as they like.
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def is_value_term(term: str) -> bool:
    """Whether ``term`` is a number (``NUMBER``) or a floor or building (``5楼``, ``15号楼``): a value the person states
    of themselves ("我住15号楼") that the documents may give as a range, so its absence from them says nothing."""
    return bool(NUMBER.fullmatch(term)) or designations.is_designation(term)


@functools.lru_cache(maxsize=256)
def query_terms(query: str) -> tuple[str, ...]:
    """``tokenize(query)``, cached: a question is searched and then scored for coverage."""
    return tuple(tokenize(query))


class LexicalIndex:
    """An immutable BM25 index over ``(chunk_id, text)`` pairs.

    Build a new one to change the corpus (cheap: ~1 s per 10k chunks for
    BM25 plus jieba); a reader keeps using the instance it holds.
    """

    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        if len(ids) != len(texts):
            raise ValueError(f"ids and texts differ in length: {len(ids)} != {len(texts)}")
        self._build(ids, [tokenize(t) for t in texts])

    @classmethod
    def from_tokens(cls, ids: Sequence[str], tokens: Sequence[Sequence[str]]) -> "LexicalIndex":
        """An index over already tokenized texts (``tokenize`` output), e.g. from a cache."""
        if len(ids) != len(tokens):
            raise ValueError(f"ids and tokens differ in length: {len(ids)} != {len(tokens)}")
        ix = cls.__new__(cls)
        ix._build(ids, [list(t) for t in tokens])
        return ix

    def _build(self, ids: Sequence[str], tokens: list[list[str]]) -> None:
        self.ids: list[str] = list(ids)
        self._tokens: list[list[str]] = tokens
        self._sets = [frozenset(t) for t in self._tokens]
        self._df: Counter[str] = Counter()
        for s in self._sets:
            self._df.update(s)
        self._n = len(self.ids)
        self._pos = {cid: i for i, cid in enumerate(self.ids)}
        self._bm25: bm25s.BM25 | None = None
        self._cjk_share: float | None = None
        self._joined: str | None = None
        if self._n:
            self._bm25 = bm25s.BM25()
            self._bm25.index([t or [""] for t in self._tokens], show_progress=False)

    def tokens(self, chunk_id: str) -> list[str] | None:
        """The terms indexed for ``chunk_id`` (a copy), or None when it is not indexed."""
        pos = self._pos.get(chunk_id)
        return None if pos is None else list(self._tokens[pos])

    def __len__(self) -> int:
        return self._n

    def df(self, term: str) -> int:
        """How many indexed chunks contain ``term`` (a ``tokenize`` term)."""
        return self._df.get(term, 0)

    def within_a_term(self, term: str) -> bool:
        """Whether ``term`` (a Chinese word) is part of an indexed term: 赔 of 赔付, 丢 of 丢失. The question and
        the documents cut the same characters into different words; the vocabulary joined (cached) is searched."""
        if self._joined is None:
            self._joined = "\n".join(self._df)
        return term in self._joined

    def cjk_share(self) -> float:
        """Share (0..1) of the indexed term occurrences (counted once per chunk) that contain a
        CJK ideograph: the script of the knowledge base (0.73 for the Kubernetes zh-cn sample,
        whose code blocks are English). 0 when empty; cached."""
        if self._cjk_share is None:
            total = sum(self._df.values())
            cjk = sum(n for t, n in self._df.items() if any("\u3400" <= ch <= "\u9fff" for ch in t))
            self._cjk_share = cjk / total if total else 0.0
        return self._cjk_share

    def idf(self, term: str) -> float:
        """BM25-style IDF, ``ln(1 + (N - df + 0.5) / (df + 0.5))``; the maximum for an unseen term."""
        df = self._df.get(term, 0)
        return math.log(1.0 + (self._n - df + 0.5) / (df + 0.5))

    def search(self, query: str, k: int, allowed: Collection[str] | None = None) -> list[tuple[str, float]]:
        """The ``k`` best chunks by BM25 as ``(chunk_id, score)``, best first; score > 0 only.

        ``allowed``: chunk ids to rank (None: all); the others are removed before the
        top ``k`` is taken, so a restricted search still returns up to ``k`` chunks."""
        terms = list(query_terms(query))
        if not terms or self._bm25 is None:
            return []
        scores = self._bm25.get_scores(terms)
        if allowed is not None:
            keep = np.zeros(self._n, dtype=bool)
            keep[[p for p in (self._pos.get(c) for c in allowed) if p is not None]] = True
            scores = np.where(keep, scores, 0.0)
        k = min(k, self._n)
        top = np.argpartition(-scores, k - 1)[:k] if k < self._n else np.arange(self._n)
        top = sorted(top, key=lambda i: (-scores[i], i))
        return [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0]

    def coverage(self, query: str, chunk_id_positions: Sequence[int]) -> list[float]:
        """IDF-weighted share (0..1) of the query's terms present in each given chunk. A number (or a floor or building,
        ``is_value_term``) that no chunk has weighs nothing: "我65岁了还能学车吗？" states the person's age, which the
        documents give as a range ("18 至 70 周岁"), not as 65 (a helper's round, session 19)."""
        terms = [t for t in dict.fromkeys(query_terms(query)) if not (is_value_term(t) and not self._df.get(t))]
        if not terms:
            return [0.0 for _ in chunk_id_positions]
        weights = [self.idf(t) for t in terms]
        total = sum(weights) or 1.0
        out = []
        for pos in chunk_id_positions:
            s = self._sets[pos]
            out.append(sum(w for t, w in zip(terms, weights) if t in s) / total)
        return out

    def position(self, chunk_id: str) -> int | None:
        return self._pos.get(chunk_id)
