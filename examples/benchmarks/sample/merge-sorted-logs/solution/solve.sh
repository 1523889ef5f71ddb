#!/bin/bash
set -euo pipefail
python3 - <<'EOF'
import datetime
import os
import re

entries = []
UTC = datetime.timezone.utc
for name in sorted(os.listdir('/app/logs')):
    if not name.endswith('.log'):
        continue
    source = name[:-4]
    with open(os.path.join('/app/logs', name)) as f:
        for index, line in enumerate(f.read().splitlines()):
            if not line.strip():
                continue
            m = re.match(r'^\[(\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4})\] (.*)$', line)
            if m:
                t = datetime.datetime.strptime(m.group(1), '%d/%b/%Y:%H:%M:%S %z')
                msg = m.group(2)
            elif (m := re.match(r'^(\d+) \| (.*)$', line)):
                t = datetime.datetime.fromtimestamp(int(m.group(1)), UTC)
                msg = m.group(2)
            else:
                stamp, msg = line.split(' ', 1)
                t = datetime.datetime.fromisoformat(stamp)
            entries.append((t.astimezone(UTC), source, index, msg))
entries.sort(key=lambda e: (e[0], e[1], e[2]))
with open('/app/merged.log', 'w') as out:
    for t, source, _, msg in entries:
        out.write(f"{t.strftime('%Y-%m-%dT%H:%M:%SZ')} {source} {msg}\n")
EOF
