#!/usr/bin/env bash
# Starts (or stops) what the platform and its tests need, each only when it is not already
# reachable: PostgreSQL 15, Redis 7 (noeviction) and the Docker engine. Data lives under the
# ignored folder .local/. Idempotent: running `start` twice is harmless.
#
#   scripts/services.sh start|stop|status
#
# Ports (loopback only) can be changed with OSMOSIS_PG_PORT and OSMOSIS_REDIS_PORT.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LOCAL="$ROOT/.local"
PG_PORT="${OSMOSIS_PG_PORT:-54329}"
REDIS_PORT="${OSMOSIS_REDIS_PORT:-63799}"
PG_BIN=/usr/lib/postgresql/15/bin
LOGS="$LOCAL/logs"
mkdir -p "$LOGS"
PG_DATA="$LOCAL/pg"
PG_LOG="$LOGS/postgres.log"

# The server runs as the `postgres` user, which must reach its data folder. A checkout under a
# folder closed to other users (say /root) keeps its data outside it, one folder per checkout.
choose_pg_paths() {
  if id postgres >/dev/null 2>&1 && ! runuser -u postgres -- test -x "$LOCAL" 2>/dev/null; then
    local home
    home="/var/lib/postgresql/osmosis-$(echo "$ROOT" | sha256sum | cut -c1-12)"
    mkdir -p "$home" && chown postgres:postgres "$home"
    PG_DATA="$home/pg"
    PG_LOG="$home/postgres.log"
  fi
}

log() { echo "[services] $*" >&2; }

apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then log "missing packages ${missing[*]}: install them as root"; exit 1; fi
  log "installing ${missing[*]}"
  if [ ! -f "$LOCAL/.apt-updated" ]; then apt-get update -qq >"$LOGS/apt.log" 2>&1 && touch "$LOCAL/.apt-updated"; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$LOGS/apt.log" 2>&1 \
    || { log "apt-get install failed; see $LOGS/apt.log"; exit 1; }
}

pg_ready() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" 2>/dev/null; }
redis_ready() { [ "$(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }
docker_ready() { curl -fsS --max-time 2 --unix-socket /var/run/docker.sock http://localhost/_ping >/dev/null 2>&1; }

start_postgres() {
  [ -x "$PG_BIN/pg_ctl" ] || apt_install postgresql-15
  choose_pg_paths
  cd / # the postgres user may not be allowed into the caller's folder; every path here is absolute
  if pg_ready; then log "postgres already up on 127.0.0.1:$PG_PORT"; return; fi
  if [ ! -f "$PG_DATA/PG_VERSION" ]; then
    mkdir -p "$PG_DATA" && chown postgres:postgres "$PG_DATA" && chmod 700 "$PG_DATA"
    runuser -u postgres -- "$PG_BIN/initdb" --no-sync -D "$PG_DATA" -U postgres --auth=trust -E UTF8 >"$LOGS/initdb.log" 2>&1
  fi
  rm -f "$PG_DATA/postmaster.pid.stale"
  # A postmaster.pid left by a killed server blocks start-up only while that process lives.
  if [ -f "$PG_DATA/postmaster.pid" ] && ! kill -0 "$(head -n1 "$PG_DATA/postmaster.pid")" 2>/dev/null; then
    rm -f "$PG_DATA/postmaster.pid"
  fi
  touch "$PG_LOG" && chown postgres:postgres "$PG_LOG"
  runuser -u postgres -- "$PG_BIN/pg_ctl" start -w -D "$PG_DATA" -l "$PG_LOG" \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories=/tmp -c fsync=off -c max_connections=400" >/dev/null
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname='osmosis'" | grep -q 1 \
    || psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "CREATE ROLE osmosis LOGIN SUPERUSER PASSWORD 'osmosis'"
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='osmosis'" | grep -q 1 \
    || psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -qc "CREATE DATABASE osmosis OWNER osmosis"
  log "postgres up on 127.0.0.1:$PG_PORT"
}

start_redis() {
  command -v redis-server >/dev/null || apt_install redis-server
  if redis_ready; then log "redis already up on 127.0.0.1:$REDIS_PORT"; return; fi
  mkdir -p "$LOCAL/redis"
  # a Unix socket too (bench/dispatch-scale.ts --sockets), where its path fits a socket address
  local socket=("--unixsocket" "$LOCAL/redis/redis.sock" "--unixsocketperm" "700")
  [ "${#LOCAL}" -le 80 ] || socket=()
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes "${socket[@]}" \
    --maxmemory-policy noeviction --dir "$LOCAL/redis" --pidfile "$LOCAL/redis/redis.pid" --logfile "$LOGS/redis.log"
  for _ in $(seq 1 50); do redis_ready && break; sleep 0.1; done
  redis_ready || { log "redis did not start; see $LOGS/redis.log"; exit 1; }
  log "redis up on 127.0.0.1:$REDIS_PORT"
}

start_docker() {
  command -v dockerd >/dev/null || apt_install docker.io
  # compose tasks (environment/docker-compose.yaml) are started by Debian's docker-compose
  command -v docker-compose >/dev/null || apt_install docker-compose
  command -v curl >/dev/null || apt_install curl
  if docker_ready; then log "docker engine already up"; return; fi
  # A killed dockerd leaves its pid file behind and a new one then refuses to start.
  if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then rm -f /var/run/docker.pid; fi
  if [ -f /var/run/docker/containerd/containerd.pid ] && ! kill -0 "$(cat /var/run/docker/containerd/containerd.pid)" 2>/dev/null; then
    rm -f /var/run/docker/containerd/containerd.pid
  fi
  nohup dockerd >"$LOGS/dockerd.log" 2>&1 &
  for _ in $(seq 1 100); do docker_ready && break; sleep 0.2; done
  docker_ready || { log "dockerd did not start; see $LOGS/dockerd.log"; exit 1; }
  log "docker engine up"
}

stop_all() {
  choose_pg_paths
  if [ -f "$PG_DATA/PG_VERSION" ] && pg_ready; then
    runuser -u postgres -- "$PG_BIN/pg_ctl" stop -m fast -D "$PG_DATA" >/dev/null && log "postgres stopped"
  fi
  if redis_ready; then redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true; log "redis stopped"; fi
  # dockerd is shared with the rest of the machine: it is left running on purpose.
}

case "${1:-start}" in
  start) start_postgres; start_redis; start_docker ;;
  stop) stop_all ;;
  status)
    pg_ready && echo "postgres: up (127.0.0.1:$PG_PORT)" || echo "postgres: down"
    redis_ready && echo "redis: up (127.0.0.1:$REDIS_PORT)" || echo "redis: down"
    docker_ready && echo "docker: up" || echo "docker: down" ;;
  *) echo "usage: scripts/services.sh start|stop|status" >&2; exit 2 ;;
esac
