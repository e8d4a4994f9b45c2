"""``python -m core embed-worker [--follow] [--batch N] [--lease SECONDS]``: one embedding
worker (``core.embedding_claims``). It queues the active chunks' texts that have no vector of
the configured model (``YINZHENG_EMBEDDING``), then claims, embeds and stores batches in the
catalog's embedding cache until nothing is left (``--follow``: keeps watching for new
documents until interrupted). Any number of workers, on any machines sharing the catalog
database, split the work; each text is embedded once. The process that owns the vector
store copies cached vectors into it (``KnowledgeIndex.embed_pending``). Prints the number
of vectors this worker stored."""

from __future__ import annotations

import argparse
import os
import socket
import uuid


def register(sub) -> None:
    """Add ``embed-worker`` to the ``python -m core`` subparsers ``sub``."""
    from core.embedding_claims import CLAIM_BATCH, LEASE_SECONDS

    p = sub.add_parser("embed-worker", help="embed pending chunks, shared with other workers")
    p.add_argument("--follow", action="store_true", help="keep running and embed new documents as they come")
    p.add_argument("--batch", type=int, default=CLAIM_BATCH, help=f"texts per claim (default {CLAIM_BATCH})")
    p.add_argument("--lease", type=float, default=LEASE_SECONDS,
                   help=f"seconds a claim is held before another worker may take it (default {LEASE_SECONDS:g})")
    p.set_defaults(func=cmd_embed_worker)


def cmd_embed_worker(args: argparse.Namespace) -> int:
    from core.catalog import Catalog
    from core.config import load_settings
    from core.embedding_claims import run_worker
    from core.embeddings import make_embedder

    settings = load_settings()
    embedder = make_embedder(settings.embedding)
    catalog = Catalog(settings.catalog_location)
    worker = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
    try:
        stored = run_worker(catalog, embedder, worker, batch=max(1, args.batch), lease=args.lease, follow=args.follow)
    finally:
        catalog.close()
    print(f"{stored} vectors stored by {worker} ({embedder.name})")
    return 0
