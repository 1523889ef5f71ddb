#!/bin/bash
# Runs in the separate verifier environment. 1 when both handed-in files are right and nothing
# else of the agent's environment is visible; 0 otherwise.
mkdir -p /logs/verifier
reward=1
fail() { echo "FAIL: $*"; reward=0; }
[ "$(cat /environment-marker 2>/dev/null)" = verifier-environment ] || fail "not in the verifier's environment"
[ "$(cat /logs/artifacts/count.txt 2>/dev/null)" = 4 ] || fail "count.txt is not 4"
[ "$(cat /tmp/report.txt 2>/dev/null)" = "items: 4" ] || fail "report.txt is not 'items: 4'"
[ ! -e /tmp/agent-only.txt ] || fail "the agent's scratch file is visible"
[ ! -e /app/inventory.txt ] || fail "the agent's filesystem is visible"
[ "$reward" = 1 ] && echo PASS
echo "$reward" > /logs/verifier/reward.txt
