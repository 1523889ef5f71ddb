#!/bin/bash
# 1 when the files were written by the unprivileged user `agent` (not root), else 0.
mkdir -p /logs/verifier
reward=1
fail() { echo "FAIL: $*"; reward=0; }
[ -f /run/osmosis-ready ] || fail "the environment never became ready"
[ "$(cat /app/whoami.txt 2>/dev/null)" = agent ] || fail "whoami.txt is not 'agent'"
[ "$(cat /app/uid.txt 2>/dev/null)" = "$(id -u agent)" ] || fail "uid.txt is not agent's uid"
[ "$(stat -c %U /app/whoami.txt 2>/dev/null)" = agent ] || fail "whoami.txt is not owned by agent"
[ "$reward" = 1 ] && echo PASS
echo "$reward" > /logs/verifier/reward.txt
