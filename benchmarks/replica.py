"""One app replica as an OS process for the multi-process tests and the load benchmark
(issue 17): it opens one ``Engine`` from the environment (``YINZHENG_DATA_DIR``,
``YINZHENG_DATABASE_URL``, ``CHROMA_HOST``/``CHROMA_PORT``, ``YINZHENG_EMBEDDING``) as the app
does, then answers requests read from stdin, one JSON object a line, with one JSON line on
stdout each (a pipe: the parent is the client).

    {"op": "ask", "question": "…", "conversation_id": "c1"}
        -> {"answer_id", "status", "chunks": [{"chunk_id", "source_id", "version", "text"}], "html", "seconds"}
        (``Engine.ask`` as the chat page calls it, then the chat page's renderer of the stored record,
        ``components.render_cache.answer_html`` with the current versions)
    {"op": "render", "answer_id": "…"}   -> {"html"} (the record read back from the store, rendered the same way)
    {"op": "list"}                        -> {"answer_ids": [...]} (``RecordStore.list``, newest first)
    {"op": "ingest", "paths": ["…"], "embed": false} -> ``IngestReport.counts()`` ({"added", "updated", …})
    {"op": "coverage"}                    -> {"embedded", "total"} (``KnowledgeIndex.dense_coverage``)
    {"op": "quit"}                        -> exits

A failing request answers ``{"error": "<type>: <message>"}`` and the process goes on.
Started with ``python benchmarks/replica.py`` from the repository root; it prints
``{"ready": true}`` once the engine is open.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _chunks(record) -> list[dict]:  # noqa: ANN001 - AnswerRecord
    return [
        {"chunk_id": c.chunk_id, "source_id": c.source_id, "version": c.version, "text": c.text} for c in record.chunks
    ]


def handle(engine, request: dict) -> dict:  # noqa: ANN001 - Engine
    """One request (see the module doc) against ``engine``."""
    from components.render_cache import answer_html
    from core.ingest.run import ingest

    op = request.get("op")
    if op == "ask":
        start = time.perf_counter()
        record = engine.ask(request["question"], conversation_id=request.get("conversation_id"))
        html = answer_html(record, engine.index.current_versions())
        return {
            "answer_id": record.answer_id,
            "status": record.status,
            "chunks": _chunks(record),
            "html": html,
            "seconds": time.perf_counter() - start,
        }
    if op == "render":
        record = engine.records.get(request["answer_id"])
        return {"html": None if record is None else answer_html(record, engine.index.current_versions())}
    if op == "list":
        return {"answer_ids": [r.answer_id for r in engine.records.list(limit=request.get("limit", 10_000))]}
    if op == "ingest":
        report = ingest(engine.index, [Path(p) for p in request["paths"]], embed=bool(request.get("embed")))
        return report.counts()
    if op == "coverage":
        engine.index.refresh_if_changed()
        embedded, total = engine.index.dense_coverage()
        return {"embedded": embedded, "total": total}
    raise ValueError(f"unknown op {op!r}")


def main() -> int:
    """``python benchmarks/replica.py [--threads N]``: with N > 1 requests run on N threads at
    once (as Streamlit runs sessions), and replies come in the order they finish: a request's
    ``"id"`` is echoed in its reply."""
    import argparse
    from concurrent.futures import ThreadPoolExecutor
    from threading import Lock

    from core.engine import Engine

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    engine = Engine.open()
    out = Lock()

    def answer(request: dict) -> None:
        try:
            reply = handle(engine, request)
        except Exception as exc:  # noqa: BLE001 - the client counts it as an error
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        if "id" in request:
            reply["id"] = request["id"]
        with out:
            print(json.dumps(reply, ensure_ascii=False), flush=True)

    print(json.dumps({"ready": True}), flush=True)
    with ThreadPoolExecutor(max(1, args.threads)) as pool:
        for line in sys.stdin:
            request = json.loads(line)
            if request.get("op") == "quit":
                break
            if args.threads > 1:
                pool.submit(answer, request)
            else:
                answer(request)
    engine.index.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
