"""``scripts/replicas.sh`` (issue 17) starts the 2-replica setup (PostgreSQL, Chroma server, two
Streamlit apps on two ports, one ``embed-worker --follow``) and stops all of it. Runs with the
server tests (``YINZHENG_TEST_DATABASE_URL`` set, as in ``.ci/run``; the script starts its own
cluster) where PostgreSQL's ``initdb`` is installed."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT, TEST_DATABASE_URL, make_settings

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not TEST_DATABASE_URL, reason="a server test: set YINZHENG_TEST_DATABASE_URL (.ci/run does)"),
    pytest.mark.skipif(
        shutil.which("initdb") is None and not glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        reason="PostgreSQL's initdb is not installed",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_replicas_script_starts_two_apps_sharing_one_knowledge_base_and_stops_everything(tmp_path) -> None:
    from core.store.embeddings import HashingEmbedder
    from core.store.index import KnowledgeIndex

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for n in range(3):
        (corpus / f"d{n}.md").write_text(
            f"# 文档 {n}\n\n## 节\n\n第 {n} 篇文档：副本共享一个知识库。\n", encoding="utf-8"
        )
    state = Path(tempfile.mkdtemp(prefix="yz-replicas-test-"))  # in /tmp: reachable by the postgres user when root
    ports = [_free_port(), _free_port()]
    env = {
        **os.environ,
        "YINZHENG_CORPUS": str(corpus),
        "YINZHENG_EMBEDDING": "hash",
        "APP_PORTS": " ".join(map(str, ports)),
    }
    for name in ("YINZHENG_DATABASE_URL", "CHROMA_HOST", "CHROMA_PORT"):
        env.pop(name, None)

    def script(command: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(ROOT / "scripts" / "replicas.sh"), command, str(state)],
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
        )

    pids: list[int] = []
    try:
        started = script("start")
        assert started.returncode == 0, started.stderr
        assert started.stdout.split() == [f"http://127.0.0.1:{p}" for p in ports]
        pids = [int((state / f"{name}.pid").read_text()) for name in ("app1", "app2", "worker")]
        for url in started.stdout.split():
            assert urllib.request.urlopen(f"{url}/_stcore/health", timeout=5).read() == b"ok"
        url = subprocess.run(
            [str(ROOT / "scripts" / "postgres.sh"), "start", str(state / "postgres")],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()  # running: its URL
        settings = make_settings(
            tmp_path / "check",
            embedding="hash",
            database_url=url,
            chroma_host="127.0.0.1",
            chroma_port=int((state / "chroma" / "port").read_text()),
        )
        index = KnowledgeIndex(settings, HashingEmbedder())
        deadline = time.monotonic() + 60
        while index.dense_coverage() != (3, 3) and time.monotonic() < deadline:  # the workers fill the server
            time.sleep(1)
            index.refresh_if_changed()
        assert index.dense_coverage() == (3, 3)
        index.close()
    finally:
        stopped = script("stop")
    assert stopped.returncode == 0 and not state.exists()
    time.sleep(1)
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
