#!/bin/bash
source /tests/helpers.sh
[ -x /app/greet.sh ] || fail "/app/greet.sh is missing or not executable"
[ "$(/app/greet.sh 2>/dev/null)" = "hello" ] || fail "greet.sh does not print hello"
pass
