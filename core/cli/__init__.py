"""Command line: the same code path as the UI. One module per subcommand, each with
``register(subparsers)``; this module builds the argparse tree and maps errors.

    python -m core ingest [PATH ...] [--json] [--no-embed] [--rebuild] [--kb NAME]
    python -m core ask "问题" [--json] [--generator NAME] [--store FILE_SEARCH_STORE] [--conversation ID]
    python -m core ask --json -          # one question per line on stdin → JSON Lines
    python -m core export ANSWER_ID [--format json|md]
    python -m core eval QUESTIONS.jsonl DOCS... [--report PATH] [...]   # quality figures
    python -m core check FILE [--json]       # 核查: verify any text against the knowledge base
    python -m core check --json -            # JSON Lines {"text": "…"} on stdin → one record per line
    python -m core verify --json -           # JSON Lines {"sentence", "passages"} → one verdict per line
    python -m core eval-claims [ANSWERS.jsonl] [--json]   # support verification figures
    python -m core eval-citecheck [FILE.jsonl] [--json]   # the verifier on CiteCheck rows
    python -m core store create --name NAME [PATH ...] [--json]   # Gemini File Search store
    python -m core kb list|create NAME [--title T]|rename NAME TITLE|hide NAME|show NAME
    python -m core embed-worker [--follow] [--batch N] [--lease SECONDS]   # shared embedding work

``ingest``, ``eval`` take ``--kb NAME`` (the knowledge base written; default ``default``),
``ask`` and ``check`` ``--kb NAME`` (repeatable: the ones searched), ``export`` ``--kb NAME``
(only an answer that searched it); ``ask``, ``check`` and ``export`` take ``--user ID``
(``--email ADDRESS``): the page's access policy and per-user records for that signed-in user.

The scale benchmark is ``python benchmarks/bench.py`` (it times the chat page's
renderer, which ``core`` may not import).

Progress goes to stderr; results to stdout. Exit codes: 0 ok, 1 an
``AppError`` (its message on stderr), 2 bad usage.

Adding a subcommand: a module here with ``register(subparsers)`` that adds its
parser and ``set_defaults(func=...)`` (``func(args) -> int``), listed in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence

from core.cli import ask, check, embed_worker, evaluate, export, ingest, kb, store, verify
from core.errors import AppError

#: Subcommand modules in ``--help`` order.
COMMANDS = (ingest, ask, export, evaluate, check, verify, kb, store, embed_worker)


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m core`` parser with every subcommand of ``COMMANDS``; each takes ``--data-dir DIR`` (``eval``'s
    own: the data folder it reuses; the others': ``YINZHENG_DATA_DIR`` for this run)."""
    parser = argparse.ArgumentParser(prog="python -m core", description="Yinzheng (引证) command line")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.register(sub)
    for command in sub.choices.values():
        _add_data_dir(command)
    return parser


def _add_data_dir(parser: argparse.ArgumentParser) -> None:
    """``--data-dir DIR`` on ``parser``, or on its own subcommands when it has some (``kb list --data-dir DIR``: a
    subcommand's default would overwrite its parent's value), unless it has one (``eval``)."""
    nested = any(isinstance(action, argparse._SubParsersAction) for action in parser._actions)
    if not nested and not any("--data-dir" in action.option_strings for action in parser._actions):
        parser.add_argument(
            "--data-dir",
            dest="run_data_dir",
            metavar="DIR",
            type=Path,
            default=None,
            help="the data folder (index, caches, answer records) for this run; default: YINZHENG_DATA_DIR",
        )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _add_data_dir(child)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command (``argv`` without the program name; default ``sys.argv[1:]``);
    returns the exit code. Bad usage exits with ``SystemExit(2)`` from argparse. ``--data-dir DIR`` sets
    ``YINZHENG_DATA_DIR`` for the command (a helper's round, session 21: only the variable could choose it)."""
    args = build_parser().parse_args(None if argv is None else list(argv))
    if getattr(args, "run_data_dir", None) is not None:
        os.environ["YINZHENG_DATA_DIR"] = str(args.run_data_dir)
    try:
        return args.func(args)
    except AppError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # an answer cut off here is already stored as "interrupted"
        print("interrupted", file=sys.stderr)
        return 130


def store_main(argv: Sequence[str]) -> int:
    """The ``store`` command alone: ``argv`` is what follows ``python -m core store``."""
    return main(["store", *argv])
