import { createDb } from '@osmosis/db';
import { claimAttempt } from './src/attempts/claim.ts';

const db = createDb('postgresql://osmosis:osmosis@127.0.0.1:54329/osmosis_bench_dispatch_fb8badbe', 24);
async function loop(w: number, n: number) {
  const t: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await claimAttempt(db, { workerId: 'x' + w, leaseMs: 60000 }, { cpus: 8, memoryMb: 8192, gpus: 0 }, []);
    t.push(performance.now() - s);
  }
  return t;
}
for (const c of [1, 1, 4]) {
  const s = performance.now();
  const all = (await Promise.all(Array.from({ length: c }, (_, w) => loop(w, 40)))).flat();
  console.log(
    c,
    'concurrent: mean',
    (all.reduce((a, b) => a + b, 0) / all.length).toFixed(2),
    'ms; claims/s',
    (all.length / ((performance.now() - s) / 1000)).toFixed(0),
  );
}
await db.$disconnect();
process.exit(0);
