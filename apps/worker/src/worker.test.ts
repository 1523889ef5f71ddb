// The dispatcher, leases, retries and stop with an injected fake executor (no Docker), against
// real Postgres and Redis.
import { createQueues, createRedis } from '@osmosis/queues';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/db.ts';
import { TEST_REDIS_URL, testQueuePrefix } from '../../../test/helpers/redis.ts';
import { patience } from '../../../test/helpers/wait.ts';
import { ConfigError, loadWorkerConfig, type WorkerConfig, workerConfig } from './config.ts';
import { dispatchRun } from './dispatch/dispatch.ts';
import { finalizeAttempt } from './dispatch/finalize.ts';
import { acquireLease } from './dispatch/lease.ts';
import type { AttemptExecutor } from './executor.ts';
import { fakeExecutor, type HeldRow, holdRow, seedRun, waitFor } from './testing/fixtures.ts';
import { type RunningWorker, startWorker } from './worker.ts';

let tdb: TestDatabase;
beforeAll(async () => {
  tdb = await createTestDatabase();
});
afterAll(async () => {
  await tdb?.drop();
});

function config(over: Partial<WorkerConfig> = {}): WorkerConfig {
  return workerConfig({
    databaseUrl: tdb.url,
    redisUrl: TEST_REDIS_URL,
    queuePrefix: testQueuePrefix(),
    workerId: `w-${Math.random().toString(36).slice(2, 8)}`,
    concurrency: 4,
    leaseMs: 3000,
    heartbeatMs: 200,
    reconcileMs: 500,
    retryBackoffMs: 100,
    drainMs: 0,
    ...over,
  });
}

const quiet = pino({ level: process.env.WORKER_TEST_LOG ?? 'warn' });
function start(cfg: WorkerConfig, executor: AttemptExecutor) {
  return startWorker(cfg, {
    executor,
    reaper: null,
    db: tdb.db,
    logger: quiet,
    taskFiles: async () => '/nonexistent',
  });
}

async function runStatus(runId: string) {
  return (await tdb.db.run.findUniqueOrThrow({ where: { id: runId } })).status;
}

/** Dispatches the run and waits for it to finish, then stops `sampler` and closes the worker. */
async function runToTheEnd(worker: RunningWorker, runId: string, sampler: NodeJS.Timeout): Promise<void> {
  try {
    await worker.context.queues.runDispatch.add('dispatch', { runId });
    await waitFor(async () => (await runStatus(runId)) === 'finished', 60_000);
  } finally {
    clearInterval(sampler);
    await worker.close();
  }
}

describe('worker config', () => {
  it('reads the environment and names a bad variable', () => {
    const ok = loadWorkerConfig({ OSMOSIS_WORKER_CONCURRENCY: '3', OSMOSIS_WORKER_ID: 'w1' });
    expect(ok.concurrency).toBe(3);
    expect(ok.workerId).toBe('w1');
    expect(() => loadWorkerConfig({ OSMOSIS_WORKER_CONCURRENCY: 'lots', REDIS_URL: 'http://x' })).toThrow(
      ConfigError,
    );
    try {
      loadWorkerConfig({ OSMOSIS_WORKER_CONCURRENCY: '0' });
    } catch (error) {
      expect((error as Error).message).toMatch(/OSMOSIS_WORKER_CONCURRENCY="0"/);
    }
  });
  it('defaults the worker id to hostname-pid', () => {
    expect(loadWorkerConfig({}).workerId).toMatch(new RegExp(`-${process.pid}$`));
  });
});

