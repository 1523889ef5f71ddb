// Dispatch at scale, by simulation (issue 18): W simulated workers × S slots in this one process
// (each a real startWorker: its BullMQ attempt and run-dispatch workers, its presence loop, its
// leases and reservations; one reconciler for all), with a stand-in executor that only sleeps
// (uniform between --sleep-min and --sleep-max ms), against the real Postgres (a fresh database)
// and Redis (a queue prefix of its own). Seeds A attempts of R runs in K workspaces with
// multi-row INSERTs (generate_series), not through the API, then lets the workers go for
// --seconds and prints:
//   - attempts started per second (attempts.started_at in the window);
//   - slot utilisation while work is queued (running attempts / W×S, sampled every 500 ms);
//   - the spread of the workspaces' shares (attempts started per workspace: min, max, max/min);
//   - Postgres and Redis load: pg_stat_database xact_commit and Redis INFO commandstats calls
//     over the window (per second), beside the aim: ≥ 500 starts/s with ≥ 95% of slots busy.
//
//   cd /work/main && source scripts/env.sh
//   node bench/dispatch-scale.ts [--workers 100] [--slots 8] [--attempts 200000] [--runs 50]
//     [--workspaces 10] [--seconds 60] [--sleep-min 1000] [--sleep-max 3000] [--pool 20] [--keep]
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { createDb, migrateDeploy } from '@osmosis/db';
import { dispatchRun } from '../apps/worker/src/attempts/dispatch.ts';
import { workerConfig } from '../apps/worker/src/config.ts';
import { QUEUE_MODULES } from '../apps/worker/src/queues/index.ts';
import { testLogger } from '../apps/worker/src/testing/fixtures.ts';
import { type RunningWorker, startWorker } from '../apps/worker/src/worker.ts';
import { createQueues, createRedis } from '../packages/queues/src/index.ts';
import { adminQuery } from '../test/helpers/db.ts';
import { databaseUrl } from '../test/helpers/env.ts';

const { values: args } = parseArgs({
  options: {
    workers: { type: 'string', default: '100' },
    slots: { type: 'string', default: '8' },
    attempts: { type: 'string', default: '200000' },
    runs: { type: 'string', default: '50' },
    workspaces: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '60' },
    'sleep-min': { type: 'string', default: '1000' },
    'sleep-max': { type: 'string', default: '3000' },
    /** Postgres connections shared by the simulated workers (a real worker has its own pool) */
    pool: { type: 'string', default: '20' },
    keep: { type: 'boolean', default: false },
  },
});
const W = Number(args.workers);
const S = Number(args.slots);
const A = Number(args.attempts);
const R = Number(args.runs);
const K = Number(args.workspaces);
const SECONDS = Number(args.seconds);
const SLEEP_MIN = Number(args['sleep-min']);
const SLEEP_MAX = Number(args['sleep-max']);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:63799';
const AIM = { startsPerSecond: 500, busy: 0.95 };

async function seed(url: string): Promise<string[]> {
  const db = createDb(url, 4);
  const perRun = Math.ceil(A / R);
  // K workspaces, one user, one benchmark and one task per workspace, R runs spread over them,
  // one agent per run, perRun attempts per run
  await db.$executeRawUnsafe(`
    INSERT INTO users (id, email) VALUES ('00000000-0000-4000-8000-000000000001', 'bench@example.test');
    INSERT INTO workspaces (id, name) SELECT ('00000000-0000-4000-8001-' || lpad(g::text, 12, '0'))::uuid, 'ws-' || g
      FROM generate_series(1, ${K}) g;
    INSERT INTO benchmarks (id, workspace_id, key, name, source_kind, source, sync_status)
      SELECT gen_random_uuid(), w.id, 'bench-' || w.name, 'Bench ' || w.name, 'archive', '{}', 'ready' FROM workspaces w;
    INSERT INTO tasks (id, benchmark_id, name, digest, env_digest, config, instruction)
      SELECT gen_random_uuid(), b.id, 'task', 'sha256-' || b.id, 'env-' || b.id,
        '{"environment":{"cpus":1,"memory_mb":512,"gpus":0}}', 'do it' FROM benchmarks b;
    INSERT INTO runs (id, workspace_id, benchmark_id, name, status, config_toml, config, selection, task_count,
        attempts_per_task, max_concurrent_attempts, timeout_multiplier, max_retries, pass_threshold, created_by_id)
      SELECT gen_random_uuid(), b.workspace_id, b.id, 'run-' || g, 'queued', '', '{}', '{"full_set":true}', 1,
        ${perRun}, 200, 1, 0, 1, '00000000-0000-4000-8000-000000000001'
      FROM generate_series(1, ${R}) g
      JOIN (SELECT b.*, row_number() OVER (ORDER BY b.id) - 1 AS n FROM benchmarks b) b ON b.n = (g - 1) % ${K};
    INSERT INTO run_agents (id, run_id, index, harness, model_type, model, spec)
      SELECT gen_random_uuid(), r.id, 0, 'nop', 'provider', 'fake/model', '{}' FROM runs r;
    INSERT INTO attempts (id, run_id, agent_id, task_id, index)
      SELECT gen_random_uuid(), r.id, a.id, t.id, g
      FROM runs r JOIN run_agents a ON a.run_id = r.id JOIN tasks t ON t.benchmark_id = r.benchmark_id,
        generate_series(0, ${perRun - 1}) g;
  `);
  const runs = await db.$queryRaw<{ id: string }[]>`SELECT id::text AS id FROM runs`;
  await db.$disconnect();
  return runs.map((r) => r.id);
}

