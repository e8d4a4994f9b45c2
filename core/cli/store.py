"""``python -m core store create --name NAME [PATH ...] [--json] [--timeout S]``: a Gemini File
Search store from the knowledge base (``core.generators.gemini_store``)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub) -> None:
    """Add ``store create`` to the ``python -m core`` subparsers ``sub``."""
    p = sub.add_parser(
        "store",
        help="Gemini File Search store from the knowledge base: store create --name NAME [PATH ...]",
        description="Manage the Gemini File Search store of the knowledge base.",
    )
    store_sub = p.add_subparsers(dest="store_command", required=True)
    p = store_sub.add_parser("create", help="create a File Search store and upload the knowledge base into it")
    p.add_argument("--name", required=True, help="display name of the new store")
    p.add_argument("paths", nargs="*", type=Path, help="files or folders (default: the corpus folder)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for each file's import")
    p.set_defaults(func=cmd_store_create)


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
