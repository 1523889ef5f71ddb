#!/bin/sh
# Starts redis-server as the official image does: listening on every address of the container
# (protected mode off: the compose network is its boundary), data in /data, as the redis user.
set -eu
[ "${1:-}" = redis-server ] && shift
mkdir -p /data && chown redis:redis /data
cd /data
exec runuser -u redis -- redis-server --bind '*' --protected-mode no --dir /data "$@"
