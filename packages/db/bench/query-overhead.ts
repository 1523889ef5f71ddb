// What one statement costs the client: Prisma's $queryRaw, a one-statement interactive
// transaction, and the same statement through queryRows (createDb's pg pool). Prints CPU and wall
// time per statement; the attempt hot path (raw.ts) uses queryRows because of these figures.
//   cd /work/main && source scripts/env.sh && node packages/db/bench/query-overhead.ts [n]
import { createDb, Prisma, queryRows } from '../src/index.ts';

const N = Number(process.argv[2] ?? 3000);
const db = createDb(process.env.DATABASE_URL ?? 'postgresql://osmosis:osmosis@127.0.0.1:54329/osmosis', 2);

async function measure(label: string, n: number, once: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 50; i++) await once(i); // warm: connections, compiled paths
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await once(i);
  const cpu = process.cpuUsage(cpu0);
  const ms = (cpu.user + cpu.system) / 1000 / n;
  console.log(
    `${label.padEnd(34)} ${ms.toFixed(3)} ms cpu  ${((performance.now() - t0) / n).toFixed(3)} ms wall`,
  );
  return ms;
}

const prisma = await measure('prisma $queryRaw', N, (i) => db.$queryRaw`SELECT ${i}::int AS x, now() AS t`);
await measure('prisma $transaction (1 statement)', Math.ceil(N / 5), (i) =>
  db.$transaction((tx) => tx.$queryRaw`SELECT ${i}::int AS x`),
);
const raw = await measure('queryRows (pg pool)', N, (i) =>
  queryRows(db, Prisma.sql`SELECT ${i}::int AS x, now() AS t`),
);
console.log(`queryRows costs ${(raw / prisma).toFixed(2)}× the client CPU of $queryRaw`);
await db.$disconnect();
