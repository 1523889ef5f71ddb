#!/usr/bin/env bash
# Quick start: installs what is needed, brings the platform up (PostgreSQL, Redis, Docker,
# API, worker), creates the first workspace and an API token, logs the CLI in, adds the
# bundled sample benchmark and runs it end to end with the `oracle` harness, then prints the
# run's results. Safe to run again: what exists is reused. A restarted API or worker starts a new
# log; the previous ones are kept as .local/logs/<name>.log.1 … .5.
#
#   scripts/up.sh          # up + sample run
#   scripts/up.sh stop     # stop API and worker (services stay; scripts/services.sh stop for those)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd)
RUNDIR="$ROOT/.local/run"
LOGS="$ROOT/.local/logs"
mkdir -p "$RUNDIR" "$LOGS"
log() { echo "[up] $*" >&2; }

stop_process() {
  local name=$1 pidfile="$RUNDIR/$1.pid"
  if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
    kill -TERM "$(cat "$pidfile")" && log "$name stopping"
    for _ in $(seq 1 100); do kill -0 "$(cat "$pidfile")" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$pidfile"
}
if [ "${1:-}" = stop ]; then stop_process worker; stop_process api; exit 0; fi

OSMOSIS_SETUP_BROWSER=0 scripts/setup.sh
source scripts/env.sh

# Platform configuration, kept in the ignored .local/ folder.
[ -f .local/secret-keys ] || { echo "k1:$(head -c 32 /dev/urandom | base64)" > .local/secret-keys; chmod 600 .local/secret-keys; }
export DATABASE_URL="${DATABASE_URL:-postgresql://osmosis:osmosis@127.0.0.1:54329/osmosis}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:63799}"
export OSMOSIS_SECRET_KEYS="${OSMOSIS_SECRET_KEYS:-$(cat .local/secret-keys)}"
export OSMOSIS_DATA_DIR="${OSMOSIS_DATA_DIR:-$ROOT/.local/data}"
export OSMOSIS_API_PORT="${OSMOSIS_API_PORT:-8787}"
export OSMOSIS_PUBLIC_URL="${OSMOSIS_PUBLIC_URL:-http://127.0.0.1:$OSMOSIS_API_PORT}"
export OSMOSIS_PLATFORM_URL="$OSMOSIS_PUBLIC_URL"
export OSMOSIS_CONFIG_DIR="${OSMOSIS_CONFIG_DIR:-$ROOT/.local/cli}"

# Keeps the logs of earlier starts: name.log → name.log.1 → … → name.log.5 (the oldest dropped),
# so a restart after a crash does not wipe the dead process's last lines.
rotate_log() {
  local file="$LOGS/$1.log" i
  [ -s "$file" ] || return 0
  for i in 4 3 2 1; do [ -f "$file.$i" ] && mv -f "$file.$i" "$file.$((i + 1))"; done
  mv -f "$file" "$file.1"
}

start_process() { # name, health check command, command...
  local name=$1 check=$2; shift 2
  if [ -f "$RUNDIR/$name.pid" ] && kill -0 "$(cat "$RUNDIR/$name.pid")" 2>/dev/null; then
    log "$name already running (pid $(cat "$RUNDIR/$name.pid"))"; return
  fi
  rotate_log "$name"
  nohup "$@" >"$LOGS/$name.log" 2>&1 &
  echo $! > "$RUNDIR/$name.pid"
  for _ in $(seq 1 300); do
    if eval "$check"; then log "$name up (pid $(cat "$RUNDIR/$name.pid"), log .local/logs/$name.log)"; return; fi
    kill -0 "$(cat "$RUNDIR/$name.pid")" 2>/dev/null || break
    sleep 0.2
  done
  tail -n 30 "$LOGS/$name.log" >&2; log "$name did not start"; exit 1
}

# The API applies pending migrations at start-up.
start_process api "curl -fsS $OSMOSIS_PUBLIC_URL/readyz >/dev/null 2>&1" node apps/api/src/main.ts
start_process worker "grep -q 'worker ready' $LOGS/worker.log 2>/dev/null" node apps/worker/src/main.ts

# First workspace, owner and token (idempotent: the token file is reused).
node apps/api/src/bootstrap.ts --workspace default --email owner@localhost --token-file .local/owner-token >/dev/null
OSMOSIS_TOKEN_VALUE=$(cat .local/owner-token)
printf '%s' "$OSMOSIS_TOKEN_VALUE" | bin/osmosis auth login --token >/dev/null
bin/osmosis auth whoami

# The bundled sample benchmark, added once, then a run of it with the oracle harness.
if ! bin/osmosis benchmark info sample --json >/dev/null 2>&1; then
  bin/osmosis benchmark add examples/benchmarks/sample --key sample --name "Osmosis Sample" --wait
fi
bin/osmosis benchmark list
bin/osmosis benchmark submit configs/benchmark/sample-oracle.toml --yes --follow
