"""The support model: the probability that a passage set supports a sentence, from a few
lexical features, with coefficients fit offline (``benchmarks/fit_verifier.py``) and shipped
in ``core/verification/support_model.json``; nothing is fit at run time.

``features(sentence, passages, aligned, conflict)`` → ``{name: float}`` (see ``FEATURES``);
``probability(values)`` → 0..1 (logistic regression over standardized features). The
features read every passage together, so a sentence two passages support jointly scores
like one a single passage supports:

* ``bigram`` / ``trigram``: share of the sentence's character 2-/3-grams (letters and digits,
  lowercased, markup removed) found in the passages;
* ``align``: alignment of the best passage window (``core.verification.support.passages``);
* ``terms``: weighted share of the sentence's search-mode terms found in the passages;
* ``missing_weight``: share of the sentence's words (jieba precise mode), weighted by how rare
  they are in general Chinese (``core.segmentation.general_frequencies``), that occur in no passage;
  ``missing_rarest``: the rarity of the rarest such word (0..1);
* ``missing_number`` / ``missing_name``: 1 when a number (with its unit) or a named object of
  the sentence occurs in no passage;
* ``conflict``: 1 when a conflict cue (``core.verification.cues``) fired on the aligned passage;
* ``length``: log(1 + letters and digits of the sentence) / 5.

Units: features are unitless 0..1 shares or flags except ``length``. Source of the fit: the
CiteCheck dev split (``../shared/eval-dev/citecheck``); figures in the README.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Mapping, Sequence

from core.segmentation import general_frequencies
from core.verification.cues import identifiers, jieba_words, numbers, plain

MODEL_FILE = Path(__file__).with_name("support_model.json")
FEATURES = (
    "bigram",
    "trigram",
    "align",
    "terms",
    "missing_weight",
    "missing_rarest",
    "missing_number",
    "missing_name",
    "conflict",
    "length",
)
#: Words counted in jieba's dict.txt (about 60 million), for the rarity of a word.
_CORPUS_WORDS = 6.0e7


def _chars(text: str) -> str:
    return "".join(c for c in plain(text).lower() if c.isalnum())


def ngrams(text: str, n: int) -> frozenset[str]:
    """Character n-grams of ``text``'s letters and digits (lowercased, markup removed)."""
    c = _chars(text)
    return frozenset(c[i : i + n] for i in range(len(c) - n + 1))


@functools.lru_cache(maxsize=65536)
def rarity(word: str) -> float:
    """0..1: how rare ``word`` is in general Chinese (0 = very common, 1 = not in the dictionary)."""
    return math.log10(_CORPUS_WORDS / (general_frequencies().get(word, 0) + 1)) / math.log10(_CORPUS_WORDS)


def _share(mine: frozenset[str], theirs: frozenset[str]) -> float:
    return len(mine & theirs) / len(mine) if mine else 0.0


def features(sentence: str, passages: Sequence[str], align: float, terms: float, conflict: bool) -> dict[str, float]:
    """The model's inputs for ``sentence`` against ``passages`` (all of them together).

    ``align``: the best window's alignment; ``terms``: the term coverage over all passages
    (both from ``core.verification.support``); ``conflict``: whether a conflict cue fired.
    """
    joined = "\n".join(passages)
    low = plain(joined).replace("`", " ").lower()
    words = [w for w in jieba_words(plain(sentence)) if any(c.isalnum() for c in w)]
    weights = [max(rarity(w), 0.05) for w in words]
    missing = [(w, r) for w, r in zip(words, weights) if w not in low]
    total = sum(weights) or 1.0
    values = {v for v, _, _ in numbers(joined)}
    return {
        "bigram": _share(ngrams(sentence, 2), ngrams(joined, 2)),
        "trigram": _share(ngrams(sentence, 3), ngrams(joined, 3)),
        "align": max(0.0, min(1.0, align)),
        "terms": terms,
        "missing_weight": sum(r for _, r in missing) / total,
        "missing_rarest": max((r for _, r in missing), default=0.0),
        "missing_number": float(any(v not in values for v, _, _ in numbers(sentence))),
        "missing_name": float(any(i not in low for i in identifiers(sentence))),
        "conflict": float(conflict),
        "length": math.log1p(len(_chars(sentence))) / 5,
    }


class SupportModel:
    """Logistic regression over standardized ``FEATURES``: ``p = 1 / (1 + exp(-(b + Σ w·(x-μ)/σ)))``."""

    def __init__(self, data: Mapping) -> None:
        self.features = tuple(data["features"])
        self.mean = [float(x) for x in data["mean"]]
        self.scale = [float(x) or 1.0 for x in data["scale"]]
        self.coef = [float(x) for x in data["coef"]]
        self.intercept = float(data["intercept"])
        self.threshold = float(data.get("threshold", 0.5))
        self.info = dict(data.get("fit", {}))

    def probability(self, values: Mapping[str, float]) -> float:
        """P(supported) for one feature dict (missing features count as their mean)."""
        z = self.intercept
        for name, m, s, w in zip(self.features, self.mean, self.scale, self.coef):
            z += w * (float(values.get(name, m)) - m) / s
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@functools.lru_cache(maxsize=1)
def load_model(path: Path = MODEL_FILE) -> SupportModel:
    """The shipped coefficients (``core/verification/support_model.json``); ``OSError``/``ValueError`` when unreadable."""
    return SupportModel(json.loads(Path(path).read_text(encoding="utf-8")))
