#!/bin/bash
set -euo pipefail
cat > /app/rle.py <<'EOF'
import sys


def encode(data: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(data):
        value = data[i]
        run = 1
        while i + run < len(data) and data[i + run] == value and run < 255:
            run += 1
        out += bytes((run, value))
        i += run
    return bytes(out)


def decode(data: bytes) -> bytes:
    if len(data) % 2:
        raise ValueError('odd length')
    out = bytearray()
    for i in range(0, len(data), 2):
        count, value = data[i], data[i + 1]
        if count == 0:
            raise ValueError(f'count 0 at offset {i}')
        out += bytes((value,)) * count
    return bytes(out)


def main() -> int:
    if len(sys.argv) != 2 or sys.argv[1] not in ('encode', 'decode'):
        print('usage: rle.py encode|decode', file=sys.stderr)
        return 2
    data = sys.stdin.buffer.read()
    try:
        result = encode(data) if sys.argv[1] == 'encode' else decode(data)
    except ValueError as error:
        print(f'rle.py: invalid input: {error}', file=sys.stderr)
        return 1
    sys.stdout.buffer.write(result)
    return 0


if __name__ == '__main__':
    sys.exit(main())
EOF
