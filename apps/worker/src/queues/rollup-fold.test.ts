// The workers' periodic roll-up fold against real Postgres and Redis: one worker a second takes
// the turn, and a result's logged roll-up rows reach the roll-ups with no reader asking.
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from '../../../../test/helpers/redis.ts';
import { type WorkerConfig, workerConfig } from '../config.ts';
import { fakeExecutor, seedRun, waitFor } from '../testing/fixtures.ts';
import { type RunningWorker, startWorker } from '../worker.ts';
import {
  nextFoldTryMs,
  ROLLUP_FOLD_BACKOFF_MAX_MS,
  ROLLUP_FOLD_INTERVAL_MS,
  rollupFoldModule,
  takeFoldTurn,
} from './rollup-fold.ts';

let tdb: TestDatabase;
const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
const workers: RunningWorker[] = [];

beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => {
  for (const w of workers) await w.close();
  redis.disconnect();
  await tdb?.drop();
});

function config(queuePrefix: string): WorkerConfig {
  return workerConfig({
    databaseUrl: tdb.url,
    redisUrl: TEST_REDIS_URL,
    queuePrefix,
    workerId: `w-${Math.random().toString(36).slice(2, 8)}`,
    heartbeatMs: 200,
    reconcileMs: 300,
    drainMs: 0,
  });
}

describe('the periodic roll-up fold', () => {
  it('gives the turn to one worker per interval', async () => {
    // an interval long enough that a loaded machine's pauses between the calls stay inside it
    // (300 ms failed once on CI: b found the turn already expired)
    const prefix = testQueuePrefix();
    const a = { redis, config: config(prefix) };
    const b = { redis, config: config(prefix) };
    expect(await takeFoldTurn(a, 10_000)).toBe(true);
    expect(await takeFoldTurn(b, 10_000)).toBe(false);
    expect(await takeFoldTurn(a, 10_000)).toBe(false);
    // another deployment's prefix has its own turn
    expect(await takeFoldTurn({ redis, config: config(testQueuePrefix()) }, 10_000)).toBe(true);
    // once the interval has passed, the turn is free again
    const short = testQueuePrefix();
    expect(await takeFoldTurn({ redis, config: config(short) }, 200)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(await takeFoldTurn({ redis, config: config(short) }, 200)).toBe(true);
  });

  it('keeps the folding worker at the interval and backs the others off, up to a bound', () => {
    expect(nextFoldTryMs(ROLLUP_FOLD_INTERVAL_MS, true)).toBe(ROLLUP_FOLD_INTERVAL_MS);
    const waits: number[] = [];
    let wait = ROLLUP_FOLD_INTERVAL_MS;
    for (let i = 0; i < 6; i++) {
      wait = nextFoldTryMs(wait, false);
      waits.push(wait);
    }
    expect(waits).toEqual([2000, 4000, 8000, 8000, 8000, 8000]);
    expect(Math.max(...waits)).toBe(ROLLUP_FOLD_BACKOFF_MAX_MS);
    // a worker that takes the turn after backing off folds every interval again
    expect(nextFoldTryMs(wait, true)).toBe(ROLLUP_FOLD_INTERVAL_MS);
  });

  it('folds when Redis cannot be asked (Postgres still keeps folds one at a time)', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    try {
      expect(await takeFoldTurn({ redis: down, config: config(testQueuePrefix()) }, 300)).toBe(true);
    } finally {
      down.disconnect();
    }
  });

  it("moves a result's logged rows into the roll-ups with no reader asking", async () => {
    const prefix = testQueuePrefix();
    for (let i = 0; i < 2; i++) {
      workers.push(
        await startWorker(config(prefix), {
          executor: fakeExecutor({ durationMs: 1 }).executor,
          reaper: null,
          db: tdb.db,
          logger: pino({ level: 'silent' }),
          taskFiles: async () => '/nonexistent',
          modules: [rollupFoldModule],
        }),
      );
    }
    const run = await seedRun(tdb.db, { tasks: 2 });
    await tdb.db.$executeRaw`UPDATE attempts SET status = 'finished', outcome = 'passed', reward = 1,
      finished_at = now() WHERE id = ${run.attemptIds[0]}::uuid`;
    const passed = async () => {
      const rows = await tdb.db.$queryRaw<{ n: number }[]>`
        SELECT coalesce(sum(n), 0)::int AS n FROM agent_outcome_totals
        WHERE run_id = ${run.runId}::uuid AND outcome = 'passed'`;
      return rows[0]!.n;
    };
    await waitFor(async () => (await passed()) === 1, 4 * ROLLUP_FOLD_INTERVAL_MS);
    const left = await tdb.db.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM attempts_rollup_log`;
    expect(left[0]!.n).toBe(0);
  });
});