describe('dispatch', () => {
  it('runs every attempt once, never more than max_concurrent_attempts at a time', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 4, attemptsPerTask: 2, maxConcurrentAttempts: 3 });
    const fake = fakeExecutor({ durationMs: 200, holdUntilRunning: 3 });
    const cfg = config({ concurrency: 8 });
    const worker = await start(cfg, fake.executor);
    const samples: number[] = [];
    const sampler = setInterval(async () => {
      const n = await tdb.db.attempt.count({
        where: {
          runId: seeded.runId,
          OR: [{ status: 'running' }, { status: 'queued', dispatchedAt: { not: null } }],
        },
      });
      samples.push(n);
    }, 20);
    await runToTheEnd(worker, seeded.runId, sampler);
    expect(fake.state.calls).toHaveLength(8);
    expect(new Set(fake.state.calls.map((c) => c.attemptId)).size).toBe(8);
    expect(fake.state.maxRunningByRun.get(seeded.runId)).toBe(3);
    expect(Math.max(...samples)).toBeLessThanOrEqual(3);
    const attempts = await tdb.db.attempt.findMany({ where: { runId: seeded.runId } });
    expect(attempts.every((a) => a.status === 'finished' && a.outcome === 'passed' && a.tryCount === 1)).toBe(
      true,
    );
    const events = await tdb.db.runEvent.findMany({ where: { runId: seeded.runId }, orderBy: { id: 'asc' } });
    expect(events.map((e) => e.step)).toContain('run.running');
    expect(events.at(-1)?.step).toBe('run.finished');
    expect(events.filter((e) => e.step === 'attempt.finished')).toHaveLength(8);
  });

  it("tops a run up from its results' batched passes, with no reconciler sweep to fall back on", async () => {
    // 40 attempts, 8 at a time: the backlog runs low (a quarter of the limit) again and again, and
    // each time a result takes its workspace's refill turn for the window (dispatch/refill-turns.ts)
    // and the workspace's pass tops the run up
    const seeded = await seedRun(tdb.db, { tasks: 20, attemptsPerTask: 2, maxConcurrentAttempts: 8 });
    const fake = fakeExecutor({ durationMs: 50 });
    const cfg = config({ concurrency: 8, reconcileMs: 600_000 });
    const worker = await start(cfg, fake.executor);
    const redis = createRedis(TEST_REDIS_URL);
    const turns = new Set<string>();
    const sampler = setInterval(async () => {
      for (const key of await redis.keys(`${cfg.queuePrefix}:refill-turn:${seeded.workspaceId}:*`))
        turns.add(key);
    }, 20);
    await runToTheEnd(worker, seeded.runId, sampler).finally(() => redis.disconnect());
    expect(new Set(fake.state.calls.map((c) => c.attemptId)).size).toBe(40);
    expect(fake.state.calls).toHaveLength(40);
    expect(fake.state.maxRunningByRun.get(seeded.runId)).toBeLessThanOrEqual(8);
    expect(turns.size).toBeGreaterThan(0);
  });

  it("asks again for a top-up whose pass found the workspace's row held, instead of waiting in line for it", async () => {
    const seeded = await seedRun(tdb.db, { tasks: 20, attemptsPerTask: 2, maxConcurrentAttempts: 8 });
    const fake = fakeExecutor({ durationMs: 50 });
    // no reconciler sweep to fall back on: only the top-up passes refill the run
    const worker = await start(config({ concurrency: 8, reconcileMs: 600_000 }), fake.executor);
    let held: HeldRow | undefined;
    try {
      await worker.context.queues.runDispatch.add('dispatch', { runId: seeded.runId });
      await waitFor(() => fake.state.calls.length >= 8);
      // another run's pass or an API update holds the workspace's row for longer than the run's
      // backlog lasts: every top-up of that time finds it held
      held = holdRow(tdb.db, 'workspaces', seeded.workspaceId);
      await held.held;
      await new Promise((r) => setTimeout(r, 1_500));
      const duringHold = fake.state.calls.length;
      held.release();
      await held.done;
      await waitFor(async () => (await runStatus(seeded.runId)) === 'finished', 60_000);
      expect(duringHold).toBeLessThan(40);
    } finally {
      held?.release();
      await worker.close();
    }
    expect(new Set(fake.state.calls.map((c) => c.attemptId)).size).toBe(40);
    expect(fake.state.calls).toHaveLength(40);
  });

  it('shares workers fairly: a small run submitted later is not starved by a big one', async () => {
    const big = await seedRun(tdb.db, { tasks: 16, maxConcurrentAttempts: 8 });
    const small = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 2 });
    const fake = fakeExecutor({ durationMs: 100 });
    const worker = await start(config({ concurrency: 2 }), fake.executor);
    try {
      await worker.context.queues.runDispatch.add('dispatch', { runId: big.runId });
      await waitFor(() => fake.state.calls.length >= 1);
      await worker.context.queues.runDispatch.add('dispatch', { runId: small.runId });
      await waitFor(
        async () =>
          (await runStatus(big.runId)) === 'finished' && (await runStatus(small.runId)) === 'finished',
      );
    } finally {
      await worker.close();
    }
    const order = fake.state.calls.map((c) => (c.runId === small.runId ? 'S' : 'B')).join('');
    // the small run's attempts start among the first few, not after the big run's 16
    const lastSmall = order.lastIndexOf('S');
    expect(lastSmall).toBeLessThan(8);
    expect(order.replace(/B/g, '')).toBe('SS');
  });

  it("marks the run running before its first execution begins when that start found the run's row held", async () => {
    const seeded = await seedRun(tdb.db, { tasks: 1, maxConcurrentAttempts: 1 });
    const cfg = config({ concurrency: 1 });
    const queues = createQueues(createRedis(TEST_REDIS_URL), cfg.queuePrefix);
    // handed out first, then a pass (or a stop) holds the run's row while a worker claims it
    await dispatchRun(tdb.db, queues, seeded.runId);
    await queues.close();
    const run = holdRow(tdb.db, 'runs', seeded.runId);
    await run.held;
    // what the run's row said when the execution began (a sandbox up, a worker killed then: the
    // run must not stay `queued` with nobody left to mark it)
    const statusAtStart: string[] = [];
    const worker = await start(cfg, async () => {
      statusAtStart.push(await runStatus(seeded.runId));
      return { outcome: 'passed', reward: 1 };
    });
    try {
      await waitFor(
        async () => (await tdb.db.attempt.count({ where: { runId: seeded.runId, status: 'running' } })) === 1,
      );
      await new Promise((r) => setTimeout(r, 500));
      expect(statusAtStart).toEqual([]);
      run.release();
      await run.done;
      await waitFor(async () => (await runStatus(seeded.runId)) === 'finished');
    } finally {
      run.release();
      await worker.close();
    }
    expect(statusAtStart).toEqual(['running']);
  });

  it('honours not_before of a retry and keeps each errored try in history', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 1, maxRetries: 2 });
    let n = 0;
    const fake = fakeExecutor({
      durationMs: 10,
      result: () =>
        ++n <= 2
          ? { outcome: 'errored', errorClass: 'environment_build', errorMessage: `build broke ${n}` }
          : { outcome: 'passed', reward: 1 },
    });
    const worker = await start(config({ retryBackoffMs: 200 }), fake.executor);
    try {
      await worker.context.queues.runDispatch.add('dispatch', { runId: seeded.runId });
      await waitFor(async () => (await runStatus(seeded.runId)) === 'finished');
    } finally {
      await worker.close();
    }
    const attempt = await tdb.db.attempt.findFirstOrThrow({ where: { runId: seeded.runId } });
    expect(attempt.outcome).toBe('passed');
    expect(attempt.tryCount).toBe(3);
    const history = attempt.history as { error_class: string; error_message: string }[];
    expect(history.map((h) => h.error_message)).toEqual(['build broke 1', 'build broke 2']);
    // backoff: 200 ms then 400 ms between tries
    const starts = fake.state.calls.map((c) => c.startedAt);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(180);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(380);
  });

  it('ends errored after max_retries, and fails a run whose every environment failed', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 2, maxRetries: 1 });
    const fake = fakeExecutor({
      durationMs: 5,
      result: () => ({
        outcome: 'errored',
        errorClass: 'environment_build',
        errorMessage: 'no such base image',
      }),
    });
    const worker = await start(config({ retryBackoffMs: 0 }), fake.executor);
    try {
      await worker.context.queues.runDispatch.add('dispatch', { runId: seeded.runId });
      await waitFor(async () => (await runStatus(seeded.runId)) === 'failed');
    } finally {
      await worker.close();
    }
    expect(fake.state.calls).toHaveLength(4);
    const attempts = await tdb.db.attempt.findMany({ where: { runId: seeded.runId } });
    expect(attempts.every((a) => a.outcome === 'errored' && a.errorClass === 'environment_build')).toBe(true);
    expect(attempts.every((a) => (a.history as unknown[]).length === 1)).toBe(true);
    const run = await tdb.db.run.findUniqueOrThrow({ where: { id: seeded.runId } });
    expect(run.errorMessage).toMatch(/failed to build or start/);
  });
});

