"""``python -m core eval`` with chunk vectors deleted after the ingest (issues 24 and 30):
the state of a chunk whose vector was never written, or of an upload still being embedded.

    .venv/bin/python benchmarks/drop_vector.py [--drop random|QUESTION_ID] [--count N] [--second-too]
        [--upload FILE] -- EVAL ARGS...

``--drop random`` (default): ``N`` chunks drawn with ``random.Random(0)`` from the active ids
(sorted); ``--drop dev-019``: the chunks holding that question's gold ``answer_text`` (of the
questions file passed to eval). The vectors are deleted from the store after ``core.ingest.run.ingest``
(so the eval's own ``embed_pending`` does not fill them in) and stay missing for every question;
stderr names them and the coverage. ``--second-too``: their second model's vectors are deleted
from the catalog's cache as well, after the eval's own pass over that model. ``--upload FILE``
ingests FILE into the same knowledge base without embedding it first (``--count 0``:
nothing else is dropped). Use a copy of the data folder: the next run of ``eval`` on it
embeds them again. Compare the table with a run of ``python -m core eval`` on the same folder.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import core.ingest.run as core_ingest  # noqa: E402


def _gold_texts(questions: Path, qid: str) -> list[str]:
    for line in questions.read_text(encoding="utf-8").splitlines():
        row = json.loads(line) if line.strip() else {}
        if row.get("id") == qid:
            return [g["answer_text"] for g in row.get("gold") or []]
    raise SystemExit(f"no question {qid} in {questions}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="benchmarks/drop_vector.py")
    ap.add_argument("--drop", default="random", help="random, or a question id whose gold chunks lose their vector")
    ap.add_argument("--count", type=int, default=1, help="chunks for --drop random")
    ap.add_argument(
        "--second-too", action="store_true", help="their second model's vectors too (as for a chunk nobody embedded)"
    )
    ap.add_argument(
        "--upload",
        type=Path,
        default=None,
        help="also ingest this file into the same knowledge base without embedding it (issue 30: "
        "an upload whose chunks are being embedded)",
    )
    ap.add_argument("eval_args", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    rest = [a for a in args.eval_args if a != "--"]
    original = core_ingest.ingest
    dropped: list[str] = []

    def ingest_then_drop(index, *a, **kw):  # noqa: ANN001, ANN202 - core.ingest.run.ingest's signature
        report = original(index, *a, **kw)
        if args.upload is not None:
            up = original(index, [args.upload], embed=False, knowledge_base=kw.get("knowledge_base", "default"))
            print(f"uploaded {args.upload} unembedded: {up.chunks} chunks", file=sys.stderr)
        ids = sorted(index.active_chunks())
        if args.drop == "random":
            drop = random.Random(0).sample(ids, min(args.count, len(ids)))
        else:
            golds = ["".join(t.split()) for t in _gold_texts(Path(rest[0]), args.drop)]
            chunks = index.active_chunks()
            drop = [cid for cid in ids if any(g in "".join(chunks[cid].text.split()) for g in golds)]
        dropped[:] = drop
        index.vectors.delete(drop)
        index._count_cache = None  # noqa: SLF001 - the coverage at once, not after its few seconds
        print(f"dropped the vectors of {drop}; dense_coverage {index.dense_coverage()}", file=sys.stderr)
        return report

    core_ingest.ingest = ingest_then_drop
    if args.second_too:  # after the eval's own pass over the second model (run_eval: after ingest)
        import sqlalchemy as sa  # noqa: PLC0415

        import core.store.embedding_worker as worker  # noqa: PLC0415
        from core.models import sha256_hex  # noqa: PLC0415
        from core.store.catalog import EMBEDDINGS, embedding_text  # noqa: PLC0415

        fill = worker.fill_cache

        def fill_then_drop(catalog, embedder, **kw):  # noqa: ANN001, ANN202 - fill_cache's signature
            n = fill(catalog, embedder, **kw)
            chunks = catalog.active_chunks({})
            keys = [sha256_hex(embedding_text(chunks[cid])) for cid in dropped]
            with catalog.database.write() as db:
                db.execute(
                    sa.delete(EMBEDDINGS).where(EMBEDDINGS.c.model == embedder.name, EMBEDDINGS.c.text_sha256.in_(keys))
                )
            print(f"dropped their {embedder.name} vectors too", file=sys.stderr)
            return n

        worker.fill_cache = fill_then_drop
    from core.cli import main as cli_main  # noqa: PLC0415

    return cli_main(["eval", *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
