#!/bin/bash
# Verifier: 1 when /app/token.txt holds the sidecar's token, else 0. The service is asked again
# here, so the token was not guessed from this script.
mkdir -p /logs/verifier
served=""
for _ in $(seq 20); do
  served=$(exec 3<>/dev/tcp/web/8000 && printf 'GET /token HTTP/1.0\r\n\r\n' >&3 && sed '1,/^\r$/d' <&3) 2>/dev/null || true
  [ -n "$served" ] && break
  sleep 1
done
if [ -n "$served" ] && [ -f /app/token.txt ] && [ "$(cat /app/token.txt)" = "$served" ]; then
  echo 1 > /logs/verifier/reward.txt
  echo "PASS"
else
  echo 0 > /logs/verifier/reward.txt
  echo "FAIL (served: ${served:-nothing})"
fi
