#!/bin/bash
set -euo pipefail
printf 'Hello, Osmosis!\n' > /app/greeting.txt
