"""``python -m core kb list|create|rename|hide|show``: the knowledge bases of the data folder
(``core.store.knowledge_bases``). ``list`` prints one line per knowledge base (name, hidden mark,
title) or, with ``--json``, a JSON list; the others print the changed one.
Exit 1 (``KnowledgeBaseError``, message on stderr) for a bad, unknown or duplicate name."""

from __future__ import annotations

import argparse
import json


def register(sub) -> None:
    """Add ``kb`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser("kb", help="list, create, rename, hide or show knowledge bases")
    kb_sub = p.add_subparsers(dest="kb_command", required=True)
    q = kb_sub.add_parser("list", help="every knowledge base")
    q.add_argument("--json", action="store_true")
    q = kb_sub.add_parser("create", help="a new knowledge base")
    q.add_argument("name", help="permanent name: a-z, 0-9, - and _ (part of every chunk id)")
    q.add_argument("--title", default=None, help="the label people see (default: the name)")
    q = kb_sub.add_parser("rename", help="set the title (the name never changes)")
    q.add_argument("name")
    q.add_argument("title")
    for action, text in (("hide", "stop offering it for questions"), ("show", "offer it again")):
        q = kb_sub.add_parser(action, help=text)
        q.add_argument("name")
    p.set_defaults(func=cmd_kb)


def cmd_kb(args: argparse.Namespace) -> int:
    from core.config import load_settings

    store = _store(load_settings())
    if args.kb_command == "list":
        kbs = store.list()
        if args.json:  # settings (access lists, redaction) stay internal
            print(json.dumps([kb.model_dump(mode="json", exclude={"settings"}) for kb in kbs], ensure_ascii=False))
        else:
            for kb in kbs:
                print(_line(kb))
        return 0
    if args.kb_command == "create":
        kb = store.create(args.name, args.title)
    elif args.kb_command == "rename":
        kb = store.rename(args.name, args.title)
    else:
        kb = store.set_hidden(args.name, args.kb_command == "hide")
    print(_line(kb))
    return 0


def _line(kb) -> str:  # noqa: ANN001 - KnowledgeBase
    return f"{kb.name:<20} {'hidden ' if kb.hidden else ''}{kb.title}"


def _store(settings):  # noqa: ANN001, ANN202 - Settings → KnowledgeBaseStore
    """The knowledge-base store of the data folder's catalog (no embedder or Chroma needed)."""
    from core.store.catalog import Catalog

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return Catalog(settings.catalog_location).knowledge_bases
