#!/bin/bash
# Verifier: writes 1 (pass) or 0 (fail) to /logs/verifier/reward.txt.
TESTS_DIR="$(cd "$(dirname "$0")" && pwd)"

mkdir -p /logs/verifier
if cmp -s /app/totals.csv "$TESTS_DIR/expected_totals.csv"; then
  echo 1 > /logs/verifier/reward.txt
  echo "PASS"
else
  echo 0 > /logs/verifier/reward.txt
  echo "FAIL"
fi
