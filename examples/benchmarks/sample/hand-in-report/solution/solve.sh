#!/bin/bash
set -euo pipefail
n=$(grep -c '^item:' /app/inventory.txt)
mkdir -p /logs/artifacts
echo "$n" > /logs/artifacts/count.txt
echo "items: $n" > /tmp/report.txt
# scratch that stays in the agent's environment: the verifier must not see it
echo "scratch" > /tmp/agent-only.txt
