"""``python -m core ingest [PATH ...] [--json] [--no-embed] [--rebuild] [--kb NAME]``: parse,
index and embed files or folders (default: the corpus folder) into knowledge base NAME
(default ``default``; created, titled NAME, when missing); prints the ingest report. Embedding computes both
models' vectors, as the app's background task does: the primary's, then the second model's
(``YINZHENG_SECOND_EMBEDDING``, ``core.store.second_vectors``), whose ranking joins retrieval once every chunk has
its vector (a command-line user had stayed in ``hybrid`` until running ``embed-worker``). Exit 1 when files failed
and none was read (``ingest /no/such/path``), else 0: a failed file among others is listed, the rest ingested."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.cli._shared import add_kb_argument, open_engine, owner_note, progress_printer


def register(sub) -> None:
    """Add ``ingest`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser("ingest", help="ingest files or folders (default: the bundled sample)")
    p.add_argument("paths", nargs="*")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-embed", action="store_true", help="skip dense embedding (BM25 only until embedded)")
    p.add_argument(
        "--rebuild", action="store_true", help="delete the index first, every knowledge base (answer records are kept)"
    )
    add_kb_argument(p, many=False)
    p.set_defaults(func=cmd_ingest)


def cmd_ingest(args: argparse.Namespace) -> int:
    from core.config import load_settings
    from core.ingest.run import ingest
    from core.store import store_lock
    from core.store.index import reset_index

    if args.rebuild:
        settings = load_settings()
        if not settings.chroma_host and not store_lock.acquire(settings.chroma_dir):
            owner = store_lock.owner(settings.chroma_dir) or store_lock.StoreOwner(None, "", "")
            print(
                f"error: 不能重建：向量库 {settings.chroma_dir} 由{owner.describe()}持有；请先停止它。", file=sys.stderr
            )
            return 1
        reset_index(settings)
    engine = open_engine(args)
    if engine.index.knowledge_bases.get(args.kb) is None:
        engine.index.knowledge_bases.create(args.kb)  # KnowledgeBaseError (exit 1) for a bad name
        print(f"created knowledge base {args.kb!r}", file=sys.stderr)
    note = owner_note(engine)
    if note and not args.no_embed:
        print(
            note + "目录与关键词索引照常更新，向量由持有它的进程（运行中的应用的后台向量任务）补齐。", file=sys.stderr
        )
    paths = [Path(p) for p in args.paths] or [engine.settings.corpus_dir]
    report = ingest(
        engine.index,
        paths,
        base_url=engine.settings.base_url_for(paths[0]) if len(paths) == 1 else None,
        progress=progress_printer("parse"),
        embed=not args.no_embed and note is None,
        embed_progress=progress_printer("embed"),
        knowledge_base=args.kb,
    )
    if note and not args.no_embed and engine.index.owns_vectors():
        # the owner exited while this ingest ran: nobody else will embed what it stored (issue 24)
        print("向量库已无其他进程持有：本进程补齐待补齐的向量。", file=sys.stderr)
        report.embedded = engine.index.embed_pending(progress=progress_printer("embed"))
    second = engine.index.second
    second_note, second_vectors = "", {}
    if second is not None and not args.no_embed and note is None:
        from core.store.embedding_worker import fill_cache

        fill_cache(engine.index.catalog, second.embedder)
        have, total = second.coverage(engine.index.active_chunks())
        second_note = f" (second model {second.embedder.name}: {have}/{total})"
        second_vectors = {"second_vectors": {"model": second.embedder.name, "chunks": have, "of": total}}
    c = report.counts()
    if args.json:  # as_dict escapes lone surrogates: always valid UTF-8
        print(json.dumps({**report.as_dict(), **second_vectors}, ensure_ascii=False))
    else:
        for f in report.as_dict()["files"]:
            if f["result"] == "failed":
                print(f"failed   {f['source_id']}: {f['reason']}")
            elif f["result"] != "unchanged" or f.get("warnings"):
                print(f"{f['result']:<8} {f['source_id']}")
            for w in f.get("warnings", []):
                print(f"  warning: {w}")
        print(
            f"added {c['added']}, updated {c['updated']}, unchanged {c['unchanged']}, "
            f"removed {c['removed']}, failed {c['failed']}, warned {c['warned']}; "
            f"{report.chunks} chunks, {report.embedded} embedded{second_note}"
        )
    # some files failed and none was read (a path that does not exist, a folder of broken files): exit 1, as a
    # script needs; when others were read, the failures are listed and the ingest did its work (exit 0)
    return 1 if c["failed"] and not (c["added"] + c["updated"] + c["unchanged"]) else 0
