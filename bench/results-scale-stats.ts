// Timing helpers of bench/results-scale.ts and bench/results-scale-pages.ts.
import { performance } from 'node:perf_hooks';

export const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] as number;
};

export interface Row {
  name: string;
  first: number;
  median: number;
  p95: number;
  max: number;
  bytes: number;
}

export const fmtMs = (x: number): string => `${x.toFixed(1).padStart(6)}ms`;

/** GETs `url` reps + 2 times; the first two are warm-ups, kept out of the statistics. */
export async function timeHttp(
  url: string,
  headers: Record<string, string>,
  reps: number,
): Promise<{ times: number[]; first: number; body: string }> {
  let body = Buffer.alloc(0);
  let first = 0;
  const times: number[] = [];
  for (let i = 0; i < reps + 2; i++) {
    const t = performance.now();
    const res = await fetch(url, { headers, redirect: 'manual' });
    body = Buffer.from(await res.arrayBuffer());
    const ms = performance.now() - t;
    if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${body.toString().slice(0, 300)}`);
    if (i === 0) first = ms;
    if (i >= 2) times.push(ms);
  }
  return { times, first, body: body.toString() };
}

export function row(name: string, first: number, times: number[], bytes: number): Row {
  return {
    name,
    first,
    median: quantile(times, 0.5),
    p95: quantile(times, 0.95),
    max: Math.max(...times),
    bytes,
  };
}

export function printRows(rows: Row[], aimOf: (name: string) => number | null, extra = ''): void {
  console.log(
    `  ${'endpoint'.padEnd(58)} ${'first'.padStart(8)} ${'median'.padStart(8)} ${'p95'.padStart(8)} ${'max'.padStart(8)} ${'bytes'.padStart(10)}${extra}`,
  );
  for (const r of rows) {
    const aim = aimOf(r.name);
    const flag = aim === null || r.median < aim ? '' : `  (over the aim of ${aim} ms)`;
    console.log(
      `  ${r.name.padEnd(58)} ${fmtMs(r.first)} ${fmtMs(r.median)} ${fmtMs(r.p95)} ${fmtMs(r.max)} ${String(r.bytes).padStart(10)}${flag}`,
    );
  }
}