describe('leases', () => {
  it('discards the result of an execution whose lease was taken over (fencing)', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 1 });
    const attemptId = seeded.attemptIds[0]!;
    const a = { workerId: 'worker-a', leaseMs: 1000 };
    const b = { workerId: 'worker-b', leaseMs: 1000 };
    // only dispatched attempts can be leased
    expect(await acquireLease(tdb.db, attemptId, a)).toEqual({ kind: 'skipped', reason: 'not dispatched' });
    await tdb.db.attempt.update({ where: { id: attemptId }, data: { dispatchedAt: new Date() } });
    const first = await acquireLease(tdb.db, attemptId, a);
    expect(first).toMatchObject({ kind: 'acquired', token: 1 });
    // b cannot take a live lease
    expect((await acquireLease(tdb.db, attemptId, b)).kind).toBe('skipped');
    // a stalls past its lease; b takes over
    await tdb.db.attempt.update({
      where: { id: attemptId },
      data: { leaseExpiresAt: new Date(Date.now() - 1) },
    });
    const second = await acquireLease(tdb.db, attemptId, b);
    expect(second).toMatchObject({ kind: 'acquired', token: 2 });
    const opts = { retryBackoffMs: 0, startedAt: new Date() };
    const stale = await finalizeAttempt(
      tdb.db,
      attemptId,
      1,
      { outcome: 'failed', reward: 0 },
      { ...a, ...opts },
    );
    expect(stale.kind).toBe('stale');
    const fresh = await finalizeAttempt(
      tdb.db,
      attemptId,
      2,
      { outcome: 'passed', reward: 1 },
      { ...b, ...opts },
    );
    expect(fresh).toMatchObject({ kind: 'written', outcome: 'passed', runStatus: 'finished' });
    // and a late duplicate of b's own write changes nothing
    expect((await finalizeAttempt(tdb.db, attemptId, 2, { outcome: 'failed' }, { ...b, ...opts })).kind).toBe(
      'stale',
    );
    const attempt = await tdb.db.attempt.findUniqueOrThrow({ where: { id: attemptId } });
    expect(attempt).toMatchObject({
      outcome: 'passed',
      reward: 1,
      tryCount: 2,
      leaseToken: 2,
      status: 'finished',
    });
  });
});

