// The dispatcher's idle check against real Postgres and Redis: a pass that could change nothing
// (every slot of the run in flight, or nothing left to hand out) returns without taking the run's
// row lock, so it never holds the run's starts and results (which lock the row in SHARE mode)
// in line; a pass that can hand something out, or must look at a budget, still takes it.
// The pass in one round trip (dispatch-one-trip.ts): run and workspace limits hold against many
// concurrent passes; a run that is not the common case is left to the full pass.
import { createQueues, createRedis, type Queues } from '@osmosis/queues';
import { QueueEvents, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../../test/helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from '../../../../test/helpers/redis.ts';
import { seedRun } from '../testing/fixtures.ts';
import { dispatchRun, runBeforePass } from './dispatch.ts';
import { pickInOneTrip } from './dispatch-one-trip.ts';

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
    expect(await runBeforePass(tdb.db, seeded.runId)).toEqual({
      status: 'running',
      inFlight: 2,
      common: true,
      idle: true,
    });
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
    expect(await runBeforePass(tdb.db, seeded.runId)).toMatchObject({ common: true, idle: false });
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
    // full, but its budget is the pass's to check, and the full pass's: the one-round-trip pass is skipped
    expect(await runBeforePass(tdb.db, budget.runId)).toMatchObject({ common: false, idle: false });

    const waiting = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 1 });
    await tdb.db.run.update({ where: { id: waiting.runId }, data: { status: 'running' } });
    await dispatchRun(tdb.db, queues, waiting.runId);
    await tdb.db.run.update({ where: { id: waiting.runId }, data: { waitingReason: 'needs 64 cpus' } });
    expect(await runBeforePass(tdb.db, waiting.runId)).toMatchObject({ common: false, idle: false });

    const pending = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 1, status: 'pending' });
    expect(await runBeforePass(tdb.db, pending.runId)).toMatchObject({
      status: 'pending',
      common: false,
      idle: false,
    });
    expect(await runBeforePass(tdb.db, '00000000-0000-4000-8000-00000000dead')).toBeNull();
  });

  it('is idle once nothing is left to hand out, whatever slots are free', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 5 });
    await tdb.db.run.update({ where: { id: seeded.runId }, data: { status: 'running' } });
    expect((await dispatchRun(tdb.db, queues, seeded.runId)).dispatched).toHaveLength(2);
    expect(await runBeforePass(tdb.db, seeded.runId)).toEqual({
      status: 'running',
      inFlight: 2,
      common: true,
      idle: true,
    });
  });
});

describe('the pass in one round trip', () => {
  const inFlightOf = async (where: { runId?: string; workspaceId?: string }) =>
    tdb.db.attempt.count({
      where: {
        ...(where.runId ? { runId: where.runId } : { run: { workspaceId: where.workspaceId } }),
        OR: [{ status: 'running' }, { status: 'queued', dispatchedAt: { not: null } }],
      },
    });

  it("keeps every run's and the workspace's limit against many concurrent passes", async () => {
    const first = await seedRun(tdb.db, { tasks: 8, maxConcurrentAttempts: 4 });
    const runs = [
      first,
      await seedRun(tdb.db, { tasks: 8, maxConcurrentAttempts: 4, workspaceId: first.workspaceId }),
      await seedRun(tdb.db, { tasks: 8, maxConcurrentAttempts: 4, workspaceId: first.workspaceId }),
    ];
    await tdb.db.run.updateMany({
      where: { id: { in: runs.map((r) => r.runId) } },
      data: { status: 'running' },
    });
    await tdb.db.workspace.update({ where: { id: first.workspaceId }, data: { maxConcurrentAttempts: 5 } });
    const passes = () =>
      Promise.all(Array.from({ length: 24 }, (_, i) => dispatchRun(tdb.db, queues, runs[i % 3]!.runId)));
    const results = await passes();
    expect(await inFlightOf({ workspaceId: first.workspaceId })).toBe(5);
    for (const run of runs) expect(await inFlightOf({ runId: run.runId })).toBeLessThanOrEqual(4);
    // each attempt handed out once, by one pass
    const handed = results.flatMap((r) => r.dispatched);
    expect(new Set(handed).size).toBe(handed.length);
    expect(handed).toHaveLength(5);

    // three end: three slots free up, and concurrent passes fill exactly those
    const ended = await tdb.db.attempt.findMany({
      where: { run: { workspaceId: first.workspaceId }, dispatchedAt: { not: null } },
      take: 3,
    });
    await tdb.db.attempt.updateMany({
      where: { id: { in: ended.map((a) => a.id) } },
      data: { status: 'finished', outcome: 'passed', finishedAt: new Date() },
    });
    const again = (await passes()).flatMap((r) => r.dispatched);
    expect(again).toHaveLength(3);
    expect(await inFlightOf({ workspaceId: first.workspaceId })).toBe(5);
    for (const run of runs) expect(await inFlightOf({ runId: run.runId })).toBeLessThanOrEqual(4);
  });

  it('numbers the slots as the full pass does, and applies the operator maximum', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 5, maxConcurrentAttempts: 4 });
    await tdb.db.run.update({ where: { id: seeded.runId }, data: { status: 'running' } });
    const picked = await pickInOneTrip(tdb.db, seeded.runId, { workspaceMax: 3 });
    expect(picked).toMatchObject({ common: true, short: false, inFlight: 3, status: 'running' });
    // slot in the run + slot in the workspace: 1+1, 2+2, 3+3
    expect(picked?.ids.map((p) => p.slot)).toEqual([2, 4, 6]);
    const indexes = await tdb.db.attempt.findMany({
      where: { id: { in: picked?.ids.map((p) => p.id) ?? [] } },
      select: { index: true, taskId: true },
    });
    expect(indexes).toHaveLength(3);
  });

  it('leaves a pending run, a budget and a waiting reason to the full pass', async () => {
    const pending = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 2, status: 'pending' });
    expect(await pickInOneTrip(tdb.db, pending.runId, { workspaceMax: 100 })).toMatchObject({
      common: false,
      ids: [],
      status: 'pending',
    });
    expect(await inFlightOf({ runId: pending.runId })).toBe(0);
    // dispatchRun then takes the full pass: the run is queued, with its event, and handed out
    expect((await dispatchRun(tdb.db, queues, pending.runId)).dispatched).toHaveLength(2);
    const run = await tdb.db.run.findUniqueOrThrow({ where: { id: pending.runId } });
    expect(run.status).toBe('queued');
    expect(await tdb.db.runEvent.count({ where: { runId: pending.runId, step: 'run.queued' } })).toBe(1);

    const budget = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 2 });
    await tdb.db.run.update({ where: { id: budget.runId }, data: { status: 'running', maxCostUsd: 5 } });
    expect((await pickInOneTrip(tdb.db, budget.runId, { workspaceMax: 100 }))?.common).toBe(false);
    const waiting = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 2 });
    await tdb.db.run.update({
      where: { id: waiting.runId },
      data: { status: 'running', waitingReason: 'x' },
    });
    expect((await pickInOneTrip(tdb.db, waiting.runId, { workspaceMax: 100 }))?.common).toBe(false);
    expect(await inFlightOf({ runId: budget.runId })).toBe(0);
    expect(await inFlightOf({ runId: waiting.runId })).toBe(0);
    const missing = await pickInOneTrip(tdb.db, '00000000-0000-4000-8000-000000000009', {
      workspaceMax: 100,
    });
    expect(missing).toMatchObject({ common: false, ids: [], status: null });
  });

  it('refuses a run id that is not a uuid as a value, whatever it holds', async () => {
    // job data is checked as a uuid before it gets here; this is the layer under that check
    const before = await tdb.db.run.count();
    for (const hostile of ["'; DELETE FROM runs; --", "x'::uuid; DELETE FROM runs; --", '\\', '']) {
      await expect(pickInOneTrip(tdb.db, hostile, { workspaceMax: 100 })).rejects.toThrow(
        /invalid input syntax for type uuid/,
      );
      // the whole pass, whose first read (runBeforePass) binds it as a parameter
      await expect(dispatchRun(tdb.db, queues, hostile)).rejects.toThrow(
        /invalid input syntax for type uuid/,
      );
    }
    expect(await tdb.db.run.count()).toBe(before);
  });
});

