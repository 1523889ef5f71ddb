#!/bin/bash
set -euo pipefail
id -un > /app/whoami.txt
id -u > /app/uid.txt
