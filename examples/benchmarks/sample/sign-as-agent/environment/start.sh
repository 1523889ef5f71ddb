#!/bin/sh
# Becomes ready a moment after start (what [environment.healthcheck] waits for), then runs the
# container's command.
(sleep 2 && touch /run/osmosis-ready) &
exec "$@"