describe('the jobs of a pass', () => {
  it('puts each handed-out attempt on the queue once, its slot as priority; a finished leftover job is replaced, one on its way kept', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 4, maxConcurrentAttempts: 4 });
    await tdb.db.run.update({ where: { id: seeded.runId }, data: { status: 'running' } });
    const [onItsWay, leftover] = await tdb.db.attempt.findMany({
      where: { runId: seeded.runId },
      orderBy: { index: 'asc' },
      take: 2,
    });
    const data = (id: string) => ({ attemptId: id, runId: seeded.runId });
    // a job already waiting under one attempt's id (priority 99), and a completed one under another's
    await queues.attempt.add('attempt', data(onItsWay!.id), { jobId: onItsWay!.id, priority: 99 });
    await queues.attempt.add('attempt', data(leftover!.id), { jobId: leftover!.id, removeOnComplete: false });
    const events = new QueueEvents(queues.attempt.name, {
      connection: redis.duplicate(),
      prefix: queues.prefix,
    });
    const worker = new Worker(queues.attempt.name, async (job) => (job.id === leftover!.id ? 'old' : null), {
      connection: redis.duplicate(),
      prefix: queues.prefix,
      autorun: false,
    });
    await events.waitUntilReady();
    const completed = new Promise<void>((resolve) =>
      events.on('completed', ({ jobId }) => jobId === leftover!.id && resolve()),
    );
    // process the leftover only: take one job at a time until it is done
    await queues.attempt.remove(onItsWay!.id); // out of the worker's way for now
    void worker.run();
    await completed;
    await worker.close();
    await events.close();
    await queues.attempt.add('attempt', data(onItsWay!.id), { jobId: onItsWay!.id, priority: 99 });
    expect(await (await queues.attempt.getJob(leftover!.id))?.getState()).toBe('completed');

    const result = await dispatchRun(tdb.db, queues, seeded.runId);
    expect(result.dispatched).toHaveLength(4);
    const jobs = await Promise.all(result.dispatched.map((id) => queues.attempt.getJob(id)));
    expect(jobs.every((job) => job !== undefined)).toBe(true);
    const kept = await queues.attempt.getJob(onItsWay!.id);
    expect(kept?.opts.priority).toBe(99);
    const replaced = await queues.attempt.getJob(leftover!.id);
    expect(await replaced?.getState()).toBe('prioritized');
    expect(replaced?.returnvalue).toBeFalsy();
    // the others carry their slots: slot in the run plus slot in the workspace (2, 4, 6, 8)
    const priorities = jobs.filter((j) => j?.id !== onItsWay!.id).map((j) => j?.opts.priority);
    expect(priorities.every((p) => typeof p === 'number' && [2, 4, 6, 8].includes(p))).toBe(true);
  });
});
