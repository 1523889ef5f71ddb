#!/bin/bash
# Verifier: writes 1 (pass) or 0 (fail) to /logs/verifier/reward.txt.
TESTS_DIR="$(cd "$(dirname "$0")" && pwd)"

mkdir -p /logs/verifier
if bash "$TESTS_DIR/check.sh"; then
  echo 1 > /logs/verifier/reward.txt
  echo "PASS"
else
  echo 0 > /logs/verifier/reward.txt
  echo "FAIL"
fi
