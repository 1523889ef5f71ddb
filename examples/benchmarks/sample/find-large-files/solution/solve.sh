#!/bin/bash
set -euo pipefail
find /srv/data -type f -size +102400c -printf '%s\t%p\n' | sort -t$'\t' -k1,1nr | cut -f2- > /app/large_files.txt
