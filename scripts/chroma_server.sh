#!/usr/bin/env bash
# Start or stop a throwaway Chroma server on 127.0.0.1 for the server-mode tests.
#
#   scripts/chroma_server.sh start [STATE_DIR]   # prints the port; state (pid, port, data) in STATE_DIR
#   scripts/chroma_server.sh stop  [STATE_DIR]
#
# STATE_DIR defaults to ${TMPDIR:-/tmp}/yinzheng-chroma. The data path is a fresh
# temporary folder inside it, deleted on stop. Uses .venv/bin/chroma (chromadb's CLI).
set -euo pipefail
cd "$(dirname "$0")/.."
cmd="${1:-}"
state="${2:-${TMPDIR:-/tmp}/yinzheng-chroma}"
chroma="${CHROMA_BIN:-.venv/bin/chroma}"
py="${PYTHON:-.venv/bin/python}"

case "$cmd" in
  start)
    if [ -f "$state/pid" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null; then
      cat "$state/port"; exit 0
    fi
    mkdir -p "$state"
    rm -rf "$state/data"
    port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    CHROMA_SERVER_NOFILE=4096 ANONYMIZED_TELEMETRY=False \
      setsid "$chroma" run --path "$state/data" --host 127.0.0.1 --port "$port" >"$state/log" 2>&1 < /dev/null &
    echo $! >"$state/pid"
    echo "$port" >"$state/port"
    for _ in $(seq 1 120); do
      if "$py" - "$port" <<'PY' 2>/dev/null; then
import sys, urllib.request
urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/v2/heartbeat", timeout=1).read()
PY
        echo "$port"; exit 0
      fi
      if ! kill -0 "$(cat "$state/pid")" 2>/dev/null; then
        echo "chroma server exited; log:" >&2; cat "$state/log" >&2; exit 1
      fi
      sleep 0.5
    done
    echo "chroma server did not answer its heartbeat within 60 s; log:" >&2; cat "$state/log" >&2
    kill "$(cat "$state/pid")" 2>/dev/null || true
    exit 1
    ;;
  stop)
    if [ -f "$state/pid" ]; then
      pid="$(cat "$state/pid")"
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -9 "$pid" 2>/dev/null || true
    fi
    rm -rf "$state"
    ;;
  *)
    echo "usage: $0 start|stop [STATE_DIR]" >&2; exit 2 ;;
esac
