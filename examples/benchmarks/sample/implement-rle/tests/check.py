import os
import random
import subprocess
import sys

RLE = '/app/rle.py'


def run(mode, data):
    return subprocess.run([sys.executable, RLE, *mode], input=data, capture_output=True, timeout=20)


def reference(data):
    out = bytearray()
    i = 0
    while i < len(data):
        run_len = 1
        while i + run_len < len(data) and data[i + run_len] == data[i] and run_len < 255:
            run_len += 1
        out += bytes((run_len, data[i]))
        i += run_len
    return bytes(out)


def check(condition, message):
    if not condition:
        print('check failed:', message)
        sys.exit(1)


check(os.path.exists(RLE), 'missing /app/rle.py')
examples = [b'', b'aaab', bytes(300), b'\xff' * 255, b'\xff' * 256, b'abc', b'\n\n\n\x00\x00']
rng = random.Random(20260301)
for _ in range(25):
    n = rng.randint(0, 3000)
    chunks = []
    while sum(map(len, chunks)) < n:
        chunks.append(bytes((rng.randrange(4),)) * rng.randint(1, 700))
    examples.append(b''.join(chunks)[:n])
examples.append(bytes(rng.randrange(256) for _ in range(2000)))
for data in examples:
    enc = run(['encode'], data)
    check(enc.returncode == 0, f'encode exit {enc.returncode}')
    check(enc.stdout == reference(data), f'encode of {len(data)} bytes differs from the format')
    dec = run(['decode'], enc.stdout)
    check(dec.returncode == 0 and dec.stdout == data, f'round trip of {len(data)} bytes')
for bad in [b'\x01', b'\x00a', b'\x02a\x00b', b'\x03']:
    res = run(['decode'], bad)
    check(res.returncode == 1, f'invalid input {bad!r}: exit {res.returncode}, want 1')
    check(res.stdout == b'' and res.stderr.strip() != b'', f'invalid input {bad!r}: stdout/stderr')
for args in [[], ['compress'], ['encode', 'extra']]:
    check(run(args, b'').returncode == 2, f'usage {args}: want exit 2')
print('all checks passed')
