"""Make the legacy data folder of ``tests/store/test_kb_migration.py`` with the code of commit
ead6ac5 (before knowledge bases): ``catalog.sqlite3`` (documents, chunks and the hash
embedder's vectors in its cache) and ``records.sqlite3`` (one answered question).

    rm -rf /tmp/old && mkdir /tmp/old && git archive ead6ac5 core | tar -x -C /tmp/old
    PYTHONPATH=/tmp/old python tests/golden/legacy_data/make_fixture.py tests/golden/legacy_data

The Chroma folder is left out on purpose: opening the folder must rebuild the vectors
from the catalog's cache, under the new ids, without embedding anything.
"""

import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

import core
from core.config import Settings
from core.engine import Engine
from core.generators.extractive import ExtractiveGenerator
from core.ingest.run import ingest
from core.records.store import RecordStore
from core.store.embeddings import HashingEmbedder
from core.store.index import KnowledgeIndex

assert "knowledge_bases" not in Path(core.__file__).with_name("models.py").read_text(), "run with the old code"
out = Path(sys.argv[1])
here = Path(__file__).resolve().parent
with tempfile.TemporaryDirectory() as tmp:
    settings = Settings(data_dir=Path(tmp), embedding="hash")
    embedder = HashingEmbedder()
    index = KnowledgeIndex(settings, embedder)
    ingest(index, [here / "docs"], embed=True)
    engine = Engine(
        settings, embedder, index, RecordStore(settings.records_path), {"extractive": ExtractiveGenerator()}
    )
    record = engine.ask("CronJob 的时区默认是什么？")
    assert record.status == "answered", record
    index.close()
    for name in ("catalog.sqlite3", "records.sqlite3"):
        db = sqlite3.connect(Path(tmp) / name)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode=DELETE")
        db.close()
        shutil.copy(Path(tmp) / name, out / name)
    print(record.answer_id, [c.chunk_id for c in record.chunks])
