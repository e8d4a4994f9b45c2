"""``python -m core verify --json FILE|-``: the support verifier for other systems
(``core.verification.support.verify_passages``; no knowledge base, no model download).

Input: JSON Lines, one object a line, UTF-8: ``{"sentence": "…", "passages": ["…", …]}``.
Output: one JSON line per input line, in order: ``{"verdict", "score", "passage", "start",
"end", "reason"}`` (``passage`` indexes ``passages``; ``start``/``end`` are code points into
that passage, end-exclusive), or ``{"line": N, "error": "…"}`` for a line that is not valid
UTF-8, not JSON, not of that shape, has an empty sentence or no passage; the batch goes on.
Blank lines are skipped. Exit 0 when the input was read (even with error lines), 1 when FILE
cannot be opened.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import BinaryIO, Iterator


def register(sub) -> None:
    """Add ``verify`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser("verify", help="verify sentences against given passages (JSON Lines in, JSON Lines out)")
    p.add_argument("file", help='JSON Lines {"sentence": "…", "passages": ["…"]}, or \'-\' for stdin')
    p.add_argument("--json", action="store_true", help="JSON Lines output (the only format; accepted for clarity)")
    p.set_defaults(func=cmd_verify)


def parse_line(raw: bytes, n: int) -> tuple[str, list[str]] | dict:
    """``(sentence, passages)`` of one input line, or an error object ``{"line", "error"}``."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return {"line": n, "error": f"第 {n} 行不是有效的 UTF-8（第 {exc.start} 字节起）"}
    except json.JSONDecodeError as exc:
        return {"line": n, "error": f"第 {n} 行不是 JSON：{exc.msg}（第 {exc.pos} 个字符）"}
    if not isinstance(obj, dict) or not isinstance(obj.get("sentence"), str):
        return {"line": n, "error": f"第 {n} 行缺少字符串字段 sentence"}
    passages = obj.get("passages")
    if not isinstance(passages, list) or not all(isinstance(p, str) for p in passages):
        return {"line": n, "error": f"第 {n} 行的 passages 必须是字符串数组"}
    if not obj["sentence"].strip():
        return {"line": n, "error": f"第 {n} 行的 sentence 是空的"}
    if not passages:
        return {"line": n, "error": f"第 {n} 行没有 passages（至少需要一段来源文字）"}
    return obj["sentence"], passages


def results(stream: BinaryIO) -> Iterator[dict]:
    """One output object per non-blank input line (see the module docstring)."""
    from core.verification.support import verify_passages

    for n, raw in enumerate(stream, start=1):
        if not raw.strip():
            continue
        parsed = parse_line(raw, n)
        yield parsed if isinstance(parsed, dict) else verify_passages(*parsed)


def cmd_verify(args: argparse.Namespace) -> int:
    """0 input read (error lines included); 1 FILE cannot be opened."""
    try:
        stream = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc}", file=sys.stderr)
        return 1
    with stream:
        for out in results(stream):
            print(json.dumps(out, ensure_ascii=False), flush=True)
    return 0
