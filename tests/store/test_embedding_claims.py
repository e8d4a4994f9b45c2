"""Shared embedding work (issue 17), on SQLite and PostgreSQL (``database_location``):
two workers on one database embed every queued text exactly once; a worker that died
holding a batch loses nothing (its lease ends, another takes the batch); nothing is
taken from a worker before its lease ends; the end of the queue is split among the workers; ``python -m core embed-worker`` fills the
embedding cache of a data folder."""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from pathlib import Path

from core.ingest.corpus import load_sources
from core.models import DEFAULT_KB, place_in_knowledge_base, sha256_hex
from core.store import embedding_claims as claims
from core.store.catalog import Catalog, embedding_text
from core.store.embeddings import HashingEmbedder


class CountingEmbedder(HashingEmbedder):
    """The hash embedder, counting each text it embeds (shared by the threads of a test)."""

    def __init__(self, counts: Counter) -> None:
        super().__init__()
        self.counts = counts
        self._lock = threading.Lock()

    def _encode(self, texts, kind):  # noqa: ANN001, ANN202
        with self._lock:
            self.counts.update(texts)
        return super()._encode(texts, kind)


def _catalog_with_chunks(location, tmp_path: Path, n_docs: int = 6) -> tuple[Catalog, set[str]]:
    folder = tmp_path / "docs"
    folder.mkdir()
    for d in range(n_docs):
        body = "\n\n".join(f"## 第 {s} 节\n\n文档 {d} 的第 {s} 段：kubectl 命令 {d * 10 + s}。" for s in range(5))
        (folder / f"doc{d}.md").write_text(f"# 文档 {d}\n\n{body}\n", encoding="utf-8")
    parsed, failures = load_sources([folder], base_url=None)
    assert failures == []
    catalog = Catalog(location)
    catalog.apply([place_in_knowledge_base(p.document, p.chunks, DEFAULT_KB) for p in parsed], remove_missing=False)
    return catalog, {embedding_text(c) for c in catalog.active_chunks({}).values()}


