"""``python -m core check FILE|- [--json] [--kb NAME ...] [--user ID [--email ADDRESS]]``: 核查, verify any text against the knowledge base
(``core.check``); with ``-`` JSON Lines ``{"text": "…"}`` on stdin, one record per line."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Iterator

from core.cli._shared import add_kb_argument, add_user_argument, ensure_ingested, open_engine, repair_vectors


def register(sub) -> None:
    """Add ``check`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser("check", help="核查: verify a text against the knowledge base ('-': JSON Lines on stdin)")
    p.add_argument("file", help='a UTF-8 text file, or \'-\' for JSON Lines {"text": "…"} on stdin')
    p.add_argument("--json", action="store_true", help="print the AnswerRecord as JSON (one line per record)")
    add_kb_argument(p, many=True)
    add_user_argument(p)
    p.set_defaults(func=cmd_check)


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
            yield {"line": n, "error": f'第 {n} 行不是 {{"text": "…"}} 形式的 JSON：{exc}'}
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
    engine = open_engine(args)
    ensure_ingested(engine, embed=False)
    repair_vectors(engine)
    for item in inputs:
        if isinstance(item, dict):
            print(json.dumps(item, ensure_ascii=False), flush=True)
            continue
        record = check_text(engine, item, knowledge_bases=args.kb)
        print(record.model_dump_json() if args.json else format_text(record), flush=True)
    return 0
