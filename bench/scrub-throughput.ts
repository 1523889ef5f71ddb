// Throughput of the secret scrubber (packages/core/src/scrub) over attempt output: MB/s of
// scrubber.text, scrubber.bytes and a streaming scrubber fed 64 KiB chunks, for 1 and 20 secret
// values, against a baseline measured in the same run: one Buffer.indexOf scan for the raw value
// alone over the same bytes (the least any scrubber must do). The output is terminal-like text
// with a few secrets in it, some escaped.
//   node bench/scrub-throughput.ts [megabytes]      (default 16)
import { randomBytes } from 'node:crypto';
import { createScrubber } from '@osmosis/core';

const megabytes = Number(process.argv[2] ?? 16);

function output(secrets: string[], bytes: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line =
      i % 997 === 0
        ? `export KEY=${secrets[i % secrets.length]} # ${encodeURIComponent(secrets[0]!)}`
        : `[${i}] step ${i % 13}: ${randomBytes(24).toString('base64')} ok=${i % 5 === 0} path=/app/src/mod_${i % 71}.py`;
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

function time(label: string, bytes: number, fn: () => unknown, baselineMs?: number): number {
  fn(); // warm up
  const runs = 3;
  const start = performance.now();
  for (let i = 0; i < runs; i++) fn();
  const ms = (performance.now() - start) / runs;
  const mbps = bytes / 1024 / 1024 / (ms / 1000);
  const vs = baselineMs ? `  (${(ms / baselineMs).toFixed(1)}x the baseline)` : '';
  console.log(
    `${label.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms  ${mbps.toFixed(0).padStart(6)} MB/s${vs}`,
  );
  return ms;
}

for (const count of [1, 20]) {
  const secrets = Array.from({ length: count }, () => `sk-${randomBytes(24).toString('base64url')}`);
  const data = output(secrets, megabytes * 1024 * 1024);
  const text = data.toString();
  const scrubber = createScrubber(secrets);
  console.log(`\n${count} secret value(s), ${scrubber.forms.length} forms, ${megabytes} MiB of output`);
  const needle = Buffer.from(secrets[0]!);
  const baseline = time('baseline: Buffer.indexOf of one raw value', data.length, () => {
    let found = 0;
    for (let at = data.indexOf(needle); at >= 0; at = data.indexOf(needle, at + 1)) found++;
    return found;
  });
  time('scrubber.bytes', data.length, () => scrubber.bytes(data), baseline);
  time('scrubber.text', data.length, () => scrubber.text(text), baseline);
  time(
    'scrubber.stream (64 KiB chunks)',
    data.length,
    () => {
      const s = scrubber.stream();
      for (let at = 0; at < data.length; at += 65536) s.push(data.subarray(at, at + 65536));
      return s.end();
    },
    baseline,
  );
  if (scrubber.text(text).includes(secrets[0]!)) throw new Error('a secret survived the scrubber');
}