def test_two_workers_embed_every_text_exactly_once(database_location, tmp_path) -> None:
    catalog, texts = _catalog_with_chunks(database_location, tmp_path)
    counts: Counter = Counter()
    stored: dict[str, int] = {}

    def work(name: str) -> None:
        own = Catalog(database_location)  # each worker its own catalog object: a process elsewhere
        try:
            stored[name] = claims.run_worker(own, CountingEmbedder(counts), name, batch=3)
        finally:
            own.close()

    threads = [threading.Thread(target=work, args=(f"w{k}",)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    model = HashingEmbedder().name
    try:
        assert len(texts) >= 30 and set(counts) == texts and set(counts.values()) == {1}  # each text once
        assert sum(stored.values()) == len(texts) and claims.queued(catalog, model) == 0
        assert catalog.vector_count(model) == len(texts)
        assert claims.run_worker(catalog, HashingEmbedder(), "late") == 0  # nothing left to do
    finally:
        catalog.close()


def test_a_dead_workers_batch_is_taken_over_after_its_lease(database_location, tmp_path) -> None:
    catalog, texts = _catalog_with_chunks(database_location, tmp_path, n_docs=2)
    model = "m"
    try:
        assert claims.enqueue(catalog, model) == len(texts) and claims.enqueue(catalog, model) == 0
        held = claims.claim(catalog, model, "dead", 4, lease=60, now=1000.0)  # then the worker dies
        assert len(held) == 4 and set(held.values()) <= texts
        others = claims.claim(catalog, model, "alive", 100, lease=60, now=1030.0)
        assert len(others) == len(texts) - 4 and not set(others) & set(held)  # never a held text
        assert claims.claim(catalog, model, "alive", 100, lease=60, now=1059.0) == {}  # leases still run
        again = claims.claim(catalog, model, "alive", 100, lease=60, now=1061.0)
        assert set(again) == set(held)  # the dead worker's batch, after its lease ended
        claims.complete(catalog, model, {k: [0.5, 0.25] for k in set(again) | set(others)})
        assert claims.queued(catalog, model) == 0 and catalog.vector_count(model) == len(texts)
        assert claims.enqueue(catalog, model) == 0  # cached now: nothing to queue
        assert {sha256_hex(t) for t in texts} == set(catalog.cached_vectors(model, [sha256_hex(t) for t in texts]))
    finally:
        catalog.close()


def test_split_claims_share_the_end_of_the_queue_among_the_workers_holding_leases(database_location, tmp_path) -> None:
    catalog, texts = _catalog_with_chunks(database_location, tmp_path, n_docs=2)  # 10 texts
    try:
        claims.enqueue(catalog, "m")
        assert len(claims.claim(catalog, "m", "a", 4, lease=60, now=1000.0, split=True)) == 4  # nobody else: all 4
        assert len(claims.claim(catalog, "m", "b", 4, lease=60, now=1000.0, split=True)) == 3  # 6 free, 1 other: 3
        assert len(claims.claim(catalog, "m", "c", 4, lease=60, now=1000.0, split=True)) == 1  # 3 free, 2 others: 1
        assert len(claims.claim(catalog, "m", "d", 4, lease=60, now=1000.0, split=False)) == 2  # no split: the rest
        assert len(claims.claim(catalog, "m", "e", 4, lease=60, now=1100.0, split=True)) == 4  # leases over: none hold
    finally:
        catalog.close()


def test_a_worker_without_follow_waits_for_a_held_batch_and_finishes_it_after_the_lease(
    database_location, tmp_path
) -> None:
    catalog, texts = _catalog_with_chunks(database_location, tmp_path, n_docs=1)
    model = HashingEmbedder().name
    try:
        claims.enqueue(catalog, model)
        assert len(claims.claim(catalog, model, "dead", 2, lease=0.5)) == 2  # then that worker dies
        assert claims.run_worker(catalog, HashingEmbedder(), "w", batch=100) == len(texts)  # its 2 as well
        assert claims.queued(catalog, model) == 0 and catalog.vector_count(model) == len(texts)
    finally:
        catalog.close()


def test_a_clean_stop_releases_what_the_worker_holds(database_location, tmp_path) -> None:
    catalog, texts = _catalog_with_chunks(database_location, tmp_path, n_docs=1)
    try:
        claims.enqueue(catalog, "m")
        assert claims.claim(catalog, "m", "a", 2, lease=600)
        claims.release(catalog, "m", "a")
        assert len(claims.claim(catalog, "m", "b", 100, lease=600)) == len(texts)  # no wait for the lease
    finally:
        catalog.close()


def test_the_embed_worker_command_fills_the_embedding_cache(tmp_path, monkeypatch, capsys) -> None:
    from core.cli import main

    data = tmp_path / "data"
    monkeypatch.setenv("YINZHENG_DATA_DIR", str(data))
    monkeypatch.setenv("YINZHENG_EMBEDDING", "hash")
    data.mkdir()
    catalog, texts = _catalog_with_chunks(data / "catalog.sqlite3", tmp_path, n_docs=2)
    assert main(["embed-worker"]) == 0
    out = capsys.readouterr().out
    line = re.match(
        r"(\d+) vectors stored by .* ready_at=([\d.]+) done_at=([\d.]+) db_s=([\d.]+) embed_s=([\d.]+)", out
    )
    assert line and int(line[1]) == len(texts) and float(line[2]) <= float(line[3])
    assert float(line[4]) > 0 and float(line[5]) > 0  # time in the database and in the model, for the benchmark
    assert catalog.vector_count(HashingEmbedder().name) == len(texts)
    catalog.close()


def test_the_embed_worker_command_fills_the_second_models_cache_after_the_first(tmp_path, monkeypatch, capsys) -> None:
    """As the app's own embedding process: the primary model's vectors, then the second model's
    (``YINZHENG_SECOND_EMBEDDING``), each text once per model."""
    import core.store.embeddings
    from core.cli import main

    class Second(HashingEmbedder):
        name = "second/model-256"

        def embed(self, texts, kind="passage"):  # noqa: ANN001, ANN202
            time.sleep(0.2)  # a slower model: its own line shows the time
            return super().embed(texts, kind)

    data = tmp_path / "data"
    monkeypatch.setenv("YINZHENG_DATA_DIR", str(data))
    monkeypatch.setenv("YINZHENG_EMBEDDING", "hash")
    monkeypatch.setattr(core.store.embeddings, "make_second_embedder", lambda spec, primary: Second())
    data.mkdir()
    catalog, texts = _catalog_with_chunks(data / "catalog.sqlite3", tmp_path, n_docs=2)
    assert main(["embed-worker"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [re.match(r"(\d+) vectors stored by \S+ \((\S+)\)", x).groups() for x in lines] == [
        (str(len(texts)), HashingEmbedder().name),
        (str(len(texts)), Second.name),
    ]
    assert catalog.vector_count(HashingEmbedder().name) == catalog.vector_count(Second.name) == len(texts)
    # each model's line times its own work: the second's showed embed_s=0.000 for the vectors it stored (a helper's
    # round, session 18: its run was not timed)
    embed_s = [float(re.search(r"embed_s=([\d.]+)", x)[1]) for x in lines]
    assert embed_s[1] >= 0.2 > embed_s[0], lines
    assert main(["embed-worker"]) == 0  # nothing left for either model
    assert [x.split()[0] for x in capsys.readouterr().out.splitlines()] == ["0", "0"]
    catalog.close()


def test_a_worker_waits_while_paused_before_each_claim(tmp_path) -> None:
    catalog, texts = _catalog_with_chunks(tmp_path / "c.sqlite3", tmp_path, n_docs=1)
    counts: Counter = Counter()
    checks = []

    def paused() -> bool:  # a question is in flight for the first three checks
        checks.append(sum(counts.values()))
        return len(checks) <= 3

    try:
        assert claims.run_worker(catalog, CountingEmbedder(counts), "w", batch=100, paused=paused) == len(texts)
        assert checks[:4] == [0, 0, 0, 0]  # nothing embedded while paused
        stopped = claims.run_worker(catalog, HashingEmbedder(), "w", paused=lambda: True, should_stop=lambda: True)
        assert stopped == 0
    finally:
        catalog.close()
