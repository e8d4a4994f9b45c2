"""The vector store opens on first use (issue 18: importing chromadb and opening its folder
take 1–3 s of a first start, and the first answer on a fresh data folder is keyword-only)."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    from core.config import Settings
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex
    from core.ingest.run import ingest
    from core.retrieval.hybrid import HybridRetriever

    data, docs, embed = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "embed"
    index = KnowledgeIndex(Settings(data_dir=data), HashingEmbedder())
    seen = {"after_open": "chromadb" in sys.modules}
    if not index.active_chunks():
        ingest(index, [docs], embed=embed)
    seen["after_ingest"] = "chromadb" in sys.modules
    result = HybridRetriever(index, top_k=3).retrieve("Deployment 的副本")
    seen["mode"] = result.config.get("retrieval_mode")
    seen["hits"] = len(result.chunks)
    seen["after_question"] = "chromadb" in sys.modules
    print(json.dumps(seen))
    """
)


def _run(data: Path, docs: Path, embed: bool) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(data), str(docs), "embed" if embed else "keyword"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_fresh_folder_answers_by_keyword_without_opening_chroma(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Deployment\n\nDeployment 管理无状态应用的副本数量。\n", encoding="utf-8")
    first = _run(tmp_path / "data", docs, embed=False)
    assert first["hits"] >= 1 and first["mode"] == "keyword"
    assert not first["after_open"] and not first["after_ingest"] and not first["after_question"]
    assert not (tmp_path / "data" / "chroma").exists()


def test_a_built_folder_opens_chroma_only_when_a_question_needs_vectors(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Deployment\n\nDeployment 管理无状态应用的副本数量。\n", encoding="utf-8")
    built = _run(tmp_path / "data", docs, embed=True)
    assert built["after_ingest"]  # writing vectors opened it
    again = _run(tmp_path / "data", docs, embed=False)
    assert not again["after_open"]  # the model check came from the catalog's record
    assert again["after_question"] and again["hits"] >= 1  # the vectors were read
