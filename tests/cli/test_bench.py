"""The scale benchmark's --quick slice runs end to end and reports every figure."""

from __future__ import annotations

import json
import math

import pytest

from tests.conftest import SAMPLE


def _numbers(obj, path=""):
    if isinstance(obj, bool):
        return
    if isinstance(obj, (int, float)):
        yield path, obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from _numbers(v, f"{path}.{k}")


@pytest.mark.timeout(600)
def test_quick_bench_report_is_complete(tmp_path, capsys):
    from benchmarks.bench import REPORT_KEYS, STAGES, main

    out = tmp_path / "bench.json"
    assert main(["--quick", "--embedding", "hash", "--corpus", str(SAMPLE), "--json", str(out)]) == 0
    runs = json.loads(out.read_text(encoding="utf-8"))["runs"]
    assert len(runs) == 1
    run = runs[0]
    missing = [k for k in REPORT_KEYS if k not in run]
    assert not missing, missing
    assert set(run["stages"]) == set(STAGES)
    for st in run["stages"].values():
        assert set(st) == {"seconds", "documents_per_s", "chunks_per_s"}
    for k in ("retrieval_ms", "answer_ms"):
        assert set(run[k]) >= {"median", "p95", "n"}
    assert run["documents"] >= 2 and run["chunks"] >= 10 and not run["dense_extrapolated"]
    # the --quick slice: whole sample documents are added until it holds at least 60 chunks
    assert run["size_label"] == "60" and run["chunks"] >= 60
    assert run["embedding_model"] == "hash/char-ngrams-256" and run["failures"] == 0
    assert run["answer_includes_render"] is True  # the chat page's renderer is timed with each answer
    # every rate is its count over its time
    for st in run["stages"].values():
        assert st["documents_per_s"] == pytest.approx(run["documents"] / st["seconds"])
        assert st["chunks_per_s"] == pytest.approx(run["chunks"] / st["seconds"])
    assert run["pipeline_chunks_per_s"] == pytest.approx(run["chunks"] / run["ingest_total_s"])
    assert run["reingest_unchanged_ratio"] == pytest.approx(run["reingest_unchanged_s"] / run["ingest_total_s"])
    for path, value in _numbers(run):
        assert math.isfinite(value), path
        if path != ".failures":
            assert value > 0, (path, value)
    table = capsys.readouterr().out
    assert "re-ingest, unchanged" in table and "peak RSS" in table
