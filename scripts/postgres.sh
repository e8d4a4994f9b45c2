#!/usr/bin/env bash
# Start or stop a throwaway PostgreSQL cluster on 127.0.0.1 for the database-URL tests (issue 17).
#
#   scripts/postgres.sh start [STATE_DIR]   # prints the URL (postgresql+psycopg://…); cluster in STATE_DIR
#   scripts/postgres.sh stop  [STATE_DIR]   # stops it and deletes STATE_DIR
#
# STATE_DIR defaults to ${TMPDIR:-/tmp}/yinzheng-postgres. Uses initdb/pg_ctl from PG_BIN when
# set, else from PATH, else from the newest /usr/lib/postgresql/*/bin (where Debian's
# `postgresql` package puts them, off PATH). The cluster trusts local connections (no password),
# listens on 127.0.0.1 only (a free port) and uses the C locale, UTF-8. PostgreSQL refuses to
# run as root: as root the cluster is owned by and run as PG_USER (default: postgres).
# Typical use: export YINZHENG_TEST_DATABASE_URL="$(scripts/postgres.sh start /tmp/yz-pg)"
set -euo pipefail
cd "$(dirname "$0")/.."
cmd="${1:-}"
state="${2:-${TMPDIR:-/tmp}/yinzheng-postgres}"
py="${PYTHON:-.venv/bin/python}"
bin="${PG_BIN:+$PG_BIN/}"
if [ -z "$bin" ] && ! command -v initdb >/dev/null 2>&1; then
  found="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$found" ] && [ "$cmd" = start ]; then
    echo "PostgreSQL's initdb not found (PATH, PG_BIN, /usr/lib/postgresql/*/bin): apt-get install postgresql" >&2
    exit 1
  fi
  bin="${found:+$found/}"
fi
as_owner=()
if [ "$(id -u)" = 0 ]; then as_owner=(runuser -u "${PG_USER:-postgres}" --); fi
db=yinzheng

url() { echo "postgresql+psycopg://$db@127.0.0.1:$(cat "$state/port")/$db"; }

case "$cmd" in
  start)
    if [ -f "$state/port" ] && "${as_owner[@]}" "${bin}pg_ctl" -D "$state/data" status >/dev/null 2>&1; then
      url; exit 0
    fi
    mkdir -p "$state"
    rm -rf "$state/data"
    if [ "${#as_owner[@]}" -gt 0 ]; then chown "${PG_USER:-postgres}" "$state"; fi
    port="$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')"
    echo "$port" >"$state/port"
    "${as_owner[@]}" "${bin}initdb" -D "$state/data" -U "$db" --auth=trust --locale=C -E UTF8 >"$state/initdb.log" 2>&1 \
      || { echo "initdb failed; log:" >&2; cat "$state/initdb.log" >&2; exit 1; }
    # -k: the socket goes in the state folder (not /var/run/postgresql, which may not exist).
    if ! "${as_owner[@]}" "${bin}pg_ctl" -D "$state/data" -l "$state/data/log" -w -t 60 \
        -o "-h 127.0.0.1 -p $port -k $state -c fsync=off" start >/dev/null; then
      echo "postgres did not start; log:" >&2; cat "$state/data/log" >&2; exit 1
    fi
    # The cluster's superuser is "$db"; its own database "$db" is made here.
    "$py" - "$port" "$db" <<'PY' >&2 || { echo "cannot create database" >&2; exit 1; }
import sys
import psycopg
port, name = sys.argv[1], sys.argv[2]
with psycopg.connect(host="127.0.0.1", port=port, user=name, dbname="postgres", autocommit=True) as conn:
    conn.execute(f'CREATE DATABASE "{name}"')
PY
    url
    ;;
  stop)
    if [ -d "$state/data" ]; then
      "${as_owner[@]}" "${bin}pg_ctl" -D "$state/data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$state"
    ;;
  *)
    echo "usage: $0 start|stop [STATE_DIR]" >&2; exit 2 ;;
esac
