#!/usr/bin/env bash
# Start (or stop) the servers the server-backend tests use, on free loopback ports:
# a PostgreSQL cluster in a temporary directory and a Chroma server (`chroma run`, from the venv).
#   eval "$(.ci/servers.sh start)"   # prints the exports: CAIM_TEST_DATABASE_URL, CAIM_TEST_CHROMA_URL, ...
#   .ci/servers.sh stop
#   .ci/servers.sh run CMD ARG...    # start, run CMD with the exports, stop; exits with CMD's status
# `start` and `stop` keep what they share in CAIM_SERVERS_STATE (default /tmp/caim-ci-servers); `run`
# uses a directory of its own unless CAIM_SERVERS_STATE is set, and starts nothing when
# CAIM_TEST_DATABASE_URL and CAIM_TEST_CHROMA_URL already name servers.
# PostgreSQL comes from Debian's packages; it is installed here when missing (root, or sudo), and so are
# Chromium and its driver for the browser tests (tests/test_ui_browser.py; `run` and `start` check).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
STATE="${CAIM_SERVERS_STATE:-/tmp/caim-ci-servers}"
OWN_STATE=""  # a state directory `run` made, removed when it stops

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/initdb" ] && { echo "$d"; return; }; done
  return 1
}

APT_UPDATED=""
apt_install() {  # Debian packages, quietly (root, or sudo); the package lists updated once
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ -z "$APT_UPDATED" ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq >&2
    APT_UPDATED=1
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >&2
}

install_postgres() {
  echo "installing PostgreSQL from Debian's packages" >&2
  apt_install postgresql
}

need_chromium() {  # the browser tests drive Debian's Chromium, headless (CAIM_CHROMIUM names another)
  [ -x "${CAIM_CHROMIUM:-/usr/bin/chromium}" ] && command -v chromedriver >/dev/null && return
  echo "installing Chromium and chromium-driver from Debian's packages" >&2
  apt_install chromium chromium-driver
}

start() {
  mkdir -p "$STATE"
  need_chromium
  local bin; bin="$(pg_bin)" || { install_postgres; bin="$(pg_bin)"; }
  local pgport chromaport run_as=()
  pgport="$(free_port)"; chromaport="$(free_port)"
  # the cluster lives in a directory of its own that the server's user can reach (STATE may sit
  # inside a private temporary directory)
  local pgroot; pgroot="$(mktemp -d /tmp/caim-pg.XXXXXX)"
  local pgdata="$pgroot/data"
  if [ "$(id -u)" -eq 0 ]; then  # initdb refuses to run as root
    chown postgres:postgres "$pgroot"
    run_as=(runuser -u postgres --)
  fi
  "${run_as[@]}" "$bin/initdb" -D "$pgdata" -A trust -U caim >/dev/null
  "${run_as[@]}" "$bin/pg_ctl" -D "$pgdata" -w -l "$pgroot/postgres.log" \
    -o "-p $pgport -k $pgroot -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" start >&2
  echo "$pgroot" >"$STATE/pgroot"
  mkdir -p "$STATE/chroma"
  nohup "$ROOT/.venv/bin/chroma" run --path "$STATE/chroma" --host 127.0.0.1 --port "$chromaport" \
    >"$STATE/chroma.log" 2>&1 &
  echo $! >"$STATE/chroma.pid"
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$chromaport/api/v2/heartbeat" >/dev/null && break
    sleep 0.5
  done
  curl -sf "http://127.0.0.1:$chromaport/api/v2/heartbeat" >/dev/null || { cat "$STATE/chroma.log" >&2; exit 1; }
  echo "$bin" >"$STATE/pgbin"
  echo "export CAIM_TEST_DATABASE_URL=postgresql://caim@127.0.0.1:$pgport/postgres"
  echo "export CAIM_TEST_CHROMA_URL=http://127.0.0.1:$chromaport"
}

stop() {
  [ -f "$STATE/chroma.pid" ] && kill "$(cat "$STATE/chroma.pid")" 2>/dev/null || true
  if [ -f "$STATE/pgbin" ]; then
    local run_as=()
    [ "$(id -u)" -eq 0 ] && run_as=(runuser -u postgres --)
    "${run_as[@]}" "$(cat "$STATE/pgbin")/pg_ctl" -D "$(cat "$STATE/pgroot")/data" -m fast stop >&2 || true
    rm -rf "$(cat "$STATE/pgroot")"
  fi
}

finish() {
  stop
  [ -z "$OWN_STATE" ] || rm -rf "$OWN_STATE"
}

run() {
  need_chromium
  if [ -n "${CAIM_TEST_DATABASE_URL:-}" ] && [ -n "${CAIM_TEST_CHROMA_URL:-}" ]; then
    "$@"  # the caller's servers
    return
  fi
  if [ -z "${CAIM_SERVERS_STATE:-}" ]; then
    STATE="$(mktemp -d /tmp/caim-servers.XXXXXX)"
    OWN_STATE="$STATE"
  fi
  trap finish EXIT  # also after a failed start, a failed CMD, or an interrupt (below)
  trap 'exit 130' INT
  trap 'exit 143' TERM
  local exports
  exports="$(start)"  # an assignment, so a failed start stops here (eval would hide it)
  eval "$exports"
  "$@"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  run) shift; [ "$#" -gt 0 ] || { echo "usage: $0 run CMD [ARG...]" >&2; exit 2; }; run "$@" ;;
  *) echo "usage: $0 start|stop|run CMD [ARG...]" >&2; exit 2 ;;
esac
