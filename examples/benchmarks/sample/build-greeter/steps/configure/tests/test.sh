#!/bin/bash
source /tests/helpers.sh
: "${EXPECTED_GREETING:?set by [steps.verifier.env]}"
[ -x /app/greet.sh ] || fail "/app/greet.sh is missing or not executable"
[ ! -e /app/setup.sh ] || fail "the step's setup.sh did not run"
[ "$(/app/greet.sh 2>/dev/null)" = "$EXPECTED_GREETING" ] || fail "wrong greeting for config.txt"
# the name is read at run time, not written into the script
cp /app/config.txt /tmp/config.bak
echo "World" > /app/config.txt
got=$(/app/greet.sh 2>/dev/null)
: > /app/config.txt
empty=$(/app/greet.sh 2>/dev/null)
cp /tmp/config.bak /app/config.txt
[ "$got" = "Hello, World!" ] || fail "the name is not read from config.txt"
[ "$empty" = "hello" ] || fail "an empty config.txt does not print hello"
pass
