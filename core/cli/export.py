"""``python -m core export ANSWER_ID [--format json|md] [--kb NAME]``: a stored answer as its
JSON record or Markdown; exit 1 when there is no such answer (with ``--kb``: none that
searched knowledge base NAME; a record stored before knowledge bases searched ``default``)."""

from __future__ import annotations

import argparse
import sys


def register(sub) -> None:
    """Add ``export`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser("export", help="export a stored answer")
    p.add_argument("answer_id")
    p.add_argument("--format", choices=["json", "md"], default="json")
    p.add_argument("--kb", metavar="NAME", default=None, help="only an answer that searched this knowledge base")
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from core.config import load_settings
    from core.records import RecordStore

    settings = load_settings()
    from core.models import DEFAULT_KB

    record = RecordStore(settings.records_location).get(args.answer_id)
    if record is not None and args.kb is not None and args.kb not in (record.knowledge_bases or (DEFAULT_KB,)):
        record = None
    if record is None:
        where = f" in knowledge base {args.kb!r}" if args.kb is not None else ""
        print(f"no answer with id {args.answer_id!r}{where}", file=sys.stderr)
        return 1
    if args.format == "json":
        print(record.model_dump_json(indent=2))
    else:
        from core.export import to_markdown

        print(to_markdown(record))
    return 0
