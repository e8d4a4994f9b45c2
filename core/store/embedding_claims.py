"""Embedding work shared by workers on any number of machines (issue 17): a queue in
the catalog database, claimed in batches with a lease.

* :func:`enqueue` adds every active chunk's ``embedding_text`` (keyed by its SHA-256, as
  the embedding cache is) that has no cached vector of the model and is not queued yet.
* :func:`claim` hands a worker up to ``n`` texts nobody holds (or whose holder's lease
  ran out) and stamps them with the worker and ``now + lease`` seconds, in one write
  transaction: PostgreSQL ``SELECT … FOR UPDATE SKIP LOCKED`` (workers never wait for
  each other's rows), SQLite ``BEGIN IMMEDIATE`` (one claimer at a time).
  With ``split`` (what :func:`run_worker` uses) a claim at the end of the queue takes only its
  fair share of the free texts, so the last ones are spread over the workers.
* :func:`complete` stores the vectors in the embedding cache and removes their queue rows
  in one transaction, so a text is either queued or cached, never lost.
* A worker that dies loses nothing: its rows stay, and once the lease has passed the next
  :func:`claim` hands them to another worker. A text is embedded twice only when a worker
  takes longer than its lease for one batch (the lease must exceed a batch's time).

Times are Unix seconds (``time.time()``). Raises ``IndexError_`` when the database fails.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

import numpy as np
import sqlalchemy as sa

from core.models import sha256_hex
from core.store.catalog import EMBEDDINGS, Catalog, embedding_text
from core.store.embeddings import Embedder
from core.store.sql import upsert

#: Seconds a claim is held before another worker may take it over.
LEASE_SECONDS = 600.0
#: Texts per claim (and per model call).
CLAIM_BATCH = 32
#: Seconds between two looks at the queue and the generation in ``--follow`` mode.
FOLLOW_POLL_SECONDS = 2.0
#: Seconds between two looks at a queue whose texts other workers hold (without ``--follow``).
HELD_POLL_SECONDS = 0.25
#: Seconds between two checks of ``paused()``.
PAUSE_POLL_SECONDS = 0.05

CLAIMS = sa.Table(
    "embedding_claims",
    sa.MetaData(),
    sa.Column("model", sa.Text),
    sa.Column("text_sha256", sa.Text),
    sa.Column("text", sa.Text),
    sa.Column("worker", sa.Text),
    sa.Column("lease_until", sa.Float),
)


def enqueue(catalog: Catalog, model: str) -> int:
    """Queue the active chunks' texts that have no vector of ``model``; returns how many
    texts were added (already queued ones are kept as they are, with their claims)."""
    texts: dict[str, str] = {}
    for chunk in catalog.active_chunks({}).values():
        text = embedding_text(chunk)
        texts.setdefault(sha256_hex(text), text)
    have = catalog.cached_vectors(model, sorted(texts))
    rows = [{"model": model, "text_sha256": k, "text": t} for k, t in texts.items() if k not in have]
    if not rows:
        return 0
    with catalog.database.write() as db:
        before = db.execute(sa.select(sa.func.count()).where(CLAIMS.c.model == model)).scalar_one()
        upsert(db, CLAIMS, rows, ["model", "text_sha256"])
        return db.execute(sa.select(sa.func.count()).where(CLAIMS.c.model == model)).scalar_one() - before


def claim(
    catalog: Catalog,
    model: str,
    worker: str,
    n: int = CLAIM_BATCH,
    *,
    lease: float = LEASE_SECONDS,
    now: float | None = None,
    split: bool = False,
) -> dict[str, str]:
    """Up to ``n`` queued texts of ``model`` (SHA-256 → text) now held by ``worker`` until
    ``now + lease``: those nobody holds, or whose lease ended before ``now``. Queue rows of
    texts the cache holds already are dropped first (each statement of a write transaction
    sees what other workers committed before it: SQLite's lock, PostgreSQL's READ COMMITTED).
    ``split``: at the end of the queue, take only a fair share, ``ceil(free / (holders + 1))``
    where ``holders`` counts the other workers with a running lease, so the last texts are
    spread over the workers instead of one worker embedding a full batch while the others
    wait (the tail that cost two workers most of their loss against 2×)."""
    now = time.time() if now is None else now
    cached = sa.select(1).where(EMBEDDINGS.c.model == model, EMBEDDINGS.c.text_sha256 == CLAIMS.c.text_sha256).exists()
    free = sa.and_(CLAIMS.c.model == model, sa.or_(CLAIMS.c.lease_until.is_(None), CLAIMS.c.lease_until < now))
    with catalog.database.write() as db:
        # A text queued again while another worker completed it (enqueue read the cache first) is done.
        db.execute(sa.delete(CLAIMS).where(CLAIMS.c.model == model, cached))
        if split:
            n = _fair_share(db, model, worker, n, now, free)
        rows = db.execute(
            # ``~cached`` again: a text another worker's enqueue put back after the delete above
            # (it read the cache before a third worker completed the text) is not claimed twice.
            sa.select(CLAIMS.c.text_sha256, CLAIMS.c.text)
            .where(free, ~cached)
            .order_by(CLAIMS.c.text_sha256)
            .limit(n)
            .with_for_update(skip_locked=True)
        ).all()
        if rows:
            db.execute(
                sa.update(CLAIMS)
                .where(CLAIMS.c.model == model, CLAIMS.c.text_sha256.in_([k for k, _ in rows]))
                .values(worker=worker, lease_until=now + lease)
            )
    return dict(rows)


def _fair_share(db: sa.Connection, model: str, worker: str, n: int, now: float, free: sa.ColumnElement) -> int:
    """``min(n, ceil(free texts / (other workers holding a lease + 1)))``, at least 1."""
    free_count = db.execute(sa.select(sa.func.count()).where(free)).scalar_one()
    holders = db.execute(
        sa.select(sa.func.count(sa.distinct(CLAIMS.c.worker))).where(
            CLAIMS.c.model == model, CLAIMS.c.worker != worker, CLAIMS.c.lease_until >= now
        )
    ).scalar_one()
    return max(1, min(n, -(-free_count // (holders + 1))))


def complete(catalog: Catalog, model: str, vectors: Mapping[str, np.ndarray]) -> None:
    """Store ``vectors`` (SHA-256 → vector) of ``model`` in the embedding cache and take
    their texts off the queue, in one transaction."""
    if not vectors:
        return
    rows = [
        {"model": model, "text_sha256": k, "vector": np.asarray(v, dtype=np.float32).tobytes()}
        for k, v in vectors.items()
    ]
    with catalog.database.write() as db:
        upsert(db, EMBEDDINGS, rows, ["model", "text_sha256"], ["vector"])
        db.execute(sa.delete(CLAIMS).where(CLAIMS.c.model == model, CLAIMS.c.text_sha256.in_(list(vectors))))


def release(catalog: Catalog, model: str, worker: str) -> None:
    """Give back what ``worker`` holds (a clean stop), so others need not wait for the lease."""
    with catalog.database.write() as db:
        db.execute(
            sa.update(CLAIMS)
            .where(CLAIMS.c.model == model, CLAIMS.c.worker == worker)
            .values(worker=None, lease_until=None)
        )


def queued(catalog: Catalog, model: str) -> int:
    """How many texts of ``model`` are queued (held or not)."""
    with catalog.database.read() as db:
        return db.execute(sa.select(sa.func.count()).where(CLAIMS.c.model == model)).scalar_one()


def wait_while(paused: Callable[[], bool], should_stop: Callable[[], bool]) -> None:
    """Return once ``paused()`` is false or ``should_stop()`` true (checked every
    :data:`PAUSE_POLL_SECONDS`): a background worker steps aside while a question is answered."""
    while paused() and not should_stop():
        time.sleep(PAUSE_POLL_SECONDS)


def run_worker(
    catalog: Catalog,
    embedder: Embedder,
    worker: str,
    *,
    batch: int = CLAIM_BATCH,
    lease: float = LEASE_SECONDS,
    follow: bool = False,
    should_stop: Callable[[], bool] = lambda: False,
    paused: Callable[[], bool] = lambda: False,
    poll_seconds: float = FOLLOW_POLL_SECONDS,
    after_batch: Callable[[bool], None] | None = None,
    stats: dict[str, float] | None = None,
) -> int:
    """Queue what is missing, then claim, embed and complete batches until the queue is
    empty: while other workers hold the rest, it looks again every :data:`HELD_POLL_SECONDS`
    (a held batch whose worker died is claimed once its lease ends). With ``follow``, it keeps
    looking every ``poll_seconds`` (a new generation is queued) until ``should_stop()``.
    Before each claim it waits while ``paused()`` (:func:`wait_while`). ``after_batch(idle)``
    runs after each stored batch (``idle`` False) and each time nothing was free (True), e.g.
    to copy the cached vectors into a Chroma server. ``stats`` (when given) gains the seconds
    spent in the database (``db_s``: queueing, claims, completions) and in the model
    (``embed_s``). Returns the number of vectors this worker stored. What it holds when it
    stops early (an exception, ``should_stop``) is released."""
    model, stored, generation = embedder.name, 0, None
    try:
        while not should_stop():
            wait_while(paused, should_stop)
            t0 = time.perf_counter()
            current = catalog.generation()
            if current != generation:  # first round, or another process ingested or hid documents
                enqueue(catalog, model)
                generation = current
            texts = claim(catalog, model, worker, batch, lease=lease, split=True)
            t1 = t2 = time.perf_counter()
            if texts:
                keys = list(texts)
                vectors = embedder.embed([texts[k] for k in keys], "passage")
                t2 = time.perf_counter()
                complete(catalog, model, dict(zip(keys, vectors)))
                stored += len(keys)
            if stats is not None:
                stats["db_s"] = stats.get("db_s", 0.0) + (t1 - t0) + (time.perf_counter() - t2)
                stats["embed_s"] = stats.get("embed_s", 0.0) + (t2 - t1)
            if after_batch is not None:
                after_batch(not texts)
            if texts:
                continue
            if not follow:
                if queued(catalog, model) == 0:
                    break
                time.sleep(HELD_POLL_SECONDS)  # others hold the rest: done soon, or their lease ends
                continue
            time.sleep(poll_seconds)
    finally:
        release(catalog, model, worker)
    return stored
