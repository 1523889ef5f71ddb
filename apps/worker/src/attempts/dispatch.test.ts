// The dispatcher's idle check against real Postgres and Redis: a pass that could change nothing
// (every slot of the run in flight, or nothing left to hand out) returns without taking the run's
// row lock, so it never holds the run's starts and results (which lock the row in SHARE mode)
// in line; a pass that can hand something out, or must look at a budget, still takes it.
import { createQueues, createRedis, type Queues } from '@osmosis/queues';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from '../../../../test/helpers/redis.ts';
import { seedRun } from '../testing/fixtures.ts';
import { dispatchRun, runIsIdle } from './dispatch.ts';

let tdb: TestDatabase;
let redis: Redis;
let queues: Queues;
beforeAll(async () => {
  tdb = await createTestDatabase();
  redis = createRedis(TEST_REDIS_URL);
  queues = createQueues(redis, testQueuePrefix());
});
afterAll(async () => {
  await queues?.close();
  redis?.disconnect();
  await tdb?.drop();
});

/**
 * Runs `pass` while another transaction holds the run's row in SHARE mode (as a start or a result
 * does); says whether the pass finished before that transaction let go of the row.
 */
async function passDuringShareLock(runId: string, pass: () => Promise<unknown>): Promise<boolean> {
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let locked!: () => void;
  const holding = new Promise<void>((r) => {
    locked = r;
  });
  const holder = tdb.db.$transaction(
    async (tx) => {
      await tx.$queryRaw`SELECT id FROM runs WHERE id = ${runId}::uuid FOR SHARE`;
      locked();
      await released;
    },
    { timeout: 20_000 },
  );
  await holding;
  let finishedFirst = false;
  const passing = pass().then(() => {
    finishedFirst = true;
  });
  await new Promise((r) => setTimeout(r, 500));
  const before = finishedFirst;
  release();
  await holder;
  await passing;
  return before;
}

describe('the idle check before a dispatcher pass', () => {
  it('returns at once when every slot is in flight, without waiting on a start holding the run', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 6, maxConcurrentAttempts: 2 });
    await tdb.db.run.update({ where: { id: seeded.runId }, data: { status: 'running' } });
    expect((await dispatchRun(tdb.db, queues, seeded.runId)).dispatched).toHaveLength(2);
    expect(await runIsIdle(tdb.db, seeded.runId)).toEqual({ status: 'running', inFlight: 2 });
    let result: Awaited<ReturnType<typeof dispatchRun>> | undefined;
    const prompt = await passDuringShareLock(seeded.runId, async () => {
      result = await dispatchRun(tdb.db, queues, seeded.runId);
    });
    expect(prompt).toBe(true);
    expect(result).toMatchObject({ dispatched: [], inFlight: 2, runStatus: 'running' });
  });

  it('takes the lock and hands out when a slot is free', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 6, maxConcurrentAttempts: 2 });
    await tdb.db.run.update({ where: { id: seeded.runId }, data: { status: 'running' } });
    await dispatchRun(tdb.db, queues, seeded.runId);
    // one of the two in flight ends: a slot is free and four attempts wait
    const [done] = await tdb.db.attempt.findMany({
      where: { runId: seeded.runId, dispatchedAt: { not: null } },
      take: 1,
    });
    await tdb.db.attempt.update({
      where: { id: done!.id },
      data: { status: 'finished', outcome: 'passed', finishedAt: new Date() },
    });
    expect(await runIsIdle(tdb.db, seeded.runId)).toBeNull();
    let result: Awaited<ReturnType<typeof dispatchRun>> | undefined;
    const prompt = await passDuringShareLock(seeded.runId, async () => {
      result = await dispatchRun(tdb.db, queues, seeded.runId);
    });
    expect(prompt).toBe(false); // it waited for the row, as a pass that changes the run must
    expect(result?.dispatched).toHaveLength(1);
  });

  it('is never idle for a run with a budget, a waiting reason, or one not started yet', async () => {
    const budget = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 1 });
    await tdb.db.run.update({ where: { id: budget.runId }, data: { status: 'running', maxCostUsd: 5 } });
    await dispatchRun(tdb.db, queues, budget.runId);
    expect(await runIsIdle(tdb.db, budget.runId)).toBeNull(); // full, but its budget is the pass's to check

    const waiting = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 1 });
    await tdb.db.run.update({ where: { id: waiting.runId }, data: { status: 'running' } });
    await dispatchRun(tdb.db, queues, waiting.runId);
    await tdb.db.run.update({ where: { id: waiting.runId }, data: { waitingReason: 'needs 64 cpus' } });
    expect(await runIsIdle(tdb.db, waiting.runId)).toBeNull();

    const pending = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 1, status: 'pending' });
    expect(await runIsIdle(tdb.db, pending.runId)).toBeNull();
  });

  it('is idle once nothing is left to hand out, whatever slots are free', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 5 });
    await tdb.db.run.update({ where: { id: seeded.runId }, data: { status: 'running' } });
    expect((await dispatchRun(tdb.db, queues, seeded.runId)).dispatched).toHaveLength(2);
    expect(await runIsIdle(tdb.db, seeded.runId)).toEqual({ status: 'running', inFlight: 2 });
  });
});
