"""``python -m core embed-worker [--follow] [--batch N] [--lease SECONDS]``: one embedding
worker (``core.store.embedding_claims``). It queues the active chunks' texts that have no vector of
the configured model (``YINZHENG_EMBEDDING``), then claims, embeds and stores batches in the
catalog's embedding cache until nothing is left, then does the same for the second model
(``YINZHENG_SECOND_EMBEDDING``, ``core.store.second_vectors``; none behind ``hash``), as the app's
own embedding process does (``--follow``: keeps watching for new
documents until interrupted). Any number of workers, on any machines sharing the catalog
database, split the work; each text is embedded once. Without ``--follow`` it waits while
other workers hold the last batches, so a batch whose worker died is finished once its lease
ends. With ``CHROMA_HOST`` it also copies the cached vectors into the Chroma server's
collection (where every replica reads them); without it, the process that owns the embedded
vector store copies them (``KnowledgeIndex.embed_pending``). Prints the number of vectors
this worker stored per model (the primary first, one line each), and when (Unix seconds) its
models were ready and it was done:
``N vectors stored by WORKER (MODEL) ready_at=T done_at=T db_s=S embed_s=S`` (seconds in
the database and in the primary model, ``run_worker``'s ``stats``). With ``--follow`` and a
second model, the two models' passes alternate every ``FOLLOW_POLL_SECONDS``."""

from __future__ import annotations

import argparse
import os
import socket
import time
import uuid


def register(sub) -> None:
    """Add ``embed-worker`` to the ``python -m core`` subparsers ``sub``."""
    from core.store.embedding_claims import CLAIM_BATCH, LEASE_SECONDS

    p = sub.add_parser("embed-worker", help="embed pending chunks, shared with other workers")
    p.add_argument("--follow", action="store_true", help="keep running and embed new documents as they come")
    p.add_argument("--batch", type=int, default=CLAIM_BATCH, help=f"texts per claim (default {CLAIM_BATCH})")
    p.add_argument(
        "--lease",
        type=float,
        default=LEASE_SECONDS,
        help=f"seconds a claim is held before another worker may take it (default {LEASE_SECONDS:g})",
    )
    p.set_defaults(func=cmd_embed_worker)


def cmd_embed_worker(args: argparse.Namespace) -> int:
    from core.config import load_settings
    from core.store.catalog import Catalog
    from core.store.embedding_claims import FOLLOW_POLL_SECONDS, run_worker
    from core.store.embeddings import make_embedder, make_second_embedder

    settings = load_settings()
    embedder = make_embedder(settings.embedding)  # loads the model
    second = make_second_embedder(settings.second_embedding, settings.embedding)  # None: no second set
    ready_at = time.time()
    catalog = Catalog(settings.catalog_location)
    worker = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    copy = _server_copy(settings, embedder) if settings.chroma_host else None
    stored = {embedder.name: 0, **({second.name: 0} if second is not None else {})}
    stats: dict[str, dict[str, float]] = {name: {} for name in stored}  # per model: its own db_s and embed_s
    try:
        while True:
            # the primary model first: the second set joins retrieval only once complete (core.store.second_vectors)
            stored[embedder.name] += run_worker(
                catalog,
                embedder,
                worker,
                batch=max(1, args.batch),
                lease=args.lease,
                follow=args.follow and second is None,
                after_batch=copy,
                stats=stats[embedder.name],
            )
            if copy is not None:
                copy(True)
            if second is None:
                break
            stored[second.name] += run_worker(
                catalog, second, worker, batch=max(1, args.batch), lease=args.lease, stats=stats[second.name]
            )
            if not args.follow:
                break
            time.sleep(FOLLOW_POLL_SECONDS)
    finally:
        catalog.close()
    for name, n in stored.items():
        print(
            f"{n} vectors stored by {worker} ({name}) ready_at={ready_at:.3f} done_at={time.time():.3f} "
            f"db_s={stats[name].get('db_s', 0.0):.3f} embed_s={stats[name].get('embed_s', 0.0):.3f}"
        )
    return 0


#: Seconds between two copies of cached vectors into the Chroma server while batches are stored.
COPY_SECONDS = 5.0


def _server_copy(settings, embedder):  # noqa: ANN001, ANN202 - Settings, Embedder -> Callable[[bool], None]
    """With ``CHROMA_HOST`` the vectors the app reads live on the Chroma server, so the worker
    writes them there too: ``KnowledgeIndex.embed_pending(embed_missing=False)`` copies the
    cached vectors of the active chunks (no embedding). The returned ``copy(idle)`` runs after
    each batch (``idle`` False) or empty claim (True) and copies when this worker stored
    something since the last copy and the queue had nothing free or :data:`COPY_SECONDS`
    passed (one Chroma id read per copy, not per batch)."""
    from core.store.index import KnowledgeIndex

    index = KnowledgeIndex(settings, embedder)
    state = {"last": time.monotonic(), "dirty": False}

    def copy(idle: bool) -> None:
        state["dirty"] = state["dirty"] or not idle
        if state["dirty"] and (idle or time.monotonic() - state["last"] >= COPY_SECONDS):
            index.refresh_if_changed()
            index.embed_pending(embed_missing=False)
            state.update(last=time.monotonic(), dirty=False)

    return copy
