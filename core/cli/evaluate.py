"""``python -m core eval QUESTIONS DOCS... [...]`` (quality figures, ``core.evaluation``) and
``python -m core eval-claims [ANSWERS.jsonl] [--json]`` (support verification figures,
``core.evaluation.claims``): parse arguments, run the library, print the table, write the report.

``eval``: exit 0 ok, 1 a bad questions file or unreadable path (message on stderr). The JSON
report goes to ``--report PATH``, by default :data:`DEFAULT_REPORT` (``artifacts/`` under the
current directory: git-ignored, beside the other generated reports and screenshots).
``eval-claims``: exit 0 ok, 1 empty knowledge base, 2 no claims file.
``python -m core eval-citecheck [FILE] [--json]`` (``core.evaluation.citecheck``: the verifier on CiteCheck
rows, no knowledge base): exit 0 ok, 1 a malformed file, 2 no file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from core.cli._shared import add_kb_argument
from core.store.embeddings import embedding_specs

#: Where ``eval`` writes its report without ``--report`` (relative to the current directory).
DEFAULT_REPORT = Path("artifacts") / "eval-report.json"


def register(sub) -> None:
    """Add ``eval`` and ``eval-claims`` to the ``python -m core`` subparsers ``sub``."""
    _register_eval(sub)
    _register_claims(sub)
    _register_citecheck(sub)


def _threshold(text: str) -> float:
    v = float(text)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return v


def _positive(text: str) -> int:
    v = int(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return v


def _register_eval(subparsers) -> None:
    p = subparsers.add_parser(
        "eval",
        help="evaluate retrieval, answers, citations and abstention on a QA file",
        description="Index DOCS into a temporary data folder, ask every question of QUESTIONS "
        "(JSON Lines; empty 'answers' = unanswerable), print a table and write a JSON report.",
    )
    p.add_argument("questions", type=Path, nargs="?", help="questions JSON Lines file (or use --set / --dev)")
    p.add_argument("docs", type=Path, nargs="*", help="folders or files to index")
    p.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="NAME=QUESTIONS:DOCS[,DOCS]",
        help="an evaluation set with its own knowledge base (repeatable; one table per set and kind)",
    )
    p.add_argument(
        "--dev",
        action="store_true",
        help="every dev set under ../shared/eval-dev (k8s, cmrc, tidb, clinic, clinic-single)",
    )
    p.add_argument(
        "--data-root",
        type=Path,
        default=None,
        help="with --set/--dev: one data folder per set under this folder (keeps the embedding caches)",
    )
    p.add_argument("--generator", default=None, help="extractive (default from settings), gemini, ...")
    p.add_argument("--top-k", type=_positive, default=None, help="chunks retrieved per question")
    p.add_argument(
        "--evidence-threshold",
        type=_threshold,
        default=None,
        help="probability 0..1 the sufficiency decision requires (default: the fitted threshold per mode)",
    )
    p.add_argument("--display-threshold", type=_threshold, default=None, help="relevance 0..1 to show a citation")
    p.add_argument("--embedding", default=None, help=f"one of {embedding_specs()} (the embedder registry)")
    p.add_argument("--no-dense", action="store_true", help="BM25 only (no embedding, no dense ranking)")
    p.add_argument("--limit", type=_positive, default=None, help="only the first N questions")
    p.add_argument("--report", type=Path, default=None, help=f"write the JSON report here (default {DEFAULT_REPORT})")
    p.add_argument("--data-dir", type=Path, default=None, help="reuse this data folder (keeps the embedding cache)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.add_argument("--no-history", action="store_true", help="ask follow-ups without their conversation")
    add_kb_argument(p, many=False)
    p.set_defaults(func=cmd_eval)


def _options(args: argparse.Namespace) -> dict:
    return dict(
        embedding=args.embedding,
        use_dense=not args.no_dense,
        top_k=args.top_k,
        evidence_threshold=args.evidence_threshold,
        display_threshold=args.display_threshold,
        generator=args.generator,
        limit=args.limit,
        progress=not args.quiet,
        use_history=not args.no_history,
    )


def _shared_root() -> Path:
    """``../shared`` of the repository root (this file is ``core/cli/evaluate.py``)."""
    return Path(__file__).resolve().parents[3] / "shared"


def cmd_eval_sets(args: argparse.Namespace) -> int:
    """``eval --set …`` / ``--dev``: every set in one run (``core.evaluation.sets``); 0 ok, 1 bad input."""
    from core.evaluation.sets import dev_sets, format_sets_table, parse_set, run_sets

    def run() -> dict:
        sets = [parse_set(s) for s in args.sets]
        if args.dev:
            sets += dev_sets(_shared_root())
        if args.questions is not None:
            raise ValueError("give either QUESTIONS DOCS or --set/--dev, not both")
        return run_sets(sets, data_root=args.data_root, **_options(args))

    return _run_and_report(run, format_sets_table, args.report)


def _run_and_report(run, table, report_path: Path | None) -> int:
    """``run()`` → the report written as JSON (``report_path`` or :data:`DEFAULT_REPORT`) and
    ``table(report)`` printed; 0 ok, 1 on ``ValueError``/``OSError`` (message on stderr)."""
    try:
        report = run()
        path = report_path or DEFAULT_REPORT
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(table(report))
    print(f"report: {path}")
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    """Run ``eval``; 0 ok, 1 a bad input file (message on stderr). ``AppError`` is left
    to ``core.cli.main``, which maps it."""
    from core.evaluation import format_table, run_eval

    if args.sets or args.dev:
        return cmd_eval_sets(args)
    if args.questions is None or not args.docs:
        print("error: eval needs QUESTIONS DOCS..., or --set NAME=QUESTIONS:DOCS, or --dev", file=sys.stderr)
        return 1
    return _run_and_report(
        lambda: run_eval(args.questions, args.docs, data_dir=args.data_dir, knowledge_base=args.kb, **_options(args)),
        format_table,
        args.report,
    )


def _register_claims(subparsers) -> None:
    p = subparsers.add_parser(
        "eval-claims", help="measure support verification on a claims set (see core/evaluation/claims.py)"
    )
    p.add_argument("answers", nargs="?", default=None, help="claims JSON Lines (default: the shared dev set)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument("--dense", action="store_true", help="retrieve with the embedder too (default: BM25 only)")
    p.add_argument("--rows", default=None, help="write per-sentence rows (JSON Lines) to this file")
    p.set_defaults(func=cmd_eval_claims)


def cmd_eval_claims(args: argparse.Namespace) -> int:
    """Run ``eval-claims`` over the configured knowledge base (answers are checked, not stored)."""
    from core.config import load_settings
    from core.engine import Engine
    from core.evaluation import claims as claims_eval

    path = Path(args.answers) if args.answers else claims_eval.default_set()
    if not path.is_file():
        print(f"no claims file at {path}", file=sys.stderr)
        return 2
    answers = claims_eval.load_answers(path)
    engine = Engine.open(load_settings())
    if not engine.index.active_chunks():
        print("the knowledge base is empty: run `python -m core ingest` first", file=sys.stderr)
        return 1
    rows, latencies = claims_eval.run(engine, answers, dense=args.dense)
    report = claims_eval.score_rows(rows, latencies)
    report["config"] = {
        "answers": str(path),
        "top_k": engine.settings.top_k,
        "retrieval": f"bm25 + {engine.embedder.name}" if args.dense else "bm25",
    }
    if args.rows:
        Path(args.rows).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(json.dumps(report, ensure_ascii=False, indent=2) if args.json else claims_eval.format_table(report))
    return 0


def _register_citecheck(subparsers) -> None:
    p = subparsers.add_parser(
        "eval-citecheck", help="measure the support verifier on CiteCheck rows (core/evaluation/citecheck.py)"
    )
    p.add_argument("file", nargs="?", default=None, help="CiteCheck JSON Lines (default: the shared dev split)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_eval_citecheck)


def cmd_eval_citecheck(args: argparse.Namespace) -> int:
    """Run ``eval-citecheck``: every row's statement verified against its quote's passages."""
    from core.evaluation import citecheck as citecheck_eval

    path = Path(args.file) if args.file else citecheck_eval.default_set()
    if not path.is_file():
        print(f"no CiteCheck file at {path}", file=sys.stderr)
        return 2
    try:
        rows = citecheck_eval.load_rows(path)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    report = citecheck_eval.evaluate(rows)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print("| measure | value |\n| --- | --- |")
        for key in ("rows", "accuracy", "unfaithful_caught", "flag_precision", "median_ms"):
            print(f"| {key} | {report[key]} |")
        print(f"| verdicts | {report['verdicts']} |")
    return 0
