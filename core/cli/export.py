"""``python -m core export ANSWER_ID [--format json|md] [--kb NAME] [--user ID]``: a stored answer
as its JSON record or Markdown; exit 1 when there is no such answer (with ``--kb``: none that
searched knowledge base NAME; a record stored before knowledge bases searched ``default``; with
``--user``: none of that user's, as the page says "not found" for another user's answer id)."""

from __future__ import annotations

import argparse
import sys

from core.cli._shared import add_user_argument, user_of


def register(sub) -> None:
    """Add ``export`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser("export", help="export a stored answer")
    p.add_argument("answer_id")
    p.add_argument("--format", choices=["json", "md"], default="json")
    p.add_argument("--kb", metavar="NAME", default=None, help="only an answer that searched this knowledge base")
    add_user_argument(p)
    p.set_defaults(func=cmd_export)


def cmd_export(args: argparse.Namespace) -> int:
    from core.config import load_settings
    from core.records.store import RecordStore

    settings = load_settings()
    from core.models import DEFAULT_KB

    user = user_of(args)
    record = RecordStore(settings.records_location).for_user(user and user.user_id).get(args.answer_id)
    if record is not None and args.kb is not None and args.kb not in (record.knowledge_bases or (DEFAULT_KB,)):
        record = None
    if record is None:
        where = f" in knowledge base {args.kb!r}" if args.kb is not None else ""
        where += " for this user" if user is not None else ""
        print(f"no answer with id {args.answer_id!r}{where}", file=sys.stderr)
        return 1
    if args.format == "json":
        from core.records.export import record_json

        print(record_json(record), end="")
    else:
        from core.records.export import to_markdown

        print(to_markdown(record))
    return 0
