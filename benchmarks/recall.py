"""Retrieval recall by question kind, fast: the retriever only (no generator).

    .venv/bin/python benchmarks/recall.py --data-dir DIR [--no-dense] [--shared PATH] [--rows]

``DIR`` is a data folder with the bundled sample already ingested (and, for the
hybrid rows, embedded: e.g. a copy of a folder built by ``python -m core ingest``).
Nothing is ingested or embedded here.

Question sets
-------------
* ``<shared>/eval-dev/k8s/questions.jsonl`` (``kind``: paraphrase, english,
  followup, multi; unanswerable ones are skipped). Follow-ups are asked with their
  ``history`` (earlier user turns) through ``core.retrieval.query.resolve_query``, exactly as
  ``core.engine.ask`` does; the row ``followup-alone`` asks the follow-up without it.
* ``data/eval/k8s-dev/questions.jsonl`` (answerable ``K8S_A_*`` only; kind ``k8s-dev``).

Metrics
-------
A gold passage is *found* in a chunk when the chunk text contains its
``answer_text`` after whitespace is removed from both (the chunker joins
hard-wrapped lines). The rank of a question is the rank of its first gold chunk
(for ``multi``: the rank by which **every** gold entry has been found). R@k is
the share of questions with rank <= k, MRR the mean of 1/rank over the first 10
(0 when not found). ``evidence`` is the share whose gold reached the evidence
(the chunks of the first ``top_k`` that the sufficiency decision accepts, the
default settings), which is what the generator may cite. Latency: median and p95 of one
``retrieve`` call (query resolution included), in milliseconds, after one warm-up
question, on this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEPTH = 10
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Question:
    id: str
    kind: str
    question: str
    golds: tuple[str, ...]
    require_all: bool
    history: tuple[str, ...] = ()


def _norm(text: str) -> str:
    return _WS.sub("", text)


def find_shared(arg: str | None) -> Path:
    """``--shared``, else ``../shared`` beside the repository, else ``$YINZHENG_SHARED``."""
    for cand in (arg, ROOT.parent / "shared", os.environ.get("YINZHENG_SHARED")):
        if cand and (Path(cand) / "eval-dev").is_dir():
            return Path(cand)
    raise SystemExit("shared/ not found: pass --shared PATH or set YINZHENG_SHARED")


def load(shared: Path) -> list[Question]:
    out: list[Question] = []
    for line in (shared / "eval-dev/k8s/questions.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        o = json.loads(line)
        if not o["gold"]:
            continue
        golds = tuple(g["answer_text"] for g in o["gold"])
        out.append(
            Question(o["id"], o["kind"], o["question"], golds, o["kind"] == "multi", tuple(o.get("history") or ()))
        )
    for line in (ROOT / "data/eval/k8s-dev/questions.jsonl").read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        o = json.loads(line)
        if o.get("answers"):
            out.append(Question(o["id"], "k8s-dev", o["question"], tuple(a["text"] for a in o["answers"]), False))
    return out


def gold_rank(texts: list[str], golds: tuple[str, ...], require_all: bool) -> int | None:
    """1-based rank by which one gold (or, with ``require_all``, every gold) is found; None if not."""
    normed = [_norm(t) for t in texts]
    ranks = []
    for g in golds:
        ng = _norm(g)
        r = next((i for i, t in enumerate(normed, start=1) if ng in t), None)
        ranks.append(r)
    if require_all:
        return None if any(r is None for r in ranks) else max(ranks)  # type: ignore[type-var]
    found = [r for r in ranks if r is not None]
    return min(found) if found else None


def run(data_dir: Path, *, dense: bool, shared: Path, show_rows: bool) -> dict[str, dict[str, float]]:
    from core.config import Settings, load_settings
    from core.retrieval.hybrid import HybridRetriever
    from core.store.embeddings import make_embedder, make_second_embedder
    from core.store.index import KnowledgeIndex

    base = load_settings(env={})
    settings = Settings(
        data_dir=data_dir,
        embedding=os.environ.get("YINZHENG_EMBEDDING", base.embedding),
        second_embedding=os.environ.get("YINZHENG_SECOND_EMBEDDING", base.second_embedding),
    )
    embedder = make_embedder(settings.embedding)
    index = KnowledgeIndex(
        settings, embedder, second_embedder=make_second_embedder(settings.second_embedding, settings.embedding)
    )
    embedded, total = index.dense_coverage()
    print(
        f"# {data_dir}: {total} chunks, {embedded} with vectors ({embedder.name}); dense {'on' if dense else 'off'}; "
        f"second {index.second_coverage()} (its ranking joins when complete; YINZHENG_SECOND_EMBEDDING=none: off)"
    )
    retriever = HybridRetriever(index, top_k=settings.top_k, depth=DEPTH, use_dense=dense)
    questions = load(shared)
    retriever.retrieve("预热：Pod 是什么？")
    rows: dict[str, list[tuple[int | None, bool]]] = {}
    times: list[float] = []
    for q in questions:
        variants = [(q.kind, q.history)]
        if q.kind == "followup":
            variants.append(("followup-alone", ()))
        for kind, history in variants:
            t0 = time.perf_counter()
            resolved = retriever.resolve(q.question, history)
            result = retriever.retrieve(resolved)
            times.append((time.perf_counter() - t0) * 1000)
            texts = [rc.chunk.text for rc in result.ranking]
            rank = gold_rank(texts, q.golds, q.require_all)
            ev = [rc.chunk.text for rc in result.evidence]
            in_ev = gold_rank(ev, q.golds, q.require_all) is not None
            rows.setdefault(kind, []).append((rank, in_ev))
            if show_rows:
                print(f"{q.id:10} {kind:15} rank={rank!s:5} ev={int(in_ev)} q={resolved.text[:70]!r}")
    table: dict[str, dict[str, float]] = {}
    goal_kinds = ("paraphrase", "english", "followup", "multi")
    rows["overall"] = [r for k in goal_kinds for r in rows.get(k, [])]
    for kind, rs in rows.items():
        ranks = [r for r, _ in rs]
        table[kind] = {
            "n": len(rs),
            **{f"R@{k}": sum(1 for r in ranks if r is not None and r <= k) / len(rs) for k in (1, 5, 10)},
            "MRR": sum(1 / r for r in ranks if r is not None) / len(rs),
            "evidence": sum(1 for _, e in rs if e) / len(rs),
        }
    print("| kind | n | R@1 | R@5 | R@10 | MRR | gold in evidence |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for kind in (*goal_kinds, "overall", "followup-alone", "k8s-dev"):
        if kind in table:
            t = table[kind]
            print(
                f"| {kind} | {t['n']} | {t['R@1']:.0%} | {t['R@5']:.0%} | {t['R@10']:.0%} | {t['MRR']:.3f} | {t['evidence']:.0%} |"
            )
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    print(f"retrieve latency: median {statistics.median(times):.0f} ms, p95 {p95:.0f} ms ({len(times)} calls)")
    return table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, required=True)
    ap.add_argument("--no-dense", action="store_true", help="BM25 only")
    ap.add_argument("--shared", default=None)
    ap.add_argument("--rows", action="store_true", help="print one line per question")
    args = ap.parse_args()
    run(args.data_dir, dense=not args.no_dense, shared=find_shared(args.shared), show_rows=args.rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
