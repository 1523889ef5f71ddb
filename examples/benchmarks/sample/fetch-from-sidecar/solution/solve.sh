#!/bin/bash
set -uo pipefail
# bash's /dev/tcp: open a connection to web:8000, send the request, keep the body after the headers.
# Each try runs in a subshell: on a loaded host the sidecar's name or socket may answer a moment
# late, or reset a connection (a write to it is then a SIGPIPE, which would end this script, not
# only the try). Tried for up to 30 s.
for try in $(seq 30); do
  body=$(
    exec 3<>/dev/tcp/web/8000 || exit 1
    printf 'GET /token HTTP/1.0\r\nHost: web\r\n\r\n' >&3 || exit 1
    sed '1,/^\r$/d' <&3
  )
  status=$?
  if [ "$status" -eq 0 ] && [ -n "$body" ]; then
    printf '%s\n' "$body" > /app/token.txt
    exit 0
  fi
  echo "try $try: web:8000 gave no token (exit $status); trying again" >&2
  sleep 1
done
echo "web:8000 did not answer" >&2
exit 1
