"""Chinese word segmentation: the adapter for ``rjieba`` (the Python binding of
jieba-rs, a Rust port of jieba), the only module that imports it.

Why not ``jieba`` itself: jieba is pure Python. Loading its dictionary takes 1–1.5 s
per process and its search-mode cut ~2 s for the bundled sample (812 chunks, 195k
characters) and ~40 s for the full archive; jieba-rs loads the same dictionary
(``dict.txt``, bundled in the wheel) in well under a second and cuts the archive in
~2 s (measured here, issue 18: 40.7 s with jieba, 1.9 s with this module, 869 archive
files and the sample's 812 chunks). The first answer on a fresh data folder waits for
that work.

Compatibility. The words are jieba's: jieba-rs ports jieba's algorithm (prefix DAG,
max-probability route, HMM for unknown words) with the same dictionary, and gives
the same Chinese words in precise and search mode on every chunk of the sample and
every file of the archive. The one difference is ASCII runs: jieba splits
``kube-proxy`` / ``spec.replicas`` / ``10.0.1.175`` into ``kube - proxy`` / ``spec . replicas`` /
``10.0 . 1.175`` (its ``finalseg`` rule ``[a-zA-Z0-9]+(?:\\.\\d+)?%?``), jieba-rs keeps the
run whole (and in search mode adds some parts before it). :func:`search_words` and
:func:`words` re-split such runs with jieba's rule, so the terms BM25 indexes are
jieba's: identical term multisets for all 812 sample chunks, the 869 archive files
and the evaluation questions except 6 archive files (URL-encoded text, ``c++``/``c#``).

Part-of-speech tags (:func:`tagged`) are jieba-rs's: the same dictionary tags for
known words; an unknown word (found by the HMM) may get another tag than jieba's
``posseg``, whose HMM tags as it cuts.

General frequencies (:func:`general_frequency`) are the counts in jieba's
``dict.txt`` (about 60 million words of general Chinese, shipped in the ``jieba``
package; read as a file, jieba is not imported).

All inputs and outputs are ``str``; nothing here computes offsets.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import re
import threading
from pathlib import Path

import rjieba

__all__ = ["search_words", "words", "tagged", "general_frequency", "general_frequencies", "SEGMENTER_ID"]

#: jieba's rule for an ASCII run (``jieba/finalseg/__init__.py``, ``re_skip``): alphanumerics
#: with at most one decimal part and a percent sign; any other character alone.
_ASCII_PART = re.compile(r"[a-zA-Z0-9]+(?:\.\d+)?%?|[^a-zA-Z0-9]")

#: Names the segmentation (part of ``core.lexical.TOKENIZER_ID``).
SEGMENTER_ID = "jieba-rs/rjieba-" + importlib.metadata.version("rjieba")


def _split_ascii_runs(cut: list[str], search: bool) -> list[str]:
    """``cut`` with every ASCII run holding punctuation (``kube-proxy``) re-split by jieba's rule;
    in search mode the parts jieba-rs put before the run are dropped first (they are repeated)."""
    out: list[str] = []
    for w in cut:
        if len(w) > 1 and w.isascii() and not w.isalnum():
            if search:
                while out and out[-1].isascii() and out[-1].isalnum() and out[-1] in w:
                    out.pop()
            out.extend(_ASCII_PART.findall(w))
        else:
            out.append(w)
    return out


def search_words(text: str) -> list[str]:
    """``text`` cut in search-engine mode (jieba's ``lcut_for_search``: each word, and before a
    long one its dictionary sub-words), in order, whitespace and punctuation included."""
    return _split_ascii_runs(rjieba.cut_for_search(text, True), search=True)


def words(text: str) -> list[str]:
    """``text`` cut in precise mode with the HMM for unknown words (jieba's ``lcut``), in order."""
    return _split_ascii_runs(rjieba.cut(text, True), search=False)


def tagged(text: str) -> list[tuple[str, str]]:
    """``(word, tag)`` pairs of ``text`` in precise mode; tags are jieba's part-of-speech set
    (``nr`` person, ``ns`` place, ``nt`` organisation, ``nz`` other proper noun, ``eng``, ``x`` …)."""
    return [(w, t) for w, t in rjieba.tag(text, True)]


_freq_lock = threading.Lock()


@functools.cache
def _dictionary_text() -> str:
    spec = importlib.util.find_spec("jieba")  # the file only: importing jieba is not needed
    if spec is None or spec.origin is None:
        return ""
    path = Path(spec.origin).parent / "dict.txt"
    try:
        return "\n" + path.read_text(encoding="utf-8")
    except OSError:
        return ""


@functools.lru_cache(maxsize=1)
def general_frequencies() -> dict[str, int]:
    """Every word of jieba's ``dict.txt`` with its count (the table :func:`general_frequency`
    searches), built once per process (~0.3 s, ~350k words) for callers that look up many
    words; empty when the file cannot be read."""
    with _freq_lock:
        text = _dictionary_text()
    out: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split(" ")
        if len(parts) >= 2 and parts[1].isdigit():
            out.setdefault(parts[0], int(parts[1]))
    return out


@functools.lru_cache(maxsize=65536)
def general_frequency(word: str) -> int:
    """How often ``word`` occurs in general Chinese: its count in jieba's ``dict.txt`` (lines
    ``word count tag``); 0 when absent or when the file cannot be read. The first call reads the
    file (5 MB, ~0.05 s); each new word is one search in it."""
    if not word or any(ch.isspace() for ch in word):
        return 0
    with _freq_lock:
        text = _dictionary_text()
    at = text.find("\n" + word + " ")
    if at < 0:
        return 0
    count = text[at + len(word) + 2 : text.find(" ", at + len(word) + 2)]
    return int(count) if count.isdigit() else 0


@functools.lru_cache(maxsize=4096)
def common_nouns(text: str) -> frozenset[str]:
    """Chinese common nouns of three or more characters in ``text`` (jieba's ``n`` and ``nz`` tags)."""
    return frozenset(w for w, tag in tagged(text) if tag in ("n", "nz") and len(w) >= 3 and CJK_WORD.fullmatch(w))


def are_siblings(a: str, b: str) -> bool:
    """Whether nouns ``a`` and ``b`` name two things of one kind: the same length and last character, another
    first character (专业版 and 免费版, 城乡医保 and 职工医保)."""
    return a != b and len(a) == len(b) and a[-1] == b[-1] and a[0] != b[0]


#: A run of Chinese characters (a word of jieba's cut, or a term of the index, wholly Chinese).
CJK_WORD = re.compile(r"[\u3400-\u9fff]+")
