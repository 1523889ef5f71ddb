#!/bin/bash
# Runs in /app before this step's agent: trims the name in config.txt, then removes itself.
set -euo pipefail
if [ -f /app/config.txt ]; then
  name=$(tr -d '[:space:]' < /app/config.txt)
  printf '%s\n' "$name" > /app/config.txt
fi
rm -- "$0"
