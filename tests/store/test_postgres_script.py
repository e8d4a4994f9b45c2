"""``scripts/postgres.sh`` (issue 17) starts a throwaway PostgreSQL on 127.0.0.1, prints a URL
the stores open, is idempotent while running, and removes everything on stop. Skipped
where PostgreSQL's ``initdb`` is not installed."""

from __future__ import annotations

import glob
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from core.records.store import RecordStore

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "postgres.sh"


@pytest.mark.slow  # initdb and a server start: a few seconds
@pytest.mark.skipif(
    shutil.which("initdb") is None and not glob.glob("/usr/lib/postgresql/*/bin/initdb"),
    reason="PostgreSQL's initdb is not installed (neither on PATH nor in /usr/lib/postgresql/*/bin)",
)
def test_the_script_starts_a_cluster_the_stores_open_and_stop_removes_it() -> None:
    state = Path(tempfile.mkdtemp(prefix="yz-pg-test-"))  # in /tmp: reachable by the postgres user when root

    def run(command: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(SCRIPT), command, str(state)], capture_output=True, text=True, timeout=120)

    try:
        started = run("start")
        assert started.returncode == 0, started.stderr
        url = started.stdout.strip()
        assert url.startswith("postgresql+psycopg://") and "@127.0.0.1:" in url
        assert run("start").stdout.strip() == url  # already running: the same URL
        store = RecordStore(url)
        assert store.list() == []
        store.close()
    finally:
        stopped = run("stop")
    assert stopped.returncode == 0 and not state.exists()
