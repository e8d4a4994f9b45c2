"""How fast a PDF citation's page opens (issue 29): ingest a built PDF, then time the snapshot body of
one cited chunk (page render → PNG → data URI with the quote's boxes), cold and warm (page cache).

    python benchmarks/pdf_page.py [--pages 50] [--repeat 20]

Prints one line per measure (milliseconds, median of ``--repeat``). Uses fpdf2 and a CJK font from
fontconfig (``tests.pdf_fixtures``); scratch data lives in a temporary folder.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from components import pdf_view  # noqa: E402
from core.config import Settings  # noqa: E402
from core.ingest.run import ingest  # noqa: E402
from core.models import ChunkSnapshot, RetrievedChunk  # noqa: E402
from core.store.embeddings import HashingEmbedder  # noqa: E402
from core.store.index import KnowledgeIndex  # noqa: E402
from tests.pdf_fixtures import PLAIN_SENTENCE, plain_pdf  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=50, help="pages of the PDF ingested for the ingest timing")
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pdf-bench-") as tmp:
        root = Path(tmp)
        docs = root / "docs"
        docs.mkdir()
        body = (PLAIN_SENTENCE + "本规定适用于所有测试设备，借用前请先登记。") * 30
        (docs / "one.pdf").write_bytes(plain_pdf(body))
        (docs / "many.pdf").write_bytes(plain_pdf(body, pages=args.pages))
        index = KnowledgeIndex(Settings(data_dir=root / "data"), HashingEmbedder())
        t = time.perf_counter()
        report = ingest(index, [docs], embed=False)
        ingest_s = time.perf_counter() - t
        assert not report.failures, report.failures
        chunk = next(c for c in index.active_chunks().values() if c.source_id == "one.pdf")
        snap = ChunkSnapshot.from_retrieved(RetrievedChunk(chunk=chunk, rank=1))
        span = (0, len(PLAIN_SENTENCE))
        pdf_view.use_data_dir(index.settings.data_dir)
        t = time.perf_counter()
        pdf_view.page_html(snap, span)
        cold = (time.perf_counter() - t) * 1000
        warm = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            out = pdf_view.page_html(snap, span)
            warm.append((time.perf_counter() - t) * 1000)
        print(
            f"pdf page open, 1 page: cold {cold:.0f} ms (render + PNG), warm {statistics.median(warm):.1f} ms "
            f"(page cache), {len(out) // 1024} KiB HTML"
        )
        print(
            f"pdf ingest: {1 + args.pages} pages in {ingest_s:.2f} s ({ingest_s / (1 + args.pages) * 1000:.0f} ms/page, "
            "text + character boxes + chunking)"
        )


if __name__ == "__main__":
    main()
