// One child process of bench/dispatch-scale.ts: `--count` simulated workers (real startWorker:
// BullMQ attempt and run-dispatch workers, presence loop, leases and reservations) sharing this
// process's own Prisma pool, with a stand-in executor that only sleeps. The first worker of the
// first process also runs the reconciler. Prints one JSON line `{"ready":n}` once every worker
// is up; on SIGTERM prints `{"turns":[[attempt, called, returned], …], "loop", "pool"}` (the
// executions of the window: when the stand-in executor was called and returned, ms; the event
// loop's lateness; its pools' load), closes the workers and prints
// `{"cpu":{user,system}}` (seconds) before exiting, so the parent can put this process's CPU
// beside the others' (counted from SIGUSR1, the start of the measured window).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createDb, genericPoolOf, poolOf } from '@osmosis/db';
import { workerConfig } from '../apps/worker/src/config.ts';
import { QUEUE_MODULES } from '../apps/worker/src/queues/index.ts';
import { testLogger } from '../apps/worker/src/testing/fixtures.ts';
import { type RunningWorker, startWorker } from '../apps/worker/src/worker.ts';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string' },
    redis: { type: 'string' },
    prefix: { type: 'string' },
    /** index of this process (worker ids sim-<process>-<i>) */
    index: { type: 'string', default: '0' },
    count: { type: 'string' },
    slots: { type: 'string' },
    pool: { type: 'string' },
    'sleep-min': { type: 'string' },
    'sleep-max': { type: 'string' },
    'workspace-max': { type: 'string', default: '1000' },
  },
});
const index = Number(args.index);
const SLEEP_MIN = Number(args['sleep-min']);
const SLEEP_MAX = Number(args['sleep-max']);
const slots = Number(args.slots);

const db = createDb(String(args.database), Number(args.pool));
const modules = QUEUE_MODULES.filter((m) =>
  ['run-dispatch', 'attempt', 'presence', 'rollup-fold'].includes(m.name),
);
const reconciler = QUEUE_MODULES.filter((m) => m.name === 'reconciler');
const logger = testLogger();
let cpu0 = process.cpuUsage();
/**
 * executions that began in the measured window: [attempt id, executor called, executor returned]
 * (ms); the parent puts them beside the attempts' started_at and finished_at (a slot's turn)
 */
const turns: [string, number, number][] = [];
const MAX_TURNS = 20_000;
let measuring = false;
/** how late this process's event loop ran what was due, over the window */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
/**
 * this process's two pools over the window (sampled every 10 ms): connections in use and callers
 * waiting for one. A result waits there between its executor's return and its statement
 */
const pools = { main: poolOf(db), generic: genericPoolOf(db) };
const poolLoad = {
  samples: 0,
  mainBusy: 0,
  mainWaiting: 0,
  genericBusy: 0,
  genericWaiting: 0,
  genericTotal: 0,
  genericConnects: 0,
};
pools.generic?.on('connect', () => {
  if (measuring) poolLoad.genericConnects++;
});
const poolSampler = setInterval(() => {
  if (!measuring || !pools.main || !pools.generic) return;
  poolLoad.samples++;
  poolLoad.mainBusy += pools.main.totalCount - pools.main.idleCount;
  poolLoad.mainWaiting += pools.main.waitingCount;
  poolLoad.genericBusy += pools.generic.totalCount - pools.generic.idleCount;
  poolLoad.genericWaiting += pools.generic.waitingCount;
  poolLoad.genericTotal += pools.generic.totalCount;
}, 10);
poolSampler.unref();
const workers: RunningWorker[] = [];
for (let i = 0; i < Number(args.count); i++) {
  const config = workerConfig({
    databaseUrl: args.database,
    redisUrl: args.redis,
    queuePrefix: args.prefix,
    workerId: `sim-${index}-${i}`,
    concurrency: slots,
    workerCpus: slots,
    workerMemoryMb: slots * 512,
    workspaceMaxConcurrentAttempts: Number(args['workspace-max']),
    dataDir: '/tmp/osmosis-bench-dispatch',
  });
  workers.push(
    await startWorker(config, {
      db,
      logger,
      reaper: null,
      engineProbe: null,
      taskFiles: async () => '/nonexistent',
      modules: index === 0 && i === 0 ? [...modules, ...reconciler] : modules,
      executor: async (execution) => {
        const called = Date.now();
        await new Promise((r) => setTimeout(r, SLEEP_MIN + Math.random() * (SLEEP_MAX - SLEEP_MIN)));
        if (measuring && turns.length < MAX_TURNS) turns.push([execution.attemptId, called, Date.now()]);
        return { outcome: 'passed', reward: 1 };
      },
    }),
  );
}
process.stdout.write(`${JSON.stringify({ ready: workers.length })}\n`);

// the measured window starts: CPU is counted from here
process.on('SIGUSR1', () => {
  cpu0 = process.cpuUsage();
  measuring = true;
  loopDelay.enable();
});
process.on('SIGTERM', async () => {
  const cpu = process.cpuUsage(cpu0);
  measuring = false;
  loopDelay.disable();
  const loop = { mean: loopDelay.mean / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 };
  const n = Math.max(1, poolLoad.samples);
  const pool = {
    mainBusy: poolLoad.mainBusy / n,
    mainWaiting: poolLoad.mainWaiting / n,
    mainMax: pools.main?.options.max ?? 0,
    genericBusy: poolLoad.genericBusy / n,
    genericWaiting: poolLoad.genericWaiting / n,
    genericMax: pools.generic?.options.max ?? 0,
    genericTotal: poolLoad.genericTotal / n,
    genericConnects: poolLoad.genericConnects,
  };
  process.stdout.write(`${JSON.stringify({ turns, loop, pool })}\n`);
  await Promise.allSettled(workers.map((w) => w.close()));
  await db.$disconnect();
  process.stdout.write(`${JSON.stringify({ cpu: { user: cpu.user / 1e6, system: cpu.system / 1e6 } })}\n`);
  process.exit(0);
});
