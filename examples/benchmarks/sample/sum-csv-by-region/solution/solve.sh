#!/bin/bash
set -euo pipefail
python3 - <<'EOF'
import csv
totals = {}  # in cents: no floating point
with open('/app/sales.csv', newline='') as f:
    for row in csv.DictReader(f):
        whole, _, frac = row['amount'].partition('.')
        cents = int(whole) * 100 + int((frac + '00')[:2])
        totals[row['region']] = totals.get(row['region'], 0) + cents
with open('/app/totals.csv', 'w') as out:
    out.write('region,total\n')
    for region in sorted(totals):
        c = totals[region]
        out.write(f'{region},{c // 100}.{c % 100:02d}\n')
EOF
