"""``python -m core ask "问题" [--json] [--generator NAME] [--store STORE] [--conversation ID] [--kb NAME ...]
[--user ID [--email ADDRESS]]``;
``ask --json -`` reads one question per stdin line and prints JSON Lines. Exit 2 for a blank question (nothing is
asked or stored), 1 when a question could not be stored or its answer failed (status ``error``: its line and record
say why), else 0 (answered or refused). Without ``--conversation`` each question starts a conversation of its own:
its id is the record's ``conversation_id`` (as text, a note on stderr), for the next question's ``--conversation``."""

from __future__ import annotations

import argparse
import json
import sys

from core.cli._shared import (
    add_kb_argument,
    add_user_argument,
    ensure_ingested,
    open_engine,
    owner_note,
    repair_vectors,
)
from core.errors import AppError
from core.models import new_conversation_id
from core.records.presentation import no_evidence_message


def register(sub) -> None:
    """Add ``ask`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser("ask", help="answer a question ('-' reads one per line from stdin)")
    p.add_argument("question")
    p.add_argument(
        "--json",
        action="store_true",
        help="print the AnswerRecord as JSON (JSON Lines for '-'); a refusal's reason is its sufficiency.message",
    )
    p.add_argument(
        "--generator", default=None, help="extractive (default), openai, gemini, gemini-search, gemini-file-search"
    )
    p.add_argument("--store", default=None, help="File Search store name for --generator gemini-file-search")
    p.add_argument(
        "--conversation",
        default=None,
        metavar="ID",
        help="ask inside conversation ID (the chat page's ?c=): earlier questions of it are the history, "
        "and the answer joins it",
    )
    add_kb_argument(p, many=True)
    add_user_argument(p)
    p.set_defaults(func=cmd_ask)


def cmd_ask(args: argparse.Namespace) -> int:
    if not args.question.strip():  # a script's empty variable: a usage error, not a stored error record
        print("error: 问题是空的：请写出想问的内容。", file=sys.stderr)
        return 2
    engine = open_engine(args)
    ensure_ingested(engine, embed=False)
    repair_vectors(engine)
    embedded, total = engine.index.dense_coverage()
    note = owner_note(engine)
    if note:
        print(
            f"note: {note}向量相似度取自目录中缓存的向量（{embedded}/{total} 个片段有向量，其余只用关键词检索）。",
            file=sys.stderr,
        )
    if args.kb:  # an unknown or hidden name: one error and exit 1, not one per line (default always exists)
        engine.index.knowledge_bases.resolve(args.kb)
    if getattr(engine, "user", None) is not None:  # --user may not ask some of them: say so once
        selected, searched = engine.index.knowledge_bases.resolve(args.kb), engine.searchable(args.kb)
        denied = "、".join(kb for kb in selected if kb not in searched)
        if denied:
            print(f"note: 该用户无权检索知识库 {denied}；只检索 {'、'.join(searched) or '（无）'}。", file=sys.stderr)
    questions = _stdin_questions() if args.question == "-" else [args.question]
    failed = 0
    for q in questions:
        history = engine.records.history(args.conversation) if args.conversation else ()
        # without --conversation a question starts one of its own, whose id the record (and, as text, a note) gives:
        # the next question passes it to follow up (a helper's round, session 25, had to make an id up)
        conversation = args.conversation or new_conversation_id()
        try:
            record = engine.ask(
                q,
                generator=args.generator,
                conversation_id=conversation,
                history=history,
                knowledge_bases=args.kb,
            )
        except AppError as exc:  # the store itself failed: say so for this line, go on with the next
            failed += 1
            _print_failed_line(q, exc, as_json=args.json)
            continue
        failed += record.status == "error"
        if args.json:
            print(record.model_dump_json(), flush=True)
        else:
            said = record.answer_text or record.error or ""
            if record.status == "no_evidence" and not said:
                said = no_evidence_message(record)  # the reason the chat shows (a helper's round, session 17)
            print(f"[{record.status}] {said}")
            for s in record.supports:
                print(f"  {s.start}-{s.end} → {', '.join(s.chunk_ids)}")
            if not args.conversation:
                print(f"note: 追问请加 --conversation {conversation}", file=sys.stderr)
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
        print(
            json.dumps({"query": shown, "status": "error", "error": str(exc), "stored": False}, ensure_ascii=False),
            flush=True,
        )
