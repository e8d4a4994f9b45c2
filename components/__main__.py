"""``python -m components RECORD.json``: print the HTML the chat page shows for an answer record.

The record is any answer record in the stored JSON format (stored or hand-made),
so a rendering bug can be reproduced from a file. Output (UTF-8 on stdout) is
the answer CSS followed by the sanitized HTML fragment. Exit codes: 0 on
success, 2 when the file cannot be read or is not a valid record (the message
on stderr says why). ``-`` reads the record from standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from pydantic import ValidationError

from components.answer_view import ANSWER_CSS, render_answer
from core.public import AnswerRecord


def _fail(message: str) -> int:
    sys.stderr.write(f"error: {message}\n")
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m components",
        description="Render an answer record (JSON) to the HTML the chat page shows.",
    )
    parser.add_argument("record", help="path to the answer record JSON file, or - for stdin")
    parser.add_argument("--snapshot-base", default="./sources", help="relative path of the snapshot page")
    parser.add_argument("--no-css", action="store_true", help="omit the <style> block")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors already
        return int(exc.code or 0)

    try:
        if args.record == "-":
            raw = sys.stdin.buffer.read().decode("utf-8")
        else:
            with open(args.record, encoding="utf-8") as fh:
                raw = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read {args.record}: {exc}")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return _fail(f"{args.record} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})")
    try:
        record = AnswerRecord.model_validate(data)
    except ValidationError as exc:
        lines = [f"{args.record} is not a valid answer record ({exc.error_count()} problems):"]
        for err in exc.errors():
            where = ".".join(str(p) for p in err["loc"]) or "(root)"
            lines.append(f"  {where}: {err['msg']}")
        return _fail("\n".join(lines))

    page = render_answer(record, snapshot_base=args.snapshot_base)
    out = page if args.no_css else f"{ANSWER_CSS}\n{page}"
    sys.stdout.buffer.write((out + "\n").encode("utf-8"))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
