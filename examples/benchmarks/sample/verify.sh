#!/bin/bash
# Checks every task of this benchmark by hand with docker: the verifier gives 0 before the
# reference solution and 1 after it. Needs the local base image (scripts/base-image.sh).
set -uo pipefail
cd "$(dirname "$0")"
status=0
for task in */; do
  task=${task%/}
  [ -f "$task/task.toml" ] || continue
  # compose, multi-step and separate-verifier tasks need the platform (test/run-e2e.test.ts)
  if [ -f "$task/environment/docker-compose.yaml" ] || [ -d "$task/steps" ] || [ -f "$task/tests/Dockerfile" ] \
    || grep -q '^user' "$task/task.toml"; then
    echo "$task: skipped (a task shape this script does not run)"; continue
  fi
  image="osmosis-sample-verify/$task:latest"
  docker build -q -t "$image" "$task/environment" > /dev/null || { echo "$task: build failed"; status=1; continue; }
  run() {
    local with_solution=$1
    local cid
    cid=$(docker run -d --network none "$image" sleep 300)
    docker exec "$cid" mkdir -p /tests /solution /logs/verifier
    docker cp "$task/tests/." "$cid:/tests/" > /dev/null
    if [ "$with_solution" = 1 ]; then
      docker cp "$task/solution/." "$cid:/solution/" > /dev/null
      docker exec "$cid" bash /solution/solve.sh > /dev/null 2>&1 || echo "$task: solve.sh exited non-zero" >&2
    fi
    docker exec "$cid" bash /tests/test.sh > /dev/null 2>&1
    docker exec "$cid" cat /logs/verifier/reward.txt 2> /dev/null || echo "missing"
    docker rm -f "$cid" > /dev/null
  }
  without=$(run 0)
  with=$(run 1)
  if [ "$without" = 0 ] && [ "$with" = 1 ]; then
    echo "$task: ok (no solution → $without, solution → $with)"
  else
    echo "$task: FAILED (no solution → $without, solution → $with)"
    status=1
  fi
  docker rmi -f "$image" > /dev/null
done
exit $status