describe('stop and shutdown', () => {
  let worker: RunningWorker | undefined;
  afterAll(async () => {
    await worker?.close();
  });

  it('aborts running attempts of a stopped run within the heartbeat and runs nothing afterwards', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 6, maxConcurrentAttempts: 2 });
    const fake = fakeExecutor({ durationMs: 60_000 });
    worker = await start(config(), fake.executor);
    await worker.context.queues.runDispatch.add('dispatch', { runId: seeded.runId });
    await waitFor(() => fake.state.running.size === 2);
    const stoppedAt = Date.now();
    await tdb.db.$transaction([
      tdb.db.run.update({ where: { id: seeded.runId }, data: { status: 'stopped', finishedAt: new Date() } }),
      tdb.db.attempt.updateMany({
        where: { runId: seeded.runId, status: 'queued' },
        data: { status: 'cancelled', outcome: 'cancelled' },
      }),
    ]);
    await waitFor(() => fake.state.running.size === 0, 5000);
    // stopped by the abort, not by the fake's 60 s ending
    expect(fake.state.calls.every((c) => c.aborted)).toBe(true);
    expect(Date.now() - stoppedAt).toBeLessThan(patience(5000));
    await waitFor(
      async () => (await tdb.db.attempt.count({ where: { runId: seeded.runId, status: 'running' } })) === 0,
    );
    await new Promise((r) => setTimeout(r, 700)); // a reconciler pass
    expect(fake.state.calls).toHaveLength(2);
    const attempts = await tdb.db.attempt.findMany({ where: { runId: seeded.runId } });
    expect(attempts.every((a) => a.status === 'cancelled' && a.outcome === 'cancelled')).toBe(true);
    expect(await runStatus(seeded.runId)).toBe('stopped');
    await worker.close();
  });

  it('releases in-flight attempts on shutdown so another worker re-runs them', async () => {
    const seeded = await seedRun(tdb.db, { tasks: 2, maxConcurrentAttempts: 2 });
    const slow = fakeExecutor({ durationMs: 60_000 });
    const prefix = testQueuePrefix();
    const first = await start(config({ queuePrefix: prefix }), slow.executor);
    await first.context.queues.runDispatch.add('dispatch', { runId: seeded.runId });
    await waitFor(() => slow.state.running.size === 2);
    await first.close();
    expect(slow.state.calls.every((c) => c.aborted)).toBe(true);
    const released = await tdb.db.attempt.findMany({ where: { runId: seeded.runId } });
    expect(released.every((a) => a.status === 'queued' && a.leaseOwner === null && a.tryCount === 0)).toBe(
      true,
    );
    const quick = fakeExecutor({ durationMs: 10 });
    const second = await start(config({ queuePrefix: prefix }), quick.executor);
    try {
      await waitFor(async () => (await runStatus(seeded.runId)) === 'finished');
    } finally {
      await second.close();
    }
    expect(quick.state.calls).toHaveLength(2);
    const done = await tdb.db.attempt.findMany({ where: { runId: seeded.runId } });
    expect(done.every((a) => a.outcome === 'passed' && a.tryCount === 1)).toBe(true);
  });
});

describe('health queue', () => {
  it('completes health jobs', async () => {
    const cfg = config();
    const worker = await start(cfg, fakeExecutor().executor);
    const redis = createRedis(TEST_REDIS_URL);
    const queues = createQueues(redis, cfg.queuePrefix);
    try {
      const job = await queues.health.add('ping', { sentAt: new Date().toISOString() });
      await waitFor(async () => (await job.getState()) === 'completed');
    } finally {
      await queues.close();
      redis.disconnect();
      await worker.close();
    }
  });
});
