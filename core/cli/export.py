"""``python -m core export ANSWER_ID [--format json|md]``: a stored answer as its JSON
record or Markdown; exit 1 when there is no such answer."""

from __future__ import annotations

import argparse
import sys


def register(sub) -> None:
    """Add ``export`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser("export", help="export a stored answer")
    p.add_argument("answer_id")
    p.add_argument("--format", choices=["json", "md"], default="json")
    p.set_defaults(func=cmd_export)


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