async function redisCalls(redis: ReturnType<typeof createRedis>): Promise<number> {
  const info = await redis.info('commandstats');
  let calls = 0;
  for (const m of info.matchAll(/calls=(\d+)/g)) calls += Number(m[1]);
  return calls;
}

async function main() {
  const name = `osmosis_bench_dispatch_${randomBytes(4).toString('hex')}`;
  await adminQuery(`CREATE DATABASE "${name}"`);
  const url = databaseUrl(name);
  const prefix = `bench-dispatch-${randomBytes(3).toString('hex')}`;
  const redis = createRedis(REDIS_URL);
  const workers: RunningWorker[] = [];
  const db = createDb(url, Number(args.pool));
  try {
    await migrateDeploy(url);
    let t0 = Date.now();
    const runIds = await seed(url);
    console.log(`seeded ${A} attempts of ${R} runs in ${K} workspaces in ${Date.now() - t0} ms`);

    const modules = QUEUE_MODULES.filter((m) => ['run-dispatch', 'attempt', 'presence'].includes(m.name));
    const reconciler = QUEUE_MODULES.filter((m) => m.name === 'reconciler');
    const logger = testLogger();
    t0 = Date.now();
    for (let i = 0; i < W; i++) {
      const config = workerConfig({
        databaseUrl: url,
        redisUrl: REDIS_URL,
        queuePrefix: prefix,
        workerId: `sim-${i}`,
        concurrency: S,
        workerCpus: S,
        workerMemoryMb: S * 512,
        workspaceMaxConcurrentAttempts: 1000,
        reconcileMs: 2000,
        dataDir: '/tmp/osmosis-bench-dispatch',
      });
      workers.push(
        await startWorker(config, {
          db,
          logger,
          reaper: null,
          engineProbe: null,
          taskFiles: async () => '/nonexistent',
          modules: i === 0 ? [...modules, ...reconciler] : modules,
          executor: async (execution) => {
            const ms = SLEEP_MIN + Math.random() * (SLEEP_MAX - SLEEP_MIN);
            await new Promise((r) => setTimeout(r, ms));
            void execution;
            return { outcome: 'passed', reward: 1 };
          },
        }),
      );
    }
    console.log(`${W} workers × ${S} slots started in ${Date.now() - t0} ms`);

    const commitsOf = async () =>
      Number(
        (
          await db.$queryRaw<{ n: bigint }[]>`
            SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()`
        )[0]?.n ?? 0,
      );
    const commits0 = await commitsOf();
    const calls0 = await redisCalls(redis);
    const start = new Date();
    const queues = createQueues(redis, prefix);
    for (const id of runIds) await dispatchRun(db, queues, id, undefined, { workspaceMax: 1000 });

    const busy: number[] = [];
    const deadline = Date.now() + SECONDS * 1000;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      const [row] = await db.$queryRaw<{ running: number; queued: number }[]>`
        SELECT count(*) FILTER (WHERE status = 'running')::int AS running,
               count(*) FILTER (WHERE status = 'queued')::int AS queued FROM attempts`;
      if (row && row.queued > 0) busy.push(row.running / (W * S));
    }
    const elapsed = (Date.now() - start.getTime()) / 1000;
    const commits = (await commitsOf()) - commits0;
    const calls = (await redisCalls(redis)) - calls0;
    const shares = await db.$queryRaw<{ workspace: string; started: number }[]>`
      SELECT r.workspace_id::text AS workspace, count(*)::int AS started
      FROM attempts a JOIN runs r ON r.id = a.run_id
      WHERE a.started_at >= ${start} GROUP BY r.workspace_id`;
    const started = shares.reduce((n, s) => n + s.started, 0);
    const counts = shares.map((s) => s.started);
    const busyMean = busy.length ? busy.reduce((a, b) => a + b, 0) / busy.length : 0;
    const fmt = (n: number) => n.toFixed(1);
    console.log(`\nwindow ${fmt(elapsed)} s, ${W} workers × ${S} slots, sleep ${SLEEP_MIN}–${SLEEP_MAX} ms`);
    console.log(`attempts started/s      ${fmt(started / elapsed)}   (aim ≥ ${AIM.startsPerSecond})`);
    console.log(
      `slots busy while queued ${fmt(busyMean * 100)}%  (aim ≥ ${AIM.busy * 100}%; ${busy.length} samples)`,
    );
    console.log(
      `workspace shares        min ${Math.min(...counts)} max ${Math.max(...counts)} max/min ${fmt(Math.max(...counts) / Math.max(1, Math.min(...counts)))} over ${counts.length} workspaces`,
    );
    console.log(
      `postgres commits/s      ${fmt(commits / elapsed)} (${fmt(commits / Math.max(1, started))} per start)`,
    );
    console.log(
      `redis commands/s        ${fmt(calls / elapsed)} (${fmt(calls / Math.max(1, started))} per start)`,
    );
    await queues.close();
  } finally {
    await Promise.allSettled(workers.map((w) => w.close()));
    await db.$disconnect();
    redis.disconnect();
    if (!args.keep) await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    else console.log(`kept database ${name}`);
  }
}

await main();
process.exit(0);
